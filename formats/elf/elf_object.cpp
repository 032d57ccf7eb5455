// ELF reading and llvm-objcopy-compatible rewriting; see elf_object.h. The
// structures themselves are decoded by elf_file.h; the checks here are
// stricter than LLVM's ELFObjectFile, since the rewriter must be able to lay
// the file out again.
//
// The rewriter models what llvm-objcopy 22 does for the two commands the
// bundler runs, step by step, because every step is visible in the output:
//
//  1. Reading. Each section gets a role from its type and flags: non-alloc
//     string tables are rebuilt from scratch (so one nobody refers to shrinks
//     to a single zero byte), the symbol table, relocation and group sections
//     are decoded and re-encoded, everything else is copied as it is.
//  2. Removing sections (none when bundling, but the step still runs and
//     drops empty groups), with what depends on them: relocation sections of
//     removed sections, groups left empty, symbols defined in them.
//  3. Ordering symbols: locals first, keeping their relative order.
//  4. Adding the bundle sections at the end and setting their flags.
//  5. Finalizing: section names and symbol names go into tail-merged string
//     tables, sizes of rebuilt tables are recomputed, and sections are laid
//     out after the ELF header in the order of their old file offsets (new
//     sections last), each at its alignment; the section header table
//     follows, aligned to the address size.
#include "formats/elf/elf_object.h"

#include "formats/elf/elf_file.h"
#include "formats/elf/tail_merged_string_table.h"
#include "support/byte_range.h"
#include "support/hex.h"
#include "support/leb128.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace offbundle {

namespace {

// Rounding up the way LLVM's alignTo does it, wrapping on overflow; the
// callers check the results against limits that make wrapping impossible.
uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}
uint64_t alignUpSkewed(uint64_t value, uint64_t alignment, uint64_t skew) {
  skew %= alignment;
  return alignUp(value - skew, alignment) + skew;
}

std::string describeSection(const ElfSection &section, size_t index) {
  std::string text = "section " + std::to_string(index);
  if (!section.name.empty())
    text += " ('" + std::string(section.name) + "')";
  return text;
}

Error invalid(const std::string &what) {
  return makeError("invalid ELF object: " + what);
}

} // namespace

// ---------------------------------------------------------------------------
// Reading.

bool isElf(std::string_view bytes) {
  if (bytes.size() < elf::kIdentSize || bytes.substr(0, 4) != "\x7f"
                                                              "ELF")
    return false;
  return elf::isKnownClass(static_cast<uint8_t>(bytes[4])) &&
         elf::isKnownDataEncoding(static_cast<uint8_t>(bytes[5]));
}

std::string_view ElfObject::contents(const ElfSection &section) const {
  if (!section.hasContents())
    return {};
  // parseElfObject checked the range of every section but the null entry
  // [0], whose size and link fields hold the extended section count and name
  // table index instead of a place in the file: it has no contents.
  if (!rangeFits(section.offset, section.size, bytes_.size()))
    return {};
  return bytes_.substr(section.offset, section.size);
}

namespace {

// The identification bytes and the header's size, so that every later read
// of the header lies inside the file.
Result<ElfFile> openElfFile(std::string_view bytes) {
  if (bytes.size() < elf::kIdentSize || bytes.substr(0, 4) != "\x7f"
                                                              "ELF")
    return makeError("not an ELF file");
  auto fileClass = static_cast<uint8_t>(bytes[4]);
  auto encoding = static_cast<uint8_t>(bytes[5]);
  if (!elf::isKnownClass(fileClass))
    return invalid("unknown ELF class " + std::to_string(fileClass));
  if (!elf::isKnownDataEncoding(encoding))
    return invalid("unknown data encoding " + std::to_string(encoding));
  ElfFile file(bytes, fileClass == elf::kClass64, encoding == elf::kDataLittle);
  const uint64_t fileSize = bytes.size();
  if (fileSize < file.shape().headerSize)
    return invalid("the file has " + std::to_string(fileSize) +
                   " bytes, too few for an ELF header of " +
                   std::to_string(file.shape().headerSize));
  return file;
}

// The program header table is never read, only kept clear of the sections:
// it just has to lie within the file. Returns its size.
Result<uint64_t> checkProgramHeaderTable(const ElfFile &file,
                                         const ElfHeader &header,
                                         const ElfTableFields &tables) {
  const ElfShape &shape = file.shape();
  if (header.programHeaderCount != 0 &&
      tables.programHeaderEntrySize != shape.programHeaderSize)
    return invalid("program header entry size " +
                   std::to_string(tables.programHeaderEntrySize) + " is not " +
                   std::to_string(shape.programHeaderSize));
  const uint64_t tableSize =
      uint64_t(header.programHeaderCount) * shape.programHeaderSize;
  if (!rangeFits(header.programHeaderOffset, tableSize, file.bytes().size()))
    return invalid("the program header table at offset " +
                   hexNumber(header.programHeaderOffset) +
                   " extends past the end of the file");
  return tableSize;
}

// Resolves the section count and the name table index (with 0xff00 sections
// or more both live in the null entry) and checks that the whole section
// header table lies within the file.
Status locateSectionTable(const ElfFile &file, const ElfTableFields &tables,
                          ElfHeader &header) {
  const ElfShape &shape = file.shape();
  const uint64_t fileSize = file.bytes().size();
  const uint64_t tableOffset = header.sectionHeaderOffset;
  uint64_t sectionCount = 0;
  if (tableOffset != 0) {
    if (tables.sectionHeaderEntrySize != shape.sectionHeaderSize)
      return invalid("section header entry size " +
                     std::to_string(tables.sectionHeaderEntrySize) +
                     " is not " + std::to_string(shape.sectionHeaderSize));
    if (!rangeFits(tableOffset, shape.sectionHeaderSize, fileSize))
      return invalid("the section header table at offset " +
                     hexNumber(tableOffset) +
                     " extends past the end of the file");
    sectionCount = file.sectionCount(tableOffset, tables.sectionCount);
    if (sectionCount > (fileSize - tableOffset) / shape.sectionHeaderSize)
      return invalid("the section header table at offset " +
                     hexNumber(tableOffset) + " with " +
                     std::to_string(sectionCount) +
                     " entries extends past the end of the file");
  }
  header.sectionCount = sectionCount;

  if (tables.sectionNameTableIndex == elf::kSectionIndexExtended &&
      sectionCount == 0)
    return invalid("the section name table index is in a section header "
                   "table that does not exist");
  const uint32_t nameTableIndex =
      file.sectionNameTableIndex(tableOffset, tables.sectionNameTableIndex);
  if (nameTableIndex != 0 && nameTableIndex >= sectionCount)
    return invalid("the section name table index " +
                   std::to_string(nameTableIndex) + " is out of range (" +
                   std::to_string(sectionCount) + " sections)");
  header.sectionNameTableIndex = nameTableIndex;
  return Status::success();
}

// Every section header, each section's place in the file checked.
Result<std::vector<ElfSection>> readSectionHeaders(const ElfFile &file,
                                                   const ElfHeader &header) {
  const uint64_t fileSize = file.bytes().size();
  std::vector<ElfSection> sections(header.sectionCount);
  for (uint64_t index = 0; index < header.sectionCount; ++index) {
    ElfSection &section = sections[index];
    section = file.readSectionHeader(header.sectionHeaderOffset +
                                     index * file.shape().sectionHeaderSize);
    // The null entry's fields have other meanings (see above).
    if (index != 0 && section.hasContents() &&
        !rangeFits(section.offset, section.size, fileSize))
      return invalid("section " + std::to_string(index) + " at offset " +
                     hexNumber(section.offset) + " with size " +
                     hexNumber(section.size) +
                     " extends past the end of the file (" +
                     hexNumber(fileSize) + " bytes)");
  }
  return sections;
}

// Looks every section's name up in the section name table, which must be a
// null-terminated string table.
Status nameSections(std::string_view bytes, const ElfHeader &header,
                    std::vector<ElfSection> &sections) {
  const uint32_t nameTableIndex = header.sectionNameTableIndex;
  std::string_view nameTable;
  if (nameTableIndex != 0) {
    const ElfSection &table = sections[nameTableIndex];
    if (table.type != elf::kTypeStringTable)
      return invalid("the section name table (section " +
                     std::to_string(nameTableIndex) +
                     ") is not a string table");
    nameTable = bytes.substr(table.offset, table.size);
    if (nameTable.empty() || nameTable.back() != '\0')
      return invalid("the section name table (section " +
                     std::to_string(nameTableIndex) +
                     ") is empty or not null-terminated");
  }
  for (uint64_t index = 1; index < sections.size(); ++index) {
    ElfSection &section = sections[index];
    if (section.nameOffset == 0)
      continue;
    if (section.nameOffset >= nameTable.size())
      return invalid("section " + std::to_string(index) + " has name offset " +
                     hexNumber(section.nameOffset) +
                     ", past the end of the section name table");
    section.name = elfStringAt(nameTable, section.nameOffset);
  }
  return Status::success();
}

// No two pieces of the file may claim the same bytes: the ELF header, the
// two header tables and each section with contents. (llvm-objcopy would lay
// such a file out differently than it was.)
Status checkNoOverlaps(const ElfShape &shape, const ElfHeader &header,
                       uint64_t programHeaderTableSize,
                       const std::vector<ElfSection> &sections) {
  struct Claim {
    uint64_t begin, end;
    std::string what;
  };
  std::vector<Claim> claims;
  claims.push_back({0, shape.headerSize, "the ELF header"});
  if (programHeaderTableSize != 0)
    claims.push_back({header.programHeaderOffset,
                      header.programHeaderOffset + programHeaderTableSize,
                      "the program header table"});
  if (!sections.empty())
    claims.push_back(
        {header.sectionHeaderOffset,
         header.sectionHeaderOffset + sections.size() * shape.sectionHeaderSize,
         "the section header table"});
  for (uint64_t index = 1; index < sections.size(); ++index) {
    const ElfSection &section = sections[index];
    if (section.occupiesFileBytes())
      claims.push_back({section.offset, section.offset + section.size,
                        describeSection(section, index)});
  }
  std::stable_sort(
      claims.begin(), claims.end(),
      [](const Claim &a, const Claim &b) { return a.begin < b.begin; });
  // Sorted by start, a claim overlaps an earlier one exactly when it starts
  // before the furthest end seen so far.
  size_t furthest = 0;
  for (size_t i = 1; i < claims.size(); ++i) {
    if (claims[i].begin < claims[furthest].end)
      return invalid(claims[i].what + " overlaps " + claims[furthest].what);
    if (claims[i].end > claims[furthest].end)
      furthest = i;
  }
  return Status::success();
}

} // namespace

