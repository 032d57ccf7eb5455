// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public API (include/offbundle/offbundle.h) over the library's layers:
// discovery and readers for Input (read and checked as input_check.h reads
// and checks every input), the bundler's operations for bundle(),
// unbundle() and listEntryIds(), with the checks the command line makes
// first, so that a program gets what the tool would do and say.
#include "offbundle/offbundle.h"

#include <variant>

#include "api/input_check.h"
#include "api/linked_file_check.h"
#include "api/public_error.h"
#include "bundler/bundle_discovery.h"
#include "bundler/config.h"
#include "bundler/operations.h"
#include "bundler/target_checks.h"
#include "formats/code_object_uri.h"
#include "formats/elf/elf_object.h"
#include "formats/host_kinds.h"
#include "support/input_file.h"
#include "targets/offload_target.h"

namespace offbundle::api {
namespace {

std::optional<OffloadTarget> toOffloadTarget(const Target &target) {
  std::string id = target.offloadKind + "-" + target.triple;
  if (!target.targetId.empty())
    id += "-" + target.targetId;
  return OffloadTarget::parseStored(id);
}

// The operations' result as an Outcome: their error, or success. Failures
// of theirs left unclassified are of the kind `unclassified`.
Outcome
fromStatus(const Status &status,
           offbundle::ErrorCode unclassified = offbundle::ErrorCode::Other) {
  if (!status.ok())
    return publicError(status.error(), unclassified);
  return std::monostate{};
}

// A request the bundler's checks refused.
Error refused(const std::string &message) {
  return Error{message, ErrorCode::InvalidArgument};
}

} // namespace

Expected<Target> parseEntryId(std::string_view id) {
  std::optional<OffloadTarget> parsed = OffloadTarget::parseStored(id);
  if (!parsed)
    return refused("invalid bundle id '" + std::string(id) + "'");
  return publicTarget(*parsed);
}

bool isCompatible(const Target &entry, const Target &requested,
                  bool hipOpenmpCompatible) {
  std::optional<OffloadTarget> codeObject = toOffloadTarget(entry);
  std::optional<OffloadTarget> target = toOffloadTarget(requested);
  return codeObject && target &&
         isCodeObjectCompatible(*codeObject, *target, hipOpenmpCompatible);
}

struct Input::State {
  std::unique_ptr<InputFile> file;
  InputReading reading; // views `file`
  // The absolute path URIs name, found once when first asked for ("" when
  // the file cannot be reached).
  std::optional<std::string> uriPath;
};

Input::Input(std::unique_ptr<State> state) : state_(std::move(state)) {}
Input::Input(Input &&) noexcept = default;
Input &Input::operator=(Input &&) noexcept = default;
Input::~Input() = default;

const std::string &Input::path() const { return state_->file->path(); }

const std::vector<Bundle> &Input::bundles() const {
  return state_->reading.bundles;
}

Expected<Input> Input::open(const std::string &path, const std::string &type) {
  auto state = std::make_unique<State>();
  auto file = InputFile::open(path, InputFile::Devices::Refuse);
  if (!file)
    return publicError(file.error());
  state->file = std::move(*file);
  auto reading = readInputFile(*state->file, type);
  if (!reading)
    return publicError(reading.error(), offbundle::ErrorCode::DamagedInput);
  state->reading = std::move(*reading);
  return Input(std::move(state));
}

namespace {

// Walks the entries of a bundle in file order (readers visit entries in
// order only): those `wanted` names are read and given to `visit`, which
// says whether to go on; the others are skipped unread.
offbundle::Status walkPayloads(
    const DiscoveredBundle &found,
    const std::function<bool(size_t entry)> &wanted,
    const std::function<bool(size_t entry, std::string_view bytes)> &visit) {
  // A compressed bundle opened as far as its header is decompressed for
  // this walk alone, so that one bundle at a time is held whole.
  auto whole = decompressDeferred(found);
  if (!whole)
    return whole.takeError();
  const DiscoveredBundle &bundle = *whole ? **whole : found;
  std::string commandLog;
  auto reader = openDiscoveredBundle(bundle, OutputConfig(), /*fileOrder=*/true,
                                     commandLog);
  if (!reader)
    return reader.takeError();
  BundleReader &entries = **reader;
  size_t index = 0;
  return forEachEntry(entries, [&](std::string_view) -> Result<EntryWalk> {
    const size_t entry = index++;
    if (!wanted(entry)) {
      if (offbundle::Status skipped = entries.skipEntry(); !skipped.ok())
        return skipped.takeError();
      return EntryWalk::Continue;
    }
    auto payload = entries.readEntry();
    if (!payload)
      return payload.takeError();
    if (payload->rewrittenObject) {
      const std::string rendered = payload->rewrittenObject->render();
      return visit(entry, rendered) ? EntryWalk::Continue : EntryWalk::Stop;
    }
    return visit(entry,
                 bundle.data->contents().substr(payload->offset, payload->size))
               ? EntryWalk::Continue
               : EntryWalk::Stop;
  });
}

} // namespace

Expected<std::string> Input::payload(size_t bundleIndex,
                                     size_t entryIndex) const {
  if (bundleIndex >= state_->reading.bundles.size() ||
      entryIndex >= state_->reading.bundles[bundleIndex].entries.size())
    return refused("no entry " + std::to_string(entryIndex) + " in bundle " +
                   std::to_string(bundleIndex));
  std::optional<std::string> bytes;
  offbundle::Status walked = walkPayloads(
      state_->reading.discovery.bundles[bundleIndex],
      [&](size_t entry) { return entry == entryIndex; },
      [&](size_t, std::string_view found) {
        bytes = std::string(found);
        return false;
      });
  if (!walked.ok())
    return publicError(walked.error(), offbundle::ErrorCode::DamagedInput);
  if (!bytes)
    return Error{"the bundle changed since it was opened", ErrorCode::Io};
  return std::move(*bytes);
}

Outcome Input::forEachPayload(
    size_t bundleIndex,
    const std::function<bool(size_t entry, std::string_view bytes)> &visit)
    const {
  if (bundleIndex >= state_->reading.bundles.size())
    return refused("no bundle " + std::to_string(bundleIndex));
  offbundle::Status walked = walkPayloads(
      state_->reading.discovery.bundles[bundleIndex],
      [](size_t) { return true; }, visit);
  if (!walked.ok())
    return publicError(walked.error(), offbundle::ErrorCode::DamagedInput);
  return std::monostate{};
}

std::optional<std::string> Input::entryUri(size_t bundleIndex,
                                           size_t entryIndex) const {
  if (bundleIndex >= state_->reading.bundles.size() ||
      entryIndex >= state_->reading.bundles[bundleIndex].entries.size())
    return std::nullopt;
  const Entry &entry = state_->reading.bundles[bundleIndex].entries[entryIndex];
  if (!entry.fileOffset)
    return std::nullopt;
  if (!state_->uriPath) {
    Result<std::string> absolute = uriFilePath(path());
    state_->uriPath = absolute ? std::move(*absolute) : std::string();
  }
  if (state_->uriPath->empty())
    return std::nullopt;
  return formatCodeObjectUri(*state_->uriPath, *entry.fileOffset, entry.size);
}

Outcome Input::checkCompressedBundles() const {
  return fromStatus(checkCompressedInput(*state_->file, state_->reading, 1),
                    offbundle::ErrorCode::DamagedInput);
}

Outcome Input::checkLinkedFile() const {
  return fromStatus(checkLinkedHipFile(path(), state_->file->contents(),
                                       state_->reading.bundles),
                    offbundle::ErrorCode::DamagedInput);
}

Outcome Input::verify() const {
  // One bundle at a time, as checkCompressedBundles: verify runs files on
  // several threads instead.
  return fromStatus(verifyReadInput(*state_->file, state_->reading,
                                    {/*hashes=*/true, /*threads=*/1}),
                    offbundle::ErrorCode::DamagedInput);
}

Expected<std::vector<std::string>> listEntryIds(const std::string &path,
                                                const std::string &type) {
  BundlerConfig config;
  config.files.filesType = type;
  config.files.inputFileNames = {path};
  OperationReport report;
  if (Status listed = listBundleIds(config, report); !listed.ok())
    return publicError(listed.error(), offbundle::ErrorCode::DamagedInput);
  std::vector<std::string> ids;
  std::string_view text = report.standardOutput;
  while (!text.empty()) {
    size_t end = text.find('\n');
    ids.emplace_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view()
                                         : text.substr(end + 1);
  }
  return ids;
}

namespace {

// bundle() and unbundle(): the tool's checks of the request, then the run.
// Failures of the readers left unclassified are of the kind `unclassified`.
Outcome runRequest(BundlingRequest request, offbundle::ErrorCode unclassified) {
  const bool unbundle = request.unbundle;
  auto checked = checkBundlingRequest(std::move(request));
  if (const auto *problem = std::get_if<BundlingProblem>(&checked))
    return refused(problem->message);
  OperationReport report;
  return fromStatus(
      runBundling(std::get<BundlerConfig>(checked), unbundle, report),
      unclassified);
}

} // namespace

Outcome bundle(const BundleOptions &options) {
  BundlingRequest request;
  request.targets = options.targets;
  // The tool's -targets is required.
  request.targetsGiven = !options.targets.empty();
  FilesConfig &files = request.config.files;
  CompressionConfig &compression = request.config.compression;
  files.filesType = options.type;
  files.inputFileNames = options.inputs;
  files.outputFileNames = {options.output};
  request.config.output.bundleAlignment = options.alignment;
  compression.compress = options.compress;
  compression.compressionLevel = options.compressionLevel;
  compression.compressedBundleVersion = options.compressedFormatVersion;
  return runRequest(std::move(request), offbundle::ErrorCode::Other);
}

Outcome unbundle(const UnbundleOptions &options) {
  BundlingRequest request;
  request.unbundle = true;
  request.targets = options.targets;
  request.targetsGiven = !options.targets.empty();
  FilesConfig &files = request.config.files;
  MatchingConfig &matching = request.config.matching;
  files.filesType = options.type;
  files.inputFileNames = {options.input};
  files.outputFileNames = options.outputs;
  matching.allowMissingBundles = options.allowMissingBundles;
  matching.hipOpenmpCompatible = options.hipOpenmpCompatible;
  matching.checkInputArchive = options.checkInputArchive;
  request.config.compression.verifyHash = options.verifyHash;
  return runRequest(std::move(request), offbundle::ErrorCode::DamagedInput);
}

bool mayHoldOffloadCode(std::string_view leadingBytes) {
  return hostKindRow(classifyHost(leadingBytes)).mayHoldOffloadCode;
}

} // namespace offbundle::api
