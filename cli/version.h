// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What --version prints. The LLVM release we are compatible with comes
// first, so scripts that parse the version find the number they expect.
#pragma once

#include <string>

namespace offbundle {

inline constexpr const char *kCompatibleLlvmVersion = "22.1.8";
inline constexpr const char *kOffbundleVersion = "0.1.0";
// llvm-extract-bundle-entry first appeared in LLVM 23, whose behaviour it
// follows.
inline constexpr const char *kExtractBundleEntryLlvmVersion = "23";

inline std::string bundlerVersionText() {
  return std::string("offbundle clang-offload-bundler version ") +
         kCompatibleLlvmVersion + " (offbundle " + kOffbundleVersion + ")\n";
}

} // namespace offbundle
