#include "formats/embedded_offload.h"

#include <algorithm>

#include "bundler/triple.h"

namespace offbundle {
namespace {

constexpr uint64_t kEntrySize = 40;
constexpr uint64_t kStringEntrySize = 16;

uint64_t readLittle(std::string_view bytes, uint64_t at, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

Error malformed(const std::string &what) {
  return makeError("malformed offload binary: " + what);
}

// Whether [offset, offset + size) lies within `limit` bytes.
bool fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// Resolves NUL-terminated strings by their offsets in one sweep over the
// binary, however many strings share or overlap the same bytes: offsets are
// visited in increasing order, and the terminator found for one offset is
// the terminator of every later offset before it.
class StringResolver {
public:
  explicit StringResolver(std::string_view binary) : binary_(binary) {}
  void want(uint64_t offset) { offsets_.push_back(offset); }
  Status resolve() {
    std::sort(offsets_.begin(), offsets_.end());
    offsets_.erase(std::unique(offsets_.begin(), offsets_.end()),
                   offsets_.end());
    size_t terminator = 0;
    bool haveTerminator = false;
    for (uint64_t offset : offsets_) {
      if (offset >= binary_.size())
        return malformed("a string offset (" + std::to_string(offset) +
                         ") lies outside the binary");
      if (!haveTerminator || terminator < offset) {
        terminator = binary_.find('\0', offset);
        haveTerminator = true;
        if (terminator == std::string_view::npos)
          return malformed("the string at offset " + std::to_string(offset) +
                           " is not terminated within the binary");
      }
      ends_.push_back(terminator);
    }
    return Status::success();
  }
  std::string_view at(uint64_t offset) const {
    size_t index = static_cast<size_t>(
        std::lower_bound(offsets_.begin(), offsets_.end(), offset) -
        offsets_.begin());
    return binary_.substr(offset, ends_[index] - offset);
  }

private:
  std::string_view binary_;
  std::vector<uint64_t> offsets_;
  std::vector<size_t> ends_;
};

} // namespace

bool hasOffloadBinaryMagic(std::string_view bytes) {
  return bytes.substr(0, kOffloadBinaryMagic.size()) == kOffloadBinaryMagic;
}

std::string_view OffloadImage::string(std::string_view key) const {
  // The last value given for a key wins, as when LLVM builds its map.
  std::string_view value;
  for (const auto &[name, text] : strings)
    if (name == key)
      value = text;
  return value;
}

std::string OffloadImage::entryId() const {
  Triple triple(string("triple"));
  // Written as the bundler writes triples in entry IDs: AMDHSA ones in
  // three-part form and an empty environment, others in four parts.
  std::string normalized = triple.isOSAMDHSA()
                               ? triple.normalize(TripleForm::ThreeIdent) + "-"
                               : triple.normalize(TripleForm::FourIdent);
  return std::string(offloadKindName(offloadKind)) + "-" + normalized + "-" +
         std::string(string("arch"));
}

std::string_view offloadKindName(uint16_t kind) {
  switch (kind) {
  case 0:
    return "none";
  case 1:
    return "openmp";
  case 2:
    return "cuda";
  case 4:
    return "hip";
  case 8:
    return "sycl";
  default:
    return "unknown";
  }
}

std::string_view imageKindName(uint16_t kind) {
  static constexpr std::string_view kNames[] = {
      "none", "object", "bitcode", "cubin", "fatbinary", "ptx", "spirv"};
  return kind < std::size(kNames) ? kNames[kind] : "unknown";
}

Result<OffloadBinaryInfo> parseOffloadBinary(std::string_view bytes) {
  if (!hasOffloadBinaryMagic(bytes))
    return malformed("no 0x10FF10AD magic");
  if (bytes.size() < kOffloadBinaryHeaderSize)
    return malformed("the header is cut off");
  OffloadBinaryInfo info;
  info.version = static_cast<uint32_t>(readLittle(bytes, 4, 4));
  info.size = readLittle(bytes, 8, 8);
  const uint64_t entryOffset = readLittle(bytes, 16, 8);
  const uint64_t entryTableSize = readLittle(bytes, 24, 8);
  if (info.version != 1)
    return malformed("version " + std::to_string(info.version) +
                     " is not supported (only version 1 exists)");
  if (info.size < kOffloadBinaryHeaderSize || info.size > bytes.size())
    return malformed("its size " + std::to_string(info.size) +
                     " does not fit in the " + std::to_string(bytes.size()) +
                     " bytes available");
  std::string_view binary = bytes.substr(0, info.size);
  if (entryTableSize < kEntrySize ||
      !fits(entryOffset, entryTableSize, binary.size()))
    return malformed("the entry table (offset " + std::to_string(entryOffset) +
                     ", size " + std::to_string(entryTableSize) +
                     ") does not fit in the binary of " +
                     std::to_string(binary.size()) + " bytes");
  // Version 1 writes one entry; a table with room for more is read whole.
  // Strings are resolved after the tables are read, all in one sweep.
  StringResolver resolver(binary);
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> stringOffsets;
  uint64_t totalStrings = 0;
  for (uint64_t at = entryOffset;
       at + kEntrySize <= entryOffset + entryTableSize; at += kEntrySize) {
    OffloadImage image;
    image.imageKind = static_cast<uint16_t>(readLittle(binary, at, 2));
    image.offloadKind = static_cast<uint16_t>(readLittle(binary, at + 2, 2));
    image.flags = static_cast<uint32_t>(readLittle(binary, at + 4, 4));
    const uint64_t stringOffset = readLittle(binary, at + 8, 8);
    const uint64_t stringCount = readLittle(binary, at + 16, 8);
    image.image.offset = readLittle(binary, at + 24, 8);
    image.image.size = readLittle(binary, at + 32, 8);
    if (!fits(image.image.offset, image.image.size, binary.size()))
      return malformed("the image (offset " +
                       std::to_string(image.image.offset) + ", size " +
                       std::to_string(image.image.size) +
                       ") lies outside the binary of " +
                       std::to_string(binary.size()) + " bytes");
    // Entries could all name one large table: the strings of the whole
    // binary are limited to what its bytes could hold once.
    totalStrings += stringCount;
    if (stringCount > binary.size() / kStringEntrySize ||
        totalStrings > binary.size() / kStringEntrySize ||
        !fits(stringOffset, stringCount * kStringEntrySize, binary.size()))
      return malformed(
          "the string table (offset " + std::to_string(stringOffset) + ", " +
          std::to_string(stringCount) + " strings) lies outside the binary");
    std::vector<std::pair<uint64_t, uint64_t>> pairs;
    for (uint64_t i = 0; i < stringCount; ++i) {
      uint64_t entry = stringOffset + i * kStringEntrySize;
      pairs.emplace_back(readLittle(binary, entry, 8),
                         readLittle(binary, entry + 8, 8));
      resolver.want(pairs.back().first);
      resolver.want(pairs.back().second);
    }
    stringOffsets.push_back(std::move(pairs));
    info.images.push_back(std::move(image));
  }
  if (Status status = resolver.resolve(); !status.ok())
    return status.takeError();
  for (size_t i = 0; i < info.images.size(); ++i)
    for (const auto &[key, value] : stringOffsets[i])
      info.images[i].strings.emplace_back(resolver.at(key), resolver.at(value));
  return info;
}

Result<std::unique_ptr<OffloadBinaryReader>>
OffloadBinaryReader::open(std::string_view bytes) {
  auto info = parseOffloadBinary(bytes);
  if (!info)
    return info.takeError();
  std::unique_ptr<OffloadBinaryReader> reader(new OffloadBinaryReader());
  reader->info_ = std::move(*info);
  for (const OffloadImage &image : reader->info_.images)
    reader->ids_.push_back(image.entryId());
  return reader;
}

Result<std::optional<std::string_view>> OffloadBinaryReader::nextEntry() {
  if (next_ >= ids_.size())
    return std::optional<std::string_view>();
  return std::optional<std::string_view>(ids_[next_++]);
}

Result<EntryPayload> OffloadBinaryReader::readEntry() {
  EntryPayload payload;
  static_cast<ByteRange &>(payload) = info_.images.at(next_ - 1).image;
  return payload;
}

} // namespace offbundle