Result<ElfObject> parseElfObject(std::string_view bytes) {
  Result<ElfFile> file = openElfFile(bytes);
  if (!file)
    return file.takeError();
  ElfTableFields tables;
  ElfHeader header = file->readHeader(tables);
  Result<uint64_t> programHeaderTableSize =
      checkProgramHeaderTable(*file, header, tables);
  if (!programHeaderTableSize)
    return programHeaderTableSize.takeError();
  if (Status status = locateSectionTable(*file, tables, header); !status.ok())
    return status.takeError();
  Result<std::vector<ElfSection>> sections = readSectionHeaders(*file, header);
  if (!sections)
    return sections.takeError();
  if (Status status = nameSections(bytes, header, *sections); !status.ok())
    return status.takeError();
  if (Status status = checkNoOverlaps(file->shape(), header,
                                      *programHeaderTableSize, *sections);
      !status.ok())
    return status.takeError();

  ElfObject object;
  object.bytes_ = bytes;
  object.header_ = header;
  object.sections_ = std::move(*sections);
  return object;
}

// ---------------------------------------------------------------------------
// The rewriting model.

namespace {

// How llvm-objcopy treats a section, decided by its type and flags when the
// file is read.
enum class SectionRole {
  Plain,             // bytes copied; sh_link follows the section it names
  StringTable,       // non-alloc SHT_STRTAB: rebuilt from what uses it
  SymbolTable,       // rebuilt
  SymbolIndexTable,  // SHT_SYMTAB_SHNDX: rebuilt, or dropped when unneeded
  Relocation,        // non-alloc REL/RELA/CREL: re-encoded
  DynamicRelocation, // alloc REL/RELA/CREL: bytes copied
  Group,             // rebuilt from its members
  Compressed,        // SHF_COMPRESSED: bytes, sh_link and sh_info as they are
  Added,             // a bundle section
};

constexpr int kNone = -1;
constexpr uint64_t kNewSectionOffset = std::numeric_limits<uint64_t>::max();

struct SymbolRecord {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t binding = 0;
  uint8_t type = 0;
  uint8_t other = 0;
  int definedIn = kNone;      // section id
  uint16_t reservedIndex = 0; // st_shndx when not defined in a section
  uint32_t outputIndex = 0;
};

struct SectionRecord {
  SectionRole role = SectionRole::Plain;
  std::string name;
  uint32_t type = 0;
  uint32_t originalType = 0;
  uint64_t flags = 0;
  uint64_t originalFlags = 0;
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t alignment = 1;
  uint32_t entrySize = 0; // llvm-objcopy keeps only 32 bits of sh_entsize
  uint64_t link = 0;
  uint64_t info = 0;
  uint64_t originalOffset = kNewSectionOffset;
  std::string_view contents; // copied bytes, or encoded relocations
  bool zeroFilled = false;   // SHT_NOBITS turned into SHT_PROGBITS
  int payloadIndex = kNone;  // for Added

  // Plain and relocation sections: the section sh_link names.
  int linkedSection = kNone;
  bool linksSymbolTable = false; // Plain: sh_link named the symbol table
  // Relocation sections: the section they apply to.
  int targetSection = kNone;
  // Groups: flag word, members, signature symbol (by input index).
  uint32_t groupFlags = 0;
  std::vector<int> groupMembers;
  int groupSymbol = kNone;
  // Whether a symbol was defined in this section when the file was read.
  bool hasSymbol = false;

  // Results of layout.
  uint32_t index = 0;
  uint64_t offset = 0;
  uint64_t nameIndex = 0;
};

// One relocation as llvm-objcopy holds it.
struct Relocation {
  uint64_t offset = 0;
  uint64_t addend = 0;
  uint32_t type = 0;
  uint32_t symbol = 0; // input symbol index, 0 for none
};

// CREL's bytes: single bytes and LEB128 numbers (support/leb128.h), the
// first failed read failing every later one.
class LebReader {
public:
  explicit LebReader(std::string_view bytes) : bytes_(bytes) {}
  bool failed() const { return failed_; }

  uint8_t byte() {
    if (failed_ || position_ >= bytes_.size()) {
      failed_ = true;
      return 0;
    }
    return static_cast<uint8_t>(bytes_[position_++]);
  }
  uint64_t unsignedValue() {
    if (failed_)
      return 0;
    const auto value = readUleb128(bytes_, position_);
    failed_ = !value;
    return value.value_or(0);
  }
  int64_t signedValue() {
    if (failed_)
      return 0;
    const auto value = readSleb128(bytes_, position_);
    failed_ = !value;
    return value.value_or(0);
  }

private:
  std::string_view bytes_;
  size_t position_ = 0;
  bool failed_ = false;
};

void appendUnsignedLeb(std::string &out, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value != 0)
      byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (value != 0);
}

void appendSignedLeb(std::string &out, int64_t value) {
  bool more;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7; // arithmetic shift
    more = !((value == 0 && (byte & 0x40) == 0) ||
             (value == -1 && (byte & 0x40) != 0));
    if (more)
      byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (more);
}

// What the operation does besides rewriting.
struct Edit {
  bool removeBundleSections = false;
  const std::vector<OffloadBundleSection> *added = nullptr;
  // A section whose contents are replaced: its name and the new bytes.
  const std::pair<std::string_view, std::string_view> *updated = nullptr;
};

} // namespace

class ElfPlanBuilder {
public:
  explicit ElfPlanBuilder(const ElfObject &object)
      : object_(object), header_(object.header()),
        shape_(ElfShape::of(header_.is64Bit)), order_(header_.isLittleEndian) {}

  Result<ElfWritePlan> run(const Edit &edit);

private:
  // Reading.
  Status readSections();
  Status readSymbols();
  Status resolveSymbolSection(SymbolRecord &symbol, size_t index,
                              uint16_t sectionIndex,
                              std::string_view extendedIndices);
  Status linkSections();
  Status readRelocations(SectionRecord &section, int sectionId);
  Status checkSectionIndex(uint64_t index, const std::string &what) const;
  Result<std::vector<Relocation>>
  decodeRelocations(const SectionRecord &section) const;
  Result<std::vector<Relocation>> decodeCrel(std::string_view bytes) const;
  uint64_t packRelocationInfo(uint32_t symbol, uint32_t type) const;
  std::pair<uint32_t, uint32_t> unpackRelocationInfo(uint64_t info) const;

  // Editing.
  Status removeSections(const std::function<bool(int)> &shouldRemove);
  Status checkKeptRelocations(const SectionRecord &section, int id,
                              const std::unordered_set<int> &removed);
  std::unordered_set<uint32_t>
  dropSymbolsDefinedIn(const std::unordered_set<int> &removed);
  Status orderSymbolsLocalFirst();
  Status checkGroupSymbols() const;
  void addBundleSections(const std::vector<OffloadBundleSection> &added);
  Status updateSection(std::string_view name, std::string_view contents);

  // Finalizing (step 5), in the order finalizeAndWrite runs the steps.
  Result<ElfWritePlan> finalizeAndWrite();
  Status dropEmptySymbolTable();
  void relinkSymbolTableUsers();
  Status provideSymbolIndexTableIfNeeded();
  void sizeRebuiltSections();
  void buildStringTables();
  void encodeCrelSections();
  uint64_t endOfHeaders() const;
  Status layOutSections();
  Status checkOutputSize() const;
  void resolveLinksAndInfos();
  uint64_t outputSectionCount() const { return live_.size() + 1; }

