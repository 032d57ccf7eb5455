// -bundle, -unbundle and -list: the operations of operations.h without a file
// of their own (archives, -format=json and -output-dir are in
// archive_unbundling.cpp, json_listing.cpp and extract_all.cpp). A compressed
// input may hold several bundles end to end; each is decompressed and searched
// in turn.

#include "bundler/operations.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>
#include <vector>

#include "bundler/bundle_discovery.h"
#include "bundler/code_object_uri.h"
#include "bundler/operation_support.h"
#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/fat_object.h"
#include "support/file_io.h"
#include "support/memory_limit.h"
#include "support/string_map.h"
#include "targets/offload_target.h"

namespace offbundle {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// Refuses decompressing more than memory can hold: `size` is the one
// bundle's uncompressed size, or nothing for several bundles together.
Error uncompressedSizeLimitError(std::optional<uint64_t> size, uint64_t limit) {
  return makeError(
      (size ? "the uncompressed size in the header, " + std::to_string(*size) +
                  " bytes, exceeds"
            : std::string("the uncompressed sizes in the headers exceed")) +
      " the limit of " + std::to_string(limit) + " bytes (" +
      inMemoryLimitDescription() + ")");
}

// One bundle an input holds, and, when only its first bytes were
// decompressed, the size of the whole.
struct DecodedBundle {
  std::unique_ptr<InputFile> file;
  std::optional<uint64_t> fullSize;
  // A hash check left for later (see decodeInput): the hash the header
  // stores, and the one still being computed from `file`'s bytes (declared
  // after `file`, so that it stops reading them first).
  uint64_t storedHash = 0;
  std::unique_ptr<BackgroundMd5> pendingHash;
};

// The bundles an input holds: the input itself, or, for compressed input,
// each compressed bundle laid end to end in it, decompressed. With
// `entriesFor` (unbundling binary bundles without hash verification), each
// is decompressed only as far as the entries those targets may take. With
// `deferHashCheck`, hashes to verify are still being computed when this
// returns, and checkDeferredHashes() must judge them before anything made
// from the bytes is final: the caller's work overlaps the hashing, the
// slowest part of decompressing. The input must outlive the result, which
// may view it.
Result<std::vector<DecodedBundle>>
decodeInput(const InputFile &input, const BundlerConfig &config,
            OperationReport &report,
            const std::vector<OffloadTarget> *entriesFor = nullptr,
            bool deferHashCheck = false) {
  std::vector<DecodedBundle> bundles;
  std::string_view contents = input.contents();
  // LLVM takes anything shorter than the common header as uncompressed.
  if (contents.size() < kCompressedBundleCommonHeaderSize ||
      !hasCompressedBundleMagic(contents)) {
    if (config.verbose && contents.size() >= kCompressedBundleCommonHeaderSize)
      report.diagnostics += "Uncompressed bundle.\n";
    bundles.push_back({InputFile::slice(input, 0, input.size()), {}, 0, {}});
    return bundles;
  }
  const std::string failedPrefix = "Failed to decompress input: ";
  auto failed = [&](const Error &error) {
    return makeError(failedPrefix + error.message);
  };
  auto spans = splitConcatenatedCompressedBundles(contents);
  if (!spans)
    return failed(spans.error());
  // Every bundle is held decompressed at once. Sizes are checked against
  // the data as it decompresses, but data can legitimately expand tens of
  // thousands of times, so a small input may honestly decompress to more
  // than the machine holds: refuse that before decompressing anything.
  const uint64_t limit = inMemoryInputLimit();
  uint64_t total = 0;
  for (const CompressedBundleSpan &span : *spans) {
    total += std::min(span.header.uncompressedSize, limit + 1);
    if (total > limit)
      return failed(uncompressedSizeLimitError(
          spans->size() == 1 ? std::optional(span.header.uncompressedSize)
                             : std::nullopt,
          limit));
  }
  const DecompressionPolicy policy = config.decompression();
  const bool partial = entriesFor && policy == DecompressionPolicy::EntriesOnly;
  for (const CompressedBundleSpan &span : *spans) {
    if (partial) {
      auto entries = decompressEntriesOnly(span, *entriesFor, config);
      if (!entries)
        return failed(entries.error());
      if (*entries) {
        bundles.push_back(
            {InputFile::fromMemory(input.path(), std::move((*entries)->bytes)),
             (*entries)->fullSize,
             0,
             {}});
        continue;
      }
    }
    if (deferHashCheck && policy == DecompressionPolicy::Verify) {
      auto decompressed = decompressBundle(span.bytes, HashCheck::Defer);
      if (!decompressed)
        return failed(decompressed.error());
      bundles.push_back(
          {InputFile::fromMemory(input.path(), std::move(decompressed->bytes)),
           {},
           decompressed->header.hash,
           std::move(decompressed->pendingHash)});
      continue;
    }
    auto decompressed =
        decompressAsConfigured(span.bytes, input.path(), config, failedPrefix,
                               config.verbose ? &report.diagnostics : nullptr);
    if (!decompressed)
      return decompressed.takeError();
    bundles.push_back(
        {InputFile::fromMemory(input.path(), std::move(decompressed->bytes)),
         {},
         0,
         {}});
  }
  return bundles;
}

// Waits for the hash checks decodeInput deferred and judges them, in input
// order: the first mismatch is the error.
Status checkDeferredHashes(std::vector<DecodedBundle> &bundles,
                           const std::string &file,
                           const std::string &howToSkip) {
  for (DecodedBundle &bundle : bundles) {
    if (!bundle.pendingHash)
      continue;
    const uint64_t computed = bundle.pendingHash->finish();
    bundle.pendingHash.reset();
    if (computed != bundle.storedHash)
      return hashMismatchError(file, bundle.storedHash, computed, howToSkip);
  }
  return Status::success();
}

// "Can't find bundles for A, B, and C", with the IDs sorted.
Error missingBundlesError(const std::vector<std::string_view> &missing) {
  std::set<std::string_view> sorted(missing.begin(), missing.end());
  std::string message = "Can't find bundles for";
  size_t index = 0;
  const size_t last = sorted.size() - 1;
  for (std::string_view id : sorted) {
    if (index != 0 && last > 1)
      message += ",";
    message += " ";
    if (index == last && index != 0)
      message += "and ";
    message += id;
    ++index;
  }
  return makeError(message);
}

// Lets the compressor write straight into the output file.
class OutputSink final : public CompressedBundleSink {
public:
  explicit OutputSink(OutputFile &output) : output_(output) {}
  Status append(std::string_view bytes) override {
    return output_.write(bytes);
  }
  Status overwrite(uint64_t offset, std::string_view bytes) override {
    return output_.overwrite(offset, bytes);
  }

private:
  OutputFile &output_;
};

} // namespace

