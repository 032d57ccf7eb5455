// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// -bundle, -unbundle and -list: the operations of operations.h without a file
// of their own (archives, -format=json and -output-dir are in
// archive_unbundling.cpp, json_listing.cpp and extract_all.cpp). A compressed
// input may hold several bundles end to end; each is decompressed and searched
// in turn.

#include "bundler/operations.h"

#include <chrono>
#include <memory>
#include <set>
#include <vector>

#include "bundler/bundle_discovery.h"
#include "bundler/operation_support.h"
#include "compression/compressed_bundle.h"
#include "formats/bundle_decoding.h"
#include "formats/code_object_uri.h"
#include "formats/fat_object.h"
#include "support/output_transaction.h"
#include "support/string_map.h"
#include "targets/offload_target.h"

namespace offbundle {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
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
  return makeError(message, ErrorCode::NoSuchTarget);
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

// Compresses a whole bundle into `output`, as -compress does, with
// -verbose's report.
Status writeCompressed(std::string_view bundle,
                       const CompressionConfig &compression, OutputFile &output,
                       std::string &diagnostics) {
  CompressionOptions options;
  options.method = CompressionMethod::Zstd;
  options.level = compression.compressionLevel;
  options.version = compression.compressedBundleVersion;
  OutputSink sink(output);
  const uint64_t start = output.bytesWritten();
  auto began = std::chrono::steady_clock::now();
  auto header = compressBundleTo(bundle, options, sink);
  if (!header)
    return header.takeError();
  if (compression.verbose)
    diagnostics += formatCompressionReport(
        *header, output.bytesWritten() - start - header->headerSize,
        options.level, secondsSince(began));
  return Status::success();
}

} // namespace

