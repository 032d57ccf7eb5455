// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The archive symbols of XCOFF members, as LLVM 22's archive writer lists
// them through XCOFFObjectFile (in a GNU archive, not an AIX big archive).
//
// XCOFF object, big-endian, 32-bit (magic 0x01df) or 64-bit (0x01f7):
//   file header, 20 bytes (24 in 64-bit files): magic (u16), section count
//                           (u16), time stamp (u32), then in 32-bit files
//                           the symbol table offset (u32), symbol count
//                           (i32), optional header size (u16), flags (u16);
//                           in 64-bit files the symbol table offset (u64),
//                           optional header size, flags, symbol count (u32)
//   optional header:        of the size the file header gives
//   section headers:        40 bytes (72 in 64-bit files) each; LLVM
//                           checks that they lie in the file, and the
//                           archive writer reads no more of them
//   symbol table:           18-byte entries; a symbol entry is followed by
//                           its auxiliary entries (count at offset 17):
//     32-bit symbol:        name (8 bytes, or zero then a string table
//                           offset), value (u32), section number (i16),
//                           type (u16), storage class (u8), aux count (u8)
//     64-bit symbol:        value (u64), string table offset (u32), section
//                           number, type, storage class, aux count
//     csect auxiliary entry: section length, parameter hash, section hash,
//                           symbol type (low 3 bits of the byte at offset
//                           10: XTY_ER 0, XTY_SD 1, XTY_LD 2, XTY_CM 3),
//                           mapping class; in 64-bit files the auxiliary
//                           type at offset 17 is AUX_CSECT (251)
//   string table:           right after the symbol table: its size (u32,
//                           the size field included), then NUL-terminated
//                           names
//
//   Symbols of storage class C_EXT (2), C_WEAKEXT (111) and C_HIDEXT (107)
//   are csect symbols: LLVM reads the csect auxiliary entry of each (the
//   last one in 32-bit files, the last of type AUX_CSECT in 64-bit files)
//   to compute the symbol's flags. A symbol is an archive symbol when it is
//   C_EXT or C_WEAKEXT and defined (section number not 0: common symbols,
//   XTY_CM in .bss, count; with section number 0 LLVM calls a symbol
//   undefined even when XTY_CM); visibility (hidden included) does not
//   matter. clang lists a
//   function both as its entry point (".f", a label in .text) and as its
//   descriptor ("f", in .data), and LLVM takes both.
//
//   Nothing else matters to LLVM here: auxiliary (optional) headers, section
//   types and flags (.tdata, .tbss, DWARF, .except, .info, .loader,
//   .typchk, .ovrflo, ...), executables and shared objects, symbols of
//   other storage classes (C_STAT, C_FILE, C_DWARF, C_GSYM, debug classes)
//   and visibility bits are read the same way.
//
// A file XCOFFObjectFile::create() fails on fails with LLVM's message: a
// file header, optional header, section headers, symbol table or string
// table past the end of the file, a string table without its final NUL. A
// negative 32-bit symbol count means no symbol table, as in LLVM.
// Refused with an error of ours (where LLVM 22 stops with a fatal error or
// reads past the symbol table): auxiliary entries past the symbol table, a
// csect symbol without a csect auxiliary entry or whose name is outside the
// string table; the refusal quotes LLVM's message where it has one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

// The archive symbols of a member identify_magic() calls an XCOFF object
// (32 or 64-bit), in symbol table order.
Result<std::vector<std::string>> xcoffArchiveSymbols(std::string_view bytes);

} // namespace offbundle
