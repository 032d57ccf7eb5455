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
//     LC_UUID, LC_BUILD_VERSION, LC_VERSION_MIN_*, LC_DATA_IN_CODE and
//     LC_LINKER_OPTIMIZATION_HINT: fixed sizes, the last two a table in the
//     file
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
// LLVM checks far more kinds of load commands, and file types, than this
// reader knows; rather than accept a member LLVM refuses, this reader takes
// only well-formed files made of the commands above: every structure in
// the file and none overlapping another (headers, section contents,
// relocations, symbol and string tables, indirect symbols, data-in-code and
// optimisation hints), at most one of each command (one version command),
// symbol ranges of LC_DYSYMTAB inside the symbol table, and no table of
// contents, module table, external references or dynamic relocations. Any
// other member is refused with an error of ours naming what it has. A
// dylib or dylib stub (MH_DYLIB, MH_DYLIB_STUB) made only of these commands
// lacks LC_ID_DYLIB and fails with LLVM's message.
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
