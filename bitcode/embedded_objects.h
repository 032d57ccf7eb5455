// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The objects clang embeds in LLVM bitcode for the `.llvm.offloading`
// section: when a host module is kept as bitcode (-emit-llvm, -flto), the
// offload binaries are the initializer of a private global, and the named
// metadata `llvm.embedded.objects` lists (global, section name) pairs.
// LLVM's extractOffloadBinaries reads them from the IR; this reads the same
// globals from the bitcode records, without LLVM.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

struct EmbeddedObject {
  // The global's name ("llvm.embedded.object"), for messages.
  std::string globalName;
  // The bytes of its initializer (a constant data array).
  std::shared_ptr<const std::string> contents;
};

// Every global that `llvm.embedded.objects` places in the section
// ".llvm.offloading" and whose initializer is constant data, in the
// metadata's order. A module without that metadata has none.
Result<std::vector<EmbeddedObject>>
findEmbeddedOffloadingObjects(std::string_view bitcode);

} // namespace offbundle
