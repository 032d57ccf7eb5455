// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Offload binaries, versions 1 to 3 (see offload_binary.h for the layouts):
// written as LLVM writes them, read with every offset checked. The null bytes
// ending the strings are found in one sweep over their sorted offsets, so that
// overlapping string tables cost no rescans.

#include "formats/offload_binary.h"

#include "formats/compressed_offload_binary.h"
#include "support/byte_order.h"
#include "support/tail_merged_string_table.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

namespace offbundle {
namespace {

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// One entry record, the same in every version: image and offload kinds,
// flags, where its string entries start and how many there are, where its
// image starts and how long it is.
void appendEntry(std::string &out, const OffloadImageToWrite &image,
                 uint64_t stringEntriesOffset, uint64_t imageOffset) {
  appendLittleEndian(out, image.imageKind, 2);
  appendLittleEndian(out, image.offloadKind, 2);
  appendLittleEndian(out, image.flags, 4);
  appendLittleEndian(out, stringEntriesOffset, 8);
  appendLittleEndian(out, image.strings.size(), 8);
  appendLittleEndian(out, imageOffset, 8);
  appendLittleEndian(out, image.image.size(), 8);
}

std::string describeContext(std::string_view context, uint64_t offset) {
  std::string text;
  if (!context.empty())
    text = std::string(context) + ": ";
  return text + "offload binary at offset " + std::to_string(offset) + ": ";
}

// The checks LLVM makes on an entry (against the buffer it was given).
bool entryWithin(uint64_t imageOffset, uint64_t stringOffset,
                 uint64_t stringCount, uint64_t stringEntrySize,
                 uint64_t limit) {
  // The product and sum wrap as LLVM's unsigned arithmetic does.
  return imageOffset <= limit && stringOffset <= limit &&
         stringOffset + stringCount * stringEntrySize <= limit;
}

// Where an entry's string entries are, once its record has been checked.
struct StringTableSpan {
  uint64_t offset = 0;
  uint64_t count = 0;
};

uint64_t stringEntrySizeOf(uint32_t version) {
  return version >= 2 ? kOffloadBinaryV2StringEntrySize
                      : kOffloadBinaryStringEntrySize;
}

// Reads the entry record at `entryOffset` of view.bytes into `view` (kinds,
// flags, image), checking what LLVM trusts, and says where its string
// entries are. Every table holds 64-bit fields and every binary LLVM writes
// keeps them 8-byte aligned.
Result<StringTableSpan> readEntryRecord(OffloadBinaryView &view,
                                        uint64_t entryOffset,
                                        const std::string &where) {
  const std::string_view bytes = view.bytes;
  const uint64_t size = bytes.size();
  const std::string sizeText = " (size " + std::to_string(size) + ")";
  const uint64_t stringEntrySize = stringEntrySizeOf(view.version);
  if (entryOffset % kOffloadBinaryAlignment != 0)
    return makeError(where + "entry at offset " + std::to_string(entryOffset) +
                     " is not 8-byte aligned");
  view.imageKind = loadLittle16(bytes, entryOffset);
  view.offloadKind = loadLittle16(bytes, entryOffset + 2);
  view.flags = loadLittle32(bytes, entryOffset + 4);
  const uint64_t stringOffset = loadLittle64(bytes, entryOffset + 8);
  const uint64_t stringCount = loadLittle64(bytes, entryOffset + 16);
  const uint64_t imageOffset = loadLittle64(bytes, entryOffset + 24);
  const uint64_t imageSize = loadLittle64(bytes, entryOffset + 32);
  if (view.version >= 2 && !entryWithin(imageOffset, stringOffset, stringCount,
                                        stringEntrySize, size))
    return makeError(std::string(kOffloadUnexpectedEofMessage));
  if (stringOffset % kOffloadBinaryAlignment != 0)
    return makeError(where + "string entries at offset " +
                     std::to_string(stringOffset) + " are not 8-byte aligned");
  if (stringOffset > size ||
      stringCount > (size - stringOffset) / stringEntrySize)
    return makeError(where + std::to_string(stringCount) +
                     " string entries at offset " +
                     std::to_string(stringOffset) +
                     " run past the end of the binary" + sizeText);
  if (imageOffset > size || imageSize > size - imageOffset)
    return makeError(where + "image at offset " + std::to_string(imageOffset) +
                     " of " + std::to_string(imageSize) +
                     " bytes runs past the end of the binary" + sizeText);
  view.image = bytes.substr(imageOffset, imageSize);
  return StringTableSpan{stringOffset, stringCount};
}

// The null byte ending each string of a binary, found in one sweep over the
// strings' offsets in increasing order, so that strings sharing or
// overlapping bytes, in one entry or in many, cost no rescans (entries can
// all name one long unterminated run).
class StringTerminators {
public:
  StringTerminators(std::string_view bytes, std::vector<uint64_t> offsets)
      : offsets_(std::move(offsets)) {
    std::erase_if(offsets_,
                  [&](uint64_t field) { return field >= bytes.size(); });
    std::sort(offsets_.begin(), offsets_.end());
    offsets_.erase(std::unique(offsets_.begin(), offsets_.end()),
                   offsets_.end());
    terminators_.reserve(offsets_.size());
    size_t terminator = 0;
    bool searched = false;
    for (uint64_t at : offsets_) {
      if (!searched ||
          (terminator != std::string_view::npos && terminator < at)) {
        terminator = bytes.find('\0', at);
        searched = true;
      }
      terminators_.push_back(terminator);
    }
  }