  // Writing.
  static void addGenerated(ElfWritePlan &plan, uint64_t at, std::string bytes);
  std::string encodeElfHeader() const;
  void writeSectionContents(ElfWritePlan &plan);
  std::string encodeSymbolTable(const SectionRecord &section);
  std::string encodeSymbolIndexTable(const SectionRecord &section) const;
  std::string encodeGroup(const SectionRecord &section) const;
  std::string encodeSectionHeaderTable() const;
  std::string encodeCrel(const std::vector<Relocation> &relocations) const;
  std::string
  encodeRelocations(const SectionRecord &section,
                    const std::vector<Relocation> &relocations) const;

  bool isRelocationRole(const SectionRecord &section) const {
    return section.role == SectionRole::Relocation ||
           section.role == SectionRole::DynamicRelocation;
  }
  bool isMips64Little() const {
    return header_.machine == elf::kMachineMips && header_.is64Bit &&
           header_.isLittleEndian;
  }
  const std::string &nameOf(int sectionId) const {
    return sections_[sectionId].name;
  }

  const ElfObject &object_;
  const ElfHeader &header_;
  const ElfShape shape_;
  const ElfByteOrder order_;

  // Every section ever known, by id: input section i has id i - 1; added
  // ones follow. `live_` lists the ids of the output's sections in order.
  std::vector<SectionRecord> sections_;
  std::vector<int> live_;
  int symbolTable_ = kNone;
  int symbolNames_ = kNone; // the symbol table's string table
  int symbolIndexTable_ = kNone;
  int sectionNames_ = kNone;
  bool writeSectionHeaders_ = true;

  // Symbols by input index, and the input indices of those kept, in output
  // order.
  std::vector<SymbolRecord> symbols_;
  std::vector<uint32_t> symbolOrder_;
  bool symbolIndicesChanged_ = false;
  // Relocations of each relocation section, by section id.
  std::unordered_map<int, std::vector<Relocation>> relocations_;

  // What finalizing computes for writing: the rebuilt string tables and
  // CREL sections by section id, the sections in file offset order, and
  // where the section header table and the file end.
  std::unordered_map<int, TailMergedStringTable> stringTables_;
  std::unordered_map<int, std::string> encodedRelocations_;
  std::vector<int> layoutOrder_;
  uint64_t sectionHeaderTableOffset_ = 0;
  uint64_t outputSize_ = 0;
};

Status ElfPlanBuilder::checkSectionIndex(uint64_t index,
                                         const std::string &what) const {
  if (index == 0 || index >= object_.sections().size())
    return invalid(what);
  return Status::success();
}

Status ElfPlanBuilder::readSections() {
  if (header_.programHeaderCount != 0)
    return makeError("ELF files with program headers are not supported, "
                     "only relocatable objects");
  const auto &input = object_.sections();
  const size_t count = input.empty() ? 0 : input.size() - 1;
  sections_.resize(count);
  for (size_t index = 1; index < input.size(); ++index) {
    const ElfSection &from = input[index];
    SectionRecord &section = sections_[index - 1];
    section.name = std::string(from.name);
    section.type = section.originalType = from.type;
    section.flags = section.originalFlags = from.flags;
    section.address = from.address;
    section.size = from.size;
    section.alignment = from.alignment;
    section.entrySize = static_cast<uint32_t>(from.entrySize);
    section.link = from.link;
    section.info = from.info;
    section.originalOffset = from.offset;
    section.contents = object_.contents(from);
    // Live sections are renumbered at layout; a removed one keeps this,
    // which is what a kept SHF_COMPRESSED relocation section whose target
    // went away ends up naming in sh_info.
    section.index = static_cast<uint32_t>(index);

    const bool allocated = (from.flags & elf::kFlagAlloc) != 0;
    switch (from.type) {
    case elf::kTypeRel:
    case elf::kTypeRela:
    case elf::kTypeCrel:
      section.role =
          allocated ? SectionRole::DynamicRelocation : SectionRole::Relocation;
      break;
    case elf::kTypeStringTable:
      // An allocated string table is part of the memory image: kept as is.
      section.role = allocated ? SectionRole::Plain : SectionRole::StringTable;
      break;
    case elf::kTypeGroup:
      section.role = SectionRole::Group;
      break;
    case elf::kTypeSymbolTable:
      if (symbolTable_ != kNone)
        return invalid("more than one symbol table");
      section.role = SectionRole::SymbolTable;
      symbolTable_ = static_cast<int>(index - 1);
      break;
    case elf::kTypeSymbolIndexTable:
      if (symbolIndexTable_ != kNone)
        return makeError("ELF files with more than one SHT_SYMTAB_SHNDX "
                         "section are not supported");
      section.role = SectionRole::SymbolIndexTable;
      symbolIndexTable_ = static_cast<int>(index - 1);
      break;
    case kElfSectionTypeNoBits:
      section.role = SectionRole::Plain;
      break;
    default:
      section.role = (from.flags & elf::kFlagCompressed)
                         ? SectionRole::Compressed
                         : SectionRole::Plain;
      break;
    }
  }

  // Without a section name table llvm-objcopy writes no section headers.
  writeSectionHeaders_ = header_.sectionNameTableIndex != 0;
  if (writeSectionHeaders_) {
    sectionNames_ = static_cast<int>(header_.sectionNameTableIndex) - 1;
    if (sections_[sectionNames_].role != SectionRole::StringTable)
      return invalid("the section name table is an allocated section");
  }

  live_.resize(count);
  for (size_t id = 0; id < count; ++id)
    live_[id] = static_cast<int>(id);
  return Status::success();
}

Status ElfPlanBuilder::readSymbols() {
  if (symbolIndexTable_ != kNone) {
    const SectionRecord &table = sections_[symbolIndexTable_];
    if (table.link == 0 || table.link >= object_.sections().size() ||
        sections_[table.link - 1].role != SectionRole::SymbolTable)
      return invalid("the SHT_SYMTAB_SHNDX section '" + table.name +
                     "' is not linked to the symbol table");
    if (table.entrySize != 4 || table.size % 4 != 0)
      return invalid("the SHT_SYMTAB_SHNDX section '" + table.name +
                     "' has a bad entry size or size");
  }
  if (symbolTable_ == kNone)
    return Status::success();

  const SectionRecord &table = sections_[symbolTable_];
  const std::string where = "the symbol table '" + table.name + "'";
  if (table.link == 0 || table.link >= object_.sections().size() ||
      sections_[table.link - 1].role != SectionRole::StringTable)
    return invalid(where + " is not linked to a string table");
  symbolNames_ = static_cast<int>(table.link) - 1;
  const std::string_view names = sections_[symbolNames_].contents;
  if (names.empty() || names.back() != '\0')
    return invalid("the symbol name table '" + nameOf(symbolNames_) +
                   "' is empty or not null-terminated");
  if (table.entrySize != shape_.symbolSize)
    return invalid(where + " has entry size " +
                   std::to_string(table.entrySize) + ", not " +
                   std::to_string(shape_.symbolSize));
  if (table.size % shape_.symbolSize != 0)
    return invalid(where + " has a size that is not a whole number of "
                           "entries");

  const size_t count = table.size / shape_.symbolSize;
  std::string_view extendedIndices;
  if (symbolIndexTable_ != kNone) {
    extendedIndices = sections_[symbolIndexTable_].contents;
    if (extendedIndices.size() / 4 != count)
      return invalid("the SHT_SYMTAB_SHNDX section has " +
                     std::to_string(extendedIndices.size() / 4) +
                     " entries for " + std::to_string(count) + " symbols");
  }

  // The table's entries, decoded in place.
  const ElfFile entries(table.contents, header_.is64Bit,
                        header_.isLittleEndian);
  symbols_.resize(count);
  symbolOrder_.resize(count);
  for (size_t index = 0; index < count; ++index) {
    const ElfSymbolEntry entry = entries.readSymbol(index * shape_.symbolSize);
    SymbolRecord &symbol = symbols_[index];
    if (entry.nameOffset >= names.size())
      return invalid("symbol " + std::to_string(index) + " has name offset " +
                     hexNumber(entry.nameOffset) +
                     ", past the end of the string table");
    symbol.name = elfStringAt(names, entry.nameOffset);
    symbol.binding = entry.binding;
    symbol.type = entry.type;
    symbol.other = entry.other;
    symbol.value = entry.value;
    symbol.size = entry.size;
    const uint16_t sectionIndex = entry.sectionIndex;
    if (Status status =
            resolveSymbolSection(symbol, index, sectionIndex, extendedIndices);
        !status.ok())
      return status;
    if (symbol.definedIn != kNone)
      sections_[symbol.definedIn].hasSymbol = true;
    symbolOrder_[index] = static_cast<uint32_t>(index);
  }
  return Status::success();
}

