// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compressed offload bundles ("CCOB"), as written by clang-offload-bundler
// -compress. A compressed bundle wraps a whole uncompressed bundle (text or
// binary) behind a packed little-endian header:
//
//   all versions   "CCOB"                      4 bytes
//                  version                     u16
//                  method (0 zlib, 1 zstd)     u16
//   version 1      uncompressed size           u32
//                  hash                        u64      (20-byte header)
//   version 2      total file size             u32
//                  uncompressed size           u32
//                  hash                        u64      (24-byte header)
//   version 3      total file size             u64
//                  uncompressed size           u64
//                  hash                        u64      (32-byte header)
//
// followed by one zlib stream or zstd frames. The total file size includes the
// header, so version 2 and 3 bundles can be concatenated; a version 1 bundle's
// data runs to the end of the input. The hash is the first 8 bytes of the MD5
// digest of the uncompressed bytes, read little-endian (LLVM's
// MD5Result::low()).
//
// Compression reproduces LLVM 22's output byte for byte (zstd with long
// distance matching, or zlib's compress2), hashing on a second core while the
// first compresses. Decompression does better than LLVM: it never reserves
// an implausible size because a header claims it, and it refuses output whose
// size or hash differ from the header instead of passing it on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compression/codecs.h"
#include "compression/md5.h"
#include "support/byte_buffer.h"
#include "support/error.h"

namespace offbundle {

// Values of LLVM's llvm::compression::Format, as stored in the header.
enum class CompressionMethod : uint16_t { Zlib = 0, Zstd = 1 };

// LLVM 22's default levels: zstd is preferred (level 3 suffices with long
// distance matching); zlib's default is used only when zstd is unavailable.
inline constexpr int kDefaultZstdLevel = 3;
inline constexpr int kDefaultZlibLevel = 6;
// The version LLVM 22 writes unless COMPRESSED_BUNDLE_FORMAT_VERSION says 2.
inline constexpr uint16_t kDefaultCompressedBundleVersion = 3;

// Magic, version and method: the bytes every version shares. LLVM treats an
// input shorter than this as uncompressed even when it starts with "CCOB".
inline constexpr size_t kCompressedBundleCommonHeaderSize = 8;

// Whether the bytes start with "CCOB".
bool hasCompressedBundleMagic(std::string_view bytes);

class StreamDecoder;

struct CompressedBundleHeader {
  uint16_t version = 0;
  CompressionMethod method = CompressionMethod::Zstd;
  // Header plus compressed data; absent in version 1.
  std::optional<uint64_t> totalFileSize;
  uint64_t uncompressedSize = 0;
  uint64_t hash = 0;
  // 20, 24 or 32 bytes depending on the version.
  size_t headerSize = 0;
};

// Header size of a known version, 0 for any other.
size_t compressedBundleHeaderSize(uint16_t version);

// Reads the header at the start of `bytes` (which must start with "CCOB").
// Checks the version, then that the bytes hold that version's header, then the
// method, with LLVM 22's messages. Does not check the sizes against the input.
Result<CompressedBundleHeader>
parseCompressedBundleHeader(std::string_view bytes);

struct CompressionOptions {
  CompressionMethod method = CompressionMethod::Zstd;
  // Passed to the codec unchanged (zstd clamps out-of-range levels; zlib
  // accepts -1 to 9). LLVM's zlib default is kDefaultZlibLevel.
  int level = kDefaultZstdLevel;
  // 2 or 3 as LLVM writes; 1 is accepted too so that old-style bundles can be
  // produced (LLVM 22 no longer writes them).
  uint16_t version = kDefaultCompressedBundleVersion;
  // A zstd context to compress with, kept by a caller that compresses many
  // bundles on one thread (the bytes are the same); none makes a new one.
  ZstdCompressionContext *zstdContext = nullptr;
  // Whether a large bundle's MD5 runs on a thread of its own, beside the
  // compression; a caller that already keeps every core compressing hashes
  // on the compressing thread instead (two threads on one core would only
  // get in each other's way).
  bool hashOnItsOwnThread = true;
};

// Where compressBundleTo puts a compressed bundle: an output file, typically,
// so that the compressed bytes never have to be held in memory.
class CompressedBundleSink {
public:
  virtual ~CompressedBundleSink() = default;
  // Adds bytes after everything appended so far.
  virtual Status append(std::string_view bytes) = 0;
  // Replaces bytes already appended, `offset` counted from the first one.
  virtual Status overwrite(uint64_t offset, std::string_view bytes) = 0;
};

// Streams a compressed bundle into `sink`: zeros where the header goes, the
// compressed data as it is produced, then the header over the zeros (its
// sizes and hash are known only at the end). The bytes are identical to LLVM
// 22's -compress output for the same method, level and version. On error the
// sink holds an unfinished bundle. Returns the header written.
Result<CompressedBundleHeader>
compressBundleTo(std::string_view uncompressedBundle,
                 const CompressionOptions &options, CompressedBundleSink &sink);

// The same, collected in a string: the whole compressed bundle.
Result<std::string> compressBundle(std::string_view uncompressedBundle,
                                   const CompressionOptions &options);

struct DecompressedBundle {
  ByteBuffer bytes;
  CompressedBundleHeader header;
  // The hash of `bytes`, unless HashCheck::Skip left it uncomputed or
  // HashCheck::Defer left it to `pendingHash`.
  std::optional<uint64_t> computedHash;
  // With HashCheck::Defer: the hash of `bytes`, still being computed on
  // another thread from `bytes`' memory. Whoever holds the bytes must keep
  // them until this is finished or destroyed.
  std::unique_ptr<BackgroundMd5> pendingHash;
  // Bytes of the input this bundle occupies, header included: the total file
  // size for versions 2 and 3, the whole input for version 1.
  size_t compressedExtent = 0;
};

// What decompressBundle does with the hash in the header: refuse output
// whose hash differs (Verify), only compute the hash for the caller to judge
// or report (Compute), or neither (Skip, which saves the MD5 pass, the
// slowest part of decompressing). Defer returns as soon as the bytes are
// decoded, the hash still being computed (`pendingHash`), so that the caller
// can use the bytes meanwhile, and judge the hash before anything it made
// from them is final.
enum class HashCheck { Verify, Compute, Skip, Defer };

// Decompresses the bundle at the start of `bytes`, which may continue past it
// (concatenated bundles). Refuses a total file size outside the input, output
// larger or smaller than the header's uncompressed size and, with
// HashCheck::Verify, a hash that does not match. Corrupt data is reported in
// LLVM's words ("Could not decompress embedded file contents: <codec error>").
//
// The header's uncompressed size is reserved up front only when it is
// plausible: at most 64 times the compressed data, or 1 MiB. A larger claim
// is grown into as output really appears, so a header claiming 2^62 bytes
// costs nothing.
// `into` is a buffer to decode into rather than allocate a new one: its
// memory is reused, which spares the page faults of fresh memory when
// bundles are decompressed one after another.
Result<DecompressedBundle> decompressBundle(std::string_view bytes,
                                            HashCheck check = HashCheck::Verify,
                                            ByteBuffer into = ByteBuffer());

// The one line for a decompressed bundle whose hash differs from its
// header's: names the file and both hashes, and, when the tool has a way to
// skip the check, that way (`howToSkip`, the bundler's "-verify-hash=false
// skips this check").
Error hashMismatchError(const std::string &file, uint64_t stored,
                        uint64_t computed, std::string_view howToSkip = {});

// Decompresses the bundle at the start of a buffer a piece at a time, for
// reading the header of the bundle inside without decompressing the rest:
// each longer prefix asked for carries on from where the last one stopped.
// Like decompressBundlePrefix, it cannot check the hash.
class CompressedPrefixReader {
public:
  static Result<std::unique_ptr<CompressedPrefixReader>>
  open(std::string_view bytes);
  ~CompressedPrefixReader();

