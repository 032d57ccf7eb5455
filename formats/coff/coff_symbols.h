// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The archive symbols of COFF members, as LLVM 22's archive writer lists
// them through COFFObjectFile and COFFImportFile.
//
// COFF object (any machine, the unknown machine 0 included)
//   file header, 20 bytes:  machine (u16), section count (u16), time stamp,
//                           symbol table offset (u32), symbol count (u32),
//                           optional header size (u16), characteristics
//   big object header, 56 bytes, when the file starts "\0\0\xff\xff" with
//   version >= 2 and the big-object class ID at offset 12: section count at
//   44, symbol table offset at 48, symbol count at 52 (all u32)
//   section table:          40 bytes a section, after the (optional) header
//   symbol table:           18-byte records (20 for big objects): name (8
//                           bytes, or 4 zero bytes and a string table
//                           offset), value (u32), section number (i16;
//                           i32 in big objects), type (u16), storage class
//                           (u8), auxiliary record count (u8)
//   string table:           right after the symbols: its size (u32,
//                           counting itself), then NUL-terminated names
//
//   A record is an archive symbol when its storage class is EXTERNAL (2) or
//   WEAK_EXTERNAL (105), it is not undefined (EXTERNAL in section 0 with
//   value 0 is undefined; a value there makes it common, which counts), it
//   is not a weak external whose auxiliary record asks for anything but a
//   search for an alias (characteristics 3), and it is not format-specific
//   (FILE records, section definitions: STATIC with auxiliary records, or
//   EXTERNAL in the absolute section with auxiliary records). Auxiliary
//   records are skipped.
//
//   As in LLVM, a symbol table offset of 0, or a symbol table or string
//   table that does not fit in the file (or a string table without its
//   final NUL) leaves the object without symbols rather than failing; a header
//   or section table that does not fit fails, as do names that cannot be read.
//   A file header of the unknown machine with 0xffff sections (an import header
//   that is no big object) is an object without symbols.
//
// PE image ("MZ"; at the offset the u32 at 0x3c gives, "PE\0\0")
//   the file header follows the signature; then the optional header: PE32
//   (magic 0x10b, 96 bytes) or PE32+ (0x20b, 112 bytes), its last u32 the
//   data directory count, then the directories (address u32, size u32);
//   the section table follows the optional header's stated size. Symbols as
//   in an object. LLVM then checks, in this order, the import (1), delay
//   import (13), export (0), base relocation (5), debug (6; size a multiple
//   of 28), TLS (9; size 24 or, in PE32+, 40) and load configuration (10)
//   directories that have an address: a section must hold the address
//   ("RVA 0x... for <table> not found") and the file the table ("end of the
//   file"); an address in the part of a section the file leaves out is
//   ignored. LLVM reads the load configuration's own size field (u32) and
//   follows the fields it covers. In PE32+, the hybrid (CHPE) metadata
//   address (u64 at 0xc8, less the image base, kept to 32 bits): the
//   metadata (92 bytes) must be in a section and the file, as must its code
//   map (address and count at 4 and 8, 8-byte entries), entry point ranges
//   (12 and 48, 12 bytes) and redirection metadata (16 and 52, 8 bytes)
//   when their counts are not 0, in that order; an address in the part of
//   a section the file leaves out ends the checks without error. Then the
//   section of the dynamic relocation table (u16 at 0x8c in PE32, 0xe4 in
//   PE32+): when not zero, refused with an error of ours.
//
// COFF short import library member
//   header, 20 bytes:       0 (u16), 0xffff (u16), version, machine (u16),
//                           time stamp, data size (u32), ordinal or hint
//                           (u16), type (u16: low 2 bits 0 code, 1 data,
//                           2 constant; only data imports lack the thunk)
//   then the NUL-terminated symbol name and DLL name
//
//   Data imports give "__imp_<name>"; code imports give "__imp_<name>" and
//   "<name>"; ARM64EC and ARM64X code imports give "__imp_<name>", "<name>",
//   "__imp_aux_<name>" and the name as written, where <name> drops the
//   ARM64EC mangling ("#" before C names, "$$h" inside C++ names).
//
// Where LLVM 22 reads past the member (an import header cut short, an
// import name without its NUL, a weak external's auxiliary record past the
// end of the file, a PE32+ header cut inside its last 16 bytes, a load
// configuration's size field, or a field it covers, past the end) these
// readers give an error instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

// The archive symbols of a member LLVM's identify_magic() calls a COFF
// object or a PE image, in symbol table order.
Result<std::vector<std::string>>
coffObjectArchiveSymbols(std::string_view bytes);

// The archive symbols of a member identify_magic() calls a COFF import
// library (it starts "\0\0\xff\xff" and is no big object).
Result<std::vector<std::string>>
coffImportArchiveSymbols(std::string_view bytes);

} // namespace offbundle
