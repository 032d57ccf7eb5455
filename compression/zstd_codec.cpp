// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// zstd back end. ZSTD_c_stableInBuffer, ZSTD_d_stableOutBuffer and
// ZSTD_frameHeaderSize are in zstd's experimental section, whose details may
// change between releases: this file must be built against the headers of the
// libzstd it is linked with.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

#include "compression/codecs.h"

namespace offbundle {

namespace {

struct CompressionContextDeleter {
  void operator()(ZSTD_CCtx *context) const { ZSTD_freeCCtx(context); }
};
struct DecompressionContextDeleter {
  void operator()(ZSTD_DCtx *context) const { ZSTD_freeDCtx(context); }
};

// Output is staged through a buffer this large: more than one compressed
// block, so zstd writes blocks into it directly instead of through its own
// buffer.
constexpr size_t kCompressionOutputChunk = size_t{1} << 20;

// Compressed input handed to the decoder per call, so that output appears in
// steps the caller can hash while the next step decodes.
constexpr size_t kDecompressionInputStep = size_t{1} << 20;

// ZSTD_decompress wants a frame header and a block header (3 bytes) before it
// looks at a frame's magic number; fewer bytes are a wrong source size.
constexpr size_t kBlockHeaderSize = 3;
constexpr size_t kSmallestFrameHeaderSize = 6;

// Whether ZSTD_decompress would call the bytes at `frame` too short rather
// than not a frame.
bool tooShortForAFrame(std::string_view frame) {
  if (frame.size() < kSmallestFrameHeaderSize + kBlockHeaderSize)
    return true;
  // The header size follows from its descriptor byte alone.
  size_t headerSize = ZSTD_frameHeaderSize(frame.data(), frame.size());
  return ZSTD_isError(headerSize) ||
         frame.size() < headerSize + kBlockHeaderSize;
}

// zstd's own default window limit for streaming decoders (128 MiB); LLVM's
// frames never need more, since long distance matching caps the window there.
constexpr int kDefaultWindowLogLimit = 27;

// The most output one input byte can give: a block yields at most 128 KiB
// and takes at least 4 bytes (a 3-byte header and the byte of an RLE block).
constexpr uint64_t kLargestExpansion = (uint64_t{1} << 17) / 4;

Error zstdError(size_t code) { return makeError(ZSTD_getErrorName(code)); }

class ZstdDecoder final : public StreamDecoder {
public:
  ZstdDecoder(std::string_view input, ZSTD_DCtx *context)
      : input_(input), context_(context) {}

  Status decode(DecodeOutput &output) override {
    size_t inputEnd =
        std::min(input_.size(), inputPosition_ + kDecompressionInputStep);
    ZSTD_inBuffer in{input_.data(), inputEnd, inputPosition_};
    ZSTD_outBuffer out{output.data, output.size, output.position};
    size_t hint = ZSTD_decompressStream(context_.get(), &out, &in);
    if (ZSTD_isError(hint)) {
      // The streaming decoder rejects a bad magic number as soon as it sees
      // one. ZSTD_decompress (LLVM's call) calls it a wrong source size when
      // a frame was already complete (bytes after the data) or when the
      // bytes are too few for the header they announce; say the same.
      bool atFrameStart = !frameOpen_;
      if (ZSTD_getErrorCode(hint) == ZSTD_error_prefix_unknown &&
          atFrameStart &&
          (completedFrames_ > 0 ||
           tooShortForAFrame(input_.substr(inputPosition_))))
        return makeError(ZSTD_getErrorString(ZSTD_error_srcSize_wrong));
      return zstdError(hint);
    }
    bool progressed = in.pos != inputPosition_ || out.pos != output.position;
    inputPosition_ = in.pos;
    output.position = out.pos;
    if (hint == 0) {
      frameOpen_ = false;
      ++completedFrames_;
      return Status::success();
    }
    if (progressed) {
      frameOpen_ = true;
      return Status::success();
    }
    if (out.pos == out.size)
      return makeError(std::string(outputTooLargeMessage()));
    // No room was lacking and nothing moved: the frame needs input that is
    // not there, which ZSTD_decompress reports as a wrong source size.
    return makeError(ZSTD_getErrorString(ZSTD_error_srcSize_wrong));
  }

  bool finished() const override {
    return inputPosition_ == input_.size() && !frameOpen_;
  }

  std::string_view outputTooLargeMessage() const override {
    return ZSTD_getErrorString(ZSTD_error_dstSize_tooSmall);
  }

