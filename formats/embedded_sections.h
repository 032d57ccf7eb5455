// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where GPU code sits inside linked ELF files and host objects:
//
//   .hip_fatbin        clang's HIP fat binary: one offload bundle per
//                      translation unit (binary bundles, or compressed ones
//                      with --offload-compress). Each object's section is
//                      4096-byte aligned, so once the linker has merged them
//                      the bundles lie end to end with zero padding between.
//   .llvm.offloading   offload binaries (0x10FF10AD) from clang's new
//                      offloading driver, end to end, 8-byte aligned.
//
// Neither kind of data records its own total length in a way a linker
// keeps, so a section is split by reading each element's extent from its
// header: the furthest payload of a binary bundle, the total size of a
// compressed bundle (format versions 2 and 3), the size field of an offload
// binary. Zero bytes between elements are padding. Anything else is refused:
// offsets are checked, nothing is guessed by searching for magic bytes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/coff/coff_object.h"
#include "formats/elf/elf_object.h"
#include "formats/file_magic.h"
#include "support/error.h"
#include "support/offload_sections.h"

namespace offbundle {

// A section holding offload data, in the order of the section table.
struct OffloadDataSection {
  std::string_view name;
  uint64_t fileOffset = 0;
  std::string_view bytes;
};

// The .hip_fatbin and .llvm.offloading sections of an ELF file that occupy
// bytes of the file.
std::vector<OffloadDataSection> findOffloadDataSections(const ElfObject &elf);

// The same sections of a COFF object or PE image (readCoffSections,
// readPeImageSections), under their full names or, in images, cut to 8
// characters.
std::vector<OffloadDataSection>
findOffloadDataSections(const std::vector<CoffSection> &sections);

// One element of a run of offload data.
struct OffloadDataElement {
  // BinaryBundle, CompressedBundle or OffloadBinary.
  FileMagic kind = FileMagic::Unknown;
  // Where it starts in the bytes given to splitOffloadData.
  uint64_t offset = 0;
  // Exactly its bytes.
  std::string_view bytes;
};

// Splits bytes holding binary bundles, compressed bundles and offload
// binaries laid end to end, with any zero padding between and after them.
// A compressed bundle of format version 1, which has no total size, takes
// the rest. Errors name the offset of the element at fault.
Result<std::vector<OffloadDataElement>>
splitOffloadData(std::string_view bytes);

// Whether the bytes start with the magic of one of the three elements.
bool startsWithOffloadData(std::string_view bytes);

// The size of the bundle, plain or compressed, that starts `bytes`: a
// compressed bundle's recorded size (version 1: the rest), a plain one's
// extent from its header. An Error when no bundle starts there or its
// header is damaged.
Result<uint64_t> offloadBundleExtent(std::string_view bytes);

} // namespace offbundle
