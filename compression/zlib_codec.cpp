// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// zlib back end, and the CRC-32 it also provides. Errors read "zlib error:
// Z_..." as LLVM words them.
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "compression/codecs.h"

namespace offbundle {

namespace {

// zlib counts in uInt; larger spans are fed in pieces, as compress2 does.
constexpr size_t kLargestZlibSpan = std::numeric_limits<uInt>::max();

constexpr size_t kCompressionOutputChunk = size_t{1} << 20;

Error zlibError(int code) {
  switch (code) {
  case Z_MEM_ERROR:
    return makeError("zlib error: Z_MEM_ERROR");
  case Z_BUF_ERROR:
    return makeError("zlib error: Z_BUF_ERROR");
  case Z_STREAM_ERROR:
    return makeError("zlib error: Z_STREAM_ERROR");
  case Z_DATA_ERROR:
  // uncompress reports a stream that wants a preset dictionary as bad data.
  case Z_NEED_DICT:
    return makeError("zlib error: Z_DATA_ERROR");
  default:
    return makeError("zlib error: code " + std::to_string(code));
  }
}

Bytef *asZlibBytes(const char *data) {
  // zlib's next_in is not const-qualified but is only read.
  return reinterpret_cast<Bytef *>(const_cast<char *>(data));
}

class ZlibDecoder final : public StreamDecoder {
public:
  explicit ZlibDecoder(std::string_view input) : input_(input) {}
  ~ZlibDecoder() override {
    if (initialized_)
      inflateEnd(&stream_);
  }

  Status start() {
    int result = inflateInit(&stream_);
    if (result != Z_OK)
      return zlibError(result);
    initialized_ = true;
    return Status::success();
  }

  Status decode(DecodeOutput &output) override {
    size_t inputSpan =
        std::min(input_.size() - inputPosition_, kLargestZlibSpan);
    size_t outputSpan =
        std::min(output.size - output.position, kLargestZlibSpan);
    stream_.next_in = asZlibBytes(input_.data() + inputPosition_);
    stream_.avail_in = static_cast<uInt>(inputSpan);
    stream_.next_out = reinterpret_cast<Bytef *>(output.data + output.position);
    stream_.avail_out = static_cast<uInt>(outputSpan);
    int result = inflate(&stream_, Z_NO_FLUSH);
    inputPosition_ += inputSpan - stream_.avail_in;
    output.position += outputSpan - stream_.avail_out;
    switch (result) {
    case Z_STREAM_END:
      ended_ = true;
      return Status::success();
    case Z_OK:
      return Status::success();
    case Z_BUF_ERROR:
      // No progress was possible. With room left, the stream is cut short,
      // which uncompress reports as bad data.
      if (outputSpan == 0)
        return zlibError(Z_BUF_ERROR);
      return zlibError(Z_DATA_ERROR);
    default:
      return zlibError(result);
    }
  }

  bool finished() const override { return ended_; }

  std::string_view outputTooLargeMessage() const override {
    return "zlib error: Z_BUF_ERROR";
  }

  std::optional<std::string> oneShotError(char *scratch,
                                          size_t capacity) const override {
    // uncompress takes sizes in uLong, which is 64-bit here.
    uLongf outputSize = capacity;
    int result = uncompress(reinterpret_cast<Bytef *>(scratch), &outputSize,
                            reinterpret_cast<const Bytef *>(input_.data()),
                            input_.size());
    if (result == Z_OK)
      return std::nullopt;
    return zlibError(result).message;
  }

private:
  std::string_view input_;
  z_stream stream_{};
  bool initialized_ = false;
  size_t inputPosition_ = 0;
  bool ended_ = false;
};

} // namespace

Status compressWithZlib(std::string_view input, int level,
                        const CompressedChunkConsumer &consume) {
  // compress2 is deflateInit at the level and one deflate to Z_FINISH; doing
  // the same through a small buffer gives the same bytes.
  z_stream stream{};
  int result = deflateInit(&stream, level);
  if (result != Z_OK)
    return zlibError(result);
  std::vector<char> chunk(kCompressionOutputChunk);
  size_t inputPosition = 0;
  do {
    if (stream.avail_in == 0) {
      size_t span = std::min(input.size() - inputPosition, kLargestZlibSpan);
      stream.next_in = asZlibBytes(input.data() + inputPosition);
      stream.avail_in = static_cast<uInt>(span);
      inputPosition += span;
    }
    stream.next_out = reinterpret_cast<Bytef *>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    result =
        deflate(&stream, inputPosition < input.size() ? Z_NO_FLUSH : Z_FINISH);
    Status consumed = consume(
        std::string_view(chunk.data(), chunk.size() - stream.avail_out));
    if (!consumed.ok()) {
      deflateEnd(&stream);
      return consumed;
    }
  } while (result == Z_OK);
  deflateEnd(&stream);
  if (result != Z_STREAM_END)
    return zlibError(result);
  return Status::success();
}

Result<std::unique_ptr<StreamDecoder>> makeZlibDecoder(std::string_view input) {
  auto decoder = std::make_unique<ZlibDecoder>(input);
  Status started = decoder->start();
  if (!started.ok())
    return started.takeError();
  return std::unique_ptr<StreamDecoder>(std::move(decoder));
}

uint32_t jamCrc32(std::string_view bytes) {
  // zlib inverts the register on the way in and out: starting from all ones
  // makes the register start at 0, and inverting the result undoes the
  // final inversion.
  uLong crc = 0xffffffffUL;
  while (!bytes.empty()) {
    const uInt chunk = static_cast<uInt>(
        std::min<size_t>(bytes.size(), std::numeric_limits<uInt>::max()));
    crc = crc32(crc, reinterpret_cast<const Bytef *>(bytes.data()), chunk);
    bytes.remove_prefix(chunk);
  }
  return static_cast<uint32_t>(crc ^ 0xffffffffUL);
}

} // namespace offbundle
