// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Archive symbols of one member, as LLVM 22's archive writer lists them.
//
// ELF members are decoded by formats/elf/elf_file, the project's one ELF
// reader; the checks here are LLVM's ELFObjectFile's, not the stricter ones
// of formats/elf/elf_object: they accept exactly what LLVM accepts when the
// writer lists symbols (overlapping sections, say, are fine there), and fail
// with LLVM's messages where LLVM fails.
#include "archive/archive_symbols.h"

#include "formats/coff/coff_symbols.h"
#include "formats/dxcontainer/dxcontainer_symbols.h"
#include "formats/elf/elf_file.h"
#include "formats/file_magic.h"
#include "formats/macho/macho_symbols.h"
#include "formats/wasm/wasm_symbols.h"
#include "formats/xcoff/xcoff_symbols.h"
#include "support/byte_order.h"
#include "support/byte_range.h"
#include "support/hex.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>

namespace offbundle {
namespace {

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Reads an ELF file's section and symbol tables the way LLVM's ELFFile does,
// with every read bounds-checked.
class ElfSymbolReader {
public:
  ElfSymbolReader(std::string_view bytes, bool is64Bit, bool isLittleEndian)
      : file_(bytes, is64Bit, isLittleEndian), bytes_(bytes),
        is64Bit_(is64Bit) {}

  Status open() {
    const uint64_t headerSize = file_.shape().headerSize;
    if (bytes_.size() < headerSize)
      return makeError("invalid buffer: the size (" +
                       std::to_string(bytes_.size()) +
                       ") is smaller than an ELF header (" +
                       std::to_string(headerSize) + ")");
    ElfTableFields tables;
    const ElfHeader header = file_.readHeader(tables);
    machine_ = header.machine;
    return readSectionTable(header, tables);
  }

  Result<std::vector<std::string>> globalDefinedSymbols() {
    std::vector<std::string> names;
    if (!symbolTableIndex_)
      return names;
    const ElfSection &symbolTable = sections_[*symbolTableIndex_];
    const uint64_t count = symbolTable.size / symbolSize();
    // LLVM starts after the null symbol, unless the table cannot even hold
    // that one (then the range is empty anyway).
    const uint64_t first = symbolTable.size >= symbolSize() ? 1 : 0;
    for (uint64_t index = first; index < count; ++index) {
      Result<bool> counts = isArchiveSymbol(index);
      if (!counts)
        return counts.takeError();
      if (!*counts)
        continue;
      Result<std::string_view> name = symbolName(index);
      if (!name)
        return name.takeError();
      names.emplace_back(*name);
    }
    return names;
  }

private:
  uint64_t symbolSize() const { return file_.shape().symbolSize; }
  uint64_t sectionHeaderSize() const { return file_.shape().sectionHeaderSize; }
  // The largest value of the class's address-sized fields (uintX_t).
  uint64_t wordMax() const {
    return is64Bit_ ? std::numeric_limits<uint64_t>::max()
                    : std::numeric_limits<uint32_t>::max();
  }

  // ELFFile::sections(), then ELFObjectFile::initContent() picking the
  // first SHT_SYMTAB and the first SHT_DYNSYM.
  Status readSectionTable(const ElfHeader &header,
                          const ElfTableFields &tables) {
    const uint64_t tableOffset = header.sectionHeaderOffset;
    if (tableOffset == 0)
      return Status::success();
    if (tables.sectionHeaderEntrySize != sectionHeaderSize())
      return makeError("invalid e_shentsize in ELF header: " +
                       std::to_string(tables.sectionHeaderEntrySize));
    const uint64_t fileSize = bytes_.size();
    if (!rangeFits(tableOffset, sectionHeaderSize(), fileSize))
      return makeError(
          "section header table goes past the end of the file: e_shoff = 0x" +
          hexDigits(tableOffset));
    // Files with 0xff00 sections or more keep the count in section 0.
    const uint64_t sectionCount =
        file_.sectionCount(tableOffset, tables.sectionCount);
    if (sectionCount >
        std::numeric_limits<uint64_t>::max() / sectionHeaderSize())
      return makeError("invalid number of sections specified in the NULL "
                       "section's sh_size field (" +
                       std::to_string(sectionCount) + ")");
    const uint64_t tableSize = sectionCount * sectionHeaderSize();
    if (tableOffset + tableSize < tableOffset)
      return makeError("invalid section header table offset (e_shoff = 0x" +
                       hexDigits(tableOffset) +
                       ") or invalid number of sections specified in the "
                       "first section header's sh_size field (0x" +
                       hexDigits(sectionCount) + ")");
    if (tableSize > fileSize - tableOffset)
      return makeError("section table goes past the end of file");
    sections_.reserve(sectionCount);
    for (uint64_t index = 0; index < sectionCount; ++index) {
      sections_.push_back(
          file_.readSectionHeader(tableOffset + index * sectionHeaderSize()));
      const uint32_t type = sections_.back().type;
      if (type == elf::kTypeSymbolTable && !symbolTableIndex_)
        symbolTableIndex_ = index;
      if (type == elf::kTypeDynamicSymbols && !dynamicSymbolTableIndex_)
        dynamicSymbolTableIndex_ = index;
    }
    return Status::success();
  }