Status bundleFiles(const BundlerConfig &config, OperationReport &report) {
  std::vector<std::unique_ptr<InputFile>> inputs;
  for (const std::string &name : config.inputFileNames) {
    auto input = openInput(name);
    if (!input)
      return input.takeError();
    inputs.push_back(std::move(*input));
  }
  auto choice = containerForType(config.filesType);
  if (!choice)
    return choice.takeError();

  std::vector<EntryToWrite> entries;
  for (size_t i = 0; i < config.targetNames.size(); ++i)
    entries.push_back({config.targetNames[i], inputs.at(i).get()});

  OutputTransaction transaction;
  auto output = transaction.create(config.outputFileNames.front());
  if (!output)
    return output.takeError();

  // -type=o with an object-file host makes a fat object. Without a host
  // entry (HIP device code only) it is a binary bundle: LLVM 22 crashes
  // there, and a binary bundle is what it can read back.
  const size_t hostIndex = config.hostInputIndex;
  const ContainerFormat format =
      choice->resolve(hostIndex < inputs.size() ? inputs[hostIndex]->contents()
                                                : std::string_view());
  WriterOptions writing;
  writing.comment = choice->comment;
  writing.alignment = config.bundleAlignment;
  writing.hostIndex = hostIndex;
  if (format == ContainerFormat::FatObject) {
    const InputFile &host = *inputs[hostIndex];
    if (!isElf(host.contents()))
      return unsupportedObject(host.path());
    if (config.printExternalCommands) {
      // LLVM prints the command instead of running it, leaving the output
      // empty.
      report.diagnostics += objcopyBundleCommand(
          config.externalCommands, config.targetNames, config.inputFileNames,
          hostIndex, config.outputFileNames.front());
      return transaction.commit();
    }
    if (Status status = containerInfo(format).write(**output, entries, writing);
        !status.ok())
      return status;
    return transaction.commit();
  }
  // A compressed bundle compresses the whole uncompressed one, which is
  // therefore assembled in memory first.
  OutputFile &bundle =
      config.compress ? *transaction.createInMemory() : **output;
  if (config.compress) {
    // An upper bound of the bundle's size: payloads, their alignment
    // padding, and per entry its header fields or text markers and ID.
    uint64_t bound = 64;
    for (const EntryToWrite &entry : entries)
      bound += entry.payload->size() + config.bundleAlignment + 128 +
               2 * entry.id.size();
    if (Status reserved = bundle.reserveMemory(bound); !reserved.ok())
      return reserved;
  }
  Status written = containerInfo(format).write(bundle, entries, writing);
  if (!written.ok())
    return written;

  if (config.compress) {
    CompressionOptions options;
    options.method = CompressionMethod::Zstd;
    options.level = config.compressionLevel;
    options.version = config.compressedBundleVersion;
    OutputSink sink(**output);
    auto start = std::chrono::steady_clock::now();
    auto header = compressBundleTo(bundle.memoryContents(), options, sink);
    if (!header)
      return header.takeError();
    if (config.verbose)
      report.diagnostics += formatCompressionReport(
          *header, (*output)->bytesWritten() - header->headerSize,
          options.level, secondsSince(start));
  }
  return transaction.commit();
}

