// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Binary bundles (-type=bc, gch, ast, and o/a when the host is not an object
// file). All integers are little-endian 64-bit:
//
//   "__CLANG_OFFLOAD_BUNDLE__"             24 bytes
//   entry count                            8
//   per entry: offset, size, ID length     8 + 8 + 8
//              ID                          ID length bytes, no terminator
//   payloads, each at its offset (aligned by -bundle-align when written)
//
// LLVM keeps the entries in a StringMap, so they are visited in its hash
// order, not file order, and a repeated ID keeps its first place with the
// last offset and size. The reader reproduces that order. Unlike LLVM, it
// refuses headers that are truncated or point outside the file instead of
// silently stopping (which makes LLVM's tool crash).
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "formats/bundle_format.h"
#include "support/output_file.h"
#include "support/string_map.h"

namespace offbundle {

// Whether the bytes start with the binary bundle magic.
bool hasBinaryBundleMagic(std::string_view contents);

// How many leading bytes of a binary bundle its header takes, judged from
// the bundle's first bytes; nullopt while `prefix` is too short to tell.
// 0 when the bytes are not a binary bundle.
std::optional<uint64_t> binaryBundleHeaderSize(std::string_view prefix);

class BinaryBundleReader final : public BundleReader {
public:
  // Input without the magic is not a bundle: a reader with no entries.
  static Result<std::unique_ptr<BinaryBundleReader>>
  open(std::string_view contents);
  // The same for the first bytes of a bundle of `totalSize` bytes, which
  // must hold the whole header (see binaryBundleHeaderSize): entries are
  // checked against totalSize. Lets -list read a compressed bundle's header
  // without decompressing its payloads.
  static Result<std::unique_ptr<BinaryBundleReader>>
  openHeader(std::string_view prefix, uint64_t totalSize);
  // A reader that visits every record of the header in file order, repeated
  // IDs included, for listings that describe the whole bundle (-format=json,
  // -output-dir) rather than what LLVM's StringMap keeps.
  static Result<std::unique_ptr<BinaryBundleReader>>
  openInFileOrder(std::string_view contents);
  // Both: every record in file order, from the first bytes of a bundle of
  // `totalSize` bytes.
  static Result<std::unique_ptr<BinaryBundleReader>>
  openHeaderInFileOrder(std::string_view prefix, uint64_t totalSize);

  Result<std::optional<std::string_view>> nextEntry() override;
  Result<EntryPayload> readEntry() override;
  Status skipEntry() override;

  // Entry IDs in visiting order.
  std::vector<std::string_view> entryIds() const;

private:
  friend Result<uint64_t> binaryBundleExtent(std::string_view bytes);
  static Result<std::unique_ptr<BinaryBundleReader>>
  read(std::string_view prefix, uint64_t totalSize, bool fileOrder);

  LlvmOrderedStringMap<ByteRange> entries_;
  // Every record in file order (openInFileOrder only).
  std::vector<ByteRange> records_;
  std::vector<std::pair<std::string_view, ByteRange *>> visitOrder_;
  size_t next_ = 0;
};

// How many bytes the binary bundle at the start of `bytes` spans: its header
// and the furthest end of a payload. The bundle may be followed by other
// data (the next bundle in a .hip_fatbin section); every entry must lie
// within `bytes`.
Result<uint64_t> binaryBundleExtent(std::string_view bytes);

// What a binary bundle of these entries, in this order, looks like: its
// header's bytes and where each payload starts (every payload's offset a
// multiple of `alignment`, zeros between), and its whole size.
struct BinaryBundleEntryShape {
  std::string_view id;
  uint64_t size = 0;
};
struct BinaryBundleLayout {
  std::string header;
  std::vector<uint64_t> offsets;
  uint64_t size = 0;
};
Result<BinaryBundleLayout>
layOutBinaryBundle(const std::vector<BinaryBundleEntryShape> &entries,
                   uint64_t alignment);

Status writeBinaryBundle(OutputFile &output,
                         const std::vector<EntryToWrite> &entries,
                         uint64_t alignment);

} // namespace offbundle
