// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The AMDGPU processor an ELF code object is built for: the low byte of its
// e_flags (EF_AMDGPU_MACH), one value per processor, as LLVM's
// llvm/include/llvm/BinaryFormat/ELF.h numbers them (EF_AMDGPU_MACH_AMDGCN_*,
// LLVM 22). Values LLVM marks reserved name no processor.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace offbundle {

inline constexpr uint16_t kElfMachineAmdgpu = 224; // EM_AMDGPU
inline constexpr uint32_t kElfAmdgpuMachMask = 0xff;

// The processor ("gfx906", "gfx9-generic") of an EF_AMDGPU_MACH value.
std::optional<std::string_view> processorOfAmdgpuMach(uint32_t mach);

// The EF_AMDGPU_MACH value of a processor name, as above.
std::optional<uint32_t> amdgpuMachOfProcessor(std::string_view processor);

} // namespace offbundle