// Where symbol `index` is defined: a section (through SHT_SYMTAB_SHNDX when
// st_shndx is SHN_XINDEX), one of the reserved indices llvm-objcopy carries
// over, or nowhere.
Status ElfPlanBuilder::resolveSymbolSection(SymbolRecord &symbol, size_t index,
                                            uint16_t sectionIndex,
                                            std::string_view extendedIndices) {
  const std::string what = "symbol " + std::to_string(index) + " ('" +
                           std::string(symbol.name) + "')";

  if (sectionIndex == elf::kSectionIndexExtended) {
    if (symbolIndexTable_ == kNone)
      return invalid(what + " has an extended section index but there is "
                            "no SHT_SYMTAB_SHNDX section");
    uint32_t realIndex = order_.read32(extendedIndices.data() + 4 * index);
    if (Status status =
            checkSectionIndex(realIndex, what + " has invalid section index " +
                                             std::to_string(realIndex));
        !status.ok())
      return status;
    symbol.definedIn = static_cast<int>(realIndex) - 1;
  } else if (sectionIndex >= elf::kSectionIndexLoReserve) {
    // The reserved indices llvm-objcopy knows how to carry over.
    bool known = sectionIndex == elf::kSectionIndexAbsolute ||
                 sectionIndex == elf::kSectionIndexCommon;
    if (header_.machine == elf::kMachineAmdgpu)
      known = known || sectionIndex == 0xff00; // SHN_AMDGPU_LDS
    else if (header_.machine == elf::kMachineMips)
      known = known || sectionIndex == 0xff00 || // SHN_MIPS_ACOMMON
              sectionIndex == 0xff03 ||          // SHN_MIPS_SCOMMON
              sectionIndex == 0xff04;            // SHN_MIPS_SUNDEFINED
    else if (header_.machine == elf::kMachineHexagon)
      known = known || (sectionIndex >= 0xff00 && sectionIndex <= 0xff04);
    if (!known)
      return invalid(what + " has unsupported reserved section index " +
                     hexNumber(sectionIndex));
    symbol.reservedIndex = sectionIndex;
  } else if (sectionIndex != elf::kSectionIndexUndefined) {
    if (Status status = checkSectionIndex(sectionIndex,
                                          what + " has invalid section index " +
                                              std::to_string(sectionIndex));
        !status.ok())
      return status;
    symbol.definedIn = sectionIndex - 1;
  }
  return Status::success();
}

std::pair<uint32_t, uint32_t>
ElfPlanBuilder::unpackRelocationInfo(uint64_t info) const {
  if (!header_.is64Bit)
    return {static_cast<uint32_t>(info >> 8),
            static_cast<uint32_t>(info & 0xff)};
  if (isMips64Little()) {
    // MIPS64 little-endian stores r_info as a little-endian symbol index
    // followed by four type bytes in big-endian order.
    info = (info << 32) | ((info >> 8) & 0xff000000) |
           ((info >> 24) & 0x00ff0000) | ((info >> 40) & 0x0000ff00) |
           ((info >> 56) & 0x000000ff);
  }
  return {static_cast<uint32_t>(info >> 32),
          static_cast<uint32_t>(info & 0xffffffff)};
}

uint64_t ElfPlanBuilder::packRelocationInfo(uint32_t symbol,
                                            uint32_t type) const {
  if (!header_.is64Bit)
    return static_cast<uint32_t>((symbol << 8) + (type & 0xff));
  uint64_t info = (uint64_t(symbol) << 32) + type;
  if (isMips64Little())
    info = (info >> 32) | ((info & 0xff000000) << 8) |
           ((info & 0x00ff0000) << 24) | ((info & 0x0000ff00) << 40) |
           ((info & 0x000000ff) << 56);
  return info;
}

Result<std::vector<Relocation>>
ElfPlanBuilder::decodeCrel(std::string_view bytes) const {
  // CREL: a ULEB128 header (count * 8 + addend flag + offset shift), then
  // per relocation a flags byte with the start of the offset delta, and
  // SLEB128 deltas of the symbol index, type and addend when they change.
  LebReader reader(bytes);
  const uint64_t header = reader.unsignedValue();
  if (reader.failed())
    return invalid("malformed CREL header");
  const uint64_t count = header / 8;
  const bool hasAddends = (header & 4) != 0;
  if (!hasAddends)
    return makeError("CREL relocations without addends are not supported");
  const unsigned flagBits = 3;
  const unsigned shift = header % 4;
  if (count > bytes.size())
    return invalid("CREL section claims " + std::to_string(count) +
                   " relocations in " + std::to_string(bytes.size()) +
                   " bytes");
  const uint64_t wordMask =
      header_.is64Bit ? ~uint64_t(0) : uint64_t(0xffffffff);
  std::vector<Relocation> relocations;
  relocations.reserve(count);
  uint64_t offset = 0, addend = 0;
  uint32_t symbol = 0, type = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t first = reader.byte();
    offset = (offset + (first >> flagBits)) & wordMask;
    if (first >= 0x80)
      offset = (offset + (reader.unsignedValue() << (7 - flagBits)) -
                (0x80 >> flagBits)) &
               wordMask;
    if (first & 1)
      symbol += static_cast<uint32_t>(reader.signedValue());
    if (first & 2)
      type += static_cast<uint32_t>(reader.signedValue());
    if (first & 4)
      addend =
          (addend + static_cast<uint64_t>(reader.signedValue())) & wordMask;
    if (reader.failed())
      return invalid("malformed CREL relocation " + std::to_string(i));
    Relocation relocation;
    relocation.offset = (offset << shift) & wordMask;
    // llvm-objcopy passes each entry through an Elf_Rela, whose r_info
    // keeps only 24 bits of symbol and 8 of type in ELF32.
    auto [packedSymbol, packedType] = unpackRelocationInfo(
        header_.is64Bit ? (uint64_t(symbol) << 32) + type
                        : static_cast<uint32_t>((symbol << 8) + (type & 0xff)));
    relocation.symbol = packedSymbol;
    relocation.type = packedType;
    // An ELF32 addend is a signed 32-bit value, widened by sign.
    relocation.addend = header_.is64Bit
                            ? addend
                            : static_cast<uint64_t>(static_cast<int64_t>(
                                  static_cast<int32_t>(addend)));
    relocations.push_back(relocation);
  }
  return relocations;
}

Result<std::vector<Relocation>>
ElfPlanBuilder::decodeRelocations(const SectionRecord &section) const {
  if (section.originalType == elf::kTypeCrel)
    return decodeCrel(section.contents);
  const bool withAddend = section.originalType == elf::kTypeRela;
  const size_t entrySize = withAddend ? shape_.relaSize : shape_.relSize;
  if (section.entrySize != entrySize || section.size % entrySize != 0)
    return invalid("relocation section '" + section.name +
                   "' has a bad entry size or size");
  std::vector<Relocation> relocations(section.size / entrySize);
  for (size_t i = 0; i < relocations.size(); ++i) {
    const char *entry = section.contents.data() + i * entrySize;
    Relocation &relocation = relocations[i];
    relocation.offset = order_.read(entry, shape_.wordSize);
    auto [symbol, type] = unpackRelocationInfo(
        order_.read(entry + shape_.wordSize, shape_.wordSize));
    relocation.symbol = symbol;
    relocation.type = type;
    if (withAddend) {
      uint64_t addend =
          order_.read(entry + 2 * shape_.wordSize, shape_.wordSize);
      relocation.addend = header_.is64Bit
                              ? addend
                              : static_cast<uint64_t>(static_cast<int64_t>(
                                    static_cast<int32_t>(addend)));
    }
  }
  return relocations;
}

Status ElfPlanBuilder::readRelocations(SectionRecord &section, int sectionId) {
  Result<std::vector<Relocation>> decoded = decodeRelocations(section);
  if (!decoded.ok())
    return decoded.takeError();
  for (const Relocation &relocation : *decoded) {
    if (relocation.symbol == 0)
      continue;
    if (symbolTable_ == kNone)
      return invalid("relocation section '" + section.name +
                     "' refers to symbol " + std::to_string(relocation.symbol) +
                     " but there is no symbol table");
    if (relocation.symbol >= symbols_.size())
      return invalid("relocation section '" + section.name +
                     "' refers to symbol " + std::to_string(relocation.symbol) +
                     " of " + std::to_string(symbols_.size()));
  }
  relocations_[sectionId] = std::move(*decoded);
  return Status::success();
}

