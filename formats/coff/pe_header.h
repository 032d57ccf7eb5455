// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where a PE image's headers start: the one reader of the DOS stub's pointer
// that every PE reader shares (file_magic.h tells images apart by it,
// coff_object.h reads their sections, pe_hip_wrappers.h their optional
// header, coff_symbols.h their symbols).
//
//   0x00  "MZ" and the rest of the DOS header
//   0x3c  u32: the offset of the PE signature
//   ...   the DOS stub program
//   sig   "PE\0\0", then the COFF file header (20 bytes), the optional
//         header, and the section table
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace offbundle {

// The DOS header's size as far as the pointer reaches.
inline constexpr uint64_t kDosHeaderSize = 0x40;

// The offset of the COFF file header that follows "PE\0\0", when the DOS
// header is whole and the signature lies where it points; nothing
// otherwise. Whether the file starts with "MZ" is the caller's to check.
std::optional<uint64_t> peFileHeaderOffset(std::string_view bytes);

} // namespace offbundle