  std::string sectionIndexText(uint64_t index) const {
    return "[index " + std::to_string(index) + "]";
  }

  // ELFFile::getSectionContentsAsArray<T>() for an element of
  // `elementSize` bytes (1 for strings, which skip the sh_entsize check).
  Status checkSectionArray(uint64_t index, uint64_t elementSize) const {
    const ElfSection &section = sections_[index];
    if (elementSize != 1 && section.entrySize != elementSize)
      return makeError("section " + sectionIndexText(index) +
                       " has invalid sh_entsize: expected " +
                       std::to_string(elementSize) + ", but got " +
                       std::to_string(section.entrySize));
    if (section.size % elementSize != 0)
      return makeError("section " + sectionIndexText(index) +
                       " has an invalid sh_size (" +
                       std::to_string(section.size) +
                       ") which is not a multiple of its sh_entsize (" +
                       std::to_string(section.entrySize) + ")");
    if (wordMax() - section.offset < section.size)
      return makeError("section " + sectionIndexText(index) +
                       " has a sh_offset (0x" + hexDigits(section.offset) +
                       ") + sh_size (0x" + hexDigits(section.size) +
                       ") that cannot be represented");
    // (The check above keeps offset + size from wrapping.)
    if (!rangeFits(section.offset, section.size, bytes_.size()))
      return makeError("section " + sectionIndexText(index) +
                       " has a sh_offset (0x" + hexDigits(section.offset) +
                       ") + sh_size (0x" + hexDigits(section.size) +
                       ") that is greater than the file size (0x" +
                       hexDigits(bytes_.size()) + ")");
    // (LLVM 22 reads misaligned tables and section headers without
    // complaint, and so does this reader.)
    return Status::success();
  }

  // ELFFile::getStringTable() for the symbol table's linked section.
  Result<std::string_view> symbolStringTable() const {
    const uint32_t link = sections_[*symbolTableIndex_].link;
    if (link >= sections_.size())
      return makeError("invalid section index: " + std::to_string(link));
    const ElfSection &strings = sections_[link];
    if (strings.type != elf::kTypeStringTable)
      return makeError(
          "invalid sh_type for string table section " + sectionIndexText(link) +
          ": expected SHT_STRTAB, but got " + elfSectionTypeName(strings.type));
    if (Status status = checkSectionArray(link, 1); !status.ok())
      return status.takeError();
    if (strings.size == 0)
      return makeError("SHT_STRTAB string table section " +
                       sectionIndexText(link) + " is empty");
    std::string_view table = bytes_.substr(strings.offset, strings.size);
    if (table.back() != '\0')
      return makeError("SHT_STRTAB string table section " +
                       sectionIndexText(link) + " is non-null terminated");
    return table;
  }

  // ELFObjectFile::getSymbolName(), for symbols that are not STT_SECTION.
  Result<std::string_view> symbolName(uint64_t index) const {
    if (Status status = checkSectionArray(*symbolTableIndex_, symbolSize());
        !status.ok())
      return status.takeError();
    const ElfSymbolEntry symbol = file_.readSymbol(symbolOffset(index));
    Result<std::string_view> table = symbolStringTable();
    if (!table)
      return table.takeError();
    if (symbol.nameOffset >= table->size())
      return makeError("st_name (0x" + hexDigits(symbol.nameOffset) +
                       ") is past the end of the string table of size 0x" +
                       hexDigits(table->size()));
    // The table ends with a NUL, checked above.
    return elfStringAt(*table, symbol.nameOffset);
  }