Status ElfPlanBuilder::linkSections() {
  const uint64_t inputCount = object_.sections().size();
  for (int id = 0; id < static_cast<int>(sections_.size()); ++id) {
    SectionRecord &section = sections_[id];
    const std::string where = "section '" + section.name + "'";
    switch (section.role) {
    case SectionRole::Plain:
      if (section.link != 0) {
        if (Status status = checkSectionIndex(
                section.link, where + " links to invalid section " +
                                  std::to_string(section.link));
            !status.ok())
          return status;
        // A link to the symbol table survives only if no symbol moves.
        if (sections_[section.link - 1].type == elf::kTypeSymbolTable)
          section.linksSymbolTable = true;
        else
          section.linkedSection = static_cast<int>(section.link) - 1;
      }
      break;
    case SectionRole::Relocation:
    case SectionRole::DynamicRelocation: {
      if (section.link != 0) {
        const bool dynamic = section.role == SectionRole::DynamicRelocation;
        if (section.link >= inputCount ||
            (dynamic ? sections_[section.link - 1].originalType !=
                           elf::kTypeDynamicSymbols
                     : sections_[section.link - 1].role !=
                           SectionRole::SymbolTable))
          return invalid(where + " is not linked to a symbol table");
        section.linkedSection = static_cast<int>(section.link) - 1;
      }
      if (section.info != 0) {
        if (Status status = checkSectionIndex(
                section.info, where + " applies to invalid section " +
                                  std::to_string(section.info));
            !status.ok())
          return status;
        section.targetSection = static_cast<int>(section.info) - 1;
      }
      if (section.role == SectionRole::Relocation)
        if (Status status = readRelocations(section, id); !status.ok())
          return status;
      break;
    }
    case SectionRole::Group: {
      if (section.alignment % 4 != 0)
        return invalid("group " + where + " has alignment " +
                       std::to_string(section.alignment));
      if (section.link != 0) {
        if (section.link >= inputCount ||
            sections_[section.link - 1].role != SectionRole::SymbolTable)
          return invalid("group " + where +
                         " is not linked to the symbol table");
        if (section.info >= symbols_.size())
          return invalid("group " + where + " names invalid symbol " +
                         std::to_string(section.info));
        section.linkedSection = static_cast<int>(section.link) - 1;
        section.groupSymbol = static_cast<int>(section.info);
      }
      if (section.contents.empty() || section.contents.size() % 4 != 0)
        return invalid("group " + where + " has malformed contents");
      section.groupFlags = order_.read32(section.contents.data());
      for (size_t at = 4; at < section.contents.size(); at += 4) {
        uint32_t member = order_.read32(section.contents.data() + at);
        if (Status status = checkSectionIndex(
                member, "group " + where + " has invalid member " +
                            std::to_string(member));
            !status.ok())
          return status;
        section.groupMembers.push_back(static_cast<int>(member) - 1);
      }
      break;
    }
    default:
      break;
    }
  }
  return Status::success();
}

// A kept relocation section may neither use a removed symbol table nor
// relocate against a symbol defined in a removed section.
Status
ElfPlanBuilder::checkKeptRelocations(const SectionRecord &section, int id,
                                     const std::unordered_set<int> &removed) {
  auto isRemoved = [&](int other) {
    return other != kNone && removed.count(other);
  };
  if (isRemoved(section.linkedSection))
    return makeError("symbol table '" + nameOf(section.linkedSection) +
                     "' cannot be removed because it is referenced by "
                     "the relocation section '" +
                     section.name + "'");
  for (const Relocation &relocation : relocations_[id]) {
    if (relocation.symbol == 0)
      continue;
    const SymbolRecord &symbol = symbols_[relocation.symbol];
    if (isRemoved(symbol.definedIn))
      return makeError(
          "section '" + nameOf(symbol.definedIn) + "' cannot be removed: (" +
          (section.targetSection != kNone ? nameOf(section.targetSection)
                                          : std::string()) +
          "+" + hexNumber(relocation.offset) +
          ") has relocation against symbol '" + std::string(symbol.name) + "'");
  }
  return Status::success();
}

// Symbols defined in removed sections go with them (never the null one);
// returns their input indices.
std::unordered_set<uint32_t>
ElfPlanBuilder::dropSymbolsDefinedIn(const std::unordered_set<int> &removed) {
  std::unordered_set<uint32_t> removedSymbols;
  std::vector<uint32_t> remaining;
  remaining.reserve(symbolOrder_.size());
  for (size_t position = 0; position < symbolOrder_.size(); ++position) {
    uint32_t symbol = symbolOrder_[position];
    const int definedIn = symbols_[symbol].definedIn;
    if (position != 0 && definedIn != kNone && removed.count(definedIn))
      removedSymbols.insert(symbol);
    else
      remaining.push_back(symbol);
  }
  if (remaining.size() != symbolOrder_.size())
    symbolIndicesChanged_ = true;
  symbolOrder_ = std::move(remaining);
  return removedSymbols;
}

Status
ElfPlanBuilder::removeSections(const std::function<bool(int)> &shouldRemove) {
  // A section goes when asked, and so do relocations for a section that
  // goes and groups all of whose members go. Compressed sections stay.
  std::vector<int> kept;
  std::unordered_set<int> removed;
  for (int id : live_) {
    const SectionRecord &section = sections_[id];
    bool remove = shouldRemove(id);
    if (!remove && !(section.originalFlags & elf::kFlagCompressed)) {
      if (isRelocationRole(section) && section.targetSection != kNone)
        remove = shouldRemove(section.targetSection);
      else if (section.type == elf::kTypeGroup)
        remove = std::all_of(section.groupMembers.begin(),
                             section.groupMembers.end(), shouldRemove);
    }
    if (remove)
      removed.insert(id);
    else
      kept.push_back(id);
  }
  if (removed.empty())
    return Status::success();
  auto isRemoved = [&](int id) { return id != kNone && removed.count(id); };

  if (symbolTable_ != kNone && shouldRemove(symbolTable_))
    symbolTable_ = kNone;
  if (sectionNames_ != kNone && shouldRemove(sectionNames_))
    sectionNames_ = kNone;
  if (symbolIndexTable_ != kNone && shouldRemove(symbolIndexTable_))
    symbolIndexTable_ = kNone;

  // A removed group's members stop being group members.
  for (int id : removed)
    if (sections_[id].role == SectionRole::Group)
      for (int member : sections_[id].groupMembers)
        sections_[member].flags &= ~elf::kFlagGroup;

  // What stays must not need what goes.
  std::unordered_set<uint32_t> removedSymbols;
  for (int id : kept) {
    SectionRecord &section = sections_[id];
    switch (section.role) {
    case SectionRole::Plain:
      if (isRemoved(section.linkedSection))
        return makeError("section '" + nameOf(section.linkedSection) +
                         "' cannot be removed because it is referenced by "
                         "the section '" +
                         section.name + "'");
      break;
    case SectionRole::Relocation:
    case SectionRole::DynamicRelocation:
      if (Status status = checkKeptRelocations(section, id, removed);
          !status.ok())
        return status;
      break;
    case SectionRole::Group:
      if (isRemoved(section.linkedSection))
        return makeError("section '.symtab' cannot be removed because it is "
                         "referenced by the group section '" +
                         section.name + "'");
      std::erase_if(section.groupMembers, isRemoved);
      break;
    case SectionRole::SymbolTable:
      if (isRemoved(symbolNames_))
        return makeError("string table '" + nameOf(symbolNames_) +
                         "' cannot be removed because it is referenced by "
                         "the symbol table '" +
                         section.name + "'");
      removedSymbols = dropSymbolsDefinedIn(removed);
      break;
    default:
      break;
    }
  }
  // llvm-objcopy would go on with dangling pointers here; refuse instead.
  if (!removedSymbols.empty())
    for (int id : kept)
      if (sections_[id].role == SectionRole::Group &&
          sections_[id].groupSymbol != kNone &&
          removedSymbols.count(sections_[id].groupSymbol))
        return makeError(
            "symbol '" + std::string(symbols_[sections_[id].groupSymbol].name) +
            "' cannot be removed because it is referenced by the section '" +
            sections_[id].name + "'");
  live_ = std::move(kept);
  return Status::success();
}

Status ElfPlanBuilder::orderSymbolsLocalFirst() {
  if (symbolTable_ == kNone)
    return Status::success();
  std::vector<uint32_t> ordered;
  ordered.reserve(symbolOrder_.size());
  for (uint32_t symbol : symbolOrder_)
    if (symbols_[symbol].binding == elf::kBindingLocal)
      ordered.push_back(symbol);
  for (uint32_t symbol : symbolOrder_)
    if (symbols_[symbol].binding != elf::kBindingLocal)
      ordered.push_back(symbol);
  if (ordered != symbolOrder_)
    symbolIndicesChanged_ = true;
  symbolOrder_ = std::move(ordered);
  return Status::success();
}

Status ElfPlanBuilder::checkGroupSymbols() const {
  // llvm-objcopy asks every group whether its signature symbol is being
  // stripped whenever there is a symbol table; a group without one crashes
  // it.
  if (symbolTable_ == kNone)
    return Status::success();
  for (int id : live_)
    if (sections_[id].role == SectionRole::Group &&
        sections_[id].groupSymbol == kNone)
      return invalid("group section '" + sections_[id].name +
                     "' has no signature symbol");
  return Status::success();
}

