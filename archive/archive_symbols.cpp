// Archive symbols of one member, as LLVM 22's archive writer lists them.
//
// The ELF reader here is deliberately separate from formats/elf_object: it
// must accept exactly what LLVM's ELFObjectFile accepts when the writer lists
// symbols (overlapping sections, say, are fine there), and fail with LLVM's
// messages where LLVM fails.
#include "archive/archive_symbols.h"

#include "archive/coff_archive_symbols.h"
#include "archive/dxcontainer_archive_symbols.h"
#include "archive/macho_archive_symbols.h"
#include "archive/wasm_archive_symbols.h"
#include "archive/xcoff_archive_symbols.h"

#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>

namespace offbundle {
namespace {

// ELF constants used below (from the ELF specification).
constexpr uint8_t kElfClass32 = 1;
constexpr uint8_t kElfClass64 = 2;
constexpr uint8_t kElfDataLittle = 1;
constexpr uint8_t kElfDataBig = 2;
constexpr uint32_t kSectionTypeSymtab = 2;
constexpr uint32_t kSectionTypeStrtab = 3;
constexpr uint32_t kSectionTypeDynsym = 11;
constexpr uint16_t kSectionIndexUndefined = 0;
constexpr uint8_t kBindingLocal = 0;
constexpr uint8_t kSymbolTypeSection = 3;
constexpr uint8_t kSymbolTypeFile = 4;
constexpr uint16_t kMachineArm = 40;
constexpr uint16_t kMachineAArch64 = 183;
constexpr uint16_t kMachineRiscV = 243;
constexpr uint16_t kMachineCSky = 252;

std::string hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%llx",
                static_cast<unsigned long long>(value));
  return buffer;
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The name LLVM's getELFSectionTypeName() gives the generic section types,
// which appear in its string table errors.
std::string sectionTypeName(uint32_t type) {
  switch (type) {
  case 0:
    return "SHT_NULL";
  case 1:
    return "SHT_PROGBITS";
  case 2:
    return "SHT_SYMTAB";
  case 3:
    return "SHT_STRTAB";
  case 4:
    return "SHT_RELA";
  case 5:
    return "SHT_HASH";
  case 6:
    return "SHT_DYNAMIC";
  case 7:
    return "SHT_NOTE";
  case 8:
    return "SHT_NOBITS";
  case 9:
    return "SHT_REL";
  case 10:
    return "SHT_SHLIB";
  case 11:
    return "SHT_DYNSYM";
  case 14:
    return "SHT_INIT_ARRAY";
  case 15:
    return "SHT_FINI_ARRAY";
  case 16:
    return "SHT_PREINIT_ARRAY";
  case 17:
    return "SHT_GROUP";
  case 18:
    return "SHT_SYMTAB_SHNDX";
  case 19:
    return "SHT_RELR";
  case 0x40000014:
    return "SHT_CREL";
  case 0x6ffffff5:
    return "SHT_GNU_ATTRIBUTES";
  case 0x6ffffff6:
    return "SHT_GNU_HASH";
  case 0x6ffffffd:
    return "SHT_GNU_verdef";
  case 0x6ffffffe:
    return "SHT_GNU_verneed";
  case 0x6fffffff:
    return "SHT_GNU_versym";
  default:
    return "Unknown";
  }
}

struct SectionHeader {
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint64_t entrySize = 0;
};

struct ElfSymbol {
  uint32_t nameOffset = 0;
  uint8_t binding = 0;
  uint8_t type = 0;
  uint16_t sectionIndex = 0;
};

// Reads an ELF file's section and symbol tables the way LLVM's ELFFile does,
// with every read bounds-checked.
class ElfSymbolReader {
public:
  ElfSymbolReader(std::string_view bytes, bool is64Bit, bool isLittleEndian)
      : bytes_(bytes), is64Bit_(is64Bit), isLittleEndian_(isLittleEndian) {}

