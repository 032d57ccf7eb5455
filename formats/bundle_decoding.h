// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Turning the bytes of an input into the bundles it holds, before any reader
// looks at them, as LLVM's bundler does: an uncompressed input is its own
// bundle; a compressed one (CCOB, see compression/compressed_bundle.h) may
// hold several compressed bundles laid end to end, each decompressed in turn.
//
// How far to decompress and whether to check hashes is one policy
// (DecompressionPolicy), which -verify-hash and -verbose choose between: with
// neither, a binary bundle is decompressed only as far as the entries wanted
// (its header says where they end); otherwise whole, the MD5 hash in the
// header computed, and checked or reported or both. Callers say what they
// want in a DecodeRequest and get DecodedBundles back.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compression/compressed_bundle.h"
#include "support/error.h"
#include "support/input_file.h"
#include "targets/offload_target.h"

namespace offbundle {

// How compressed bundles are decompressed.
enum class DecompressionPolicy {
  // A bundle is decompressed only as far as the entries wanted, and no hash
  // is computed (-verify-hash=false).
  EntriesOnly,
  // Whole, the hash checked (-verify-hash, the default).
  Verify,
  // Whole, the hash computed for LLVM's -verbose report, not checked.
  Report,
  // Whole, the hash reported and checked (-verbose).
  ReportAndVerify,
};

inline bool checksHash(DecompressionPolicy policy) {
  return policy == DecompressionPolicy::Verify ||
         policy == DecompressionPolicy::ReportAndVerify;
}
inline bool reportsHash(DecompressionPolicy policy) {
  return policy == DecompressionPolicy::Report ||
         policy == DecompressionPolicy::ReportAndVerify;
}

// The policy, and how the tool's user turns the hash check off: added to the
// message of a mismatch; empty when the caller has no such switch.
struct DecompressionRequest {
  DecompressionPolicy policy = DecompressionPolicy::Verify;
  std::string hashCheckHint;
};

// Refuses decompressing more than memory can hold: `size` is the one
// bundle's uncompressed size, or nothing for several bundles together.
Error uncompressedSizeLimitError(std::optional<uint64_t> size, uint64_t limit);

// Decompresses one compressed bundle of `file` as `request` asks: the hash
// computed when the policy checks it or `verboseReport` is given, which
// receives LLVM's -verbose report. A hash mismatch is a line of its own
// naming `file`; any other failure is `errorPrefix` followed by the
// decompressor's message.
Result<DecompressedBundle>
decompressAsRequested(std::string_view bytes, const std::string &file,
                      const DecompressionRequest &request,
                      const std::string &errorPrefix,
                      std::string *verboseReport);

// The targets whose entries are wanted, matched as -hip-openmp-compatible
// says.
struct WantedTargets {
  const std::vector<OffloadTarget> *targets = nullptr;
  bool hipOpenmpCompatible = false;
};

// The first bytes of a compressed binary bundle: as far as the furthest
// entry compatible with one of `wanted` ends, found from the bundle's header.
// Nothing when that saves nothing or does not apply: the bundle inside is no
// binary bundle, its header is unreadable (the full path reports that), or
// no entry matches, in which case the whole bundle may become the host
// output.
struct PartialBundle {
  std::string bytes;
  uint64_t fullSize = 0;
};
Result<std::optional<PartialBundle>>
decompressEntriesOnly(const CompressedBundleSpan &span,
                      const WantedTargets &wanted);

// The first bytes of the compressed bundle at the start of `bytes`,
// decompressed as far as the header of the binary bundle inside, for
// describing the bundle without decompressing its payloads (or checking its
// hash, which covers the whole). Nothing when the bundle inside is no binary
// bundle, or anything is wrong with what was decompressed or the header: the
// whole decompression then says what.
struct CompressedBundleHead {
  CompressedBundleHeader header;
  // The decompressed first bytes, as far as the inner header ends.
  std::string bytes;
};
std::optional<CompressedBundleHead>
decompressHeaderOnly(std::string_view bytes);

// One bundle an input holds, and, when only its first bytes were
// decompressed, the size of the whole.
struct DecodedBundle {
  std::unique_ptr<InputFile> file;
  std::optional<uint64_t> fullSize;
  // A hash check left for later (see DecodeRequest::deferHashCheck): the
  // hash the header stores, and the one still being computed from `file`'s
  // bytes (declared after `file`, so that it stops reading them first).
  uint64_t storedHash = 0;
  std::unique_ptr<BackgroundMd5> pendingHash;
};

struct DecodeRequest {
  DecompressionRequest decompression;
  // Under DecompressionPolicy::EntriesOnly, binary bundles are decompressed
  // only as far as these targets' entries; without them, whole.
  std::optional<WantedTargets> entriesFor;
  // Hashes to verify are still being computed when decodeBundles returns,
  // and DecodedBundles::checkHashes must judge them before anything made
  // from the bytes is final: the caller's work overlaps the hashing, the
  // slowest part of decompressing.
  bool deferHashCheck = false;
  // -verbose: receives "Uncompressed bundle." or each bundle's report.
  std::string *verboseReport = nullptr;
};

// The bundles of one input, in input order.
class DecodedBundles {
public:
  explicit DecodedBundles(std::vector<DecodedBundle> bundles)
      : bundles_(std::move(bundles)) {}

  const std::vector<DecodedBundle> &bundles() const { return bundles_; }

  // Waits for the deferred hash checks and judges them, in input order: the
  // first mismatch is the error, naming `file`.
  Status checkHashes(const std::string &file, const std::string &howToSkip);

private:
  std::vector<DecodedBundle> bundles_;
};

// The bundles `input` holds, decoded as `request` asks. Failures are
// "Failed to decompress input: ..." but for a hash mismatch. The input must
// outlive the result, which may view it.
Result<DecodedBundles> decodeBundles(const InputFile &input,
                                     const DecodeRequest &request);

// The entry IDs of a compressed input's binary bundles, one a line, read
// from their headers alone: each is decompressed only as far as its header,
// growing the prefix until the header fits. Nothing when that does not
// apply (the input is not compressed, or holds a fat object).
Result<std::optional<std::string>>
compressedBundleEntryIds(const InputFile &input);

} // namespace offbundle