namespace {

// One -unbundle of chosen targets, step by step: the requested targets,
// the walk over every bundle that takes the first compatible entry for
// each, the outputs of targets nothing matched, then the copies. Outputs
// are created in a transaction and appear only when every step succeeded.
class TargetUnbundling {
public:
  TargetUnbundling(const BundlerConfig &config, OperationReport &report)
      : config_(config), report_(report) {}

  // The requested targets, in LLVM's StringMap order, each with its output.
  Status readRequestedTargets() {
    for (size_t i = 0; i < config_.targetNames.size(); ++i) {
      if (!isWellFormedBundleId(config_.targetNames[i]))
        return makeError("invalid bundle id from bundle config");
      worklist_.insertOrAssign(config_.targetNames[i], i);
      requested_.push_back(OffloadTarget::parse(config_.targetNames[i]));
    }
    return Status::success();
  }

  const std::vector<OffloadTarget> &requested() const { return requested_; }

  // Several bundles may lie end to end; each requested target is looked for
  // in one bundle after another.
  Status walkDecodedBundles(const std::vector<DecodedBundle> &bundles,
                            const ContainerChoice &choice) {
    for (const DecodedBundle &decoded : bundles) {
      const InputFile *bundle = decoded.file.get();
      const std::optional<uint64_t> &fullSize = decoded.fullSize;
      if (fullSize) {
        // Partly decompressed: the prefix holds every entry the walk may
        // take.
        auto reader =
            BinaryBundleReader::openHeader(bundle->contents(), *fullSize);
        if (!reader)
          return fileError(bundle->path(), reader.error().message);
        if (Status status = walk(*bundle, **reader); !status.ok())
          return status;
        continue;
      }
      auto reader = openReader(choice, bundle->contents(), bundle->path(),
                               config_, report_.diagnostics);
      if (!reader)
        return reader.takeError();
      if (Status status = walk(*bundle, **reader); !status.ok())
        return status;
    }
    return Status::success();
  }

  // A file with no bundle of its own, where LLVM's tool gives up ("Can't
  // find bundles"): an executable, shared library, object or archive may
  // hold bundles in .hip_fatbin or .llvm.offloading sections, which are then
  // unbundled as if the sections were the input. With
  // -allow-missing-bundles LLVM succeeds (the whole file is the host
  // output), and so does this tool, in the same way.
  Status walkEmbeddedBundles(const InputFile &input) {
    if (entriesSeen_ != 0 || config_.allowMissingBundles ||
        !holdsEmbeddedBundles(input.contents()))
      return Status::success();
    auto discovery =
        discoverBundles(input, config_, DiscoveryMode::Lenient, report_);
    if (!discovery)
      return discovery.takeError();
    embedded_ = std::move(*discovery);
    for (const DiscoveredBundle &bundle : embedded_.bundles) {
      auto reader = openDiscoveredBundle(bundle, config_, /*fileOrder=*/false,
                                         report_.diagnostics);
      if (!reader)
        return reader.takeError();
      if (Status status = walk(*bundle.data, **reader); !status.ok())
        return status;
    }
    return Status::success();
  }