  Status open() {
    const uint64_t headerSize = is64Bit_ ? 64 : 52;
    if (bytes_.size() < headerSize)
      return makeError("invalid buffer: the size (" +
                       std::to_string(bytes_.size()) +
                       ") is smaller than an ELF header (" +
                       std::to_string(headerSize) + ")");
    machine_ = read16(18);
    return readSectionTable();
  }

  Result<std::vector<std::string>> globalDefinedSymbols() {
    std::vector<std::string> names;
    if (!symbolTableIndex_)
      return names;
    const SectionHeader &symbolTable = sections_[*symbolTableIndex_];
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
  uint64_t symbolSize() const { return is64Bit_ ? 24 : 16; }
  uint64_t sectionHeaderSize() const { return is64Bit_ ? 64 : 40; }
  // The largest value of the class's address-sized fields (uintX_t).
  uint64_t wordMax() const {
    return is64Bit_ ? std::numeric_limits<uint64_t>::max()
                    : std::numeric_limits<uint32_t>::max();
  }

  uint64_t readBytes(uint64_t offset, unsigned width) const {
    uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i) {
      const uint64_t byte = static_cast<uint8_t>(bytes_[offset + i]);
      value |=
          isLittleEndian_ ? byte << (8 * i) : byte << (8 * (width - 1 - i));
    }
    return value;
  }
  uint16_t read16(uint64_t offset) const {
    return static_cast<uint16_t>(readBytes(offset, 2));
  }
  uint32_t read32(uint64_t offset) const {
    return static_cast<uint32_t>(readBytes(offset, 4));
  }
  uint64_t readWord(uint64_t offset) const {
    return readBytes(offset, is64Bit_ ? 8 : 4);
  }

  SectionHeader readSectionHeader(uint64_t offset) const {
    SectionHeader header;
    header.type = read32(offset + 4);
    if (is64Bit_) {
      header.offset = readWord(offset + 24);
      header.size = readWord(offset + 32);
      header.link = read32(offset + 40);
      header.entrySize = readWord(offset + 56);
    } else {
      header.offset = readWord(offset + 16);
      header.size = readWord(offset + 20);
      header.link = read32(offset + 24);
      header.entrySize = readWord(offset + 36);
    }
    return header;
  }

  // ELFFile::sections(), then ELFObjectFile::initContent() picking the
  // first SHT_SYMTAB and the first SHT_DYNSYM.
  Status readSectionTable() {
    const uint64_t tableOffset = readWord(is64Bit_ ? 40 : 32);
    if (tableOffset == 0)
      return Status::success();
    const uint16_t entrySize = read16(is64Bit_ ? 58 : 46);
    if (entrySize != sectionHeaderSize())
      return makeError("invalid e_shentsize in ELF header: " +
                       std::to_string(entrySize));
    const uint64_t fileSize = bytes_.size();
    if (tableOffset > fileSize || fileSize - tableOffset < sectionHeaderSize())
      return makeError(
          "section header table goes past the end of the file: e_shoff = 0x" +
          hex(tableOffset));
    // Files with 0xff00 sections or more keep the count in section 0.
    uint64_t sectionCount = read16(is64Bit_ ? 60 : 48);
    if (sectionCount == 0)
      sectionCount = readSectionHeader(tableOffset).size;
    if (sectionCount >
        std::numeric_limits<uint64_t>::max() / sectionHeaderSize())
      return makeError("invalid number of sections specified in the NULL "
                       "section's sh_size field (" +
                       std::to_string(sectionCount) + ")");
    const uint64_t tableSize = sectionCount * sectionHeaderSize();
    if (tableOffset + tableSize < tableOffset)
      return makeError("invalid section header table offset (e_shoff = 0x" +
                       hex(tableOffset) +
                       ") or invalid number of sections specified in the "
                       "first section header's sh_size field (0x" +
                       hex(sectionCount) + ")");
    if (tableSize > fileSize - tableOffset)
      return makeError("section table goes past the end of file");
    sections_.reserve(sectionCount);
    for (uint64_t index = 0; index < sectionCount; ++index) {
      sections_.push_back(
          readSectionHeader(tableOffset + index * sectionHeaderSize()));
      const uint32_t type = sections_.back().type;
      if (type == kSectionTypeSymtab && !symbolTableIndex_)
        symbolTableIndex_ = index;
      if (type == kSectionTypeDynsym && !dynamicSymbolTableIndex_)
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
    const SectionHeader &section = sections_[index];
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
                       " has a sh_offset (0x" + hex(section.offset) +
                       ") + sh_size (0x" + hex(section.size) +
                       ") that cannot be represented");
    if (section.offset + section.size > bytes_.size())
      return makeError("section " + sectionIndexText(index) +
                       " has a sh_offset (0x" + hex(section.offset) +
                       ") + sh_size (0x" + hex(section.size) +
                       ") that is greater than the file size (0x" +
                       hex(bytes_.size()) + ")");
    // (LLVM 22 reads misaligned tables and section headers without
    // complaint, and so does this reader.)
    return Status::success();
  }

