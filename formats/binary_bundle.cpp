// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Binary bundles (see binary_bundle.h for the layout): readers that check every
// header record against the bundle's size and visit entries in LLVM's
// StringMap order or in file order, and the writer, which lays entries out at
// the requested alignment.

#include "formats/binary_bundle.h"

#include "support/byte_order.h"
#include "support/output_file.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace offbundle {
namespace {

constexpr uint64_t kEntryFixedSize = 24; // offset, size, ID length

Error malformed(const std::string &what) {
  return makeError("malformed bundle header: " + what, ErrorCode::DamagedInput);
}

} // namespace

bool hasBinaryBundleMagic(std::string_view contents) {
  return contents.substr(0, kBundleMagic.size()) == kBundleMagic;
}

std::optional<uint64_t> binaryBundleHeaderSize(std::string_view prefix) {
  if (prefix.size() < kBundleMagic.size())
    return std::nullopt;
  if (!hasBinaryBundleMagic(prefix))
    return 0;
  uint64_t pos = kBundleMagic.size();
  if (prefix.size() - pos < 8)
    return std::nullopt;
  uint64_t count = loadLittle64(prefix, pos);
  pos += 8;
  for (uint64_t index = 0; index < count; ++index) {
    if (prefix.size() - pos < kEntryFixedSize)
      return std::nullopt;
    uint64_t idLength = loadLittle64(prefix, pos + 16);
    pos += kEntryFixedSize;
    if (idLength > prefix.size() - pos)
      return std::nullopt;
    pos += idLength;
  }
  return pos;
}

Result<std::unique_ptr<BinaryBundleReader>>
BinaryBundleReader::open(std::string_view contents) {
  return openHeader(contents, contents.size());
}

Result<std::unique_ptr<BinaryBundleReader>>
BinaryBundleReader::openHeader(std::string_view contents, uint64_t totalSize) {
  return read(contents, totalSize, /*fileOrder=*/false);
}

Result<std::unique_ptr<BinaryBundleReader>>
BinaryBundleReader::openInFileOrder(std::string_view contents) {
  return read(contents, contents.size(), /*fileOrder=*/true);
}

Result<std::unique_ptr<BinaryBundleReader>>
BinaryBundleReader::openHeaderInFileOrder(std::string_view prefix,
                                          uint64_t totalSize) {
  return read(prefix, totalSize, /*fileOrder=*/true);
}

Result<std::unique_ptr<BinaryBundleReader>>
BinaryBundleReader::read(std::string_view contents, uint64_t totalSize,
                         bool fileOrder) {
  auto reader = std::unique_ptr<BinaryBundleReader>(new BinaryBundleReader());
  if (!hasBinaryBundleMagic(contents))
    return reader;

  // Header fields are read from `contents`; entries must lie within the
  // whole bundle, which may be longer than what we were given of it.
  const uint64_t available = contents.size();
  const uint64_t fileSize = totalSize;
  uint64_t pos = kBundleMagic.size();
  if (available - pos < 8)
    return malformed("the entry count is cut off");
  uint64_t count = loadLittle64(contents, pos);
  pos += 8;
  // Every entry needs at least its three integers: a count the file cannot
  // hold is refused before anything is allocated for it.
  if (count > (available - pos) / kEntryFixedSize)
    return malformed("entry count " + std::to_string(count) +
                     " does not fit in a file of " + std::to_string(available) +
                     " bytes");
  if (fileOrder)
    reader->records_.reserve(count);
  for (uint64_t index = 0; index < count; ++index) {
    if (available - pos < kEntryFixedSize)
      return malformed("entry " + std::to_string(index + 1) + " is cut off");
    uint64_t offset = loadLittle64(contents, pos);
    uint64_t size = loadLittle64(contents, pos + 8);
    uint64_t idLength = loadLittle64(contents, pos + 16);
    pos += kEntryFixedSize;
    if (idLength > available - pos)
      return malformed("the ID of entry " + std::to_string(index + 1) +
                       " runs past the end of the file");
    std::string_view id = contents.substr(pos, idLength);
    pos += idLength;
    if (offset == 0 || offset > fileSize || size > fileSize - offset)
      return malformed("entry '" + std::string(id) + "' (offset " +
                       std::to_string(offset) + ", size " +
                       std::to_string(size) + ") lies outside the file of " +
                       std::to_string(fileSize) + " bytes");
    if (fileOrder) {
      reader->records_.push_back(ByteRange{offset, size});
      reader->visitOrder_.emplace_back(id, &reader->records_.back());
    } else {
      reader->entries_.insertOrAssign(id, ByteRange{offset, size});
    }
  }
  if (!fileOrder)
    reader->visitOrder_ = reader->entries_.entries();
  return reader;
}