  // Targets no entry matched: an error unless -allow-missing-bundles, and
  // otherwise empty outputs, or, when nothing matched at all, the input
  // taken to be a plain host file (after decompression, when it was
  // compressed).
  Status createUnmatchedOutputs(const std::vector<DecodedBundle> &bundles) {
    std::vector<std::pair<std::string_view, size_t>> remaining;
    for (const auto &[key, targetIndex] : worklist_.entries())
      remaining.emplace_back(key, *targetIndex);

    if (!config_.allowMissingBundles && !remaining.empty()) {
      std::vector<std::string_view> missing;
      for (const auto &entry : remaining)
        missing.push_back(entry.first);
      return missingBundlesError(missing);
    }

    if (remaining.size() == config_.targetNames.size()) {
      for (const auto &[key, targetIndex] : remaining) {
        auto output =
            transaction_.create(config_.outputFileNames.at(targetIndex));
        if (!output)
          return output.takeError();
        if (requested_[targetIndex].hasHostKind())
          for (const auto &bundle : bundles)
            copies_.push_back(
                {bundle.file.get(), {*output, 0, bundle.file->size()}});
      }
      return Status::success();
    }
    if (!(foundHostBundle_ ||
          config_.hostInputIndex == BundlerConfig::kNoHost ||
          config_.allowMissingBundles))
      return makeError("Can't find bundle for the host target");
    for (const auto &[key, targetIndex] : remaining) {
      auto output =
          transaction_.create(config_.outputFileNames.at(targetIndex));
      if (!output)
        return output.takeError();
    }
    return Status::success();
  }

  // Copies from each bundle run together; one output may take pieces from
  // several bundles only in the host case above, where they run in order.
  // Host objects rewritten out of fat objects come last. The outputs appear
  // only at commit().
  Status writeOutputs(const std::vector<DecodedBundle> &bundles) {
    std::vector<const InputFile *> sources;
    for (const auto &bundle : bundles)
      sources.push_back(bundle.file.get());
    for (const DiscoveredBundle &bundle : embedded_.bundles)
      sources.push_back(bundle.data.get());
    for (const InputFile *source : sources) {
      std::vector<PendingCopy> fromThisBundle;
      for (const auto &[from, copy] : copies_)
        if (from == source)
          fromThisBundle.push_back(copy);
      if (Status status = runCopies(*source, fromThisBundle); !status.ok())
        return status;
    }
    for (const auto &[output, plan] : rewrites_)
      if (Status status = writeElfPlan(*output, *plan, {}); !status.ok())
        return status;
    return Status::success();
  }

  // Puts every output in place.
  Status commit() { return transaction_.commit(); }

private:
  // Takes, from one bundle, the first compatible entry for each target still
  // wanted; payloads are only noted here and copied later, all at once, so
  // that outputs can be filled in parallel.
  Status walk(const InputFile &bundle, BundleReader &reader) {
    if (worklist_.empty())
      return Status::success();
    return forEachEntry(
        reader, [&](std::string_view entryId) -> Result<EntryWalk> {
          ++entriesSeen_;
          std::optional<OffloadTarget> codeObject =
              OffloadTarget::parseStored(entryId);
          if (!codeObject)
            return makeError("invalid bundle id read from the bundle");

          std::optional<std::pair<std::string_view, size_t>> match;
          for (const auto &[key, targetIndex] : worklist_.entries()) {
            if (isCodeObjectCompatible(*codeObject, requested_[*targetIndex],
                                       config_.hipOpenmpCompatible)) {
              match.emplace(key, *targetIndex);
              break;
            }
          }
          if (!match)
            return EntryWalk::Continue;

          auto output =
              transaction_.create(config_.outputFileNames.at(match->second));
          if (!output)
            return output.takeError();
          auto payload = reader.readEntry();
          if (!payload)
            return payload.takeError();
          if (payload->rewrittenObject)
            rewrites_.emplace_back(*output, payload->rewrittenObject);
          else
            copies_.push_back(
                {&bundle, {*output, payload->offset, payload->size}});
          worklist_.erase(std::string(match->first));
          if (codeObject->hasHostKind())
            foundHostBundle_ = true;
          return worklist_.empty() ? EntryWalk::Stop : EntryWalk::Continue;
        });
  }

