// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading and checking one input as `offbundle verify` does (see
// input_check.h): discovery and the inventory walk Input::open makes, the
// linked file's checks, and the compressed bundles decompressed against
// their hashes, on several threads with the first fault in file order.
#include "api/input_check.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>

#include "api/linked_file_check.h"
#include "formats/container_format.h"
#include "support/ordered_parallel.h"
#include "targets/offload_target.h"

namespace offbundle::api {
namespace {

// The public mirror of the library's container registry
// (formats/container_format.h), which programs cannot include.
ContainerFormat toFormat(offbundle::ContainerFormat format) {
  switch (format) {
  case offbundle::ContainerFormat::BinaryBundle:
    return ContainerFormat::BinaryBundle;
  case offbundle::ContainerFormat::TextBundle:
    return ContainerFormat::TextBundle;
  case offbundle::ContainerFormat::FatObject:
    return ContainerFormat::FatObject;
  case offbundle::ContainerFormat::OffloadBinary:
    return ContainerFormat::OffloadBinary;
  }
  return ContainerFormat::BinaryBundle;
}

} // namespace

Target publicTarget(const OffloadTarget &target) {
  return Target{target.offloadKind, bundlerTripleSpelling(target.triple),
                target.targetId};
}

offbundle::Result<InputReading> readInputFile(const InputFile &file,
                                              const std::string &type) {
  if (auto choice = containerForType(type); !choice)
    return choice.takeError();
  DiscoveryOptions options;
  options.textComment = textBundleComment(type);
  options.compressedHeadersOnly = true;
  auto discovery = discoverBundles(file, options, DiscoveryMode::Strict);
  if (!discovery)
    return discovery.takeError();
  InputReading reading;
  reading.discovery = std::move(*discovery);

  Bundle bundle;
  InventoryVisitor visitor;
  visitor.beginBundle = [&](const DiscoveredBundle &found) {
    bundle = Bundle();
    bundle.member = found.member;
    bundle.section = found.section;
    bundle.format =
        found.kpack ? ContainerFormat::Kpack : toFormat(found.format);
    bundle.fileOffset = found.fileOffset;
    bundle.fileSize = found.inThinMember ? 0 : found.fileSize;
    if (found.compression)
      bundle.compression = Compression{
          found.compression->version,
          found.compression->method == CompressionMethod::Zlib ? "zlib"
                                                               : "zstd",
          found.compression->totalFileSize, found.compression->uncompressedSize,
          found.compression->hash};
    return offbundle::Status::success();
  };
  visitor.entry = [&](const DiscoveredBundle &found, std::string_view id,
                      BundleReader &entries) -> offbundle::Result<EntryWalk> {
    Entry entry;
    entry.id = std::string(id);
    if (std::optional<OffloadTarget> target =
            OffloadTarget::parseStored(entry.id))
      entry.target = publicTarget(*target);
    auto payload = entries.readEntry();
    if (!payload)
      return payload.takeError();
    entry.offset = payload->offset;
    entry.size = payload->size;
    entry.fileOffset = found.fileOffsetOf(payload->offset);
    if (found.kpack && bundle.entries.size() < found.kpackStoredSizes.size())
      entry.storedSize = found.kpackStoredSizes[bundle.entries.size()];
    bundle.entries.push_back(std::move(entry));
    return EntryWalk::Continue;
  };
  visitor.endBundle = [&](const DiscoveredBundle &) {
    reading.bundles.push_back(std::move(bundle));
    return offbundle::Status::success();
  };
  std::string commandLog;
  if (offbundle::Status walked =
          walkInventory(reading.discovery, OutputConfig(), commandLog, visitor);
      !walked.ok())
    return walked.takeError();
  return reading;
}

offbundle::Status checkCompressedInput(const InputFile &file,
                                       const InputReading &reading,
                                       unsigned threads) {
  std::vector<const DiscoveredBundle *> deferred;
  for (const DiscoveredBundle &bundle : reading.discovery.bundles)
    if (bundle.deferred)
      deferred.push_back(&bundle);
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  // Bundles after one found damaged are not decompressed: the first fault
  // in file order is the one reported, and every bundle before it is
  // still decompressed, so that it is the same whatever the threads.
  std::atomic<size_t> firstFault{std::numeric_limits<size_t>::max()};
  offbundle::Status fault;
  runInOrder<offbundle::Status>(
      deferred.size(), threads,
      [&](size_t index) {
        if (index > firstFault.load())
          return offbundle::Status::success();
        const DiscoveredBundle &bundle = *deferred[index];
        const bool inFile = bundle.fileOffset && !bundle.inThinMember;
        if (inFile)
          file.prefetchPages(*bundle.fileOffset, bundle.fileSize);
        auto whole = decompressDeferred(bundle);
        // Its bytes are read once here: a large library's compressed
        // bundles do not all stay in memory.
        if (inFile)
          file.releasePages(*bundle.fileOffset, bundle.fileSize);
        if (whole)
          return offbundle::Status::success();
        size_t earliest = firstFault.load();
        while (index < earliest &&
               !firstFault.compare_exchange_weak(earliest, index)) {
        }
        return offbundle::Status(whole.takeError());
      },
      [&](size_t, offbundle::Status status) {
        if (fault.ok() && !status.ok())
          fault = std::move(status);
      });
  return fault;
}

offbundle::Status verifyReadInput(const InputFile &file,
                                  const InputReading &reading,
                                  const InputChecks &checks) {
  if (offbundle::Status linked =
          checkLinkedHipFile(file.path(), file.contents(), reading.bundles);
      !linked.ok())
    return linked;
  if (!checks.hashes)
    return offbundle::Status::success();
  return checkCompressedInput(file, reading, checks.threads);
}

offbundle::Result<std::vector<ByteRange>>
checkBeforeRewrite(const InputFile &file, const InputChecks &checks) {
  auto reading = readInputFile(file, "o");
  if (!reading)
    return reading.takeError();
  if (offbundle::Status verified = verifyReadInput(file, *reading, checks);
      !verified.ok())
    return verified.takeError();
  std::vector<ByteRange> hashesChecked;
  if (!checks.hashes)
    return hashesChecked;
  // Those decompressed whole as they were found had their hashes checked
  // then, the others by verifyReadInput.
  for (const DiscoveredBundle &bundle : reading->discovery.bundles)
    if (bundle.compression && bundle.fileOffset && !bundle.inThinMember)
      hashesChecked.push_back({*bundle.fileOffset, bundle.fileSize});
  std::sort(hashesChecked.begin(), hashesChecked.end(),
            [](const ByteRange &a, const ByteRange &b) {
              return a.offset < b.offset;
            });
  return hashesChecked;
}

} // namespace offbundle::api