  const CompressedBundleHeader &header() const { return header_; }
  // The first `wanted` bytes of the uncompressed bundle, or all of them
  // when it is shorter, or fewer when the stream ends early (the caller
  // compares with the header's size). Valid until the next call.
  Result<std::string_view> prefix(uint64_t wanted);

private:
  CompressedPrefixReader() = default;
  CompressedBundleHeader header_;
  std::unique_ptr<StreamDecoder> decoder_;
  std::string decoded_;
};

// The first `wanted` bytes of the uncompressed bundle at the start of
// `bytes` (fewer if the bundle is shorter), decompressing no further. Checks
// the header and what it decodes, but cannot check the hash, which covers
// the whole bundle: for reading a bundle's header only (-list).
Result<std::string> decompressBundlePrefix(std::string_view bytes,
                                           uint64_t wanted);

// One compressed bundle found in a concatenation.
// Bytes the compressed bundle at the start of `bytes` occupies, header
// included: its recorded total size (version 2 and later), checked against
// the header and the bytes there are, or all of `bytes` (version 1).
Result<size_t> compressedBundleExtent(const CompressedBundleHeader &header,
                                      std::string_view bytes);

struct CompressedBundleSpan {
  size_t offset = 0;
  CompressedBundleHeader header;
  // The whole bundle, header included.
  std::string_view bytes;
};

// The compressed bundles laid end to end in `bytes`, each bundle's extent
// taken from its header (a version 1 bundle can only be the last one). Zero
// bytes after a bundle are skipped as padding (a linker pads the bundles of
// a .hip_fatbin section to their alignment); other data that does not start
// with "CCOB" where a bundle should start is refused. Empty input gives an
// empty list.
Result<std::vector<CompressedBundleSpan>>
splitConcatenatedCompressedBundles(std::string_view bytes);

// The lines LLVM 22 prints to stderr with -verbose after compressing.
// `compressedDataSize` excludes the header; `seconds` is the compression
// time.
std::string formatCompressionReport(const CompressedBundleHeader &header,
                                    uint64_t compressedDataSize, int level,
                                    double seconds);

// The lines LLVM 22 prints to stderr with -verbose after decompressing
// (LLVM prints them only when decompression succeeds). `compressedDataSize`
// excludes the header; `seconds` is the decompression time.
std::string formatDecompressionReport(const CompressedBundleHeader &header,
                                      uint64_t compressedDataSize,
                                      double seconds,
                                      uint64_t recalculatedHash);

} // namespace offbundle
