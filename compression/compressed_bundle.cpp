// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compressed offload bundles ("CCOB"; compressed_bundle.h has the header
// layout): written through a sink with the header filled in last, and
// decompressed into a buffer sized by what the data proves rather than by what
// the header claims.

#include "compression/compressed_bundle.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <new>
#include <stdexcept>

#include "compression/codecs.h"
#include "compression/md5.h"
#include "support/byte_order.h"
#include "support/number_text.h"

namespace offbundle {

namespace {

constexpr std::string_view kMagic = "CCOB";

// LLVM 22's messages.
constexpr const char *kHeaderTooSmall =
    "Compressed bundle header size too small";
constexpr const char *kUnknownMethod = "Unknown compressing method";
// LLVM prefixes every codec error with this.
constexpr std::string_view kCodecErrorPrefix =
    "Could not decompress embedded file contents: ";

// Where the common fields sit; the fields of each version follow them.
constexpr size_t kVersionOffset = 4;
constexpr size_t kMethodOffset = 6;

// Hashing on a second thread pays off only once the data takes longer to
// hash than a thread takes to start.
constexpr size_t kBackgroundHashThreshold = size_t{1} << 20;

// How far decompression trusts the uncompressed size in the header before
// data proves it. A claim within this ratio of the compressed size (or below
// the floor) gets its whole output buffer at once; any larger claim grows the
// buffer as output really appears, starting from a few times the input.
constexpr uint64_t kTrustedExpansionRatio = 64;
constexpr uint64_t kTrustedOutputFloor = uint64_t{1} << 20;
constexpr uint64_t kUntrustedInitialRatio = 4;

// Output offered to a decoder per call when the buffer grows, so that
// hashing can follow decoding closely.
constexpr size_t kDecodeOutputStep = size_t{4} << 20;

// Room for output that should not exist: any byte decoded into it means the
// data is larger than the header says.
constexpr size_t kOverflowProbeSize = 64;

const char *methodName(CompressionMethod method) {
  return method == CompressionMethod::Zlib ? "zlib" : "zstd";
}

template <typename... Arguments>
std::string formatted(const char *format, Arguments... arguments) {
  char buffer[512];
  int written = std::snprintf(buffer, sizeof(buffer), format, arguments...);
  // snprintf reports the length it wanted, which may exceed the buffer.
  size_t length =
      std::min(static_cast<size_t>(std::max(written, 0)), sizeof(buffer) - 1);
  return std::string(buffer, length);
}

// LLVM's format_hex(value, 16): "0x" and at least 14 lowercase digits.
std::string llvmHex(uint64_t value) {
  return formatted("0x%014" PRIx64, value);
}

std::string fullHex(uint64_t value) {
  return formatted("0x%016" PRIx64, value);
}

Result<std::unique_ptr<StreamDecoder>>
makeDecoder(CompressionMethod method, std::string_view compressedData,
            uint64_t expectedSize, bool fixedOutput) {
  if (method == CompressionMethod::Zlib)
    return makeZlibDecoder(compressedData);
  return makeZstdDecoder(compressedData, expectedSize, fixedOutput);
}

Error codecError(const Error &error) {
  return makeError(std::string(kCodecErrorPrefix) + error.message,
                   ErrorCode::DamagedInput);
}

// The error for a decoding failure: LLVM's own words when the output buffer
// has the room LLVM's one-shot call would have had (the usual case), the
// streaming decoder's otherwise.
Error decodingError(const Error &streamingError, StreamDecoder &decoder,
                    ByteBuffer &output, uint64_t expectedSize,
                    BackgroundMd5 *hasher) {
  if (output.size() == expectedSize) {
    // The replay writes into the buffer the hasher reads.
    if (hasher)
      hasher->waitUntilCaughtUp();
    std::optional<std::string> oneShot =
        decoder.oneShotError(output.data(), output.size());
    if (oneShot)
      return codecError(makeError(*oneShot));
  }
  return codecError(streamingError);
}

// Decodes all of `compressedData` into `output`, which ends up exactly
// `expectedSize` bytes long or the call fails. Each piece of output is handed
// to `hasher`, if any, as soon as it exists.
Status decodeExactly(CompressionMethod method, std::string_view compressedData,
                     uint64_t expectedSize, ByteBuffer &output,
                     BackgroundMd5 *hasher) {
  uint64_t trustedSize =
      std::max(kTrustedOutputFloor,
               uint64_t{compressedData.size()} * kTrustedExpansionRatio);
  bool claimTrusted = expectedSize <= trustedSize;
  uint64_t initialSize =
      claimTrusted
          ? expectedSize
          : std::min(expectedSize, std::max(kTrustedOutputFloor,
                                            uint64_t{compressedData.size()} *
                                                kUntrustedInitialRatio));
  // With the whole buffer in place from the start, zstd decodes straight into
  // it instead of through a window copy of its own. zlib gains nothing: its
  // window is 32 KiB.
  bool fixedOutput = claimTrusted && method == CompressionMethod::Zstd;

  Result<std::unique_ptr<StreamDecoder>> decoderOrError =
      makeDecoder(method, compressedData, expectedSize, fixedOutput);
  if (!decoderOrError)
    return codecError(decoderOrError.error());
  StreamDecoder &decoder = **decoderOrError;

  output.resize(static_cast<size_t>(initialSize));
  size_t produced = 0;
  while (!decoder.finished()) {
    if (!fixedOutput && produced == output.size()) {
      if (produced == expectedSize) {
        // The buffer holds all the header promised; the stream may still end
        // without more output, but any further byte is one too many.
        char probe[kOverflowProbeSize];
        DecodeOutput probeOutput{probe, sizeof(probe), 0};
        Status status = decoder.decode(probeOutput);
        if (!status.ok())
          return decodingError(status.error(), decoder, output, expectedSize,
                               hasher);
        if (probeOutput.position != 0)
          return decodingError(
              makeError(std::string(decoder.outputTooLargeMessage())), decoder,
              output, expectedSize, hasher);
        continue;
      }
      // The buffer may move: the hasher must be done reading it.
      if (hasher)
        hasher->waitUntilCaughtUp();
      uint64_t grownSize = std::min<uint64_t>(
          expectedSize,
          std::max<uint64_t>(uint64_t{output.size()} * 2, kTrustedOutputFloor));
      output.resize(static_cast<size_t>(grownSize));
    }
    DecodeOutput step{
        output.data(),
        fixedOutput ? output.size()
                    : std::min(output.size(), produced + kDecodeOutputStep),
        produced};
    Status status = decoder.decode(step);
    if (!status.ok())
      return decodingError(status.error(), decoder, output, expectedSize,
                           hasher);
    produced = step.position;
    if (hasher)
      hasher->publish(output.data(), produced);
  }
  if (produced != expectedSize)
    return makeError("Decompressed size " + std::to_string(produced) +
                     " does not match the size in the header, " +
                     std::to_string(expectedSize));
  return Status::success();
}

} // namespace

bool hasCompressedBundleMagic(std::string_view bytes) {
  return bytes.substr(0, kMagic.size()) == kMagic;
}

size_t compressedBundleHeaderSize(uint16_t version) {
  switch (version) {
  case 1:
    return 20;
  case 2:
    return 24;
  case 3:
    return 32;
  default:
    return 0;
  }
}

Result<CompressedBundleHeader>
parseCompressedBundleHeader(std::string_view bytes) {
  if (!hasCompressedBundleMagic(bytes))
    return makeError("Not a compressed bundle: no 'CCOB' magic");
  if (bytes.size() < kCompressedBundleCommonHeaderSize)
    return makeError(kHeaderTooSmall);
  CompressedBundleHeader header;
  header.version =
      static_cast<uint16_t>(loadLittleEndian(bytes, kVersionOffset, 2));
  uint16_t method =
      static_cast<uint16_t>(loadLittleEndian(bytes, kMethodOffset, 2));
  header.headerSize = compressedBundleHeaderSize(header.version);
  // LLVM means to answer "Unknown compressed bundle version" here, but it
  // computes the required size first and, for an unknown version, that size
  // is undefined; LLVM 22.1.8 as built reports every unknown version (0, 4,
  // 9, 65535, with inputs up to 1 MB) as a header too small. Its words are
  // reproduced.
  if (header.headerSize == 0 || bytes.size() < header.headerSize)
    return makeError(kHeaderTooSmall);
  size_t offset = kCompressedBundleCommonHeaderSize;
  switch (header.version) {
  case 1:
    header.uncompressedSize = loadLittleEndian(bytes, offset, 4);
    header.hash = loadLittleEndian(bytes, offset + 4, 8);
    break;
  case 2:
    header.totalFileSize = loadLittleEndian(bytes, offset, 4);
    header.uncompressedSize = loadLittleEndian(bytes, offset + 4, 4);
    header.hash = loadLittleEndian(bytes, offset + 8, 8);
    break;
  default:
    header.totalFileSize = loadLittleEndian(bytes, offset, 8);
    header.uncompressedSize = loadLittleEndian(bytes, offset + 8, 8);
    header.hash = loadLittleEndian(bytes, offset + 16, 8);
    break;
  }
  if (method != static_cast<uint16_t>(CompressionMethod::Zlib) &&
      method != static_cast<uint16_t>(CompressionMethod::Zstd))
    return makeError(kUnknownMethod);
  header.method = static_cast<CompressionMethod>(method);
  return header;
}

namespace {

Result<CompressedBundleHeader>
compressIntoSink(std::string_view uncompressedBundle,
                 const CompressionOptions &options,
                 CompressedBundleSink &sink) {
  CompressedBundleHeader header;
  header.version = options.version;
  header.method = options.method;
  header.headerSize = compressedBundleHeaderSize(options.version);
  header.uncompressedSize = uncompressedBundle.size();
  if (header.headerSize == 0)
    return makeError("Unsupported compressed bundle version " +
                     std::to_string(options.version));
  if (options.method != CompressionMethod::Zlib &&
      options.method != CompressionMethod::Zstd)
    return makeError(kUnknownMethod);
  // Versions 1 and 2 store sizes in 32 bits; LLVM refuses (for version 2)
  // rather than truncate.
  constexpr uint64_t kLargest32BitSize = std::numeric_limits<uint32_t>::max();
  std::string versionLimit =
      " exceeds version " + std::to_string(options.version) + " limit";
  if (options.version < 3 && header.uncompressedSize > kLargest32BitSize)
    return makeError("Uncompressed size" + versionLimit);

  Status started = sink.append(std::string(header.headerSize, '\0'));
  if (!started.ok())
    return started.takeError();

  // The input is hashed while it compresses.
  BackgroundMd5 hasher(options.hashOnItsOwnThread &&
                       uncompressedBundle.size() >= kBackgroundHashThreshold);
  hasher.publish(uncompressedBundle.data(), uncompressedBundle.size());
  uint64_t compressedSize = 0;
  CompressedChunkConsumer consume = [&](std::string_view chunk) {
    compressedSize += chunk.size();
    return sink.append(chunk);
  };
  Status compressed =
      options.method == CompressionMethod::Zstd
          ? compressWithZstd(uncompressedBundle, options.level, consume,
                             options.zstdContext)
          : compressWithZlib(uncompressedBundle, options.level, consume);
  header.hash = hasher.finish();
  if (!compressed.ok())
    return compressed.takeError();

  uint64_t totalFileSize = header.headerSize + compressedSize;
  if (options.version < 3 && totalFileSize > kLargest32BitSize)
    return makeError("Total file size" + versionLimit);
  if (options.version >= 2)
    header.totalFileSize = totalFileSize;

  std::string headerBytes(header.headerSize, '\0');
  headerBytes.replace(0, kMagic.size(), kMagic);
  storeLittleEndian(headerBytes, kVersionOffset, header.version, 2);
  storeLittleEndian(headerBytes, kMethodOffset,
                    static_cast<uint16_t>(header.method), 2);
  size_t offset = kCompressedBundleCommonHeaderSize;
  switch (header.version) {
  case 1:
    storeLittleEndian(headerBytes, offset, header.uncompressedSize, 4);
    storeLittleEndian(headerBytes, offset + 4, header.hash, 8);
    break;
  case 2:
    storeLittleEndian(headerBytes, offset, totalFileSize, 4);
    storeLittleEndian(headerBytes, offset + 4, header.uncompressedSize, 4);
    storeLittleEndian(headerBytes, offset + 8, header.hash, 8);
    break;
  default:
    storeLittleEndian(headerBytes, offset, totalFileSize, 8);
    storeLittleEndian(headerBytes, offset + 8, header.uncompressedSize, 8);
    storeLittleEndian(headerBytes, offset + 16, header.hash, 8);
    break;
  }
  Status finished = sink.overwrite(0, headerBytes);
  if (!finished.ok())
    return finished.takeError();
  return header;
}

} // namespace

Result<CompressedBundleHeader>
compressBundleTo(std::string_view uncompressedBundle,
                 const CompressionOptions &options,
                 CompressedBundleSink &sink) {
  try {
    return compressIntoSink(uncompressedBundle, options, sink);
  } catch (const std::bad_alloc &) {
    return makeError("Compression failed: out of memory");
  } catch (const std::length_error &) {
    return makeError("Compression failed: out of memory");
  }
}

namespace {

class StringSink final : public CompressedBundleSink {
public:
  explicit StringSink(std::string &bytes) : bytes_(bytes) {}
  Status append(std::string_view bytes) override {
    bytes_.append(bytes);
    return Status::success();
  }
  Status overwrite(uint64_t offset, std::string_view bytes) override {
    bytes_.replace(static_cast<size_t>(offset), bytes.size(), bytes);
    return Status::success();
  }

private:
  std::string &bytes_;
};

} // namespace

Result<std::string> compressBundle(std::string_view uncompressedBundle,
                                   const CompressionOptions &options) {
  std::string bundle;
  StringSink sink(bundle);
  Result<CompressedBundleHeader> header =
      compressBundleTo(uncompressedBundle, options, sink);
  if (!header)
    return header.takeError();
  return bundle;
}

Result<DecompressedBundle> decompressBundle(std::string_view bytes,
                                            HashCheck check, ByteBuffer into) {
  Result<CompressedBundleHeader> headerOrError =
      parseCompressedBundleHeader(bytes);
  if (!headerOrError)
    return headerOrError.takeError();
  DecompressedBundle result;
  result.bytes = std::move(into);
  result.header = *headerOrError;
  Result<size_t> extentOrError = compressedBundleExtent(result.header, bytes);
  if (!extentOrError)
    return extentOrError.takeError();
  result.compressedExtent = *extentOrError;
  std::string_view compressedData =
      bytes.substr(result.header.headerSize,
                   result.compressedExtent - result.header.headerSize);
  uint64_t expectedSize = result.header.uncompressedSize;
  if (expectedSize > uint64_t{std::numeric_limits<std::ptrdiff_t>::max()})
    return makeError("Decompressed size " + std::to_string(expectedSize) +
                     " is too large for this machine");

  try {
    std::unique_ptr<BackgroundMd5> hasher;
    if (check != HashCheck::Skip)
      hasher = std::make_unique<BackgroundMd5>(expectedSize >=
                                               kBackgroundHashThreshold);
    Status decoded = decodeExactly(result.header.method, compressedData,
                                   expectedSize, result.bytes, hasher.get());
    if (!decoded.ok())
      return decoded.takeError();
    if (!hasher)
      return result;
    if (check == HashCheck::Defer) {
      result.pendingHash = std::move(hasher);
      return result;
    }
    uint64_t computedHash = hasher->finish();
    result.computedHash = computedHash;
    if (check == HashCheck::Verify && computedHash != result.header.hash)
      return makeError("Hash mismatch: stored " + fullHex(result.header.hash) +
                       ", computed " + fullHex(computedHash));
  } catch (const std::bad_alloc &) {
    return makeError("Decompression failed: out of memory");
  } catch (const std::length_error &) {
    return makeError("Decompression failed: out of memory");
  }
  return result;
}

Error hashMismatchError(const std::string &file, uint64_t stored,
                        uint64_t computed, std::string_view howToSkip) {
  std::string why = "corrupt data";
  if (!howToSkip.empty())
    why += "; " + std::string(howToSkip);
  return fileError(file,
                   "compressed bundle hash mismatch: stored " +
                       fullHex(stored) + ", computed " + fullHex(computed) +
                       " (" + why + ")",
                   ErrorCode::DamagedInput);
}

Result<std::unique_ptr<CompressedPrefixReader>>
CompressedPrefixReader::open(std::string_view bytes) {
  Result<CompressedBundleHeader> header = parseCompressedBundleHeader(bytes);
  if (!header)
    return header.takeError();
  Result<size_t> extent = compressedBundleExtent(*header, bytes);
  if (!extent)
    return extent.takeError();
  std::string_view compressedData =
      bytes.substr(header->headerSize, *extent - header->headerSize);
  Result<std::unique_ptr<StreamDecoder>> decoder =
      makeDecoder(header->method, compressedData, header->uncompressedSize,
                  /*fixedOutput=*/false);
  if (!decoder)
    return codecError(decoder.error());
  std::unique_ptr<CompressedPrefixReader> reader(new CompressedPrefixReader());
  reader->header_ = *header;
  reader->decoder_ = std::move(*decoder);
  return reader;
}

CompressedPrefixReader::~CompressedPrefixReader() = default;

Result<std::string_view> CompressedPrefixReader::prefix(uint64_t wanted) {
  const uint64_t limit = std::min(wanted, header_.uncompressedSize);
  if (limit > decoded_.size()) {
    size_t produced = decoded_.size();
    try {
      decoded_.resize(static_cast<size_t>(limit));
    } catch (const std::exception &) {
      decoded_.resize(produced);
      return makeError("Decompression failed: out of memory");
    }
    // The decoder keeps its own window, so the buffer may move between
    // calls; it carries on where the previous call stopped.
    while (produced < limit && !decoder_->finished()) {
      DecodeOutput step{decoded_.data(), decoded_.size(), produced};
      Status status = decoder_->decode(step);
      if (!status.ok()) {
        decoded_.resize(produced);
        return codecError(status.error());
      }
      produced = step.position;
    }
    decoded_.resize(produced);
  }
  return std::string_view(decoded_).substr(0, static_cast<size_t>(limit));
}

Result<std::string> decompressBundlePrefix(std::string_view bytes,
                                           uint64_t wanted) {
  Result<CompressedBundleHeader> header = parseCompressedBundleHeader(bytes);
  if (!header)
    return header.takeError();
  if (header->method == CompressionMethod::Zstd) {
    // zstd's own streaming decoder would decode into a window of up to
    // 128 MiB and copy out of it; decoding block by block straight into the
    // result reads no block past the prefix and touches no other memory.
    Result<size_t> extent = compressedBundleExtent(*header, bytes);
    if (!extent)
      return extent.takeError();
    const uint64_t limit = std::min(wanted, header->uncompressedSize);
    try {
      std::string prefix(static_cast<size_t>(limit) + kZstdLargestBlock, '\0');
      Result<size_t> produced = decodeZstdPrefix(
          bytes.substr(header->headerSize, *extent - header->headerSize),
          prefix.data(), prefix.size(), static_cast<size_t>(limit));
      if (!produced)
        return codecError(produced.error());
      prefix.resize(std::min<size_t>(*produced, static_cast<size_t>(limit)));
      return prefix;
    } catch (const std::exception &) {
      return makeError("Decompression failed: out of memory");
    }
  }
  auto reader = CompressedPrefixReader::open(bytes);
  if (!reader)
    return reader.takeError();
  auto prefix = (*reader)->prefix(wanted);
  if (!prefix)
    return prefix.takeError();
  return std::string(*prefix);
}

Result<size_t> compressedBundleExtent(const CompressedBundleHeader &header,
                                      std::string_view bytes) {
  if (!header.totalFileSize)
    return bytes.size();
  uint64_t total = *header.totalFileSize;
  if (total < header.headerSize)
    return makeError("Compressed bundle total file size " +
                     std::to_string(total) + " is smaller than its " +
                     std::to_string(header.headerSize) + "-byte header");
  if (total > bytes.size())
    return makeError("Compressed bundle total file size " +
                     std::to_string(total) + " exceeds the " +
                     std::to_string(bytes.size()) + " bytes available");
  return static_cast<size_t>(total);
}

Result<std::vector<CompressedBundleSpan>>
splitConcatenatedCompressedBundles(std::string_view bytes) {
  std::vector<CompressedBundleSpan> spans;
  size_t offset = 0;
  while (offset < bytes.size()) {
    // Zero bytes after a bundle are alignment padding, as a linker leaves
    // between the bundles of a .hip_fatbin section.
    if (offset > 0 && bytes[offset] == '\0') {
      offset = std::min(bytes.find_first_not_of('\0', offset), bytes.size());
      continue;
    }
    std::string_view rest = bytes.substr(offset);
    // Messages about later bundles say where they are; those about the first
    // stay LLVM's own words.
    std::string where = offset == 0 ? ""
                                    : "Compressed bundle at offset " +
                                          std::to_string(offset) + ": ";
    if (!hasCompressedBundleMagic(rest))
      return makeError(where + "Not a compressed bundle: no 'CCOB' magic");
    Result<CompressedBundleHeader> header = parseCompressedBundleHeader(rest);
    if (!header)
      return makeError(where + header.error().message);
    Result<size_t> extent = compressedBundleExtent(*header, rest);
    if (!extent)
      return makeError(where + extent.error().message);
    spans.push_back({offset, *header, rest.substr(0, *extent)});
    offset += *extent;
  }
  return spans;
}

namespace {

// The measures both reports give: how many times smaller the data is
// compressed, and how fast the uncompressed side went through.
struct ReportMeasures {
  double rate;
  double megabytesPerSecond;
};

ReportMeasures measure(const CompressedBundleHeader &header,
                       uint64_t compressedDataSize, double seconds) {
  const double uncompressedSize = static_cast<double>(header.uncompressedSize);
  return {uncompressedSize / static_cast<double>(compressedDataSize),
          (uncompressedSize / (1024.0 * 1024.0)) / seconds};
}

// The line both reports open with.
std::string versionLine(const CompressedBundleHeader &header) {
  return "Compressed bundle format version: " + std::to_string(header.version) +
         "\n";
}

} // namespace

std::string formatCompressionReport(const CompressedBundleHeader &header,
                                    uint64_t compressedDataSize, int level,
                                    double seconds) {
  uint64_t totalFileSize = header.headerSize + compressedDataSize;
  const auto [rate, megabytesPerSecond] =
      measure(header, compressedDataSize, seconds);
  std::string report = versionLine(header);
  report += "Total file size (including headers): " +
            withThousandsSeparators(totalFileSize) + " bytes\n";
  report += std::string("Compression method used: ") +
            methodName(header.method) + "\n";
  report += "Compression level: " + std::to_string(level) + "\n";
  report += "Binary size before compression: " +
            withThousandsSeparators(header.uncompressedSize) + " bytes\n";
  report += "Binary size after compression: " +
            withThousandsSeparators(compressedDataSize) + " bytes\n";
  report += "Compression rate: " + formatted("%.2f", rate) + "\n";
  report += "Compression ratio: " + formatted("%.2f%%", 100.0 / rate) + "\n";
  report +=
      "Compression speed: " + formatted("%.2f MB/s", megabytesPerSecond) + "\n";
  report += "Truncated MD5 hash: " + llvmHex(header.hash) + "\n";
  return report;
}

std::string formatDecompressionReport(const CompressedBundleHeader &header,
                                      uint64_t compressedDataSize,
                                      double seconds,
                                      uint64_t recalculatedHash) {
  const auto [rate, megabytesPerSecond] =
      measure(header, compressedDataSize, seconds);
  std::string report = versionLine(header);
  if (header.totalFileSize)
    report += "Total file size (from header): " +
              withThousandsSeparators(*header.totalFileSize) + " bytes\n";
  report +=
      std::string("Decompression method: ") + methodName(header.method) + "\n";
  report += "Size before decompression: " +
            withThousandsSeparators(compressedDataSize) + " bytes\n";
  report += "Size after decompression: " +
            withThousandsSeparators(header.uncompressedSize) + " bytes\n";
  report += "Compression rate: " + formatted("%.2f", rate) + "\n";
  report += "Compression ratio: " + formatted("%.2f%%", 100.0 / rate) + "\n";
  report +=
      "Decompression speed: " + formatted("%.2f MB/s", megabytesPerSecond) +
      "\n";
  report += "Stored hash: " + llvmHex(header.hash) + "\n";
  report += "Recalculated hash: " + llvmHex(recalculatedHash) + "\n";
  report += std::string("Hashes match: ") +
            (header.hash == recalculatedHash ? "Yes" : "No") + "\n";
  return report;
}

} // namespace offbundle
