// The archive symbols of WebAssembly members, as LLVM 22's archive writer
// lists them through WasmObjectFile.
//
// WebAssembly object (relocatable, as clang --target=wasm32/wasm64 -c
// writes it):
//   header, 8 bytes:        "\0asm", version (u32 little-endian, 1)
//   sections:               id (u8), size (LEB128 u32), payload; custom
//                           sections (id 0) start with a name string
//     type (1), import (2), function (3), table (4), memory (5),
//     global (6), export (7), elem (9), datacount (12), code (10),
//     data (11): the standard sections, in that order
//     custom "linking":     version (2), then subsections: id (u8), size,
//                           payload; segment info (5), init functions (6),
//                           symbol table (8)
//     custom "reloc.*":     target section index, count, entries: type
//                           (u8), offset, symbol index, addend for some
//     custom "producers", "target_features": tool and feature lists
//   symbol table entries:   kind (u8: function, data, global, section,
//                           table), flags (LEB128: binding in the low two
//                           bits, 1 weak, 2 local; 0x10 undefined; 0x40
//                           explicit name), then per kind an element index
//                           and a name (data: name, then segment, offset
//                           and size when defined)
//
//   A symbol is an archive symbol when its binding is not local and it is
//   defined; hidden and weak symbols count. They are listed in symbol table
//   order.
//
// LLVM parses every section on construction and checks far more than this
// reader knows. Rather than accept a member LLVM refuses, this reader takes
// only well-formed objects made of the sections above, each parsed to its
// end with every index in range, and refuses any other member (no linking
// section, start or tag sections, comdats, name or debug sections, unknown
// encodings) with an error of ours naming why. Of LLVM's own messages it
// gives those for a short header ("missing version number"), a version
// other than 1 ("invalid version number: N"), an empty section ("zero length
// section") and a section that runs past the end ("section too large").
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
