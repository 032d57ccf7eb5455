// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The names of the sections that carry GPU code, declared once for every
// layer that looks for them: clang's old offloading driver puts bundles in
// .hip_fatbin and the runtime's registration wrappers in .hipFatBinSegment;
// the new driver puts offload binaries in .llvm.offloading (ELF, COFF and
// the bitcode global of that name alike). PE images keep 8 characters of a
// section's name, so lld-link's DLLs and EXEs name them .hip_fat, .hipFatB
// and .llvm.of.
#pragma once

#include <string_view>

namespace offbundle {

inline constexpr std::string_view kHipFatbinSection = ".hip_fatbin";
inline constexpr std::string_view kHipWrapperSection = ".hipFatBinSegment";
inline constexpr std::string_view kLlvmOffloadingSection = ".llvm.offloading";

// A section name as a PE image holds it.
inline constexpr std::string_view peImageSectionName(std::string_view name) {
  return name.substr(0, 8);
}

} // namespace offbundle
