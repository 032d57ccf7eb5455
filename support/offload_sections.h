// The names of the sections that carry GPU code, declared once for every
// layer that looks for them: clang's old offloading driver puts bundles in
// .hip_fatbin and the runtime's registration wrappers in .hipFatBinSegment;
// the new driver puts offload binaries in .llvm.offloading (ELF, COFF and
// the bitcode global of that name alike).
#pragma once

#include <string_view>

namespace offbundle {

inline constexpr std::string_view kHipFatbinSection = ".hip_fatbin";
inline constexpr std::string_view kHipWrapperSection = ".hipFatBinSegment";
inline constexpr std::string_view kLlvmOffloadingSection = ".llvm.offloading";

} // namespace offbundle
