// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How each kind of host file (formats/host_kinds.h) is rewritten: a row per
// kind, in the order of HostKind, checked complete at compile time. The
// editors themselves live in a folder per format (elf/, coff/); a file that
// is no host of bundles is rewritten as a bundle, which refuses anything
// else with one line.
#pragma once

#include <string>
#include <string_view>

#include "formats/host_kinds.h"
#include "rewrite/bundle_rewriter.h"

namespace offbundle::rewriting {

// The file's new contents as a plan over `bytes`, its old ones.
using HostEditor = Result<OutputPlan> (*)(const std::string &file,
                                          std::string_view bytes,
                                          BundleRewriter &rewriter);

struct HostEditorRow {
  HostKind kind;
  HostEditor edit;
};

const HostEditorRow &hostEditor(HostKind kind);

} // namespace offbundle::rewriting
