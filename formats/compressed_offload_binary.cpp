// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compressed offload binaries (see the header for the layout, taken from an
// unmerged upstream proposal): inflating one back into an uncompressed version
// 3 binary, and compressing one with zstd or zlib.

#include "formats/compressed_offload_binary.h"

#include <algorithm>
#include <memory>
#include <zstd.h>

#include "compression/codecs.h"
#include "formats/offload_binary.h"
#include "support/byte_order.h"

namespace offbundle {
namespace {

// Header fields of a version 3 binary.
constexpr size_t kSizeField = 8;
constexpr size_t kEntriesOffsetField = 16;
constexpr size_t kInflatedSizeField = 32;

// Output grows from this much, doubling, so that a header claiming an
// absurd inflated size costs memory only as the data really inflates.
constexpr uint64_t kFirstOutputSize = uint64_t{1} << 20;

constexpr std::string_view kZstdFrameMagic = "\x28\xB5\x2F\xFD";

// Inflates `data` into exactly `expectedSize` bytes, or fails.
Result<std::string> inflateExactly(std::string_view data,
                                   uint64_t expectedSize) {
  const bool zstd = data.starts_with(kZstdFrameMagic);
  auto decoder = zstd ? makeZstdDecoder(data, expectedSize,
                                        /*fixedOutput=*/false)
                      : makeZlibDecoder(data);
  if (!decoder)
    return decoder.takeError();
  std::string output;
  size_t produced = 0;
  while (!(*decoder)->finished()) {
    if (produced == output.size()) {
      if (produced == expectedSize) {
        // All the header promised is here; any further byte is too many.
        char probe[64];
        DecodeOutput probeOutput{probe, sizeof(probe), 0};
        if (Status status = (*decoder)->decode(probeOutput); !status.ok())
          return status.takeError();
        if (probeOutput.position != 0)
          return makeError(std::string((*decoder)->outputTooLargeMessage()));
        continue;
      }
      output.resize(static_cast<size_t>(std::min<uint64_t>(
          expectedSize,
          std::max<uint64_t>(kFirstOutputSize, uint64_t{output.size()} * 2))));
    }
    DecodeOutput step{output.data(), output.size(), produced};
    if (Status status = (*decoder)->decode(step); !status.ok())
      return status.takeError();
    produced = step.position;
  }
  if (produced != expectedSize)
    return makeError(std::string(kOffloadParseFailedMessage));
  output.resize(produced);
  return output;
}

} // namespace

bool isCompressedOffloadBinary(std::string_view header) {
  if (header.size() < kOffloadBinaryV3HeaderSize ||
      !hasOffloadBinaryMagic(header))
    return false;
  // The version is the low half of the 8 bytes at offset 4.
  const uint32_t version = static_cast<uint32_t>(loadLittle64(header, 4));
  return version >= kCompressedOffloadBinaryVersion &&
         loadLittle64(header, kInflatedSizeField) != 0;
}

Result<std::string> inflateOffloadBinary(std::string_view bytes) {
  const uint64_t size = loadLittle64(bytes, kSizeField);
  const uint64_t entriesOffset = loadLittle64(bytes, kEntriesOffsetField);
  const uint64_t inflatedSize = loadLittle64(bytes, kInflatedSizeField);
  // LLVM's checks, then ours: the data starts after the whole header (the
  // restored header is the first entriesOffset bytes).
  if (entriesOffset > size || inflatedSize < entriesOffset)
    return makeError(std::string(kOffloadUnexpectedEofMessage));
  if (entriesOffset < kOffloadBinaryV3HeaderSize)
    return makeError("compressed offload binary: its data starts at offset " +
                     std::to_string(entriesOffset) + ", inside the header");
  auto body = inflateExactly(bytes.substr(entriesOffset, size - entriesOffset),
                             inflatedSize - entriesOffset);
  if (!body)
    return makeError("compressed offload binary: " + body.error().message);
  std::string restored(bytes.substr(0, entriesOffset));
  storeLittleEndian(restored, kSizeField, inflatedSize, 8);
  storeLittleEndian(restored, kInflatedSizeField, 0, 8);
  restored.append(*body);
  return restored;
}

Result<std::string> deflateOffloadBinary(std::string_view uncompressed,
                                         OffloadCompressionFormat format,
                                         int level) {
  const std::string_view body = uncompressed.substr(kOffloadBinaryV3HeaderSize);
  std::string compressed(uncompressed.substr(0, kOffloadBinaryV3HeaderSize));
  auto append = [&](std::string_view piece) {
    compressed.append(piece);
    return Status::success();
  };
  Status status = format == OffloadCompressionFormat::Zstd
                      ? compressWithZstd(body, level, append)
                      : compressWithZlib(body, level, append);
  if (!status.ok())
    return status.takeError();
  storeLittleEndian(compressed, kSizeField, compressed.size(), 8);
  storeLittleEndian(compressed, kInflatedSizeField, uncompressed.size(), 8);
  compressed.resize((compressed.size() + kOffloadBinaryAlignment - 1) /
                        kOffloadBinaryAlignment * kOffloadBinaryAlignment,
                    '\0');
  return compressed;
}

Status checkOffloadCompressionLevel(OffloadCompressionFormat format,
                                    int level) {
  const bool zstd = format == OffloadCompressionFormat::Zstd;
  const int lowest = zstd ? ZSTD_minCLevel() : 0;
  const int highest = zstd ? ZSTD_maxCLevel() : 9;
  if (level >= lowest && level <= highest)
    return Status::success();
  return makeError(std::string("invalid ") + (zstd ? "zstd" : "zlib") +
                   " compression level " + std::to_string(level) +
                   "; expected a value in [" + std::to_string(lowest) + ", " +
                   std::to_string(highest) + "]");
}

} // namespace offbundle