  uint64_t symbolOffset(uint64_t index) const {
    return sections_[*symbolTableIndex_].offset + index * symbolSize();
  }

  // isArchiveSymbol() in ArchiveWriter.cpp over
  // ELFObjectFile::getSymbolFlags(): global, not undefined, not
  // format-specific.
  Result<bool> isArchiveSymbol(uint64_t index) const {
    if (Status status = checkSectionArray(*symbolTableIndex_, symbolSize());
        !status.ok())
      return status.takeError();
    const uint64_t offset = symbolOffset(index);
    const ElfSymbolEntry symbol = file_.readSymbol(offset);
    bool formatSpecific = symbol.type == elf::kSymbolTypeFile ||
                          symbol.type == elf::kSymbolTypeSection;
    // LLVM marks a symbol that sits where the dynamic symbol table's null
    // entry is (tables that overlap), after checking that table too.
    if (dynamicSymbolTableIndex_) {
      if (Status status =
              checkSectionArray(*dynamicSymbolTableIndex_, symbolSize());
          !status.ok())
        return status.takeError();
      const ElfSection &dynamic = sections_[*dynamicSymbolTableIndex_];
      if (dynamic.offset == offset)
        formatSpecific = true;
    }
    if (isMappingSymbol(index))
      formatSpecific = true;
    const bool global = symbol.binding != elf::kBindingLocal;
    const bool undefined = symbol.sectionIndex == elf::kSectionIndexUndefined;
    return !formatSpecific && global && !undefined;
  }

  // The per-machine names LLVM treats as format-specific; a name that
  // cannot be read just does not match.
  bool isMappingSymbol(uint64_t index) const {
    if (machine_ != elf::kMachineAArch64 && machine_ != elf::kMachineArm &&
        machine_ != elf::kMachineCSky && machine_ != elf::kMachineRiscV)
      return false;
    Result<std::string_view> nameOrError = symbolName(index);
    if (!nameOrError)
      return false;
    std::string_view name = *nameOrError;
    switch (machine_) {
    case elf::kMachineAArch64:
      return startsWith(name, "$d") || startsWith(name, "$x");
    case elf::kMachineArm:
      return name.empty() || startsWith(name, "$d") || startsWith(name, "$t") ||
             startsWith(name, "$a");
    case elf::kMachineCSky:
      return startsWith(name, "$d") || startsWith(name, "$t");
    default: // RISC-V: the fake label for label differences, mapping symbols
      return name == ".L0 " || startsWith(name, "$d") || startsWith(name, "$x");
    }
  }

