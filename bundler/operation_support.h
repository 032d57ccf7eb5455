// Pieces the operations share: choosing the reader for a container.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "bundler/config.h"
#include "bundler/error.h"
#include "formats/bundle_format.h"

namespace offbundle {

Error unsupportedObject(const std::string &path);

// Picks the reader for a container's bytes, after the -type value has been
// checked. `commandLog` receives the commands --### prints (fat objects).
Result<std::unique_ptr<BundleReader>> openReader(const ContainerChoice &choice,
                                                 std::string_view contents,
                                                 const std::string &path,
                                                 const BundlerConfig &config,
                                                 std::string &commandLog);

} // namespace offbundle
