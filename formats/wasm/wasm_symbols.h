// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The archive symbols of WebAssembly members, as LLVM 22's archive writer
// lists them through WasmObjectFile.
//
// WebAssembly module (objects from clang --target=wasm32/wasm64 -c, linked
// and shared modules from wasm-ld):
//   header, 8 bytes:        "\0asm", version (u32 little-endian, 1)
//   sections:               id (u8), size (LEB128 u32), payload; custom
//                           sections (id 0) start with a name string
//     type (1), import (2), function (3), table (4), memory (5), tag (13),
//     global (6), export (7), start (8), elem (9), datacount (12),
//     code (10), data (11): the standard sections, in that order
//     custom "dylink"/"dylink.0" (first), "linking" (version 2, then
//     subsections: segment info 5, init functions 6, comdats 7, symbol
//     table 8), "reloc.*" (relocations of any earlier section), "name"
//     (function 1, global 7 and data segment 9 names), "producers",
//     "target_features"; any other custom section (debug information,
//     source maps, build ids) is not read
//   symbol table entries:   kind (u8: function, data, global, section,
//                           tag, table), flags (LEB128: binding in the low
//                           two bits, 1 weak, 2 local; 0x10 undefined; 0x40
//                           explicit name; 0x200 absolute), then per kind an
//                           element index and a name (data: name, then
//                           segment, offset and size when defined)
//
// The symbols: those of the linking section's symbol table when there is
// one; else, for a module without dylink metadata that has a name section,
// one per name there (defined functions global when exported and local
// otherwise, defined globals global, imports undefined, data segments
// local); else one per export but memories (all global and defined). An
// archive symbol is a symbol that is defined and not local (hidden and weak
// ones count), in that order.
//
// LLVM parses every section on construction and fails on what it finds
// wrong with messages of its own; this reader checks the same things in
// the same order and gives the same messages. Where LLVM's reader would
// stop the program instead (a read past the end of a section, a number
// malformed or too wide for its field, a global's mutability other than 0
// or 1) or read past the section or its tables (a linking or dylink.0
// subsection running past its section, a section symbol past the sections,
// a name for the data segment one past the last, a mismatched relocation
// whose index is past the symbols, which LLVM's message would name), the
// member is refused with an error of ours naming why.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

// The archive symbols of a member starting with "\0asm", in symbol table
// order.
Result<std::vector<std::string>> wasmArchiveSymbols(std::string_view bytes);

} // namespace offbundle