Result<std::optional<std::string_view>> BinaryBundleReader::nextEntry() {
  if (next_ >= visitOrder_.size())
    return std::optional<std::string_view>();
  return std::optional<std::string_view>(visitOrder_[next_++].first);
}

Result<EntryPayload> BinaryBundleReader::readEntry() {
  EntryPayload payload;
  static_cast<ByteRange &>(payload) = *visitOrder_.at(next_ - 1).second;
  return payload;
}

Status BinaryBundleReader::skipEntry() { return Status::success(); }

std::vector<std::string_view> BinaryBundleReader::entryIds() const {
  std::vector<std::string_view> ids;
  ids.reserve(visitOrder_.size());
  for (const auto &entry : visitOrder_)
    ids.push_back(entry.first);
  return ids;
}

Result<uint64_t> binaryBundleExtent(std::string_view bytes) {
  auto reader = BinaryBundleReader::openInFileOrder(bytes);
  if (!reader)
    return reader.takeError();
  auto headerSize = binaryBundleHeaderSize(bytes);
  uint64_t extent = headerSize.value_or(bytes.size());
  for (const auto &[id, range] : (*reader)->visitOrder_)
    extent = std::max(extent, range->offset + range->size);
  return extent;
}

Result<BinaryBundleLayout>
layOutBinaryBundle(const std::vector<BinaryBundleEntryShape> &entries,
                   uint64_t alignment) {
  if (alignment == 0)
    return makeError("invalid bundle alignment 0: -bundle-align must be at "
                     "least 1");
  uint64_t headerSize = kBundleMagic.size() + 8;
  for (const BinaryBundleEntryShape &entry : entries)
    headerSize += kEntryFixedSize + entry.id.size();

  BinaryBundleLayout layout;
  layout.header.reserve(headerSize);
  layout.header.append(kBundleMagic);
  appendLittleEndian(layout.header, entries.size(), 8);
  uint64_t end = headerSize;
  for (const BinaryBundleEntryShape &entry : entries) {
    uint64_t remainder = end % alignment;
    uint64_t padding = remainder == 0 ? 0 : alignment - remainder;
    if (end > UINT64_MAX - padding || end + padding > UINT64_MAX - entry.size)
      return makeError("bundle too large");
    uint64_t offset = end + padding;
    layout.offsets.push_back(offset);
    appendLittleEndian(layout.header, offset, 8);
    appendLittleEndian(layout.header, entry.size, 8);
    appendLittleEndian(layout.header, entry.id.size(), 8);
    layout.header.append(entry.id);
    end = offset + entry.size;
  }
  layout.size = end;
  return layout;
}

Status writeBinaryBundle(OutputFile &output,
                         const std::vector<EntryToWrite> &entries,
                         uint64_t alignment) {
  std::vector<BinaryBundleEntryShape> shapes;
  for (const EntryToWrite &entry : entries)
    shapes.push_back({entry.id, entry.payload->size()});
  auto layout = layOutBinaryBundle(shapes, alignment);
  if (!layout)
    return layout.takeError();
  if (Status status = output.write(layout->header); !status.ok())
    return status;
  for (size_t i = 0; i < entries.size(); ++i) {
    // LLVM looks each offset up by ID; with distinct IDs that is the offset
    // computed for the entry itself.
    const uint64_t offset = layout->offsets[i];
    if (offset > output.bytesWritten())
      if (Status status = output.writeZeros(offset - output.bytesWritten());
          !status.ok())
        return status;
    const InputFile &payload = *entries[i].payload;
    if (Status status = output.copyFrom(payload, 0, payload.size());
        !status.ok())
      return status;
  }
  return Status::success();
}

} // namespace offbundle
