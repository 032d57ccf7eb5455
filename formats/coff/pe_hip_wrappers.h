// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The HIP fat binary wrappers of a PE image (a DLL or EXE from lld-link):
// how the HIP runtime finds each translation unit's bundle on Windows.
//
// clang gives every HIP translation unit one wrapper in .hipFatBinSegment,
// which an image names .hipFatB (8 characters); it has the layout of
// formats/elf/hip_wrappers.h: magic "HIPF" (u32), version (u32), the
// address of the unit's bundle (u64), an unused u64. The address is a
// virtual address, ImageBase plus the bundle's RVA in .hip_fat, and, as the
// loader may put the image elsewhere, a base relocation (IMAGE_REL_BASED_
// DIR64, type 10) names the pointer's RVA so that the loader adjusts it.
//
// The optional header holds ImageBase (u64 at 24 in PE32+, whose magic is
// 0x20b; u32 at 28 in PE32, 0x10b) and the data directories (at 112 in
// PE32+, 96 in PE32; 8 bytes each: RVA and size); the sixth is the base
// relocation table: blocks of a page RVA (u32), the block's size (u32,
// counting these 8 bytes), then u16 entries, the type in the top 4 bits and
// the offset in the page in the low 12. Facts from the PE format's
// specification and LLVM's llvm/Object/COFF.h.
//
// Wrappers are reported as found; judging them is the caller's.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/coff/coff_object.h"
#include "formats/elf/hip_wrappers.h"
#include "support/error.h"

namespace offbundle {

// The fields of a PE image a rewrite of .hip_fat changes, by where they are
// in the file.
struct PeLayout {
  uint64_t fileAlignment = 0;
  uint64_t initializedDataField = 0; // SizeOfInitializedData (u32)
  uint64_t checksumField = 0;        // CheckSum (u32)
  uint32_t checksum = 0;
  uint64_t symbolTableField = 0; // PointerToSymbolTable (u32)
  uint64_t symbolTable = 0;
  // The certificate table (signatures) and the debug directory entries'
  // PointerToRawData fields (file offsets) with their values.
  uint64_t certificateTableSize = 0;
  std::vector<std::pair<uint64_t, uint64_t>> debugDataFields;
  std::vector<CoffSection> sections;
  size_t fatbin = 0;  // .hip_fat's index in `sections`
  size_t segment = 0; // .hipFatB's index in `sections`
};

struct PeHipImage {
  // .hip_fat's virtual addresses and file offset, and each wrapper:
  // `address` its virtual address, `binary` its pointer as stored
  // (ImageBase-relative addresses, as the loader fixes them up).
  HipWrappers hip;
  // Whether the image can be moved (it has base relocations), and the RVAs
  // they name with a 64-bit fix-up.
  bool relocatable = false;
  std::set<uint64_t> relocated;
  uint64_t imageBase = 0;
  PeLayout layout;
};

// The wrappers of a PE image. Nothing when `bytes` are not a PE32+ image
// (HIP hosts are 64-bit) or it has no .hipFatB or no .hip_fat. An Error when
// the headers, sections or base relocations it reads lie outside the file, or
// .hipFatB is not a whole number of wrappers.
Result<std::optional<PeHipImage>> readPeHipWrappers(std::string_view bytes);

} // namespace offbundle