  // Where the string at `at` (one of the offsets given, inside the binary)
  // ends, or npos when no null byte follows it.
  size_t terminatorOf(uint64_t at) const {
    const auto slot = std::lower_bound(offsets_.begin(), offsets_.end(), at);
    return terminators_[static_cast<size_t>(slot - offsets_.begin())];
  }

private:
  std::vector<uint64_t> offsets_;
  std::vector<size_t> terminators_;
};

// The offsets of every null-terminated string the tables name: keys, and
// in version 1 values too (later versions give each value its size).
void collectStringOffsets(std::string_view bytes, uint32_t version,
                          StringTableSpan table,
                          std::vector<uint64_t> &offsets) {
  const uint64_t stringEntrySize = stringEntrySizeOf(version);
  for (uint64_t index = 0; index < table.count; ++index) {
    const uint64_t at = table.offset + index * stringEntrySize;
    offsets.push_back(loadLittle64(bytes, at));
    if (version == 1)
      offsets.push_back(loadLittle64(bytes, at + 8));
  }
}

// Reads the string entries of `table` into view.strings.
Status readEntryStrings(OffloadBinaryView &view, StringTableSpan table,
                        const StringTerminators &terminators,
                        const std::string &where) {
  const std::string_view bytes = view.bytes;
  const uint64_t size = bytes.size();
  const std::string sizeText = " (size " + std::to_string(size) + ")";
  const bool sizedValues = view.version >= 2;
  const uint64_t stringEntrySize = stringEntrySizeOf(view.version);
  auto readString = [&](uint64_t index, const char *role,
                        uint64_t at) -> Result<std::string_view> {
    const std::string which =
        "string entry " + std::to_string(index) + ": " + role;
    if (at >= size)
      return makeError(where + which + " offset " + std::to_string(at) +
                       " is past the end of the binary" + sizeText);
    const size_t end = terminators.terminatorOf(at);
    if (end == std::string_view::npos)
      return makeError(where + which + " at offset " + std::to_string(at) +
                       " has no terminating null byte within the binary");
    return bytes.substr(at, end - at);
  };
  auto readSizedValue = [&](uint64_t index,
                            uint64_t at) -> Result<std::string_view> {
    const uint64_t length = loadLittle64(bytes, at + 16);
    const uint64_t valueOffset = loadLittle64(bytes, at + 8);
    if (valueOffset > size || length > size - valueOffset)
      return makeError(where + "string entry " + std::to_string(index) +
                       ": value at offset " + std::to_string(valueOffset) +
                       " of " + std::to_string(length) +
                       " bytes runs past the end of the binary" + sizeText);
    return bytes.substr(valueOffset, length);
  };
  std::unordered_map<std::string_view, size_t> placeOfKey;
  for (uint64_t index = 0; index < table.count; ++index) {
    const uint64_t at = table.offset + index * stringEntrySize;
    auto key = readString(index, "key", loadLittle64(bytes, at));
    if (!key)
      return key.takeError();
    auto value = sizedValues
                     ? readSizedValue(index, at)
                     : readString(index, "value", loadLittle64(bytes, at + 8));
    if (!value)
      return value.takeError();
    // A repeated key keeps its first place and takes the last value, as
    // LLVM's MapVector does.
    auto [existing, inserted] =
        placeOfKey.try_emplace(*key, view.strings.size());
    if (inserted)
      view.strings.emplace_back(*key, *value);
    else
      view.strings[existing->second].second = *value;
  }
  return Status::success();
}

// Entries may share or overlap their string tables, so the string entries
// read for a binary could grow with the square of its size: a megabyte
// would take hours. Tables laid side by side, as every writer lays them,
// hold at most size / stringEntrySize; this many more are allowed for
// small binaries that share one table.
constexpr uint64_t kSharedStringEntryAllowance = uint64_t{1} << 16;

// Reads the string entries of every entry of a binary whose records have
// been read: the terminators of all their strings in one sweep, then each
// entry's strings.
Status readAllEntryStrings(std::vector<OffloadBinaryView> &views,
                           const std::vector<StringTableSpan> &tables,
                           const std::string &where,
                           const std::vector<std::string> &entryWheres) {
  if (views.empty())
    return Status::success();
  const std::string_view bytes = views.front().bytes;
  const uint32_t version = views.front().version;
  const uint64_t limit =
      bytes.size() / stringEntrySizeOf(version) + kSharedStringEntryAllowance;
  uint64_t total = 0;
  for (const StringTableSpan &table : tables) {
    total += table.count;
    if (total > limit)
      return makeError(where +
                       "the string tables of its entries overlap: "
                       "they name more than " +
                       std::to_string(limit) + " string entries in " +
                       std::to_string(bytes.size()) + " bytes");
  }
  std::vector<uint64_t> offsets;
  offsets.reserve(static_cast<size_t>(total) * (version == 1 ? 2 : 1));
  for (const StringTableSpan &table : tables)
    collectStringOffsets(bytes, version, table, offsets);
  const StringTerminators terminators(bytes, std::move(offsets));
  for (size_t index = 0; index < views.size(); ++index)
    if (Status status = readEntryStrings(views[index], tables[index],
                                         terminators, entryWheres[index]);
        !status.ok())
      return status;
  return Status::success();
}

// A version 1 binary at the start of `rest` (which runs to the end of the
// buffer), checked as LLVM 22 checks it, in its order and with its messages,
// then for what it leaves unchecked.
Result<OffloadBinaryEntries> parseVersion1(std::string_view rest,
                                           uint64_t offset,
                                           const std::string &where) {
  auto llvmError = [](std::string_view message) {
    return makeError(std::string(message));
  };
  const uint64_t size = loadLittle64(rest, 8);
  const uint64_t entryOffset = loadLittle64(rest, 16);
  const uint64_t entrySize = loadLittle64(rest, 24);
  if (size > rest.size() || size < kOffloadBinaryEntrySize)
    return llvmError(kOffloadUnexpectedEofMessage);
  if (entryOffset > size - kOffloadBinaryEntrySize ||
      entrySize > size - kOffloadBinaryHeaderSize)
    return llvmError(kOffloadUnexpectedEofMessage);
  const uint64_t stringOffset = loadLittle64(rest, entryOffset + 8);
  const uint64_t stringCount = loadLittle64(rest, entryOffset + 16);
  const uint64_t imageOffset = loadLittle64(rest, entryOffset + 24);
  // LLVM reads the binary twice: once from the rest of the buffer, then from
  // a copy of exactly its size, where the minimum size applies again.
  if (!entryWithin(imageOffset, stringOffset, stringCount,
                   kOffloadBinaryStringEntrySize, rest.size()))
    return llvmError(kOffloadUnexpectedEofMessage);
  if (size < kOffloadBinaryHeaderSize + kOffloadBinaryEntrySize)
    return llvmError(kOffloadParseFailedMessage);
  if (!entryWithin(imageOffset, stringOffset, stringCount,
                   kOffloadBinaryStringEntrySize, size))
    return llvmError(kOffloadUnexpectedEofMessage);
  if (size % kOffloadBinaryAlignment != 0)
    return makeError(where + "size " + std::to_string(size) +
                     " is not a multiple of 8");

  OffloadBinaryEntries binary;
  binary.size = size;
  OffloadBinaryView &view = binary.entries.emplace_back();
  view.offset = offset;
  view.bytes = rest.substr(0, size);
  view.version = 1;
  auto table = readEntryRecord(view, entryOffset, where);
  if (!table)
    return table.takeError();
  if (Status status =
          readAllEntryStrings(binary.entries, {*table}, where, {where});
      !status.ok())
    return status.takeError();
  return binary;
}

// A version 2 or 3 binary, checked as newer LLVM checks it, then for what it
// leaves unchecked. `bytes` is exactly the binary when `inflated` holds it.
Result<OffloadBinaryEntries>
parseMultiEntry(std::string_view rest, uint64_t offset, uint32_t version,
                const std::string &where,
                std::shared_ptr<const std::string> inflated) {
  const uint64_t headerSize =
      version >= 3 ? kOffloadBinaryV3HeaderSize : kOffloadBinaryHeaderSize;
  if (rest.size() < headerSize)
    return makeError(std::string(kOffloadParseFailedMessage));
  const uint64_t size = loadLittle64(rest, 8);
  const uint64_t entriesOffset = loadLittle64(rest, 16);
  const uint64_t entryCount = loadLittle64(rest, 24);
  if (size > rest.size() || size < headerSize)
    return makeError(std::string(kOffloadUnexpectedEofMessage));
  if (!inflated && isCompressedOffloadBinary(rest)) {
    auto restored = inflateOffloadBinary(rest.substr(0, size));
    if (!restored)
      return makeError(where + restored.error().message);
    auto owner = std::make_shared<const std::string>(std::move(*restored));
    auto binary = parseMultiEntry(*owner, offset, version, where, owner);
    if (!binary)
      return binary.takeError();
    // The compressed binary's own size, not the inflated one.
    binary->size = size;
    return binary;
  }
  // LLVM's check, free of the overflow LLVM's multiplication has.
  if (size < kOffloadBinaryEntrySize ||
      entryCount >
          (size - kOffloadBinaryHeaderSize) / kOffloadBinaryEntrySize ||
      entriesOffset > size - entryCount * kOffloadBinaryEntrySize)
    return makeError(std::string(kOffloadUnexpectedEofMessage));
  if (size % kOffloadBinaryAlignment != 0)
    return makeError(where + "size " + std::to_string(size) +
                     " is not a multiple of 8");

  OffloadBinaryEntries binary;
  binary.size = size;
  binary.entries.reserve(static_cast<size_t>(entryCount));
  std::vector<StringTableSpan> tables;
  tables.reserve(static_cast<size_t>(entryCount));
  std::vector<std::string> entryWheres;
  entryWheres.reserve(static_cast<size_t>(entryCount));
  for (uint64_t index = 0; index < entryCount; ++index) {
    OffloadBinaryView &view = binary.entries.emplace_back();
    view.offset = offset;
    view.bytes = rest.substr(0, size);
    view.inflated = inflated;
    view.version = version;
    view.entryIndex = index;
    entryWheres.push_back(where + "entry " + std::to_string(index) + ": ");
    auto table =
        readEntryRecord(view, entriesOffset + index * kOffloadBinaryEntrySize,
                        entryWheres.back());
    if (!table)
      return table.takeError();
    tables.push_back(*table);
  }
  if (Status status =
          readAllEntryStrings(binary.entries, tables, where, entryWheres);
      !status.ok())
    return status.takeError();
  return binary;
}

// The binary at the start of `rest` (which runs to the end of the buffer).
Result<OffloadBinaryEntries> parseOneBinary(std::string_view rest,
                                            uint64_t offset,
                                            std::string_view context) {
  if (rest.size() < kOffloadBinaryHeaderSize + kOffloadBinaryEntrySize ||
      !hasOffloadBinaryMagic(rest))
    return makeError(std::string(kOffloadParseFailedMessage));
  const uint32_t version = loadLittle32(rest, 4);
  if (version == 0 || version > kOffloadBinaryNewestVersion)
    return makeError(std::string(kOffloadParseFailedMessage));
  const std::string where = describeContext(context, offset);
  if (version == 1)
    return parseVersion1(rest, offset, where);
  return parseMultiEntry(rest, offset, version, where, nullptr);
}

// Whether the 8 bytes at `at` are zero padding between binaries.
bool isZeroWord(std::string_view buffer, uint64_t at) {
  if (at % kOffloadBinaryAlignment != 0 ||
      buffer.size() - at < kOffloadBinaryAlignment)
    return false;
  for (uint64_t i = 0; i < kOffloadBinaryAlignment; ++i)
    if (buffer[at + i] != '\0')
      return false;
  return true;
}

} // namespace

uint16_t imageKindFromExtension(std::string_view extension) {
  if (extension == "o")
    return image_kind::kObject;
  if (extension == "bc")
    return image_kind::kBitcode;
  if (extension == "cubin")
    return image_kind::kCubin;
  if (extension == "fatbin")
    return image_kind::kFatbinary;
  if (extension == "s")
    return image_kind::kPtx;
  return image_kind::kNone;
}

std::string_view imageKindName(uint16_t kind) {
  switch (kind) {
  case image_kind::kObject:
    return "o";
  case image_kind::kBitcode:
    return "bc";
  case image_kind::kCubin:
    return "cubin";
  case image_kind::kFatbinary:
    return "fatbin";
  case image_kind::kPtx:
    return "s";
  default:
    return "";
  }
}

uint16_t offloadKindFromName(std::string_view name) {
  if (name == "openmp")
    return offload_kind::kOpenMP;
  if (name == "cuda")
    return offload_kind::kCuda;
  if (name == "hip")
    return offload_kind::kHip;
  if (name == "sycl")
    return offload_kind::kSycl;
  return offload_kind::kNone;
}

std::string_view offloadKindName(uint16_t kind) {
  switch (kind) {
  case offload_kind::kOpenMP:
    return "openmp";
  case offload_kind::kCuda:
    return "cuda";
  case offload_kind::kHip:
    return "hip";
  case offload_kind::kSycl:
    return "sycl";
  default:
    return "none";
  }
}

bool hasOffloadBinaryMagic(std::string_view bytes) {
  return bytes.substr(0, kOffloadBinaryMagic.size()) == kOffloadBinaryMagic;
}

OffloadBinaryPieces planOffloadBinary(const OffloadImageToWrite &image) {
  TailMergedStringTable table;
  for (const auto &[key, value] : image.strings) {
    table.add(key);
    table.add(value);
  }
  table.finalize();

  const uint64_t stringEntriesOffset =
      kOffloadBinaryHeaderSize + kOffloadBinaryEntrySize;
  const uint64_t tableOffset =
      stringEntriesOffset +
      kOffloadBinaryStringEntrySize * image.strings.size();
  const uint64_t imageOffset =
      alignUp(tableOffset + table.size(), kOffloadBinaryAlignment);
  const uint64_t size =
      alignUp(imageOffset + image.image.size(), kOffloadBinaryAlignment);

  OffloadBinaryPieces pieces;
  std::string &head = pieces.head;
  head.reserve(imageOffset);
  head.append(kOffloadBinaryMagic);
  appendLittleEndian(head, kOffloadBinaryVersion, 4);
  appendLittleEndian(head, size, 8);
  appendLittleEndian(head, kOffloadBinaryHeaderSize, 8);
  appendLittleEndian(head, kOffloadBinaryEntrySize, 8);

  appendEntry(head, image, stringEntriesOffset, imageOffset);

  for (const auto &[key, value] : image.strings) {
    appendLittleEndian(head, tableOffset + table.offsetOf(key), 8);
    appendLittleEndian(head, tableOffset + table.offsetOf(value), 8);
  }
  table.appendTo(head);
  head.resize(imageOffset, '\0');

  pieces.image = image.image;
  pieces.trailingZeros = size - imageOffset - image.image.size();
  return pieces;
}

std::string
writeMultiEntryOffloadBinary(const std::vector<OffloadImageToWrite> &images,
                             uint32_t version) {
  const uint64_t headerSize =
      version >= 3 ? kOffloadBinaryV3HeaderSize : kOffloadBinaryHeaderSize;
  TailMergedStringTable table;
  uint64_t stringCount = 0;
  uint64_t imagesSize = 0;
  for (const OffloadImageToWrite &image : images) {
    for (const auto &[key, value] : image.strings) {
      table.add(key);
      table.add(value);
    }
    stringCount += image.strings.size();
    imagesSize += image.image.size();
  }
  table.finalize();

  const uint64_t entriesSize = kOffloadBinaryEntrySize * images.size();
  const uint64_t tableOffset =
      headerSize + entriesSize + kOffloadBinaryV2StringEntrySize * stringCount;
  const uint64_t firstImageOffset =
      alignUp(tableOffset + table.size(), kOffloadBinaryAlignment);
  const uint64_t size =
      alignUp(firstImageOffset + imagesSize, kOffloadBinaryAlignment);

  std::string bytes;
  bytes.reserve(size);
  bytes.append(kOffloadBinaryMagic);
  appendLittleEndian(bytes, version, 4);
  appendLittleEndian(bytes, size, 8);
  appendLittleEndian(bytes, headerSize, 8);
  appendLittleEndian(bytes, images.size(), 8);
  if (version >= 3)
    appendLittleEndian(bytes, 0, 8); // Not compressed.

  // Each entry's string entries follow the previous entry's; the images lie
  // back to back.
  uint64_t stringEntryOffset = headerSize + entriesSize;
  uint64_t imageOffset = firstImageOffset;
  for (const OffloadImageToWrite &image : images) {
    appendEntry(bytes, image, stringEntryOffset, imageOffset);
    stringEntryOffset += kOffloadBinaryV2StringEntrySize * image.strings.size();
    imageOffset += image.image.size();
  }
  for (const OffloadImageToWrite &image : images) {
    for (const auto &[key, value] : image.strings) {
      appendLittleEndian(bytes, tableOffset + table.offsetOf(key), 8);
      appendLittleEndian(bytes, tableOffset + table.offsetOf(value), 8);
      appendLittleEndian(bytes, value.size(), 8);
    }
  }
  table.appendTo(bytes);
  bytes.resize(firstImageOffset, '\0');
  for (const OffloadImageToWrite &image : images)
    bytes.append(image.image);
  bytes.resize(size, '\0');
  return bytes;
}

std::string_view OffloadBinaryView::string(std::string_view key) const {
  for (const auto &[name, value] : strings)
    if (name == key)
      return value;
  return {};
}

Result<std::vector<OffloadBinaryView>>
splitOffloadBinaries(std::string_view buffer, std::string_view context,
                     LlvmMessages llvmMessages) {
  std::vector<OffloadBinaryView> entries;
  uint64_t offset = 0;
  bool first = true;
  while (offset < buffer.size()) {
    if (!first && isZeroWord(buffer, offset)) {
      offset += kOffloadBinaryAlignment;
      continue;
    }
    auto binary = parseOneBinary(buffer.substr(offset), offset, context);
    if (!binary) {
      const std::string &message = binary.error().message;
      const bool bare = message == kOffloadParseFailedMessage ||
                        message == kOffloadUnexpectedEofMessage;
      if (bare && llvmMessages == LlvmMessages::InContext)
        return makeError(std::string(context) + ": " + message);
      return binary.takeError();
    }
    first = false;
    // A compressed binary's size need not be a multiple of 8; the next
    // binary starts after its padding, as in LLVM.
    offset = alignUp(offset + binary->size, kOffloadBinaryAlignment);
    for (OffloadBinaryView &entry : binary->entries)
      entries.push_back(std::move(entry));
  }
  return entries;
}

Result<OffloadBinaryEntries>
readOffloadBinaryEntries(std::string_view bytes, std::string_view context) {
  return parseOneBinary(bytes, 0, context);
}

} // namespace offbundle