Status bundleFiles(const BundlerConfig &config, OperationReport &report) {
  const FilesConfig &files = config.files;
  const CompressionConfig &compression = config.compression;
  const OutputConfig &outputConfig = config.output;
  std::vector<std::unique_ptr<InputFile>> inputs;
  for (const std::string &name : files.inputFileNames) {
    auto input = openInput(name);
    if (!input)
      return input.takeError();
    inputs.push_back(std::move(*input));
  }
  auto choice = containerForType(files.filesType);
  if (!choice)
    return choice.takeError();

  std::vector<EntryToWrite> entries;
  for (size_t i = 0; i < files.targetNames.size(); ++i)
    entries.push_back({files.targetNames[i], inputs.at(i).get()});

  OutputTransaction transaction;
  auto output = transaction.create(files.outputFileNames.front());
  if (!output)
    return output.takeError();

  // -type=o with an object-file host makes a fat object. Without a host
  // entry (HIP device code only) it is a binary bundle: LLVM 22 crashes
  // there, and a binary bundle is what it can read back.
  const size_t hostIndex = files.hostInputIndex;
  const ContainerFormat format =
      choice->resolve(hostIndex < inputs.size() ? inputs[hostIndex]->contents()
                                                : std::string_view());
  WriterOptions writing;
  writing.comment = choice->comment;
  writing.alignment = outputConfig.bundleAlignment;
  writing.hostIndex = hostIndex;
  if (format == ContainerFormat::FatObject) {
    const InputFile &host = *inputs[hostIndex];
    if (!isElf(host.contents()))
      return unsupportedObject(host.path());
    // LLVM gathers a fat object's entries for objcopy and has nothing in
    // memory to bundle; -compress compresses that nothing (with -verbose's
    // report) into the output, where it stays when -### keeps objcopy from
    // writing the file.
    if (compression.compress)
      if (Status compressed =
              writeCompressed({}, compression,
                              outputConfig.printExternalCommands
                                  ? **output
                                  : *transaction.createInMemory(),
                              report.diagnostics);
          !compressed.ok())
        return compressed;
    if (outputConfig.printExternalCommands) {
      // LLVM prints the command instead of running it, leaving the output
      // empty.
      report.diagnostics += objcopyBundleCommand(
          outputConfig.externalCommands, files.targetNames,
          files.inputFileNames, hostIndex, files.outputFileNames.front());
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
      compression.compress ? *transaction.createInMemory() : **output;
  if (compression.compress) {
    // An upper bound of the bundle's size: payloads, their alignment
    // padding, and per entry its header fields or text markers and ID.
    uint64_t bound = 64;
    for (const EntryToWrite &entry : entries)
      bound += entry.payload->size() + outputConfig.bundleAlignment + 128 +
               2 * entry.id.size();
    if (Status reserved = bundle.reserveMemory(bound); !reserved.ok())
      return reserved;
  }
  Status written = containerInfo(format).write(bundle, entries, writing);
  if (!written.ok())
    return written;

  if (compression.compress)
    if (Status compressed = writeCompressed(
            bundle.memoryContents(), compression, **output, report.diagnostics);
        !compressed.ok())
      return compressed;
  return transaction.commit();
}

namespace {

// One -unbundle of chosen targets: what its steps share. unbundleFiles runs
// the steps in order: the input opened and its -type checked, the requested
// targets, the input's bundles decoded, the walk over every bundle that
// takes the first compatible entry for each target, the outputs of targets
// nothing matched, the copies, and the hash checks left for last. Each step
// is handed the part of the configuration it needs. Outputs are created in
// a transaction and appear only when every step succeeded.
struct TargetUnbundling {
  explicit TargetUnbundling(OperationReport &report) : report(report) {}
  OperationReport &report;
  std::unique_ptr<InputFile> input;
  std::optional<ContainerChoice> choice;
  LlvmOrderedStringMap<size_t> worklist;
  std::vector<OffloadTarget> requested;
  // Declared after input, which they may view.
  std::optional<DecodedBundles> decoded;
  OutputTransaction transaction;
  std::vector<std::pair<const InputFile *, PendingCopy>> copies;
  std::vector<std::pair<OutputFile *, std::shared_ptr<const ElfWritePlan>>>
      rewrites;
  Discovery embedded;
  bool foundHostBundle = false;
  size_t entriesSeen = 0;
};

// Takes, from one bundle, the first compatible entry for each target still
// wanted; payloads are only noted here and copied later, all at once, so
// that outputs can be filled in parallel.
Status walkBundle(TargetUnbundling &state, const FilesConfig &files,
                  const MatchingConfig &matching, const InputFile &bundle,
                  BundleReader &reader) {
  if (state.worklist.empty())
    return Status::success();
  return forEachEntry(
      reader, [&](std::string_view entryId) -> Result<EntryWalk> {
        ++state.entriesSeen;
        std::optional<OffloadTarget> codeObject =
            OffloadTarget::parseStored(entryId);
        if (!codeObject)
          return makeError("invalid bundle id read from the bundle");

        std::optional<std::pair<std::string_view, size_t>> match;
        for (const auto &[key, targetIndex] : state.worklist.entries()) {
          if (isCodeObjectCompatible(*codeObject, state.requested[*targetIndex],
                                     matching.hipOpenmpCompatible)) {
            match.emplace(key, *targetIndex);
            break;
          }
        }
        if (!match)
          return EntryWalk::Continue;

        auto output =
            state.transaction.create(files.outputFileNames.at(match->second));
        if (!output)
          return output.takeError();
        auto payload = reader.readEntry();
        if (!payload)
          return payload.takeError();
        if (payload->rewrittenObject)
          state.rewrites.emplace_back(*output, payload->rewrittenObject);
        else
          state.copies.push_back(
              {&bundle, {*output, payload->offset, payload->size}});
        state.worklist.erase(std::string(match->first));
        if (codeObject->hasHostKind())
          state.foundHostBundle = true;
        return state.worklist.empty() ? EntryWalk::Stop : EntryWalk::Continue;
      });
}

// The -type is resolved first, but a missing input is reported before a
// bad -type, as LLVM reports them.
Status openUnbundlingInput(TargetUnbundling &state, const FilesConfig &files) {
  auto choice = containerForType(files.filesType);
  auto opened = offbundle::openInput(files.inputFileNames.front());
  if (!opened)
    return opened.takeError();
  state.input = std::move(*opened);
  if (!choice)
    return choice.takeError();
  state.choice = std::move(*choice);
  return Status::success();
}

// The requested targets (parsed when they were checked), in LLVM's
// StringMap order, each with its output.
void readRequestedTargets(TargetUnbundling &state, const FilesConfig &files) {
  for (size_t i = 0; i < files.targetNames.size(); ++i)
    state.worklist.insertOrAssign(files.targetNames[i], i);
  state.requested = files.targets;
}

// Text bundles are scanned whole; binary ones are read from their header.
// Hashes are checked once the outputs are written, before they appear.
Status decodeInput(TargetUnbundling &state,
                   const CompressionConfig &compression,
                   const MatchingConfig &matching) {
  DecodeRequest request;
  request.decompression = compression.decompressionRequest();
  if (state.choice->format != ContainerFormat::TextBundle)
    request.entriesFor =
        WantedTargets{&state.requested, matching.hipOpenmpCompatible};
  request.deferHashCheck = true;
  request.verboseReport =
      compression.verbose ? &state.report.diagnostics : nullptr;
  auto decoded = decodeBundles(*state.input, request);
  if (!decoded)
    return decoded.takeError();
  state.decoded.emplace(std::move(*decoded));
  return Status::success();
}

// Several bundles may lie end to end; each requested target is looked for
// in one bundle after another.
Status walkDecodedBundles(TargetUnbundling &state, const FilesConfig &files,
                          const MatchingConfig &matching,
                          const OutputConfig &output) {
  for (const DecodedBundle &decoded : state.decoded->bundles()) {
    const InputFile &bundle = *decoded.file;
    // A partly decompressed bundle holds every entry the walk may take.
    auto reader =
        decoded.fullSize
            ? openPartialBundle(bundle.contents(), *decoded.fullSize,
                                bundle.path())
            : openReader(*state.choice, bundle.contents(), bundle.path(),
                         output, files.inputFileNames.front(),
                         state.report.diagnostics);
    if (!reader)
      return reader.takeError();
    if (Status status = walkBundle(state, files, matching, bundle, **reader);
        !status.ok())
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
Status walkEmbeddedBundles(TargetUnbundling &state, const FilesConfig &files,
                           const MatchingConfig &matching,
                           const CompressionConfig &compression,
                           const OutputConfig &output) {
  if (state.entriesSeen != 0 || matching.allowMissingBundles ||
      !holdsEmbeddedBundles(state.input->contents()))
    return Status::success();
  // The text format's comment, from the -type resolved already.
  const std::string_view textComment =
      state.choice->format == ContainerFormat::TextBundle
          ? state.choice->comment
          : std::string_view();
  auto discovery = discoverBundles(
      *state.input,
      discoveryOptions(compression, textComment, state.report.diagnostics),
      DiscoveryMode::Lenient);
  if (!discovery)
    return discovery.takeError();
  state.embedded = std::move(*discovery);
  for (const DiscoveredBundle &bundle : state.embedded.bundles) {
    auto reader = openDiscoveredBundle(bundle, output, /*fileOrder=*/false,
                                       state.report.diagnostics);
    if (!reader)
      return reader.takeError();
    if (Status status =
            walkBundle(state, files, matching, *bundle.data, **reader);
        !status.ok())
      return status;
  }
  return Status::success();
}

// Targets no entry matched: an error unless -allow-missing-bundles, and
// otherwise empty outputs, or, when nothing matched at all, the input
// taken to be a plain host file (after decompression, when it was
// compressed).
Status createUnmatchedOutputs(TargetUnbundling &state, const FilesConfig &files,
                              const MatchingConfig &matching) {
  std::vector<std::pair<std::string_view, size_t>> remaining;
  for (const auto &[key, targetIndex] : state.worklist.entries())
    remaining.emplace_back(key, *targetIndex);

  if (!matching.allowMissingBundles && !remaining.empty()) {
    std::vector<std::string_view> missing;
    for (const auto &entry : remaining)
      missing.push_back(entry.first);
    return missingBundlesError(missing);
  }

  if (remaining.size() == files.targetNames.size()) {
    for (const auto &[key, targetIndex] : remaining) {
      auto output =
          state.transaction.create(files.outputFileNames.at(targetIndex));
      if (!output)
        return output.takeError();
      if (state.requested[targetIndex].hasHostKind())
        for (const DecodedBundle &bundle : state.decoded->bundles())
          state.copies.push_back(
              {bundle.file.get(), {*output, 0, bundle.file->size()}});
    }
    return Status::success();
  }
  if (!(state.foundHostBundle || files.hostInputIndex == FilesConfig::kNoHost ||
        matching.allowMissingBundles))
    return makeError("Can't find bundle for the host target",
                     ErrorCode::NoSuchTarget);
  for (const auto &[key, targetIndex] : remaining) {
    auto output =
        state.transaction.create(files.outputFileNames.at(targetIndex));
    if (!output)
      return output.takeError();
  }
  return Status::success();
}

// Copies from each bundle run together; one output may take pieces from
// several bundles only in the host case above, where they run in order.
// Host objects rewritten out of fat objects come last. The outputs appear
// only at commit.
Status writeOutputs(TargetUnbundling &state) {
  std::vector<const InputFile *> sources;
  for (const DecodedBundle &bundle : state.decoded->bundles())
    sources.push_back(bundle.file.get());
  for (const DiscoveredBundle &bundle : state.embedded.bundles)
    sources.push_back(bundle.data.get());
  for (const InputFile *source : sources) {
    std::vector<PendingCopy> fromThisBundle;
    for (const auto &[from, copy] : state.copies)
      if (from == source)
        fromThisBundle.push_back(copy);
    if (Status status = runCopies(*source, fromThisBundle); !status.ok())
      return status;
  }
  for (const auto &[output, plan] : state.rewrites)
    if (Status status = writeElfPlan(*output, *plan, {}); !status.ok())
      return status;
  return Status::success();
}

} // namespace

Status unbundleFiles(const BundlerConfig &config, OperationReport &report) {
  TargetUnbundling state(report);
  if (Status status = openUnbundlingInput(state, config.files); !status.ok())
    return status;
  readRequestedTargets(state, config.files);
  if (Status status = decodeInput(state, config.compression, config.matching);
      !status.ok())
    return status;
  Status status =
      walkDecodedBundles(state, config.files, config.matching, config.output);
  if (status.ok())
    status = walkEmbeddedBundles(state, config.files, config.matching,
                                 config.compression, config.output);
  if (status.ok())
    status = createUnmatchedOutputs(state, config.files, config.matching);
  if (status.ok())
    status = writeOutputs(state);
  // Damaged data is reported as such, whichever step tripped over it
  // first; the outputs appear only once the hashes are known to match.
  if (Status hashes = state.decoded->checkHashes(
          state.input->path(), config.compression.hashCheckHint);
      !hashes.ok())
    return hashes;
  if (!status.ok())
    return status;
  return state.transaction.commit();
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
  const FilesConfig &files = config.files;
  const CompressionConfig &compression = config.compression;
  const OutputConfig &output = config.output;
  auto opened = openInput(files.inputFileNames.front());
  if (!opened)
    return opened.takeError();
  const InputFile &input = **opened;
  auto listChoice = containerForType(files.filesType);
  // Binary bundles inside compressed ones are listed from their headers;
  // -verbose needs the whole bundle decompressed, for its hash report.
  if (listChoice && listChoice->format != ContainerFormat::TextBundle &&
      !reportsHash(compression.decompression())) {
    auto listed = compressedBundleEntryIds(input);
    if (!listed)
      return listed.takeError();
    if (*listed) {
      report.standardOutput += **listed;
      return Status::success();
    }
  }
  DecodeRequest request;
  request.decompression = compression.listingRequest();
  request.verboseReport = compression.verbose ? &report.diagnostics : nullptr;
  auto decoded = decodeBundles(input, request);
  if (!decoded)
    return decoded.takeError();
  auto choice = containerForType(files.filesType);
  if (!choice)
    return choice.takeError();
  size_t printed = 0;
  for (const DecodedBundle &each : decoded->bundles()) {
    const InputFile *bundle = each.file.get();
    auto reader =
        openReader(*choice, bundle->contents(), bundle->path(), output,
                   files.inputFileNames.front(), report.diagnostics);
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
  DiscoveryOptions options = discoveryOptions(config, report.diagnostics);
  options.decompression = compression.listingRequest();
  // Compressed bundles are read as far as their headers, but for
  // -verbose, which reports each decompression whole.
  options.compressedHeadersOnly = !options.verboseReport;
  auto discovery = discoverBundles(input, options, DiscoveryMode::Lenient);
  if (!discovery)
    return discovery.takeError();
  for (const DiscoveredBundle &bundle : discovery->bundles) {
    auto reader = openDiscoveredBundle(bundle, output, /*fileOrder=*/false,
                                       report.diagnostics);
    if (!reader)
      return reader.takeError();
    if (Status status = printEntryIds(**reader, report, printed); !status.ok())
      return status;
  }
  return Status::success();
}

Status runBundling(const BundlerConfig &config, bool unbundle,
                   OperationReport &report) {
  if (!unbundle)
    return bundleFiles(config, report);
  return config.files.filesType == "a" ? unbundleArchive(config, report)
                                       : unbundleFiles(config, report);
}

} // namespace offbundle
