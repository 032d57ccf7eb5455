// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The HIP fat binary wrappers of a linked ELF file: how the HIP runtime finds
// each translation unit's bundle in an executable or shared library.
//
// clang gives every HIP translation unit one wrapper in .hipFatBinSegment,
// which __hipRegisterFatBinary receives:
//
//   magic     u32   0x48495046 ("HIPF" read as a little-endian u32)
//   version   u32   1
//   binary    ptr   the address of the unit's bundle in .hip_fatbin
//   reserved  ptr   0 (the wrapper's index after ROCm's kpack tool)
//
// 24 bytes each on 64-bit targets. In a position-independent file the
// linker leaves `binary` to a dynamic relocation, R_X86_64_RELATIVE (8) or
// R_AARCH64_RELATIVE (1027) in a SHT_RELA section, whose addend is the
// address; elsewhere the address is stored in the field itself.
//
// Read here: 64-bit little-endian files with section headers. Wrappers are
// reported as found; judging them (is the magic right, does the pointer
// reach a bundle) is the caller's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

class ElfObject; // formats/elf/elf_object.h

inline constexpr uint32_t kHipWrapperMagic = 0x48495046;
inline constexpr uint64_t kHipWrapperSize = 24;
inline constexpr uint64_t kHipWrapperVersionOffset = 4;
inline constexpr uint64_t kHipWrapperBinaryOffset = 8;
inline constexpr uint64_t kHipWrapperReservedOffset = 16;

struct HipWrapper {
  uint64_t address = 0; // where the wrapper is
  uint32_t magic = 0;
  uint32_t version = 0;
  uint64_t binary = 0; // the address its pointer holds once relocated
  // The last field, 0 from clang; ROCm's kpack tool stores the wrapper's
  // index there (formats/kpack/kpack_marker.h).
  uint64_t reserved = 0;
};

struct HipWrappers {
  // The .hip_fatbin section's addresses, [fatbinStart, fatbinEnd).
  uint64_t fatbinStart = 0;
  uint64_t fatbinEnd = 0;
  // Where .hip_fatbin starts in the file.
  uint64_t fatbinOffset = 0;
  std::vector<HipWrapper> wrappers;
};

// The wrappers of a linked ELF file. Nothing when the file is not a 64-bit
// little-endian ELF file with program headers, or has no .hipFatBinSegment
// or no .hip_fatbin. An Error when the sections it reads lie outside the
// file, .hipFatBinSegment is not a whole number of wrappers, or
// .hip_fatbin's addresses wrap around.
// The first form reads an object already parsed; the second parses
// `bytes` first (nothing when they are not ELF).
Result<std::optional<HipWrappers>> readHipWrappers(const ElfObject &object);
Result<std::optional<HipWrappers>> readHipWrappers(std::string_view bytes);

} // namespace offbundle
