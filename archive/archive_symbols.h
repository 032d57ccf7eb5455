// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The symbols LLVM's archive writer lists in an archive's symbol table for
// one member (getSymbols() in llvm/lib/Object/ArchiveWriter.cpp).
//
// LLVM opens every member it recognises as a "symbolic file" (an object
// file of any format, or bitcode) and lists, in symbol table order, each
// symbol that is global (any binding but STB_LOCAL: global, weak, unique),
// defined (not SHN_UNDEF; common symbols count) and not format-specific
// (not the null symbol, STT_FILE, STT_SECTION, nor the mapping symbols of
// AArch64, ARM, C-SKY and RISC-V). Members it does not recognise have no
// symbols. A recognised member matters even without symbols: an archive
// with at least one gets a symbol table, an archive with none gets none.
//
// Supported here: ELF (32 and 64-bit, either byte order: only .symtab is
// read, never .dynsym, exactly as LLVM does), COFF objects (any machine,
// big objects too), PE images and short import library members
// (formats/coff/coff_symbols.h), Mach-O objects
// (formats/macho/macho_symbols.h), DirectX containers, which have no
// symbols (formats/dxcontainer/dxcontainer_symbols.h), and, through a
// caller-supplied lister, LLVM bitcode. GOFF members fail with LLVM 22's
// message (it opens no GOFF file). The other formats LLVM recognises are
// refused with an error rather than given a symbol table that might differ
// from LLVM's.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bitcode/bitcode_symbols.h"
#include "support/error.h"

namespace offbundle {

// Lists the archive symbols of an LLVM bitcode file ("BC\xC0\xDE" or the
// 0x0B17C0DE wrapper), in the order LLVM's IRObjectFile gives them, keeping
// only those LLVM's writer keeps (global, defined, not format-specific).
// Provided by the bitcode module (bitcodeArchiveSymbols).
using BitcodeSymbolLister =
    std::function<Result<BitcodeArchiveSymbols>(std::string_view bitcode)>;

// How LLVM's identify_magic() and SymbolicFile::isSymbolicFile() see a
// member's bytes, as far as the writer cares.
enum class ArchiveMemberKind {
  NotSymbolic, // no symbols, and no effect on the symbol table
  Elf,         // "\177ELF" and at least 18 bytes
  Bitcode,     // "BC\xC0\xDE" or "\xDE\xC0\x17\x0B"
  CoffObject,  // a COFF object, for a known machine or none, or big
  CoffImport,  // a short import library member ("\0\0\xff\xff")
  DxContainer, // "DXBC"
  PeImage,     // "MZ" and "PE\0\0" where the DOS header points
  Goff,        // "\x03\xf0\x00"
  MachO,       // a Mach-O file of a type LLVM names
  Wasm,        // "\0asm"
  Xcoff,       // 0x01df (32-bit) or 0x01f7 (64-bit)
};
ArchiveMemberKind classifyArchiveMember(std::string_view bytes);

struct ArchiveMemberSymbols {
  // Whether LLVM's writer opens the member as a symbolic file, which makes
  // it write a symbol table even if no member defines a symbol.
  bool isSymbolicFile = false;
  // The symbol names, in the order the symbol table lists them.
  std::vector<std::string> names;
  // For bitcode LLVM's reader cannot open: the reason LLVM's writer prints
  // in its warning (the member then counts as a plain blob).
  std::optional<std::string> unreadableReason;
};

// The member's archive symbols. Errors for malformed ELF files (messages as
// LLVM's ELF reader words them), for bitcode without a lister, and for the
// unsupported formats above.
Result<ArchiveMemberSymbols>
archiveSymbolsOf(std::string_view memberBytes,
                 const BitcodeSymbolLister &bitcodeSymbols = nullptr);

} // namespace offbundle
