// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The archive symbols of Mach-O members, as LLVM 22's archive writer lists
// them through MachOObjectFile.
//
// Mach-O file of any type identify_magic() names (object, executable,
// dylib, bundle, dSYM, kext, fileset, ...), 32 or 64-bit, either byte order
// (the magic 0xfeedface / 0xfeedfacf as read in the file's order says
// which); LLVM lists the symbols of every type alike:
//   header, 28 bytes (32 in 64-bit files): magic, cpu type, cpu subtype,
//                           file type, load command count, load commands'
//                           size, flags (u32 each; a reserved u32 in 64-bit)
//   load commands:          command (u32), size (u32, a multiple of 4, or of
//                           8 in 64-bit files), then the command's fields
//     LC_SEGMENT (1) / LC_SEGMENT_64 (0x19): segment (56 / 72 bytes, file
//                           offset and size at 32 / 40, section count at 48
//                           / 64), then 68 / 80-byte sections (address and
//                           size, offset, alignment, relocation offset and
//                           count, flags)
//     LC_SYMTAB (2), 24 bytes: symbol offset, count, string offset, size
//     LC_DYSYMTAB (0xb), 80 bytes: symbol index ranges and tables
//     the other commands: see below; the linkedit data commands (16 bytes)
//                           give a table's offset and size at 8 and 12
//   symbols:                nlist records, 12 bytes (16 in 64-bit files):
//                           name offset (u32), type (u8), section (u8),
//                           description (u16), value (u32 / u64)
//
//   A record is an archive symbol when its type has N_EXT (0x01), no stab
//   bits (0xe0), and is not undefined (N_UNDF with value 0; with a value it
//   is common, which counts). Private externs (N_PEXT with N_EXT) count;
//   weak definitions too. A name offset of 0 is an empty name; a name that
//   starts past the end of the file fails with LLVM's message.
//
// The file is checked as LLVM's MachOObjectFile constructor checks it, in
// its order and with its messages ("truncated or malformed object (...)"):
// the header and the load commands' extent, each command's size (a
// multiple of 8, or 4 in 32-bit files), and per command kind:
//   segments and their sections (offsets and sizes in the file and in the
//   segment's addresses; looser for MH_DYLIB_STUB and MH_DSYM), LC_SYMTAB,
//   LC_DYSYMTAB (every table in the file), the linkedit data commands
//   (LC_DATA_IN_CODE, LC_LINKER_OPTIMIZATION_HINT, LC_FUNCTION_STARTS,
//   LC_SEGMENT_SPLIT_INFO, LC_DYLIB_CODE_SIGN_DRS, LC_CODE_SIGNATURE,
//   LC_DYLD_CHAINED_FIXUPS, LC_DYLD_EXPORTS_TRIE), LC_DYLD_INFO(_ONLY),
//   LC_NOTE and LC_TWOLEVEL_HINTS (their data in the file), the commands
//   that name a string inside themselves (the dylib commands, the
//   dylinker commands, LC_RPATH, LC_SUB_*), the fixed-size ones (LC_UUID,
//   LC_MAIN, LC_SOURCE_VERSION, LC_ROUTINES(_64), LC_ENCRYPTION_INFO(_64),
//   LC_VERSION_MIN_*, LC_BUILD_VERSION), LC_LINKER_OPTION (its strings
//   counted), LC_THREAD and LC_UNIXTHREAD (each thread state's flavor,
//   count and size for i386, x86-64, ARM, ARM64 and PowerPC), and the
//   commands allowed once. LC_ID_DYLIB belongs to dylibs, which must have
//   one. Obsolete commands (LC_SYMSEG, the fvmlib commands, LC_PREPAGE,
//   LC_PREBOUND_DYLIB, LC_PREBIND_CKSUM) fail; unknown ones are passed
//   over; after an LC_IDENT, as in LLVM, no command is looked at. Every
//   structure placed in the file (headers, section contents, relocations,
//   tables, linkedit data) must not overlap one placed before, which LLVM
//   reports naming the first it overlaps in its own list order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

// The archive symbols of a member identify_magic() calls a Mach-O file of
// one of the types LLVM names, in symbol table order.
Result<std::vector<std::string>> machOArchiveSymbols(std::string_view bytes);

} // namespace offbundle
