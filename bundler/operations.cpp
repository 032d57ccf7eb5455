#include "bundler/operations.h"

#include <memory>
#include <set>
#include <vector>

#include "bundler/file_io.h"
#include "bundler/offload_target.h"
#include "bundler/string_map.h"
#include "formats/binary_bundle.h"
#include "formats/text_bundle.h"

namespace offbundle {
namespace {

constexpr std::string_view kCompressedBundleMagic = "CCOB";

bool isCompressedBundle(std::string_view contents) {
  return contents.substr(0, kCompressedBundleMagic.size()) ==
         kCompressedBundleMagic;
}

Error unsupportedCompressed(const InputFile &input) {
  return fileError(input.path(),
                   "compressed bundles (CCOB) are not supported yet");
}

Error unsupportedObject(const std::string &path) {
  return fileError(path,
                   "object files as fat-object containers are not supported "
                   "yet");
}

// Picks the reader for an input, after the -type value has been checked.
Result<std::unique_ptr<BundleReader>> openReader(const ContainerChoice &choice,
                                                 const InputFile &input) {
  std::string_view contents = input.contents();
  if (choice.kind == ContainerKind::Text)
    return std::unique_ptr<BundleReader>(
        std::make_unique<TextBundleReader>(contents, choice.comment));
  if (choice.kind == ContainerKind::ObjectOrBinary &&
      looksLikeObjectFile(contents))
    return unsupportedObject(input.path());
  auto reader = BinaryBundleReader::open(contents);
  if (!reader)
    return fileError(input.path(), reader.error().message);
  return std::unique_ptr<BundleReader>(std::move(*reader));
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

} // namespace

Status bundleFiles(const BundlerConfig &config) {
  std::vector<std::unique_ptr<InputFile>> inputs;
  for (const std::string &name : config.inputFileNames) {
    auto input = InputFile::open(name);
    if (!input)
      return input.takeError();
    inputs.push_back(std::move(*input));
  }
  auto choice = containerForType(config.filesType);
  if (!choice)
    return choice.takeError();
  if (config.compress)
    return makeError("compressed bundles (CCOB) are not supported yet");

  // The host input decides whether -type=o makes a fat object; with only HIP
  // targets the first input stands in for it.
  size_t referenceIndex = config.allowNoHost ? 0 : config.hostInputIndex;
  if (choice->kind == ContainerKind::ObjectOrBinary &&
      referenceIndex < inputs.size() &&
      looksLikeObjectFile(inputs[referenceIndex]->contents()))
    return unsupportedObject(inputs[referenceIndex]->path());

  std::vector<EntryToWrite> entries;
  for (size_t i = 0; i < config.targetNames.size(); ++i)
    entries.push_back({config.targetNames[i], inputs.at(i).get()});

  OutputTransaction transaction;
  auto output = transaction.create(config.outputFileNames.front());
  if (!output)
    return output.takeError();
  Status written =
      choice->kind == ContainerKind::Text
          ? writeTextBundle(**output, choice->comment, entries)
          : writeBinaryBundle(**output, entries, config.bundleAlignment);
  if (!written.ok())
    return written;
  return transaction.commit();
}

Status unbundleFiles(const BundlerConfig &config) {
  auto opened = InputFile::open(config.inputFileNames.front());
  if (!opened)
    return opened.takeError();
  const InputFile &input = **opened;
  if (isCompressedBundle(input.contents()))
    return unsupportedCompressed(input);
  auto choice = containerForType(config.filesType);
  if (!choice)
    return choice.takeError();
  auto reader = openReader(*choice, input);
  if (!reader)
    return reader.takeError();

  // Requested targets, in LLVM's StringMap order, each with its output.
  LlvmOrderedStringMap<size_t> worklist;
  std::vector<OffloadTarget> requested;
  for (size_t i = 0; i < config.targetNames.size(); ++i) {
    if (!isWellFormedBundleId(config.targetNames[i]))
      return makeError("invalid bundle id from bundle config");
    worklist.insertOrAssign(config.targetNames[i], i);
    requested.push_back(OffloadTarget::parse(config.targetNames[i]));
  }

  OutputTransaction transaction;
  // Payloads are copied after the walk, all at once, so that outputs can be
  // filled in parallel.
  std::vector<PendingCopy> copies;
  bool foundHostBundle = false;
  while (!worklist.empty()) {
    auto next = (*reader)->nextEntry();
    if (!next)
      return next.takeError();
    if (!*next)
      break;
    std::string_view entryId = **next;
    if (!isWellFormedBundleId(entryId))
      return makeError("invalid bundle id read from the bundle");
    OffloadTarget codeObject = OffloadTarget::parse(entryId);

    std::optional<std::pair<std::string_view, size_t>> match;
    for (const auto &[key, targetIndex] : worklist.entries()) {
      if (isCodeObjectCompatible(codeObject, requested[*targetIndex],
                                 config.hipOpenmpCompatible)) {
        match.emplace(key, *targetIndex);
        break;
      }
    }
    if (!match)
      continue;

    auto output = transaction.create(config.outputFileNames.at(match->second));
    if (!output)
      return output.takeError();
    auto range = (*reader)->readEntry();
    if (!range)
      return range.takeError();
    copies.push_back({*output, range->offset, range->size});
    worklist.erase(std::string(match->first));
    if (codeObject.hasHostKind())
      foundHostBundle = true;
  }

  std::vector<std::pair<std::string_view, size_t>> remaining;
  for (const auto &[key, targetIndex] : worklist.entries())
    remaining.emplace_back(key, *targetIndex);

  if (!config.allowMissingBundles && !remaining.empty()) {
    std::vector<std::string_view> missing;
    for (const auto &entry : remaining)
      missing.push_back(entry.first);
    return missingBundlesError(missing);
  }

  // No entry matched at all: the input is taken to be a plain host file.
  if (remaining.size() == config.targetNames.size()) {
    for (const auto &[key, targetIndex] : remaining) {
      auto output = transaction.create(config.outputFileNames.at(targetIndex));
      if (!output)
        return output.takeError();
      if (requested[targetIndex].hasHostKind())
        copies.push_back({*output, 0, input.size()});
    }
    if (Status status = runCopies(input, copies); !status.ok())
      return status;
    return transaction.commit();
  }

  if (!(foundHostBundle || config.hostInputIndex == BundlerConfig::kNoHost ||
        config.allowMissingBundles))
    return makeError("Can't find bundle for the host target");

  for (const auto &[key, targetIndex] : remaining) {
    auto output = transaction.create(config.outputFileNames.at(targetIndex));
    if (!output)
      return output.takeError();
  }
  if (Status status = runCopies(input, copies); !status.ok())
    return status;
  return transaction.commit();
}

Status listBundleIds(const BundlerConfig &config, std::string &listing) {
  auto opened = InputFile::open(config.inputFileNames.front());
  if (!opened)
    return opened.takeError();
  const InputFile &input = **opened;
  if (isCompressedBundle(input.contents()))
    return unsupportedCompressed(input);
  auto choice = containerForType(config.filesType);
  if (!choice)
    return choice.takeError();
  auto reader = openReader(*choice, input);
  if (!reader)
    return reader.takeError();
  for (;;) {
    auto next = (*reader)->nextEntry();
    if (!next)
      return next.takeError();
    if (!*next)
      return Status::success();
    listing += **next;
    listing += '\n';
    if (Status status = (*reader)->skipEntry(); !status.ok())
      return status;
  }
}

} // namespace offbundle
