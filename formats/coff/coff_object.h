// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// COFF object files (Windows targets), read only as far as finding sections
// by name: clang puts offload binaries for Windows hosts in a section named
// `.llvm.offloading`, which LLVM's extractOffloadBinaries finds by its name
// (COFF has no section types).
//
//   file header (20 bytes)  machine (u16), section count (u16), time stamp,
//                           symbol table offset (u32), symbol count (u32),
//                           optional header size (u16), characteristics
//   section headers (40 bytes each, after the optional header)
//                           name (8 bytes, or "/<decimal>" into the string
//                           table), virtual size and address, raw data size
//                           (u32), raw data offset (u32), ...
//   string table            after the symbols (18 bytes each): its size
//                           (u32, counting itself), then the names
//
// PE images (DLLs and EXEs) put the same file header after a DOS stub: the
// stub's u32 at 0x3c is the offset of "PE\0\0", which the file header
// follows. Their section names have at most 8 characters (lld-link cuts
// longer ones: .hip_fatbin becomes .hip_fat), and a section's raw data is
// padded to the file alignment, so only its virtual size is its contents.
//
// Every offset and size is checked against the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

struct CoffSection {
  std::string name;
  std::string_view contents;   // a view into the file's bytes
  uint64_t fileOffset = 0;     // where the contents start in the file
  uint64_t virtualAddress = 0; // images: the section's address (an RVA)
  uint64_t virtualSize = 0;
  uint64_t rawSize = 0;      // SizeOfRawData as stored
  uint64_t headerOffset = 0; // where the section's header is in the file
  uint32_t characteristics = 0;
};

// The sections of a COFF object, in the order of the section table.
Result<std::vector<CoffSection>> readCoffSections(std::string_view bytes);

// The sections of a PE image, in the order of the section table.
Result<std::vector<CoffSection>> readPeImageSections(std::string_view bytes);

} // namespace offbundle
