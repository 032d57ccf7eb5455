// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Decoding an input's bundles (see bundle_decoding.h): splitting compressed
// input into its bundles, decompressing each whole or only as far as the
// wanted entries, the size limit, and the hash checks done now or later.

#include "formats/bundle_decoding.h"

#include <algorithm>
#include <chrono>

#include "formats/binary_bundle.h"
#include "formats/bundle_format.h"
#include "formats/container_format.h"
#include "support/memory_limit.h"

namespace offbundle {
namespace {

const std::string kFailedPrefix = "Failed to decompress input: ";

Error decompressionFailed(const Error &error) {
  return makeError(kFailedPrefix + error.message, ErrorCode::DamagedInput);
}

// The stream ended before the size the header claims.
Error shortStreamError(uint64_t decompressed, uint64_t claimed) {
  return makeError("Decompressed size " + std::to_string(decompressed) +
                       " does not match the size in the header, " +
                       std::to_string(claimed),
                   ErrorCode::DamagedInput);
}

// Every bundle is held decompressed at once. Sizes are checked against the
// data as it decompresses, but data can legitimately expand tens of
// thousands of times, so a small input may honestly decompress to more than
// the machine holds: refuse that before decompressing anything.
Status checkUncompressedTotal(const std::vector<CompressedBundleSpan> &spans) {
  const uint64_t limit = inMemoryInputLimit();
  uint64_t total = 0;
  for (const CompressedBundleSpan &span : spans) {
    total += std::min(span.header.uncompressedSize, limit + 1);
    if (total > limit)
      return uncompressedSizeLimitError(
          spans.size() == 1 ? std::optional(span.header.uncompressedSize)
                            : std::nullopt,
          limit);
  }
  return Status::success();
}

// The entry IDs of one compressed binary bundle, from as little of it as
// holds its header; nothing when it holds a fat object.
Result<std::optional<std::string>>
entryIdsFromHeader(const CompressedBundleSpan &span, const std::string &path) {
  auto reader = CompressedPrefixReader::open(span.bytes);
  if (!reader)
    return decompressionFailed(reader.error());
  const uint64_t limit = inMemoryInputLimit();
  constexpr uint64_t kFirstPrefix = 1 << 16;
  for (uint64_t wanted = kFirstPrefix;; wanted *= 4) {
    // Once the prefix would be the whole bundle, decompress it whole, which
    // also checks its size.
    const bool whole = wanted >= span.header.uncompressedSize;
    if (std::min(wanted, span.header.uncompressedSize) > limit)
      return decompressionFailed(
          uncompressedSizeLimitError(span.header.uncompressedSize, limit));
    ByteBuffer wholeBundle;
    std::string_view prefix;
    if (whole) {
      // Listing reads headers only: it never checks the hash (nor does
      // LLVM's), however small the bundle.
      auto decompressed = decompressBundle(span.bytes, HashCheck::Skip);
      if (!decompressed)
        return decompressionFailed(decompressed.error());
      wholeBundle = std::move(decompressed->bytes);
      prefix = wholeBundle.view();
    } else {
      auto partial = (*reader)->prefix(wanted);
      if (!partial)
        return decompressionFailed(partial.error());
      prefix = *partial;
      if (prefix.size() < wanted)
        return decompressionFailed(
            shortStreamError(prefix.size(), span.header.uncompressedSize));
    }
    // A fat object inside is read whole, by the ordinary path.
    if (looksLikeObjectFile(prefix))
      return std::optional<std::string>();
    std::optional<uint64_t> headerSize = binaryBundleHeaderSize(prefix);
    if (!headerSize && !whole)
      continue;
    // A header that claims more than the bundle holds is refused by the
    // reader, as for an uncompressed bundle.
    auto bundleReader =
        BinaryBundleReader::openHeader(prefix, span.header.uncompressedSize);
    if (!bundleReader)
      return fileError(path, bundleReader.error());
    std::string listing;
    for (std::string_view id : (*bundleReader)->entryIds()) {
      listing += id;
      listing += '\n';
    }
    return std::optional(std::move(listing));
  }
}

} // namespace

Error uncompressedSizeLimitError(std::optional<uint64_t> size, uint64_t limit) {
  return makeError(
      (size ? "the uncompressed size in the header, " + std::to_string(*size) +
                  " bytes, exceeds"
            : std::string("the uncompressed sizes in the headers exceed")) +
      " the limit of " + std::to_string(limit) + " bytes (" +
      inMemoryLimitDescription() + ")");
}

Result<DecompressedBundle>
decompressAsRequested(std::string_view bytes, const std::string &file,
                      const DecompressionRequest &request,
                      const std::string &errorPrefix,
                      std::string *verboseReport) {
  const bool verifies = checksHash(request.policy);
  const HashCheck check =
      verboseReport || verifies ? HashCheck::Compute : HashCheck::Skip;
  const auto start = std::chrono::steady_clock::now();
  auto decompressed = decompressBundle(bytes, check);
  if (!decompressed)
    return makeError(errorPrefix + decompressed.error().message);
  const CompressedBundleHeader &header = decompressed->header;
  // LLVM prints its report, "Hashes match: No" included, and carries on.
  if (verboseReport)
    *verboseReport += formatDecompressionReport(
        header, decompressed->compressedExtent - header.headerSize,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count(),
        *decompressed->computedHash);
  if (verifies && *decompressed->computedHash != header.hash)
    return hashMismatchError(file, header.hash, *decompressed->computedHash,
                             request.hashCheckHint);
  return decompressed;
}

namespace {

// The first bytes of the binary bundle `reader` decompresses, as far as
// they hold its whole header; nothing when it is no binary bundle, or its
// stream ends before its header does. The first try, 4 KiB, holds the
// header of a bundle of dozens of entries; each next one four times more.
Result<std::optional<std::string_view>>
binaryBundleHead(CompressedPrefixReader &reader) {
  const uint64_t fullSize = reader.header().uncompressedSize;
  for (uint64_t length = uint64_t{1} << 12;; length *= 4) {
    length = std::min(length, fullSize);
    // A header so large is left to the whole decompression, which refuses
    // it: the data may honestly expand that much, but not in memory.
    if (length > inMemoryInputLimit())
      return std::optional<std::string_view>();
    auto decoded = reader.prefix(length);
    if (!decoded)
      return decoded.takeError();
    std::string_view prefix = *decoded;
    std::optional<uint64_t> headerSize = binaryBundleHeaderSize(prefix);
    if (headerSize == uint64_t{0} || (!headerSize && length == fullSize) ||
        prefix.size() < length)
      return std::optional<std::string_view>();
    if (headerSize && *headerSize <= prefix.size())
      return std::optional(prefix);
    if (headerSize)
      length = *headerSize;
  }
}

} // namespace

Result<std::optional<PartialBundle>>
decompressEntriesOnly(const CompressedBundleSpan &span,
                      const WantedTargets &wanted) {
  const uint64_t fullSize = span.header.uncompressedSize;
  auto reader = CompressedPrefixReader::open(span.bytes);
  if (!reader)
    return reader.takeError();
  auto head = binaryBundleHead(**reader);
  if (!head)
    return head.takeError();
  if (!*head)
    return std::optional<PartialBundle>();
  std::string_view prefix = **head;
  auto header = BinaryBundleReader::openHeader(prefix, fullSize);
  if (!header)
    return std::optional<PartialBundle>();
  uint64_t neededEnd = 0;
  bool unusable = false;
  BundleReader &entries = **header;
  // A header that cannot be walked to its end counts as far as it goes; an
  // entry that cannot be read or matched leaves the choice to the whole
  // decompression, which reports what is wrong.
  (void)forEachEntry(
      entries, [&](std::string_view entryId) -> Result<EntryWalk> {
        auto payload = entries.readEntry();
        std::optional<OffloadTarget> codeObject =
            OffloadTarget::parseStored(entryId);
        if (!payload || !codeObject) {
          unusable = true;
          return EntryWalk::Stop;
        }
        for (const OffloadTarget &target : *wanted.targets)
          if (isCodeObjectCompatible(*codeObject, target,
                                     wanted.hipOpenmpCompatible))
            neededEnd = std::max(neededEnd, payload->offset + payload->size);
        return EntryWalk::Continue;
      });
  if (unusable)
    return std::optional<PartialBundle>();
  if (neededEnd == 0 || neededEnd >= fullSize)
    return std::optional<PartialBundle>();
  const uint64_t length = std::max<uint64_t>(neededEnd, prefix.size());
  auto bytes = decompressBundlePrefix(span.bytes, length);
  if (!bytes)
    return bytes.takeError();
  if (bytes->size() < length)
    return shortStreamError(bytes->size(), fullSize);
  return std::optional(PartialBundle{std::move(*bytes), fullSize});
}

std::optional<CompressedBundleHead>
decompressHeaderOnly(std::string_view bytes) {
  const std::optional<CompressedBundleHead> none;
  auto reader = CompressedPrefixReader::open(bytes);
  if (!reader)
    return none;
  const CompressedBundleHeader &header = (*reader)->header();
  auto head = binaryBundleHead(**reader);
  if (!head || !*head ||
      !BinaryBundleReader::openHeader(**head, header.uncompressedSize))
    return none;
  return CompressedBundleHead{header, std::string(**head)};
}

Status DecodedBundles::checkHashes(const std::string &file,
                                   const std::string &howToSkip) {
  for (DecodedBundle &bundle : bundles_) {
    if (!bundle.pendingHash)
      continue;
    const uint64_t computed = bundle.pendingHash->finish();
    bundle.pendingHash.reset();
    if (computed != bundle.storedHash)
      return hashMismatchError(file, bundle.storedHash, computed, howToSkip);
  }
  return Status::success();
}

Result<DecodedBundles> decodeBundles(const InputFile &input,
                                     const DecodeRequest &request) {
  std::vector<DecodedBundle> bundles;
  std::string_view contents = input.contents();
  // LLVM takes anything shorter than the common header as uncompressed.
  if (contents.size() < kCompressedBundleCommonHeaderSize ||
      !hasCompressedBundleMagic(contents)) {
    if (request.verboseReport &&
        contents.size() >= kCompressedBundleCommonHeaderSize)
      *request.verboseReport += "Uncompressed bundle.\n";
    bundles.push_back({InputFile::slice(input, 0, input.size()), {}, 0, {}});
    return DecodedBundles(std::move(bundles));
  }
  auto spans = splitConcatenatedCompressedBundles(contents);
  if (!spans)
    return decompressionFailed(spans.error());
  if (Status fits = checkUncompressedTotal(*spans); !fits.ok())
    return decompressionFailed(fits.error());
  const DecompressionPolicy policy = request.decompression.policy;
  const bool partial =
      request.entriesFor && policy == DecompressionPolicy::EntriesOnly;
  for (const CompressedBundleSpan &span : *spans) {
    if (partial) {
      auto entries = decompressEntriesOnly(span, *request.entriesFor);
      if (!entries)
        return decompressionFailed(entries.error());
      if (*entries) {
        bundles.push_back(
            {InputFile::fromMemory(input.path(), std::move((*entries)->bytes)),
             (*entries)->fullSize,
             0,
             {}});
        continue;
      }
    }
    if (request.deferHashCheck && policy == DecompressionPolicy::Verify) {
      auto decompressed = decompressBundle(span.bytes, HashCheck::Defer);
      if (!decompressed)
        return decompressionFailed(decompressed.error());
      bundles.push_back(
          {InputFile::fromMemory(input.path(), std::move(decompressed->bytes)),
           {},
           decompressed->header.hash,
           std::move(decompressed->pendingHash)});
      continue;
    }
    auto decompressed =
        decompressAsRequested(span.bytes, input.path(), request.decompression,
                              kFailedPrefix, request.verboseReport);
    if (!decompressed)
      return decompressed.takeError();
    bundles.push_back(
        {InputFile::fromMemory(input.path(), std::move(decompressed->bytes)),
         {},
         0,
         {}});
  }
  return DecodedBundles(std::move(bundles));
}

Result<std::optional<std::string>>
compressedBundleEntryIds(const InputFile &input) {
  std::string_view contents = input.contents();
  if (contents.size() < kCompressedBundleCommonHeaderSize ||
      !hasCompressedBundleMagic(contents))
    return std::optional<std::string>();
  auto spans = splitConcatenatedCompressedBundles(contents);
  if (!spans)
    return decompressionFailed(spans.error());
  std::string listing;
  for (const CompressedBundleSpan &span : *spans) {
    auto ids = entryIdsFromHeader(span, input.path());
    if (!ids)
      return ids.takeError();
    if (!*ids)
      return std::optional<std::string>();
    listing += **ids;
  }
  return std::optional(std::move(listing));
}

} // namespace offbundle