  std::optional<std::string> oneShotError(char *scratch,
                                          size_t capacity) const override {
    size_t result =
        ZSTD_decompress(scratch, capacity, input_.data(), input_.size());
    if (!ZSTD_isError(result))
      return std::nullopt;
    return std::string(ZSTD_getErrorName(result));
  }

private:
  std::string_view input_;
  std::unique_ptr<ZSTD_DCtx, DecompressionContextDeleter> context_;
  size_t inputPosition_ = 0;
  bool frameOpen_ = false;
  uint64_t completedFrames_ = 0;
};

} // namespace

struct ZstdCompressionContext::State {
  std::unique_ptr<ZSTD_CCtx, CompressionContextDeleter> context;
  std::vector<char> chunk;
};

ZstdCompressionContext::ZstdCompressionContext()
    : state_(std::make_unique<State>()) {}
ZstdCompressionContext::~ZstdCompressionContext() = default;

Status compressWithZstd(std::string_view input, int level,
                        const CompressedChunkConsumer &consume,
                        ZstdCompressionContext *reuse) {
  ZstdCompressionContext own;
  ZstdCompressionContext::State &state = *(reuse ? reuse : &own)->state_;
  if (!state.context)
    state.context.reset(ZSTD_createCCtx());
  else
    ZSTD_CCtx_reset(state.context.get(), ZSTD_reset_session_and_parameters);
  ZSTD_CCtx *context = state.context.get();
  if (!context)
    return makeError("Failed to create ZSTD_CCtx");
  // LLVM's parameters: long distance matching and the level. The stable
  // input buffer lets zstd read the input in place as ZSTD_compress2 does,
  // and the pledged size is what ZSTD_compress2 records in the frame; with
  // both, streaming through a small output buffer yields the same bytes.
  const std::pair<ZSTD_cParameter, int> parameters[] = {
      {ZSTD_c_enableLongDistanceMatching, 1},
      {ZSTD_c_compressionLevel, level},
      {ZSTD_c_stableInBuffer, 1},
  };
  for (const auto &[parameter, value] : parameters) {
    size_t result = ZSTD_CCtx_setParameter(context, parameter, value);
    if (ZSTD_isError(result))
      return zstdError(result);
  }
  size_t result = ZSTD_CCtx_setPledgedSrcSize(context, input.size());
  if (ZSTD_isError(result))
    return zstdError(result);

  std::vector<char> &chunk = state.chunk;
  chunk.resize(std::min(
      kCompressionOutputChunk,
      std::max(ZSTD_CStreamOutSize(), ZSTD_compressBound(input.size()))));
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  size_t remaining;
  do {
    ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
    remaining = ZSTD_compressStream2(context, &out, &in, ZSTD_e_end);
    if (ZSTD_isError(remaining))
      return zstdError(remaining);
    Status consumed = consume(std::string_view(chunk.data(), out.pos));
    if (!consumed.ok())
      return consumed;
  } while (remaining != 0);
  return Status::success();
}

Result<std::unique_ptr<StreamDecoder>> makeZstdDecoder(std::string_view input,
                                                       uint64_t expectedSize,
                                                       bool fixedOutput) {
  ZSTD_DCtx *context = ZSTD_createDCtx();
  if (!context)
    return makeError("Failed to create ZSTD_DCtx");
  auto decoder = std::make_unique<ZstdDecoder>(input, context);
  // A window never needs to exceed the whole output, and the output cannot
  // exceed what the input can produce, so the smaller of the two bounds the
  // memory a hostile frame can make zstd reserve (a header can claim any
  // size). With a fixed output zstd keeps no window copy at all.
  int windowLogLimit = ZSTD_WINDOWLOG_MAX;
  if (!fixedOutput) {
    const uint64_t producible =
        input.size() > std::numeric_limits<uint64_t>::max() / kLargestExpansion
            ? std::numeric_limits<uint64_t>::max()
            : uint64_t{input.size()} * kLargestExpansion;
    const uint64_t outputBound = std::min(expectedSize, producible);
    int outputBoundLog = outputBound <= 1 ? 0 : std::bit_width(outputBound - 1);
    windowLogLimit = std::clamp(outputBoundLog, kDefaultWindowLogLimit,
                                static_cast<int>(ZSTD_WINDOWLOG_MAX));
  }
  size_t result =
      ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, windowLogLimit);
  if (!ZSTD_isError(result) && fixedOutput)
    result = ZSTD_DCtx_setParameter(context, ZSTD_d_stableOutBuffer, 1);
  if (ZSTD_isError(result))
    return zstdError(result);
  return std::unique_ptr<StreamDecoder>(std::move(decoder));
}

Result<size_t> decodeZstdPrefix(std::string_view input, char *output,
                                size_t capacity, size_t wanted) {
  std::unique_ptr<ZSTD_DCtx, DecompressionContextDeleter> context(
      ZSTD_createDCtx());
  if (!context)
    return makeError("zstd: cannot create a decompression context");
  size_t position = 0;
  size_t produced = 0;
  // The bufferless API: each call takes exactly the bytes zstd asks for (a
  // frame header, a block header, a block) and decodes a block into the
  // output, which holds every earlier byte as the block's history.
  while (produced < wanted && position < input.size()) {
    if (size_t begun = ZSTD_decompressBegin(context.get()); ZSTD_isError(begun))
      return zstdError(begun);
    for (size_t needed = ZSTD_nextSrcSizeToDecompress(context.get());
         needed != 0 && produced < wanted;
         needed = ZSTD_nextSrcSizeToDecompress(context.get())) {
      if (needed > input.size() - position)
        return makeError(ZSTD_getErrorString(ZSTD_error_srcSize_wrong));
      size_t decoded = ZSTD_decompressContinue(context.get(), output + produced,
                                               capacity - produced,
                                               input.data() + position, needed);
      if (ZSTD_isError(decoded))
        return zstdError(decoded);
      position += needed;
      produced += decoded;
    }
  }
  return produced;
}

} // namespace offbundle