  ElfSymbol readSymbol(uint64_t offset) const {
    ElfSymbol symbol;
    symbol.nameOffset = read32(offset);
    const uint8_t info =
        static_cast<uint8_t>(bytes_[offset + (is64Bit_ ? 4 : 12)]);
    symbol.binding = info >> 4;
    symbol.type = info & 0xf;
    symbol.sectionIndex = read16(offset + (is64Bit_ ? 6 : 14));
    return symbol;
  }

  // ELFFile::getStringTable() for the symbol table's linked section.
  Result<std::string_view> symbolStringTable() const {
    const uint32_t link = sections_[*symbolTableIndex_].link;
    if (link >= sections_.size())
      return makeError("invalid section index: " + std::to_string(link));
    const SectionHeader &strings = sections_[link];
    if (strings.type != kSectionTypeStrtab)
      return makeError(
          "invalid sh_type for string table section " + sectionIndexText(link) +
          ": expected SHT_STRTAB, but got " + sectionTypeName(strings.type));
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
    const ElfSymbol symbol = readSymbol(symbolOffset(index));
    Result<std::string_view> table = symbolStringTable();
    if (!table)
      return table.takeError();
    if (symbol.nameOffset >= table->size())
      return makeError("st_name (0x" + hex(symbol.nameOffset) +
                       ") is past the end of the string table of size 0x" +
                       hex(table->size()));
    std::string_view rest = table->substr(symbol.nameOffset);
    // The table ends with a NUL, so this always finds one.
    return rest.substr(0, rest.find('\0'));
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
    const ElfSymbol symbol = readSymbol(offset);
    bool formatSpecific =
        symbol.type == kSymbolTypeFile || symbol.type == kSymbolTypeSection;
    // LLVM marks a symbol that sits where the dynamic symbol table's null
    // entry is (tables that overlap), after checking that table too.
    if (dynamicSymbolTableIndex_) {
      if (Status status =
              checkSectionArray(*dynamicSymbolTableIndex_, symbolSize());
          !status.ok())
        return status.takeError();
      const SectionHeader &dynamic = sections_[*dynamicSymbolTableIndex_];
      if (dynamic.offset == offset)
        formatSpecific = true;
    }
    if (isMappingSymbol(index))
      formatSpecific = true;
    const bool global = symbol.binding != kBindingLocal;
    const bool undefined = symbol.sectionIndex == kSectionIndexUndefined;
    return !formatSpecific && global && !undefined;
  }

  // The per-machine names LLVM treats as format-specific; a name that
  // cannot be read just does not match.
  bool isMappingSymbol(uint64_t index) const {
    if (machine_ != kMachineAArch64 && machine_ != kMachineArm &&
        machine_ != kMachineCSky && machine_ != kMachineRiscV)
      return false;
    Result<std::string_view> nameOrError = symbolName(index);
    if (!nameOrError)
      return false;
    std::string_view name = *nameOrError;
    switch (machine_) {
    case kMachineAArch64:
      return startsWith(name, "$d") || startsWith(name, "$x");
    case kMachineArm:
      return name.empty() || startsWith(name, "$d") || startsWith(name, "$t") ||
             startsWith(name, "$a");
    case kMachineCSky:
      return startsWith(name, "$d") || startsWith(name, "$t");
    default: // RISC-V: the fake label for label differences, mapping symbols
      return name == ".L0 " || startsWith(name, "$d") || startsWith(name, "$x");
    }
  }