  ElfFile file_;
  std::string_view bytes_;
  bool is64Bit_;
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
  std::optional<uint64_t> symbolTableIndex_;
  std::optional<uint64_t> dynamicSymbolTableIndex_;
};

Result<std::vector<std::string>> elfArchiveSymbols(std::string_view bytes) {
  // ObjectFile::createELFObjectFile(): class first, then data encoding.
  const uint8_t elfClass = static_cast<uint8_t>(bytes[4]);
  const uint8_t elfData = static_cast<uint8_t>(bytes[5]);
  if (!elf::isKnownClass(elfClass))
    return makeError("Invalid ELF class");
  if (!elf::isKnownDataEncoding(elfData))
    return makeError("Invalid ELF data");
  ElfSymbolReader reader(bytes, elfClass == elf::kClass64,
                         elfData == elf::kDataLittle);
  if (Status status = reader.open(); !status.ok())
    return status.takeError();
  return reader.globalDefinedSymbols();
}

uint8_t byteAt(std::string_view bytes, size_t index) {
  return static_cast<uint8_t>(bytes[index]);
}

// The Mach-O file type as identify_magic() computes it, including its
// quirks: the bytes are sign-extended chars, the middle byte is shifted by
// 12 rather than 16, and the result is cut to 16 bits.
uint16_t machOFileType(std::string_view bytes, bool nativeOrder) {
  auto signedByte = [&](size_t index) {
    return static_cast<int>(static_cast<signed char>(bytes[index]));
  };
  int type = nativeOrder ? (signedByte(12) << 24 | signedByte(13) << 12 |
                            signedByte(14) << 8 | signedByte(15))
                         : (signedByte(15) << 24 | signedByte(14) << 12 |
                            signedByte(13) << 8 | signedByte(12));
  return static_cast<uint16_t>(type);
}

// A member LLVM opens as a symbolic file, with the names its reader listed.
Result<ArchiveMemberSymbols>
symbolicFile(Result<std::vector<std::string>> names) {
  if (!names)
    return names.takeError();
  ArchiveMemberSymbols symbols;
  symbols.isSymbolicFile = true;
  symbols.names = std::move(*names);
  return symbols;
}

// A member starting like a Mach-O file, in either byte order.
ArchiveMemberKind classifyMachO(std::string_view bytes) {
  // Every Mach-O file type LLVM names (1 to 12) is symbolic; universal
  // binaries (0xcafebabe) are not.
  const bool nativeOrder = byteAt(bytes, 0) == 0xfe;
  const size_t headerSize =
      byteAt(bytes, nativeOrder ? 3 : 0) == 0xce ? 28 : 32;
  const uint16_t type =
      bytes.size() >= headerSize ? machOFileType(bytes, nativeOrder) : 0;
  return type >= 1 && type <= 12 ? ArchiveMemberKind::MachO
                                 : ArchiveMemberKind::NotSymbolic;
}

} // namespace

ArchiveMemberKind classifyArchiveMember(std::string_view bytes) {
  using Kind = ArchiveMemberKind;
  switch (identifyFile(bytes)) {
  case FileMagic::Elf:
    // Shorter ones are no ELF file to identify_magic.
    return bytes.size() >= 18 ? Kind::Elf : Kind::NotSymbolic;
  case FileMagic::Bitcode:
  case FileMagic::BitcodeWrapper:
    return Kind::Bitcode;
  case FileMagic::Coff:
  case FileMagic::CoffBigObject:
    return Kind::CoffObject;
  case FileMagic::CoffImport:
    return Kind::CoffImport;
  case FileMagic::PeImage:
    return Kind::PeImage;
  case FileMagic::Xcoff:
    return Kind::Xcoff;
  case FileMagic::Goff:
    return Kind::Goff;
  case FileMagic::DxContainer:
    return Kind::DxContainer;
  case FileMagic::MachO:
    return classifyMachO(bytes);
  case FileMagic::Wasm:
    return Kind::Wasm;
  default:
    // Bundles, archives, resources, cl.exe /GL objects, CUDA fat binaries
    // and the rest: nothing LLVM's writer reads symbols from.
    return Kind::NotSymbolic;
  }
}

Result<ArchiveMemberSymbols>
archiveSymbolsOf(std::string_view memberBytes,
                 const BitcodeSymbolLister &bitcodeSymbols) {
  ArchiveMemberSymbols symbols;
  switch (classifyArchiveMember(memberBytes)) {
  case ArchiveMemberKind::NotSymbolic:
    return symbols;
  case ArchiveMemberKind::Elf:
    return symbolicFile(elfArchiveSymbols(memberBytes));
  case ArchiveMemberKind::CoffObject:
  case ArchiveMemberKind::PeImage:
    return symbolicFile(coffObjectArchiveSymbols(memberBytes));
  case ArchiveMemberKind::CoffImport:
    return symbolicFile(coffImportArchiveSymbols(memberBytes));
  case ArchiveMemberKind::DxContainer:
    if (Status status = checkDxContainerForArchive(memberBytes); !status.ok())
      return status.takeError();
    return symbolicFile(std::vector<std::string>());
  case ArchiveMemberKind::Bitcode: {
    if (!bitcodeSymbols)
      return makeError("cannot list the symbols of an LLVM bitcode member "
                       "for the archive symbol table");
    Result<BitcodeArchiveSymbols> listed = bitcodeSymbols(memberBytes);
    if (!listed)
      return listed.takeError();
    if (listed->unreadableReason) {
      symbols.unreadableReason = std::move(listed->unreadableReason);
      return symbols;
    }
    symbols.isSymbolicFile = true;
    symbols.names = std::move(listed->names);
    return symbols;
  }
  case ArchiveMemberKind::Goff:
    // LLVM 22 recognises GOFF but cannot open it as an object file.
    return makeError("The file was not recognized as a valid object file");
  case ArchiveMemberKind::MachO:
    return symbolicFile(machOArchiveSymbols(memberBytes));
  case ArchiveMemberKind::Wasm:
    return symbolicFile(wasmArchiveSymbols(memberBytes));
  case ArchiveMemberKind::Xcoff:
    return symbolicFile(xcoffArchiveSymbols(memberBytes));
  }
  return makeError("archive symbol tables for members in this object file "
                   "format are not supported");
}

} // namespace offbundle