void ElfPlanBuilder::addBundleSections(
    const std::vector<OffloadBundleSection> &added) {
  std::unordered_set<std::string> bundleNames;
  for (size_t i = 0; i < added.size(); ++i) {
    SectionRecord section;
    section.role = SectionRole::Added;
    section.name = std::string(kOffloadBundleSectionPrefix) + added[i].first;
    section.type = section.originalType = elf::kTypeProgBits;
    section.size = added[i].second.size();
    section.contents = added[i].second;
    section.payloadIndex = static_cast<int>(i);
    live_.push_back(static_cast<int>(sections_.size()));
    sections_.push_back(std::move(section));
    bundleNames.insert(sections_.back().name);
  }

  // --set-section-flags=<name>=readonly,exclude, which also reaches
  // sections of those names that the object already had. Flags tied to the
  // section's nature survive; on x86-64 "large" is not one of them.
  uint64_t preserved =
      (elf::kFlagCompressed | elf::kFlagGroup | elf::kFlagLinkOrder |
       elf::kFlagMaskOs | elf::kFlagMaskProcessor | elf::kFlagTls |
       elf::kFlagInfoLink) &
      ~kElfSectionFlagExclude;
  if (header_.machine == elf::kMachineX86_64)
    preserved &= ~elf::kFlagX86_64Large;
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    if (!bundleNames.count(section.name))
      continue;
    section.flags =
        (section.flags & preserved) | (kElfSectionFlagExclude & ~preserved);
    // Like GNU objcopy, a non-alloc SHT_NOBITS section gets contents
    // (zeros).
    if (section.type == kElfSectionTypeNoBits &&
        !(section.flags & elf::kFlagAlloc)) {
      section.type = elf::kTypeProgBits;
      section.zeroFilled = true;
    }
  }
}

std::string
ElfPlanBuilder::encodeCrel(const std::vector<Relocation> &relocations) const {
  const uint64_t wordMask =
      header_.is64Bit ? ~uint64_t(0) : uint64_t(0xffffffff);
  uint64_t offsetBits = 8;
  for (const Relocation &relocation : relocations)
    offsetBits |= relocation.offset & wordMask;
  unsigned shift = 0;
  while (!((offsetBits >> shift) & 1))
    ++shift;
  std::string out;
  appendUnsignedLeb(out, relocations.size() * 8 + 4 + shift);
  uint64_t offset = 0, addend = 0;
  uint32_t symbol = 0, type = 0;
  for (const Relocation &relocation : relocations) {
    const uint64_t newOffset = relocation.offset & wordMask;
    const uint32_t newSymbol =
        relocation.symbol ? symbols_[relocation.symbol].outputIndex : 0;
    const uint64_t newAddend = relocation.addend & wordMask;
    const uint64_t delta = ((newOffset - offset) & wordMask) >> shift;
    offset = newOffset;
    uint8_t flags = static_cast<uint8_t>(
        (delta << 3) + (symbol != newSymbol ? 1 : 0) +
        (type != relocation.type ? 2 : 0) + (addend != newAddend ? 4 : 0));
    if (delta < 0x10) {
      out.push_back(static_cast<char>(flags));
    } else {
      out.push_back(static_cast<char>(flags | 0x80));
      appendUnsignedLeb(out, delta >> 4);
    }
    if (flags & 1) {
      appendSignedLeb(out, static_cast<int32_t>(newSymbol - symbol));
      symbol = newSymbol;
    }
    if (flags & 2) {
      appendSignedLeb(out, static_cast<int32_t>(relocation.type - type));
      type = relocation.type;
    }
    if (flags & 4) {
      uint64_t difference = (newAddend - addend) & wordMask;
      appendSignedLeb(out, header_.is64Bit ? static_cast<int64_t>(difference)
                                           : static_cast<int32_t>(difference));
      addend = newAddend;
    }
  }
  return out;
}

std::string ElfPlanBuilder::encodeRelocations(
    const SectionRecord &section,
    const std::vector<Relocation> &relocations) const {
  if (section.type == elf::kTypeCrel)
    return encodeCrel(relocations);
  const bool withAddend = section.type == elf::kTypeRela;
  const size_t entrySize = withAddend ? shape_.relaSize : shape_.relSize;
  std::string out(relocations.size() * entrySize, '\0');
  for (size_t i = 0; i < relocations.size(); ++i) {
    const Relocation &relocation = relocations[i];
    char *entry = out.data() + i * entrySize;
    uint32_t symbol =
        relocation.symbol ? symbols_[relocation.symbol].outputIndex : 0;
    order_.write(entry, relocation.offset, shape_.wordSize);
    order_.write(entry + shape_.wordSize,
                 packRelocationInfo(symbol, relocation.type), shape_.wordSize);
    if (withAddend)
      order_.write(entry + 2 * shape_.wordSize, relocation.addend,
                   shape_.wordSize);
  }
  return out;
}

// An executable or shared object loses an empty symbol table (and its string
// table, unless that also names the sections), as llvm-objcopy's writer does.
Status ElfPlanBuilder::dropEmptySymbolTable() {
  const bool relocatable = header_.fileType != elf::kFileTypeExecutable &&
                           header_.fileType != elf::kFileTypeShared;
  if (relocatable || symbolTable_ == kNone || symbolOrder_.size() != 1)
    return Status::success();
  int table = symbolTable_;
  int names = symbolNames_ == sectionNames_ ? kNone : symbolNames_;
  return removeSections([&](int id) { return id == table || id == names; });
}

// Sections that named the symbol table keep naming it only if no symbol
// moved; otherwise their contents may be stale and the link is cut.
void ElfPlanBuilder::relinkSymbolTableUsers() {
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    if (section.role == SectionRole::Plain && section.linksSymbolTable &&
        symbolTable_ != kNone && !symbolIndicesChanged_)
      section.linkedSection = symbolTable_;
  }
}

// SHT_SYMTAB_SHNDX is needed only when a section that holds symbols sits at
// index 0xff00 or above: then one is added if missing, otherwise it goes.
Status ElfPlanBuilder::provideSymbolIndexTableIfNeeded() {
  bool needsExtendedIndices = false;
  if (live_.size() >= elf::kSectionIndexLoReserve)
    for (size_t position = elf::kSectionIndexLoReserve - 1;
         position < live_.size(); ++position)
      needsExtendedIndices |= sections_[live_[position]].hasSymbol;
  if (!needsExtendedIndices) {
    if (symbolIndexTable_ == kNone)
      return Status::success();
    int table = symbolIndexTable_;
    return removeSections([&](int id) { return id == table; });
  }
  if (symbolTable_ != kNone && symbolIndexTable_ == kNone) {
    SectionRecord table;
    table.role = SectionRole::SymbolIndexTable;
    table.name = ".symtab_shndx";
    table.type = table.originalType = elf::kTypeSymbolIndexTable;
    table.alignment = 4;
    table.entrySize = 4;
    symbolIndexTable_ = static_cast<int>(sections_.size());
    live_.push_back(symbolIndexTable_);
    sections_.push_back(std::move(table));
  }
  return Status::success();
}

// Sizes, entry sizes and alignments of the sections rebuilt from their
// records (string tables and CREL come later: they depend on more).
void ElfPlanBuilder::sizeRebuiltSections() {
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    switch (section.role) {
    case SectionRole::SymbolTable:
      section.entrySize = static_cast<uint32_t>(shape_.symbolSize);
      section.size = symbolOrder_.size() * shape_.symbolSize;
      section.alignment = shape_.wordSize;
      break;
    case SectionRole::Relocation:
      if (section.type != elf::kTypeCrel) {
        section.entrySize = static_cast<uint32_t>(
            section.type == elf::kTypeRel ? shape_.relSize : shape_.relaSize);
        section.size = relocations_[id].size() * section.entrySize;
        section.alignment = shape_.wordSize;
      }
      break;
    case SectionRole::Group:
      section.size = 4 + 4 * section.groupMembers.size();
      break;
    default:
      break;
    }
  }
  if (symbolTable_ == kNone)
    return;
  for (size_t position = 0; position < symbolOrder_.size(); ++position)
    symbols_[symbolOrder_[position]].outputIndex =
        static_cast<uint32_t>(position);
  if (symbolIndexTable_ != kNone)
    sections_[symbolIndexTable_].size = 4 * symbolOrder_.size();
}

// Every non-alloc string table is rebuilt, tail-merged, from the names that
// use it: section names first, then symbol names. Section records must stay
// put in memory from here on: the tables view their names.
void ElfPlanBuilder::buildStringTables() {
  for (int id : live_)
    if (sections_[id].role == SectionRole::StringTable)
      stringTables_[id];
  if (sectionNames_ != kNone)
    for (int id : live_)
      stringTables_[sectionNames_].add(sections_[id].name);
  if (symbolTable_ != kNone && symbolNames_ != kNone)
    for (uint32_t symbol : symbolOrder_)
      stringTables_[symbolNames_].add(symbols_[symbol].name);
  for (auto &[id, table] : stringTables_) {
    table.finalize();
    sections_[id].size = table.size();
  }
}

// CREL sections are encoded now, since their sizes depend on the final
// symbol indices.
void ElfPlanBuilder::encodeCrelSections() {
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    if (section.role == SectionRole::Relocation &&
        section.type == elf::kTypeCrel) {
      encodedRelocations_[id] = encodeCrel(relocations_[id]);
      section.size = encodedRelocations_[id].size();
    }
  }
}

// Where the sections may start: after the ELF header and the (empty)
// program header table. Both are laid out like segments: in order of offset
// (the larger alignment first on a tie), each at its alignment with its
// address as skew. Only an odd e_phoff makes this differ from "right after
// the ELF header".
uint64_t ElfPlanBuilder::endOfHeaders() const {
  struct HeaderPiece {
    uint64_t offset, alignment, fileSize;
  };
  HeaderPiece elfHeaderPiece{0, 1, shape_.headerSize};
  HeaderPiece programHeaderPiece{header_.programHeaderOffset, shape_.wordSize,
                                 0};
  std::vector<HeaderPiece> headerPieces = {elfHeaderPiece, programHeaderPiece};
  if (header_.programHeaderOffset == 0)
    std::swap(headerPieces[0], headerPieces[1]);
  uint64_t offset = 0;
  for (const HeaderPiece &piece : headerPieces) {
    uint64_t placed = alignUpSkewed(offset, piece.alignment, piece.offset);
    offset = std::max(offset, placed + piece.fileSize);
  }
  return offset;
}

