// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF reading (see elf_object.h). The structures themselves are decoded by
// elf_file.h; the checks here are stricter than LLVM's ELFObjectFile, since
// a writer must be able to lay the file out again.
#include "formats/elf/elf_object.h"

#include "formats/elf/elf_file.h"
#include "support/byte_range.h"
#include "support/hex.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace offbundle {

std::string describeSection(const ElfSection &section, size_t index) {
  std::string text = "section " + std::to_string(index);
  if (!section.name.empty())
    text += " ('" + std::string(section.name) + "')";
  return text;
}

Error invalidElfObject(const std::string &what) {
  return makeError("invalid ELF object: " + what, ErrorCode::DamagedInput);
}

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
    return invalidElfObject("unknown ELF class " + std::to_string(fileClass));
  if (!elf::isKnownDataEncoding(encoding))
    return invalidElfObject("unknown data encoding " +
                            std::to_string(encoding));
  ElfFile file(bytes, fileClass == elf::kClass64, encoding == elf::kDataLittle);
  const uint64_t fileSize = bytes.size();
  if (fileSize < file.shape().headerSize)
    return invalidElfObject("the file has " + std::to_string(fileSize) +
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
    return invalidElfObject("program header entry size " +
                            std::to_string(tables.programHeaderEntrySize) +
                            " is not " +
                            std::to_string(shape.programHeaderSize));
  const uint64_t tableSize =
      uint64_t(header.programHeaderCount) * shape.programHeaderSize;
  if (!rangeFits(header.programHeaderOffset, tableSize, file.bytes().size()))
    return invalidElfObject("the program header table at offset " +
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
      return invalidElfObject("section header entry size " +
                              std::to_string(tables.sectionHeaderEntrySize) +
                              " is not " +
                              std::to_string(shape.sectionHeaderSize));
    if (!rangeFits(tableOffset, shape.sectionHeaderSize, fileSize))
      return invalidElfObject("the section header table at offset " +
                              hexNumber(tableOffset) +
                              " extends past the end of the file");
    sectionCount = file.sectionCount(tableOffset, tables.sectionCount);
    if (sectionCount > (fileSize - tableOffset) / shape.sectionHeaderSize)
      return invalidElfObject("the section header table at offset " +
                              hexNumber(tableOffset) + " with " +
                              std::to_string(sectionCount) +
                              " entries extends past the end of the file");
  }
  header.sectionCount = sectionCount;

  if (tables.sectionNameTableIndex == elf::kSectionIndexExtended &&
      sectionCount == 0)
    return invalidElfObject(
        "the section name table index is in a section header "
        "table that does not exist");
  const uint32_t nameTableIndex =
      file.sectionNameTableIndex(tableOffset, tables.sectionNameTableIndex);
  if (nameTableIndex != 0 && nameTableIndex >= sectionCount)
    return invalidElfObject(
        "the section name table index " + std::to_string(nameTableIndex) +
        " is out of range (" + std::to_string(sectionCount) + " sections)");
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
      return invalidElfObject("section " + std::to_string(index) +
                              " at offset " + hexNumber(section.offset) +
                              " with size " + hexNumber(section.size) +
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
      return invalidElfObject("the section name table (section " +
                              std::to_string(nameTableIndex) +
                              ") is not a string table");
    nameTable = bytes.substr(table.offset, table.size);
    if (nameTable.empty() || nameTable.back() != '\0')
      return invalidElfObject("the section name table (section " +
                              std::to_string(nameTableIndex) +
                              ") is empty or not null-terminated");
  }
  for (uint64_t index = 1; index < sections.size(); ++index) {
    ElfSection &section = sections[index];
    if (section.nameOffset == 0)
      continue;
    if (section.nameOffset >= nameTable.size())
      return invalidElfObject("section " + std::to_string(index) +
                              " has name offset " +
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
      return invalidElfObject(claims[i].what + " overlaps " +
                              claims[furthest].what);
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
// Plans and the entry points.

} // namespace offbundle
