// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The HIP fat binary wrappers of a PE image (see pe_hip_wrappers.h): the
// wrappers in .hipFatB, .hip_fat's addresses, and the base relocations that
// fix their pointers up.

#include "formats/coff/pe_hip_wrappers.h"

#include "formats/coff/coff_object.h"
#include "formats/coff/pe_header.h"
#include "formats/file_magic.h"
#include "support/byte_order.h"
#include "support/offload_sections.h"

namespace offbundle {
namespace {

constexpr uint64_t kFileHeaderSize = 20;
constexpr uint64_t kPe32PlusMagic = 0x20b;
constexpr uint64_t kCertificateDirectory = 4;
constexpr uint64_t kBaseRelocationDirectory = 5;
constexpr uint64_t kDebugDirectory = 6;
constexpr uint64_t kDebugEntrySize = 28;
constexpr uint64_t kDebugDataPointer = 24;
constexpr uint64_t kRelocationBlockHeader = 8;
constexpr unsigned kRelocationDir64 = 10;

Error malformed(const std::string &what) {
  return makeError("malformed PE image: " + what, ErrorCode::DamagedInput);
}

std::optional<size_t> findSection(const std::vector<CoffSection> &sections,
                                  std::string_view name) {
  for (size_t index = 0; index < sections.size(); ++index)
    if (sections[index].name == name)
      return index;
  return std::nullopt;
}

// The bytes at `rva`, `size` long, from the section holding them.
std::optional<std::string_view>
bytesAt(const std::vector<CoffSection> &sections, uint64_t rva, uint64_t size) {
  for (const CoffSection &section : sections) {
    if (rva < section.virtualAddress)
      continue;
    const uint64_t offset = rva - section.virtualAddress;
    if (offset <= section.contents.size() &&
        size <= section.contents.size() - offset)
      return section.contents.substr(offset, size);
  }
  return std::nullopt;
}

// The RVAs the base relocation table fixes up with 64-bit values.
Result<std::set<uint64_t>>
dir64Relocations(const std::vector<CoffSection> &sections, uint64_t rva,
                 uint64_t size) {
  std::set<uint64_t> relocated;
  std::optional<std::string_view> table = bytesAt(sections, rva, size);
  if (!table)
    return malformed("the base relocation table lies outside the sections");
  uint64_t at = 0;
  while (table->size() - at >= kRelocationBlockHeader) {
    const uint64_t page = loadLittleEndian(*table, at, 4);
    const uint64_t blockSize = loadLittleEndian(*table, at + 4, 4);
    if (blockSize < kRelocationBlockHeader || blockSize > table->size() - at)
      return malformed("base relocation block at offset " + std::to_string(at) +
                       " has size " + std::to_string(blockSize));
    for (uint64_t entry = at + kRelocationBlockHeader;
         entry + 2 <= at + blockSize; entry += 2) {
      const uint64_t value = loadLittleEndian(*table, entry, 2);
      if ((value >> 12) == kRelocationDir64)
        relocated.insert(page + (value & 0xfff));
    }
    at += blockSize;
  }
  return relocated;
}

} // namespace

Result<std::optional<PeHipImage>> readPeHipWrappers(std::string_view bytes) {
  if (identifyFile(bytes) != FileMagic::PeImage)
    return std::optional<PeHipImage>();
  auto sections = readPeImageSections(bytes);
  if (!sections)
    return sections.takeError();
  std::optional<PeHipImage> image(std::in_place);
  PeLayout &layout = image->layout;
  layout.sections = std::move(*sections);
  const std::optional<size_t> segmentIndex =
      findSection(layout.sections, peImageSectionName(kHipWrapperSection));
  const std::optional<size_t> fatbinIndex =
      findSection(layout.sections, peImageSectionName(kHipFatbinSection));
  if (!segmentIndex || !fatbinIndex)
    return std::optional<PeHipImage>();
  layout.segment = *segmentIndex;
  layout.fatbin = *fatbinIndex;
  const CoffSection &segment = layout.sections[layout.segment];
  const CoffSection &fatbin = layout.sections[layout.fatbin];
  if (segment.contents.size() % kHipWrapperSize != 0)
    return malformed(".hipFatB holds " +
                     std::to_string(segment.contents.size()) +
                     " bytes, not a whole number of wrappers");

  // The file header and the optional header: ImageBase, the alignment, the
  // fields a rewrite changes, and the data directories.
  // readPeImageSections found the signature where the DOS header points.
  const uint64_t fileHeader = peFileHeaderOffset(bytes).value_or(0);
  const uint64_t optional = fileHeader + kFileHeaderSize;
  const uint64_t optionalSize = loadLittleEndian(bytes, fileHeader + 16, 2);
  if (optional > bytes.size() || optionalSize > bytes.size() - optional ||
      optionalSize < 2)
    return malformed("the optional header runs past the end of the file");
  const std::string_view header = bytes.substr(optional, optionalSize);
  const bool plus = loadLittleEndian(header, 0, 2) == kPe32PlusMagic;
  // HIP runs on 64-bit hosts only; the wrappers read here are 64-bit ones.
  if (!plus)
    return std::optional<PeHipImage>();
  const uint64_t directories = plus ? 112 : 96;
  const uint64_t countField = plus ? 108 : 92;
  if (header.size() < directories)
    return malformed("the optional header is truncated");
  image->imageBase = loadLittleEndian(header, plus ? 24 : 28, plus ? 8 : 4);
  layout.fileAlignment = loadLittleEndian(header, 36, 4);
  layout.initializedDataField = optional + 8;
  layout.checksumField = optional + 64;
  layout.checksum = static_cast<uint32_t>(loadLittleEndian(header, 64, 4));
  layout.symbolTableField = fileHeader + 8;
  layout.symbolTable = loadLittleEndian(bytes, fileHeader + 8, 4);
  const uint64_t directoryCount = loadLittleEndian(header, countField, 4);
  auto directory = [&](uint64_t index) -> std::pair<uint64_t, uint64_t> {
    const uint64_t entry = directories + index * 8;
    if (directoryCount <= index || header.size() < entry + 8)
      return {0, 0};
    return {loadLittleEndian(header, entry, 4),
            loadLittleEndian(header, entry + 4, 4)};
  };
  layout.certificateTableSize = directory(kCertificateDirectory).second;
  if (const auto [rva, size] = directory(kBaseRelocationDirectory); size != 0) {
    auto relocated = dir64Relocations(layout.sections, rva, size);
    if (!relocated)
      return relocated.takeError();
    image->relocatable = true;
    image->relocated = std::move(*relocated);
  }
  if (const auto [rva, size] = directory(kDebugDirectory); size != 0) {
    std::optional<std::string_view> entries =
        bytesAt(layout.sections, rva, size);
    if (!entries)
      return malformed("the debug directory lies outside the sections");
    const uint64_t at = static_cast<uint64_t>(entries->data() - bytes.data());
    for (uint64_t entry = 0; entry + kDebugEntrySize <= size;
         entry += kDebugEntrySize)
      layout.debugDataFields.emplace_back(
          at + entry + kDebugDataPointer,
          loadLittleEndian(*entries, entry + kDebugDataPointer, 4));
  }

  HipWrappers &hip = image->hip;
  hip.fatbinStart = image->imageBase + fatbin.virtualAddress;
  hip.fatbinEnd = hip.fatbinStart + fatbin.contents.size();
  hip.fatbinOffset = fatbin.fileOffset;
  for (uint64_t at = 0; at < segment.contents.size(); at += kHipWrapperSize) {
    HipWrapper wrapper;
    wrapper.address = image->imageBase + segment.virtualAddress + at;
    wrapper.magic =
        static_cast<uint32_t>(loadLittleEndian(segment.contents, at, 4));
    wrapper.version = static_cast<uint32_t>(
        loadLittleEndian(segment.contents, at + kHipWrapperVersionOffset, 4));
    wrapper.binary =
        loadLittleEndian(segment.contents, at + kHipWrapperBinaryOffset, 8);
    wrapper.reserved =
        loadLittleEndian(segment.contents, at + kHipWrapperReservedOffset, 8);
    hip.wrappers.push_back(wrapper);
  }
  return image;
}

} // namespace offbundle