// Indices follow the section order; file offsets follow the old offsets,
// each section at its alignment, then the section header table aligned to
// the address size.
Status ElfPlanBuilder::layOutSections() {
  for (size_t position = 0; position < live_.size(); ++position)
    sections_[live_[position]].index = static_cast<uint32_t>(position + 1);
  uint64_t offset = endOfHeaders();
  layoutOrder_ = live_;
  std::stable_sort(layoutOrder_.begin(), layoutOrder_.end(), [&](int a, int b) {
    return sections_[a].originalOffset < sections_[b].originalOffset;
  });
  // Offsets stay at most 2^62, so nothing below wraps.
  constexpr uint64_t kSizeLimit = uint64_t(1) << 62;
  for (int id : layoutOrder_) {
    SectionRecord &section = sections_[id];
    const uint64_t alignment = section.alignment == 0 ? 1 : section.alignment;
    if (alignment > kSizeLimit)
      return invalid("section '" + section.name + "' has alignment " +
                     hexNumber(alignment));
    // Both at most 2^62, so this cannot wrap.
    offset = alignUp(offset, alignment);
    if (offset > kSizeLimit)
      return makeError("the output object would be too large");
    section.offset = offset;
    if (section.type != kElfSectionTypeNoBits) {
      if (section.size > kSizeLimit - offset)
        return makeError("the output object would be too large");
      offset += section.size;
    }
  }
  sectionHeaderTableOffset_ = offset;
  outputSize_ = offset;
  if (writeSectionHeaders_) {
    sectionHeaderTableOffset_ = alignUp(offset, shape_.wordSize);
    outputSize_ = sectionHeaderTableOffset_ +
                  outputSectionCount() * shape_.sectionHeaderSize;
  }
  return checkOutputSize();
}

// Refuses outputs llvm-objcopy could not write either: mostly padding from
// absurd alignments (it would try to allocate all of it), or too large for
// ELF32.
Status ElfPlanBuilder::checkOutputSize() const {
  constexpr uint64_t kPaddingLimit = uint64_t(1) << 30;
  uint64_t contentBytes = shape_.headerSize;
  for (int id : live_)
    if (sections_[id].type != kElfSectionTypeNoBits)
      contentBytes += sections_[id].size;
  if (writeSectionHeaders_)
    contentBytes += outputSectionCount() * shape_.sectionHeaderSize;
  if (outputSize_ - std::min(outputSize_, contentBytes) > kPaddingLimit)
    return makeError("the output object would hold more than 1 GiB of "
                     "alignment padding");
  if (!header_.is64Bit && outputSize_ > 0xffffffff)
    return makeError("the output object would be larger than 4 GiB, which "
                     "ELF32 cannot describe");
  return Status::success();
}

// sh_link and sh_info in output indices, and each section's name offset.
void ElfPlanBuilder::resolveLinksAndInfos() {
  uint32_t lastLocal = 0;
  for (size_t position = 0; position < symbolOrder_.size(); ++position)
    if (symbols_[symbolOrder_[position]].binding == elf::kBindingLocal)
      lastLocal = static_cast<uint32_t>(position);
  auto indexOf = [&](int id) -> uint64_t {
    return id == kNone ? 0 : sections_[id].index;
  };
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    switch (section.role) {
    case SectionRole::Plain:
      section.link = indexOf(section.linkedSection);
      break;
    case SectionRole::SymbolTable:
      section.link = indexOf(symbolNames_);
      section.info = lastLocal + 1;
      break;
    case SectionRole::SymbolIndexTable:
      section.link = indexOf(symbolTable_);
      break;
    case SectionRole::Relocation:
    case SectionRole::DynamicRelocation:
      section.link = indexOf(section.linkedSection);
      if (section.targetSection != kNone)
        section.info = indexOf(section.targetSection);
      break;
    case SectionRole::Group:
      section.info = section.groupSymbol == kNone
                         ? 0
                         : symbols_[section.groupSymbol].outputIndex;
      section.link = indexOf(section.linkedSection);
      // A group whose signature is local is no longer deduplicated.
      if ((section.groupFlags & elf::kGroupComdat) &&
          section.groupSymbol != kNone &&
          symbols_[section.groupSymbol].binding == elf::kBindingLocal)
        section.groupFlags &= ~elf::kGroupComdat;
      break;
    default:
      break;
    }
    if (writeSectionHeaders_)
      section.nameIndex = stringTables_[sectionNames_].offsetOf(section.name);
  }
}

// Hands bytes computed here to the plan, which keeps them alive.
void ElfPlanBuilder::addGenerated(ElfWritePlan &plan, uint64_t at,
                                  std::string bytes) {
  if (bytes.empty())
    return;
  auto owned = std::make_unique<const std::string>(std::move(bytes));
  plan.chunks_.push_back({at, *owned, -1});
  plan.generated_.push_back(std::move(owned));
}

std::string ElfPlanBuilder::encodeElfHeader() const {
  std::string elfHeader(shape_.headerSize, '\0');
  char *out = elfHeader.data();
  const ElfHeaderFields fields = ElfHeaderFields::of(header_.is64Bit);
  std::memcpy(out,
              "\x7f"
              "ELF",
              4);
  out[4] = static_cast<char>(header_.is64Bit ? elf::kClass64 : elf::kClass32);
  out[5] = static_cast<char>(header_.isLittleEndian ? elf::kDataLittle
                                                    : elf::kDataBig);
  out[6] = 1; // EV_CURRENT
  out[7] = static_cast<char>(header_.osAbi);
  out[8] = static_cast<char>(header_.abiVersion);
  order_.write(out + 16, header_.fileType, 2);
  order_.write(out + 18, header_.machine, 2);
  order_.write(out + 20, header_.version, 4);
  order_.write(out + fields.entry, header_.entry, shape_.wordSize);
  order_.write(out + fields.flags, header_.flags, 4);
  order_.write(out + fields.ehsize, shape_.headerSize, 2);
  if (writeSectionHeaders_ && !live_.empty()) {
    const uint64_t sectionCount = outputSectionCount();
    order_.write(out + fields.shoff, sectionHeaderTableOffset_,
                 shape_.wordSize);
    order_.write(out + fields.shentsize, shape_.sectionHeaderSize, 2);
    order_.write(out + fields.shnum,
                 sectionCount >= elf::kSectionIndexLoReserve ? 0 : sectionCount,
                 2);
    const uint32_t namesIndex = sections_[sectionNames_].index;
    order_.write(out + fields.shstrndx,
                 namesIndex >= elf::kSectionIndexLoReserve
                     ? elf::kSectionIndexExtended
                     : namesIndex,
                 2);
  }
  return elfHeader;
}

std::string ElfPlanBuilder::encodeSymbolTable(const SectionRecord &section) {
  std::string bytes(section.size, '\0');
  const ElfSymbolFields fields = ElfSymbolFields::of(header_.is64Bit);
  const TailMergedStringTable *names =
      symbolNames_ == kNone ? nullptr : &stringTables_[symbolNames_];
  for (size_t position = 0; position < symbolOrder_.size(); ++position) {
    const SymbolRecord &symbol = symbols_[symbolOrder_[position]];
    char *entry = bytes.data() + position * shape_.symbolSize;
    order_.write(entry + fields.name, names ? names->offsetOf(symbol.name) : 0,
                 4);
    order_.write(entry + fields.value, symbol.value, shape_.wordSize);
    order_.write(entry + fields.size, symbol.size, shape_.wordSize);
    entry[fields.info] =
        static_cast<char>((symbol.binding << 4) + (symbol.type & 0xf));
    entry[fields.other] = static_cast<char>(symbol.other);
    uint32_t sectionIndex = symbol.reservedIndex;
    if (symbol.definedIn != kNone) {
      sectionIndex = sections_[symbol.definedIn].index;
      if (sectionIndex >= elf::kSectionIndexLoReserve)
        sectionIndex = elf::kSectionIndexExtended;
    }
    order_.write(entry + fields.shndx, sectionIndex, 2);
  }
  return bytes;
}

// The real section index of each symbol whose section index did not fit
// st_shndx, 0 for the others.
std::string
ElfPlanBuilder::encodeSymbolIndexTable(const SectionRecord &section) const {
  std::string bytes(section.size, '\0');
  for (size_t position = 0; position < symbolOrder_.size(); ++position) {
    const SymbolRecord &symbol = symbols_[symbolOrder_[position]];
    uint32_t index =
        symbol.definedIn == kNone ? 0 : sections_[symbol.definedIn].index;
    order_.write(bytes.data() + 4 * position,
                 index >= elf::kSectionIndexLoReserve ? index : 0, 4);
  }
  return bytes;
}

