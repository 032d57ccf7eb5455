// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The zstd and zlib back ends of compressed bundles, behind one small
// interface so that the bundle code does not depend on either library.
//
// Compression hands out the compressed bytes piece by piece as they are
// produced, so they can go straight to their destination. Decompression is
// incremental: the caller decides how much output space to offer, which lets
// it grow memory with the data really produced and stop as soon as the output
// passes the size the header announced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/error.h"

namespace offbundle {

// Receives compressed bytes in order; an error stops the compression.
using CompressedChunkConsumer = std::function<Status(std::string_view)>;

// A zstd compression context kept from one input to the next on one
// thread: compressing a hundred bundles then allocates and sets up zstd's
// tables once instead of a hundred times.
class ZstdCompressionContext {
public:
  ZstdCompressionContext();
  ~ZstdCompressionContext();
  ZstdCompressionContext(const ZstdCompressionContext &) = delete;
  ZstdCompressionContext &operator=(const ZstdCompressionContext &) = delete;

private:
  friend Status compressWithZstd(std::string_view input, int level,
                                 const CompressedChunkConsumer &consume,
                                 ZstdCompressionContext *reuse);
  struct State;
  std::unique_ptr<State> state_;
};

// Compress `input` into the same bytes as ZSTD_compress2 with long distance
// matching at `level` (what LLVM calls), or as zlib's compress2 at `level`.
// `reuse`, when given, is the context to compress with (the bytes are the
// same).
Status compressWithZstd(std::string_view input, int level,
                        const CompressedChunkConsumer &consume,
                        ZstdCompressionContext *reuse = nullptr);
Status compressWithZlib(std::string_view input, int level,
                        const CompressedChunkConsumer &consume);

// Where a decoder writes: data[position, size) is free, and position moves
// forward as output is produced.
struct DecodeOutput {
  char *data = nullptr;
  size_t size = 0;
  size_t position = 0;
};

class StreamDecoder {
public:
  virtual ~StreamDecoder() = default;

  // Decodes more input into `output`. Every call either makes progress or
  // fails; errors carry the codec's own text (the one LLVM reports). Must not
  // be called once finished().
  virtual Status decode(DecodeOutput &output) = 0;

  // Whether all streams have ended and all their output has been delivered.
  virtual bool finished() const = 0;

  // The codec's text for output that does not fit the expected size, as LLVM
  // reports it.
  virtual std::string_view outputTooLargeMessage() const = 0;

  // The error of the one-shot call LLVM makes (ZSTD_decompress or
  // uncompress) on the whole input with `capacity` bytes of room at
  // `scratch`, or nothing when that call succeeds. Streaming decoders check
  // corrupt input in another order than one-shot calls do; replaying the
  // call after a failure gives LLVM's exact words.
  virtual std::optional<std::string> oneShotError(char *scratch,
                                                  size_t capacity) const = 0;
};

// A decoder for all zstd frames in `input`, reported like ZSTD_decompress.
// With `fixedOutput`, every call gets the same DecodeOutput (data and size
// unchanged, position only moved by the decoder) holding room for the whole
// expected output; zstd then decodes straight into it instead of keeping its
// own window copy. `expectedSize` also bounds the window zstd may allocate.
Result<std::unique_ptr<StreamDecoder>> makeZstdDecoder(std::string_view input,
                                                       uint64_t expectedSize,
                                                       bool fixedOutput);

// Decodes the zstd frames in `input` block by block straight into
// output[0, capacity), stopping at the first block boundary at or past
// `wanted` bytes (or where the data ends). Returns the bytes produced. No
// window of zstd's own is allocated or copied through, and nothing after
// that block is read: for taking the first entries of a large bundle.
// `capacity` must leave room for the block that crosses `wanted` (at most
// kZstdLargestBlock bytes past it).
inline constexpr size_t kZstdLargestBlock = size_t{128} << 10;
Result<size_t> decodeZstdPrefix(std::string_view input, char *output,
                                size_t capacity, size_t wanted);

// A decoder for one zlib stream at the start of `input`; like zlib's
// uncompress, bytes after the end of the stream are ignored.
Result<std::unique_ptr<StreamDecoder>> makeZlibDecoder(std::string_view input);

// LLVM's JamCRC with an initial value of 0 (the CRC-32 register without
// the final inversion): the checksum COFF section definitions carry.
uint32_t jamCrc32(std::string_view bytes);

} // namespace offbundle
