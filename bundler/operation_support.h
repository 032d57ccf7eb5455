// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Pieces the operations share: choosing the reader for a container.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bundler/config.h"
#include "compression/compressed_bundle.h"
#include "formats/bundle_format.h"
#include "formats/container_format.h"
#include "support/error.h"
#include "targets/offload_target.h"

namespace offbundle {

Error unsupportedObject(const std::string &path);

// Picks the reader for a container's bytes, after the -type value has been
// checked. `commandLog` receives the commands -### prints for fat objects,
// which name `commandInput` as their input.
Result<std::unique_ptr<BundleReader>>
openReader(const ContainerChoice &choice, std::string_view contents,
           const std::string &path, const OutputConfig &output,
           const std::string &commandInput, std::string &commandLog);

// A reader of a partly decompressed binary bundle of `fullSize` bytes, whose
// `prefix` holds every entry the caller may take; errors name `path`.
Result<std::unique_ptr<BundleReader>>
openPartialBundle(std::string_view prefix, uint64_t fullSize,
                  const std::string &path);

} // namespace offbundle