std::string ElfPlanBuilder::encodeGroup(const SectionRecord &section) const {
  std::string bytes(section.size, '\0');
  order_.write(bytes.data(), section.groupFlags, 4);
  for (size_t i = 0; i < section.groupMembers.size(); ++i)
    order_.write(bytes.data() + 4 + 4 * i,
                 sections_[section.groupMembers[i]].index, 4);
  return bytes;
}

// Each section's bytes: copied ones as views of the input or payload,
// rebuilt ones encoded here. Layout order is also offset order.
void ElfPlanBuilder::writeSectionContents(ElfWritePlan &plan) {
  for (int id : layoutOrder_) {
    SectionRecord &section = sections_[id];
    if (section.type == kElfSectionTypeNoBits || section.size == 0)
      continue;
    switch (section.role) {
    case SectionRole::Plain:
    case SectionRole::DynamicRelocation:
    case SectionRole::Compressed:
      if (!section.zeroFilled && !section.contents.empty())
        plan.chunks_.push_back({section.offset, section.contents, -1});
      break;
    case SectionRole::Added:
      plan.chunks_.push_back(
          {section.offset, section.contents, section.payloadIndex});
      break;
    case SectionRole::StringTable: {
      std::string bytes(section.size, '\0');
      stringTables_[id].writeTo(bytes.data());
      addGenerated(plan, section.offset, std::move(bytes));
      break;
    }
    case SectionRole::SymbolTable:
      addGenerated(plan, section.offset, encodeSymbolTable(section));
      break;
    case SectionRole::SymbolIndexTable:
      addGenerated(plan, section.offset, encodeSymbolIndexTable(section));
      break;
    case SectionRole::Relocation:
      if (section.type == elf::kTypeCrel)
        addGenerated(plan, section.offset, std::move(encodedRelocations_[id]));
      else
        addGenerated(plan, section.offset,
                     encodeRelocations(section, relocations_[id]));
      break;
    case SectionRole::Group:
      addGenerated(plan, section.offset, encodeGroup(section));
      break;
    }
  }
}

std::string ElfPlanBuilder::encodeSectionHeaderTable() const {
  const uint64_t sectionCount = outputSectionCount();
  std::string table(sectionCount * shape_.sectionHeaderSize, '\0');
  const ElfSectionHeaderFields fields =
      ElfSectionHeaderFields::of(header_.is64Bit);
  // The null entry carries the count and name table index when they do not
  // fit the ELF header.
  if (sectionCount >= elf::kSectionIndexLoReserve)
    order_.write(table.data() + fields.size, sectionCount, shape_.wordSize);
  if (sections_[sectionNames_].index >= elf::kSectionIndexLoReserve)
    order_.write(table.data() + fields.link, sections_[sectionNames_].index, 4);
  for (int id : live_) {
    const SectionRecord &section = sections_[id];
    char *entry = table.data() + section.index * shape_.sectionHeaderSize;
    order_.write(entry + fields.name, section.nameIndex, 4);
    order_.write(entry + fields.type, section.type, 4);
    order_.write(entry + fields.flags, section.flags, shape_.wordSize);
    order_.write(entry + fields.addr, section.address, shape_.wordSize);
    order_.write(entry + fields.offset, section.offset, shape_.wordSize);
    order_.write(entry + fields.size, section.size, shape_.wordSize);
    order_.write(entry + fields.link, section.link, 4);
    order_.write(entry + fields.info, section.info, 4);
    order_.write(entry + fields.addralign, section.alignment, shape_.wordSize);
    order_.write(entry + fields.entsize, section.entrySize, shape_.wordSize);
  }
  return table;
}

// Step 5 of the model at the top of this file: the last removals, sizes,
// string tables, layout, links, then the bytes.
Result<ElfWritePlan> ElfPlanBuilder::finalizeAndWrite() {
  if (sectionNames_ == kNone && writeSectionHeaders_)
    return makeError("cannot write section header table because section "
                     "header string table was removed");
  if (Status status = dropEmptySymbolTable(); !status.ok())
    return status.takeError();
  relinkSymbolTableUsers();
  if (Status status = provideSymbolIndexTableIfNeeded(); !status.ok())
    return status.takeError();
  sizeRebuiltSections();
  buildStringTables();
  encodeCrelSections();
  if (Status status = layOutSections(); !status.ok())
    return status.takeError();
  resolveLinksAndInfos();

  ElfWritePlan plan;
  plan.size_ = outputSize_;
  addGenerated(plan, 0, encodeElfHeader());
  writeSectionContents(plan);
  if (writeSectionHeaders_)
    addGenerated(plan, sectionHeaderTableOffset_, encodeSectionHeaderTable());
  return plan;
}

Result<ElfWritePlan> ElfPlanBuilder::run(const Edit &edit) {
  if (Status status = readSections(); !status.ok())
    return status.takeError();
  if (Status status = readSymbols(); !status.ok())
    return status.takeError();
  if (Status status = linkSections(); !status.ok())
    return status.takeError();

  // Removal runs even when nothing is asked for: it drops empty groups.
  auto isBundleSection = [&](int id) {
    return edit.removeBundleSections &&
           std::string_view(sections_[id].name)
                   .substr(0, kOffloadBundleSectionPrefix.size()) ==
               kOffloadBundleSectionPrefix;
  };
  if (Status status = removeSections(isBundleSection); !status.ok())
    return status.takeError();
  if (Status status = orderSymbolsLocalFirst(); !status.ok())
    return status.takeError();
  if (Status status = checkGroupSymbols(); !status.ok())
    return status.takeError();
  if (edit.added)
    addBundleSections(*edit.added);
  if (edit.updated)
    if (Status status =
            updateSection(edit.updated->first, edit.updated->second);
        !status.ok())
      return status.takeError();
  return finalizeAndWrite();
}

// llvm-objcopy --update-section: new contents of any size for a section
// that has contents of its own and that no relocations apply to (their
// offsets would no longer mean anything).
Status ElfPlanBuilder::updateSection(std::string_view name,
                                     std::string_view contents) {
  for (size_t id = 0; id < sections_.size(); ++id) {
    SectionRecord &section = sections_[id];
    if (section.name != name)
      continue;
    if (section.type == kElfSectionTypeNoBits)
      return makeError("section '" + std::string(name) +
                       "' has no contents to replace");
    for (const SectionRecord &other : sections_)
      if (isRelocationRole(other) &&
          other.targetSection == static_cast<int>(id))
        return makeError("section '" + std::string(name) +
                         "' has relocations and cannot be replaced");
    section.contents = contents;
    section.size = contents.size();
    return Status::success();
  }
  return makeError("no section '" + std::string(name) + "'");
}

// ---------------------------------------------------------------------------
// Plans and the entry points.

std::string ElfWritePlan::render() const {
  std::string out(size_, '\0');
  for (const ElfOutputChunk &chunk : chunks_)
    std::memcpy(out.data() + chunk.offset, chunk.bytes.data(),
                chunk.bytes.size());
  return out;
}

Status
ElfWritePlan::stream(const std::function<Status(std::string_view)> &writeBytes,
                     const std::function<Status(uint64_t)> &writeZeros) const {
  uint64_t position = 0;
  for (const ElfOutputChunk &chunk : chunks_) {
    if (chunk.offset > position)
      if (Status status = writeZeros(chunk.offset - position); !status.ok())
        return status;
    if (Status status = writeBytes(chunk.bytes); !status.ok())
      return status;
    position = chunk.offset + chunk.bytes.size();
  }
  if (size_ > position)
    return writeZeros(size_ - position);
  return Status::success();
}

Result<ElfWritePlan>
planOffloadBundleSections(std::string_view object,
                          const std::vector<OffloadBundleSection> &sections) {
  Result<ElfObject> parsed = parseElfObject(object);
  if (!parsed.ok())
    return parsed.takeError();
  // llvm-objcopy refuses two --set-section-flags for one section name.
  std::unordered_set<std::string_view> ids;
  for (const OffloadBundleSection &section : sections)
    if (!ids.insert(section.first).second)
      return makeError("--set-section-flags set multiple times for section '" +
                       std::string(kOffloadBundleSectionPrefix) +
                       section.first + "'");
  Edit edit;
  edit.added = &sections;
  return ElfPlanBuilder(*parsed).run(edit);
}

Result<ElfWritePlan> planSectionUpdate(std::string_view object,
                                       std::string_view sectionName,
                                       std::string_view contents) {
  Result<ElfObject> parsed = parseElfObject(object);
  if (!parsed.ok())
    return parsed.takeError();
  const std::pair<std::string_view, std::string_view> updated{sectionName,
                                                              contents};
  Edit edit;
  edit.updated = &updated;
  return ElfPlanBuilder(*parsed).run(edit);
}

Result<ElfWritePlan> planHostObjectExtraction(std::string_view object) {
  Result<ElfObject> parsed = parseElfObject(object);
  if (!parsed.ok())
    return parsed.takeError();
  Edit edit;
  edit.removeBundleSections = true;
  return ElfPlanBuilder(*parsed).run(edit);
}

} // namespace offbundle
