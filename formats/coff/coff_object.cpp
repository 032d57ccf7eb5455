// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// COFF sections by name, in objects and PE images (see coff_object.h for the
// layouts). Long names ("/<decimal>") are looked up in the string table after
// the symbols.

#include "formats/coff/coff_object.h"

#include "formats/coff/pe_header.h"

#include "support/byte_order.h"

namespace offbundle {
namespace {

constexpr uint64_t kFileHeaderSize = 20;
constexpr uint64_t kSectionHeaderSize = 40;
constexpr uint64_t kSymbolSize = 18;

// What is read differs between objects and images only in where the file
// header starts and how much of a section's raw data is its contents.
struct CoffLayout {
  uint64_t fileHeader = 0;
  bool image = false;
  std::string_view kind; // for messages
};

Error malformed(const CoffLayout &layout, const std::string &what) {
  return makeError("malformed " + std::string(layout.kind) + ": " + what,
                   ErrorCode::DamagedInput);
}

Result<std::vector<CoffSection>> readSections(std::string_view bytes,
                                              const CoffLayout &layout) {
  auto malformed = [&](const std::string &what) {
    return offbundle::malformed(layout, what);
  };
  const uint64_t at = layout.fileHeader;
  if (at > bytes.size() || bytes.size() - at < kFileHeaderSize)
    return malformed("the file header is truncated");
  const uint64_t sectionCount = loadLittleEndian(bytes, at + 2, 2);
  const uint64_t symbolTable = loadLittleEndian(bytes, at + 8, 4);
  const uint64_t symbolCount = loadLittleEndian(bytes, at + 12, 4);
  const uint64_t optionalHeaderSize = loadLittleEndian(bytes, at + 16, 2);
  const uint64_t sectionTable = at + kFileHeaderSize + optionalHeaderSize;
  if (sectionTable > bytes.size() ||
      sectionCount > (bytes.size() - sectionTable) / kSectionHeaderSize)
    return malformed("the section table runs past the end of the file");

  // The string table follows the symbols; without symbols there is none.
  std::string_view strings;
  if (symbolTable != 0) {
    const uint64_t stringTable = symbolTable + symbolCount * kSymbolSize;
    if (stringTable > bytes.size() || bytes.size() - stringTable < 4)
      return malformed("the symbol table runs past the end of the file");
    const uint64_t stringTableSize = loadLittleEndian(bytes, stringTable, 4);
    if (stringTableSize > bytes.size() - stringTable)
      return malformed("the string table runs past the end of the file");
    strings = bytes.substr(stringTable, stringTableSize);
  }

  std::vector<CoffSection> sections;
  for (uint64_t index = 0; index < sectionCount; ++index) {
    const uint64_t header = sectionTable + index * kSectionHeaderSize;
    std::string_view rawName = bytes.substr(header, 8);
    rawName = rawName.substr(0, rawName.find('\0'));
    CoffSection section;
    if (!rawName.empty() && rawName[0] == '/' &&
        !(rawName.size() > 1 && rawName[1] == '/')) {
      // "/<decimal offset>" into the string table.
      uint64_t offset = 0;
      for (char c : rawName.substr(1)) {
        if (c < '0' || c > '9')
          return malformed("section " + std::to_string(index + 1) +
                           " has an invalid long name offset");
        offset = offset * 10 + static_cast<uint64_t>(c - '0');
      }
      if (offset >= strings.size())
        return malformed("section " + std::to_string(index + 1) +
                         " names a string past the string table");
      const size_t end = strings.find('\0', offset);
      if (end == std::string_view::npos)
        return malformed("section " + std::to_string(index + 1) +
                         "'s name has no terminating null byte");
      section.name = std::string(strings.substr(offset, end - offset));
    } else {
      section.name = std::string(rawName);
    }
    const uint64_t virtualSize = loadLittleEndian(bytes, header + 8, 4);
    section.virtualAddress = loadLittleEndian(bytes, header + 12, 4);
    section.virtualSize = virtualSize;
    section.headerOffset = header;
    section.characteristics =
        static_cast<uint32_t>(loadLittleEndian(bytes, header + 36, 4));
    uint64_t rawSize = loadLittleEndian(bytes, header + 16, 4);
    section.rawSize = rawSize;
    const uint64_t rawOffset = loadLittleEndian(bytes, header + 20, 4);
    // Uninitialized data has no bytes in the file.
    if (rawOffset != 0) {
      if (rawOffset > bytes.size() || rawSize > bytes.size() - rawOffset)
        return malformed("section '" + section.name +
                         "' runs past the end of the file");
      // An image's raw data is padded to the file alignment.
      if (layout.image && virtualSize != 0 && virtualSize < rawSize)
        rawSize = virtualSize;
      section.contents = bytes.substr(rawOffset, rawSize);
      section.fileOffset = rawOffset;
    }
    sections.push_back(std::move(section));
  }
  return sections;
}

} // namespace

Result<std::vector<CoffSection>> readCoffSections(std::string_view bytes) {
  return readSections(bytes, {0, false, "COFF object"});
}

Result<std::vector<CoffSection>> readPeImageSections(std::string_view bytes) {
  const CoffLayout layout{0, true, "PE image"};
  if (bytes.size() < kDosHeaderSize)
    return malformed(layout, "the DOS header is truncated");
  const std::optional<uint64_t> fileHeader = peFileHeaderOffset(bytes);
  if (!fileHeader)
    return malformed(layout, "no PE signature where the DOS header points");
  return readSections(bytes, {*fileHeader, true, "PE image"});
}

} // namespace offbundle