  std::string_view bytes_;
  bool is64Bit_;
  bool isLittleEndian_;
  uint16_t machine_ = 0;
  std::vector<SectionHeader> sections_;
  std::optional<uint64_t> symbolTableIndex_;
  std::optional<uint64_t> dynamicSymbolTableIndex_;
};

Result<std::vector<std::string>> elfArchiveSymbols(std::string_view bytes) {
  // ObjectFile::createELFObjectFile(): class first, then data encoding.
  const uint8_t elfClass = static_cast<uint8_t>(bytes[4]);
  const uint8_t elfData = static_cast<uint8_t>(bytes[5]);
  if (elfClass != kElfClass32 && elfClass != kElfClass64)
    return makeError("Invalid ELF class");
  if (elfData != kElfDataLittle && elfData != kElfDataBig)
    return makeError("Invalid ELF data");
  ElfSymbolReader reader(bytes, elfClass == kElfClass64,
                         elfData == kElfDataLittle);
  if (Status status = reader.open(); !status.ok())
    return status.takeError();
  return reader.globalDefinedSymbols();
}

bool hasPrefix(std::string_view bytes, std::string_view prefix) {
  return bytes.substr(0, prefix.size()) == prefix;
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

} // namespace

ArchiveMemberKind classifyArchiveMember(std::string_view bytes) {
  using Kind = ArchiveMemberKind;
  if (bytes.size() < 4)
    return Kind::NotSymbolic;
  const uint8_t second = byteAt(bytes, 1);
  switch (byteAt(bytes, 0)) {
  case 0x00: {
    // "\0\0\xff\xff": a COFF big object when the class ID at offset 12
    // says so, a cl.exe /GL (LTO) object, which LLVM does not open, when it
    // has that class ID, and otherwise (short files too) an import library
    // member.
    if (hasPrefix(bytes, std::string_view("\0\0\xff\xff", 4))) {
      constexpr size_t kClassIdOffset = 12;
      static constexpr char kBigObjectClassId[] = {
          '\xc7', '\xa1', '\xba', '\xd1', '\xee', '\xba', '\xa9', 0x4b,
          '\xaf', 0x20,   '\xfa', '\xf6', 0x6a,   '\xa4', '\xdc', '\xb8'};
      static constexpr char kClGlObjectClassId[] = {
          0x38,   '\xfe', '\xb3', 0x0c,   '\xa5', '\xd9', '\xab', 0x4d,
          '\xac', '\x9b', '\xd6', '\xb6', 0x22,   0x26,   0x53,   '\xc2'};
      if (bytes.size() < kClassIdOffset + sizeof(kBigObjectClassId))
        return Kind::CoffImport;
      const std::string_view classId =
          bytes.substr(kClassIdOffset, sizeof(kBigObjectClassId));
      if (classId ==
          std::string_view(kBigObjectClassId, sizeof(kBigObjectClassId)))
        return Kind::CoffObject;
      if (classId ==
          std::string_view(kClGlObjectClassId, sizeof(kClGlObjectClassId)))
        return Kind::NotSymbolic;
      return Kind::CoffImport;
    }
    // A Windows resource file starts with an empty 32-byte entry.
    static constexpr char kWindowsResourceMagic[] = {
        0x00,   0x00,   0x00, 0x00, 0x20,   0x00,   0x00, 0x00,
        '\xff', '\xff', 0x00, 0x00, '\xff', '\xff', 0x00, 0x00};
    if (hasPrefix(bytes, std::string_view(kWindowsResourceMagic,
                                          sizeof(kWindowsResourceMagic))))
      return Kind::NotSymbolic;
    if (second == 0)
      return Kind::CoffObject; // for the unknown machine
    if (hasPrefix(bytes, std::string_view("\0asm", 4)))
      return Kind::Wasm;
    return Kind::NotSymbolic;
  }
  case 0x01: // XCOFF
    return second == 0xdf || second == 0xf7 ? Kind::Xcoff : Kind::NotSymbolic;
  case 0x03: // GOFF (SPIR-V shares the first byte but is not symbolic)
    return hasPrefix(bytes, std::string_view("\x03\xf0\x00", 3))
               ? Kind::Goff
               : Kind::NotSymbolic;
  case 0xde:
    return hasPrefix(bytes, "\xde\xc0\x17\x0b") ? Kind::Bitcode
                                                : Kind::NotSymbolic;
  case 'B':
    return hasPrefix(bytes, "BC\xc0\xde") ? Kind::Bitcode : Kind::NotSymbolic;
  case 0x7f:
    return hasPrefix(bytes, "\x7f"
                            "ELF") &&
                   bytes.size() >= 18
               ? Kind::Elf
               : Kind::NotSymbolic;
  case 0xfe:
  case 0xce:
  case 0xcf: {
    // Every Mach-O file type LLVM names (1 to 12) is symbolic; universal
    // binaries (0xcafebabe) are not.
    uint16_t type = 0;
    if (hasPrefix(bytes, "\xfe\xed\xfa\xce") ||
        hasPrefix(bytes, "\xfe\xed\xfa\xcf")) {
      const size_t headerSize = byteAt(bytes, 3) == 0xce ? 28 : 32;
      if (bytes.size() >= headerSize)
        type = machOFileType(bytes, /*nativeOrder=*/true);
    } else if (hasPrefix(bytes, "\xce\xfa\xed\xfe") ||
               hasPrefix(bytes, "\xcf\xfa\xed\xfe")) {
      const size_t headerSize = byteAt(bytes, 0) == 0xce ? 28 : 32;
      if (bytes.size() >= headerSize)
        type = machOFileType(bytes, /*nativeOrder=*/false);
    }
    return type >= 1 && type <= 12 ? Kind::MachO : Kind::NotSymbolic;
  }
  case 0x50:
    if (hasPrefix(bytes, "\x50\xed\x55\xba")) // CUDA fat binary
      return Kind::NotSymbolic;
    [[fallthrough]];
  case 0xf0:
  case 0x83:
  case 0x84:
  case 0x66:
  case 0x4c:
  case 0xc4:
    // COFF objects for these machines (identify_magic's fall-through
    // accepts either second byte for all of them).
    return second == 0x01 || second == 0x02 ? Kind::CoffObject
                                            : Kind::NotSymbolic;
  case 0x90:
  case 0x68:
    return second == 0x02 ? Kind::CoffObject : Kind::NotSymbolic;
  case 'M': {
    // A PE executable: "MZ", then "PE\0\0" where the DOS header points.
    if (!hasPrefix(bytes, "MZ") || bytes.size() < 0x40)
      return Kind::NotSymbolic;
    const uint32_t peOffset = byteAt(bytes, 0x3c) | byteAt(bytes, 0x3d) << 8 |
                              byteAt(bytes, 0x3e) << 16 |
                              uint32_t(byteAt(bytes, 0x3f)) << 24;
    if (peOffset <= bytes.size() &&
        hasPrefix(bytes.substr(peOffset), std::string_view("PE\0\0", 4)))
      return Kind::PeImage;
    return Kind::NotSymbolic;
  }
  case 0x64: // COFF for x86-64 or ARM64
    return second == 0x86 || second == 0xaa ? Kind::CoffObject
                                            : Kind::NotSymbolic;
  case 'D': // DirectX container
    return hasPrefix(bytes, "DXBC") ? Kind::DxContainer : Kind::NotSymbolic;
  case 0x41: // COFF for ARM64EC
  case 0x4e: // COFF for ARM64X
    return second == 0xa6 ? Kind::CoffObject : Kind::NotSymbolic;
  default:
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