  const BundlerConfig &config_;
  OperationReport &report_;
  LlvmOrderedStringMap<size_t> worklist_;
  std::vector<OffloadTarget> requested_;
  OutputTransaction transaction_;
  std::vector<std::pair<const InputFile *, PendingCopy>> copies_;
  std::vector<std::pair<OutputFile *, std::shared_ptr<const ElfWritePlan>>>
      rewrites_;
  Discovery embedded_;
  bool foundHostBundle_ = false;
  size_t entriesSeen_ = 0;
};

} // namespace

Status unbundleFiles(const BundlerConfig &config, OperationReport &report) {
  auto opened = openInput(config.inputFileNames.front());
  if (!opened)
    return opened.takeError();
  const InputFile &input = **opened;
  auto choice = containerForType(config.filesType);
  if (!choice)
    return choice.takeError();

  TargetUnbundling unbundling(config, report);
  if (Status status = unbundling.readRequestedTargets(); !status.ok())
    return status;
  // Text bundles are scanned whole; binary ones are read from their header.
  // Hashes are checked once the outputs are written, before they appear.
  auto decoded = decodeInput(input, config, report,
                             choice->format == ContainerFormat::TextBundle
                                 ? nullptr
                                 : &unbundling.requested(),
                             /*deferHashCheck=*/true);
  if (!decoded)
    return decoded.takeError();
  std::vector<DecodedBundle> &bundles = *decoded;
  // Damaged data is reported as such, whichever step trips over it first.
  auto damagedOr = [&](Status status) {
    Status hashes =
        checkDeferredHashes(bundles, input.path(), config.hashCheckHint);
    return hashes.ok() ? status : hashes;
  };
  if (Status status = unbundling.walkDecodedBundles(bundles, *choice);
      !status.ok())
    return damagedOr(std::move(status));
  if (Status status = unbundling.walkEmbeddedBundles(input); !status.ok())
    return damagedOr(std::move(status));
  if (Status status = unbundling.createUnmatchedOutputs(bundles); !status.ok())
    return damagedOr(std::move(status));
  if (Status status = unbundling.writeOutputs(bundles); !status.ok())
    return damagedOr(std::move(status));
  if (Status status =
          checkDeferredHashes(bundles, input.path(), config.hashCheckHint);
      !status.ok())
    return status;
  return unbundling.commit();
}

