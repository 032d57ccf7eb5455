// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The symbols of a bitcode file as an archive symbol table lists them.
//
// When LLVM's archive writer (llvm-ar, and clang-offload-bundler writing
// per-target device archives) adds a bitcode member, it loads the member's
// modules and lists their global values and module-asm symbols in module
// order, keeping the defined, global, not format-specific ones. (Listing
// module-asm symbols needs the target's assembler parser, which LLVM 22's
// clang-offload-bundler never registers: it crashes on such members, where
// llvm-ar and this reader list them.) It asks the loaded modules, not the
// list every bitcode file from clang also carries precomputed (the irsymtab,
// a binary table in the file's SYMTAB block whose strings live in the
// STRTAB block), so the two can differ: an unnamed global is
// "__unnamed_<n>" in both, but numbered among the indexed symbols only in
// LLVM's archive, and a table from another LLVM version may list otherwise.
//
// bitcodeArchiveSymbols therefore rebuilds the list from the modules' own
// records (bitcode/module_symbols.h), without LLVM and without reading any
// function body. Where that cannot be done (module-level inline assembly,
// Windows name decorations, bitcode older than LLVM 5) it falls back on the
// stored table; where that is missing too (e.g. `llvm-cat -b` of modules
// with inline assembly), it reports an error. readIrSymbolTable reads the
// stored table alone, and refuses one LLVM would not trust: none, another
// format version, or a different number of modules than the file holds.
#pragma once

#include "support/error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace offbundle {

// Flag bits of an irsymtab symbol.
namespace ir_symbol_flags {
inline constexpr uint32_t kVisibilityMask = 3; // default, hidden, protected
inline constexpr uint32_t kHasUncommon = 1u << 2;
inline constexpr uint32_t kUndefined = 1u << 3;
inline constexpr uint32_t kWeak = 1u << 4;
inline constexpr uint32_t kCommon = 1u << 5;
inline constexpr uint32_t kIndirect = 1u << 6;
inline constexpr uint32_t kUsed = 1u << 7;
inline constexpr uint32_t kThreadLocal = 1u << 8;
inline constexpr uint32_t kMayOmit = 1u << 9;
inline constexpr uint32_t kGlobal = 1u << 10;
inline constexpr uint32_t kFormatSpecific = 1u << 11;
inline constexpr uint32_t kUnnamedAddr = 1u << 12;
inline constexpr uint32_t kExecutable = 1u << 13;
} // namespace ir_symbol_flags

// The irsymtab format version LLVM 22 writes and trusts. (LLVM's main
// branch moved to 4 after 22 was released, widening the common-symbol size;
// LLVM 22 rebuilds such tables from the IR, so here they are an error.)
inline constexpr uint32_t kIrSymtabVersion = 3;

struct IrSymbol {
  // The symbol's name as object files and archive indexes spell it (after
  // mangling, e.g. "__imp_" for dllimport), a view into the bitcode.
  std::string_view name;
  uint32_t flags = 0;

  // Whether LLVM's archive writer indexes it: defined, global, and not
  // format-specific (private symbols and "llvm."-prefixed intrinsics and
  // metadata are format-specific). Weak, common, hidden, thread-local,
  // executable and indirect symbols are indexed like any other.
  bool isArchiveSymbol() const {
    using namespace ir_symbol_flags;
    return (flags & kGlobal) && !(flags & (kUndefined | kFormatSpecific));
  }
};

// A bitcode file's irsymtab. Views point into the bitcode passed in, which
// must outlive this.
struct IrSymbolTable {
  // The LLVM version that wrote the table (LLVM_VERSION_STRING, plus " " and
  // the VCS revision for builds that record one).
  std::string_view producer;
  std::string_view targetTriple;
  std::string_view sourceFileName;
  size_t moduleCount = 0;
  // Every symbol of every module, module by module, in LLVM's order.
  std::vector<IrSymbol> symbols;
};

// Reads the irsymtab of a bitcode file, bare ("BC\xC0\xDE") or behind a
// bitcode wrapper header (0x0B17C0DE). A file without modules (possible: the
// magic alone is one) has an empty table. Fails on input LLVM's bitcode
// reader would refuse at the top level (with LLVM's message), on a table
// pointing outside itself, and where LLVM would rebuild the table from IR
// (message starting "cannot read the symbols of bitcode").
Result<IrSymbolTable> readIrSymbolTable(std::string_view bitcode);
// The table would point into a temporary.
Result<IrSymbolTable> readIrSymbolTable(std::string &&bitcode) = delete;

// What LLVM's archive writer makes of a bitcode member.
struct BitcodeArchiveSymbols {
  // The names it puts into the archive's symbol table, in its order
  // (duplicates kept: the GNU index keeps them). An empty list is a valid
  // answer: the member still counts as an object, which makes LLVM write a
  // symbol table even when no member has a symbol.
  std::vector<std::string> names;
  // Set when LLVM's bitcode reader cannot open the member at all: LLVM then
  // prints "warning: '<member name>': <this message>", indexes nothing for
  // the member and does not count it as an object. (It treats unreadable
  // bitcode as coming from a newer compiler and keeps it as a plain blob.)
  std::optional<std::string> unreadableReason;
};

// The answer for one member. Damage at the top level of the file gives an
// unreadableReason with LLVM's message; files whose symbols can be listed
// neither from their records nor from their stored table are errors. LLVM
// reads all of the IR, so a file damaged only inside function bodies gets a
// list here and only a warning from LLVM.
Result<BitcodeArchiveSymbols> bitcodeArchiveSymbols(std::string_view bitcode);

} // namespace offbundle