// Lists a compressed binary bundle from its header alone: decompresses only
// as far as the header of the bundle inside, growing the prefix until the
// header fits. Returns false (and lists nothing) when that does not apply.
Result<bool> listCompressedHeaders(const InputFile &input,
                                   OperationReport &report) {
  std::string_view contents = input.contents();
  if (contents.size() < kCompressedBundleCommonHeaderSize ||
      !hasCompressedBundleMagic(contents))
    return false;
  auto spans = splitConcatenatedCompressedBundles(contents);
  if (!spans)
    return makeError("Failed to decompress input: " + spans.error().message);
  std::string listing;
  const uint64_t limit = inMemoryInputLimit();
  auto failed = [](const Error &error) {
    return makeError("Failed to decompress input: " + error.message);
  };
  for (const CompressedBundleSpan &span : *spans) {
    auto reader = CompressedPrefixReader::open(span.bytes);
    if (!reader)
      return failed(reader.error());
    constexpr uint64_t kFirstPrefix = 1 << 16;
    for (uint64_t wanted = kFirstPrefix;; wanted *= 4) {
      // Once the prefix would be the whole bundle, decompress it whole,
      // which also checks its size and hash.
      const bool whole = wanted >= span.header.uncompressedSize;
      if (std::min(wanted, span.header.uncompressedSize) > limit)
        return failed(
            uncompressedSizeLimitError(span.header.uncompressedSize, limit));
      ByteBuffer wholeBundle;
      std::string_view prefix;
      if (whole) {
        // Listing reads headers only: it never checks the hash (nor does
        // LLVM's), however small the bundle.
        auto decompressed = decompressBundle(span.bytes, HashCheck::Skip);
        if (!decompressed)
          return failed(decompressed.error());
        wholeBundle = std::move(decompressed->bytes);
        prefix = wholeBundle.view();
      } else {
        auto partial = (*reader)->prefix(wanted);
        if (!partial)
          return failed(partial.error());
        prefix = *partial;
        // The stream ended before the size the header claims.
        if (prefix.size() < wanted)
          return makeError("Failed to decompress input: Decompressed size " +
                           std::to_string(prefix.size()) +
                           " does not match the size in the header, " +
                           std::to_string(span.header.uncompressedSize));
      }
      // A fat object inside is read whole, by the ordinary path.
      if (looksLikeObjectFile(prefix))
        return false;
      std::optional<uint64_t> headerSize = binaryBundleHeaderSize(prefix);
      if (!headerSize && !whole)
        continue;
      // A header that claims more than the bundle holds is refused by the
      // reader, as for an uncompressed bundle.
      auto bundleReader =
          BinaryBundleReader::openHeader(prefix, span.header.uncompressedSize);
      if (!bundleReader)
        return fileError(input.path(), bundleReader.error().message);
      for (std::string_view id : (*bundleReader)->entryIds()) {
        listing += id;
        listing += '\n';
      }
      break;
    }
  }
  report.standardOutput += listing;
  return true;
}

namespace {

// Prints the entry IDs of one reader, in the order it visits them.
Status printEntryIds(BundleReader &reader, OperationReport &report,
                     size_t &printed) {
  return forEachEntry(reader, [&](std::string_view id) -> Result<EntryWalk> {
    report.standardOutput += id;
    report.standardOutput += '\n';
    ++printed;
    if (Status status = reader.skipEntry(); !status.ok())
      return status.takeError();
    return EntryWalk::Continue;
  });
}

} // namespace

Status listBundleIds(const BundlerConfig &config, OperationReport &report) {
  auto opened = openInput(config.inputFileNames.front());
  if (!opened)
    return opened.takeError();
  const InputFile &input = **opened;
  auto listChoice = containerForType(config.filesType);
  // Binary bundles inside compressed ones are listed from their headers;
  // -verbose needs the whole bundle decompressed, for its hash report.
  if (listChoice && listChoice->format != ContainerFormat::TextBundle &&
      !reportsHash(config.decompression())) {
    auto listed = listCompressedHeaders(input, report);
    if (!listed)
      return listed.takeError();
    if (*listed)
      return Status::success();
  }
  // Listing never checks the hash, as gzip -l does not; -verbose reports it.
  BundlerConfig listing = config;
  listing.verifyHash = false;
  auto decoded = decodeInput(input, listing, report);
  if (!decoded)
    return decoded.takeError();
  auto choice = containerForType(config.filesType);
  if (!choice)
    return choice.takeError();
  size_t printed = 0;
  for (const DecodedBundle &each : *decoded) {
    const InputFile *bundle = each.file.get();
    auto reader = openReader(*choice, bundle->contents(), bundle->path(),
                             config, report.diagnostics);
    if (!reader)
      return reader.takeError();
    if (Status status = printEntryIds(**reader, report, printed); !status.ok())
      return status;
  }
  // LLVM's tool lists nothing for an executable, shared library, object or
  // archive without bundles of its own; their .hip_fatbin and
  // .llvm.offloading sections (and their members') are listed instead, each
  // bundle as -list of that bundle alone would list it.
  if (printed != 0 || !holdsEmbeddedBundles(input.contents()))
    return Status::success();
  auto discovery =
      discoverBundles(input, listing, DiscoveryMode::Lenient, report);
  if (!discovery)
    return discovery.takeError();
  for (const DiscoveredBundle &bundle : discovery->bundles) {
    auto reader = openDiscoveredBundle(bundle, config, /*fileOrder=*/false,
                                       report.diagnostics);
    if (!reader)
      return reader.takeError();
    if (Status status = printEntryIds(**reader, report, printed); !status.ok())
      return status;
  }
  return Status::success();
}

} // namespace offbundle
