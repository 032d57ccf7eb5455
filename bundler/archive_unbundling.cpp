// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Unbundling heterogeneous device archives (-unbundle -type=a): every entry
// of every member that a requested target can use becomes a member of that
// target's device archive.
#include <deque>
#include <set>

#include "archive/ar_reading.h"
#include "archive/ar_writing.h"
#include "bitcode/bitcode_symbols.h"
#include "bundler/operation_support.h"
#include "bundler/operations.h"
#include "compression/compressed_bundle.h"
#include "formats/bundle_decoding.h"
#include "formats/code_object_uri.h"
#include "formats/elf/elf_object.h"
#include "support/output_transaction.h"
#include "targets/offload_target.h"
#include "targets/target_id.h"

namespace offbundle {
namespace {

const std::string kMemberDecompressionFailed =
    "Failed to decompress code object: ";

// With hash verification off (and no -verbose report to give), a member
// that is one compressed binary bundle is decompressed only as far as the
// `wanted` entries go; nothing when that does not apply.
Result<std::optional<PartialBundle>>
decompressMemberEntriesOnly(std::string_view bytes, const WantedTargets &wanted,
                            const CompressionConfig &compression) {
  if (compression.decompression() != DecompressionPolicy::EntriesOnly)
    return std::optional<PartialBundle>();
  auto spans = splitConcatenatedCompressedBundles(bytes);
  if (!spans || spans->size() != 1)
    return std::optional<PartialBundle>();
  auto partial = decompressEntriesOnly(spans->front(), wanted);
  if (!partial)
    return makeError(kMemberDecompressionFailed + partial.error().message);
  return partial;
}

// sys::path::filename, stem and extension for the names archives hold.
std::string_view fileNameOf(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::pair<std::string_view, std::string_view>
stemAndExtension(std::string_view fileName) {
  size_t dot = fileName.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || fileName == "..")
    return {fileName, {}};
  return {fileName.substr(0, dot), fileName.substr(dot)};
}

// "<member stem>-<entry id><member stem><extension>", with ':' as '_': LLVM
// appends the device library file name (stem plus .bc for AMD GPUs, .cubin
// for NVIDIA ones, else the member's own extension) to "<stem>-<entry id>".
std::string deviceMemberName(std::string_view memberName,
                             std::string_view entryId,
                             std::string_view targetId) {
  auto [stem, extension] = stemAndExtension(fileNameOf(memberName));
  std::string_view deviceExtension = extension;
  if (targetId.find("gfx") != std::string_view::npos)
    deviceExtension = ".bc";
  else if (targetId.find("sm_") != std::string_view::npos)
    deviceExtension = ".cubin";
  std::string name = std::string(stem) + "-" + std::string(entryId) +
                     std::string(stem) + std::string(deviceExtension);
  for (char &c : name)
    if (c == ':')
      c = '_';
  return name;
}

// For each member, its entry IDs must follow the target-ID rules: for one
// processor, a feature is given in all IDs or in none.
Status checkHeterogeneousArchive(const std::vector<ArchiveMember> &members,
                                 const std::string &archivePath,
                                 const OutputConfig &output) {
  const ContainerChoice choice{ContainerFormat::FatObject, ""};
  std::string ignoredCommands;
  for (const ArchiveMember &member : members) {
    // LLVM checks the members as they are, without decompressing them.
    auto reader = openReader(choice, member.bytes, archivePath, output,
                             archivePath, ignoredCommands);
    if (!reader)
      return reader.takeError();
    std::set<std::string> ids;
    BundleReader &entries = **reader;
    Status walked =
        forEachEntry(entries, [&](std::string_view id) -> Result<EntryWalk> {
          // IDs of earlier releases are compared as the unbundling reads
          // them.
          std::optional<std::string> normalized = normalizeStoredBundleId(id);
          ids.emplace(normalized ? std::move(*normalized) : std::string(id));
          if (Status status = entries.skipEntry(); !status.ok())
            return status.takeError();
          return EntryWalk::Continue;
        });
    if (!walked.ok())
      return walked;
    if (auto conflict = conflictingTargetIds(ids))
      return makeError("conflicting TargetIDs [" + conflict->first + ", " +
                       conflict->second + "] found in " + member.name + " of " +
                       archivePath);
  }
  return Status::success();
}

// The requested targets and the members of each one's device archive, with
// the bytes made here (decompressed members, rewritten host objects, member
// names) that those members refer to.
struct DeviceArchives {
  std::vector<OffloadTarget> requested;
  std::vector<std::vector<NewArchiveMember>> archives;
  std::deque<std::string> ownedBytes;
  std::deque<ByteBuffer> decompressedMembers;
};

// A member's bundle as it is read: its bytes and, when only the first bytes
// of a compressed member were decompressed, the size of the whole bundle.
struct MemberBundle {
  std::string_view bytes;
  std::optional<uint64_t> fullSize;
};

// The member's bundle, decompressed when it is compressed (only as far as
// the `wanted` entries go, where that applies).
Result<MemberBundle>
memberBundle(const ArchiveMember &member, const std::string &archivePath,
             const WantedTargets &wanted, const CompressionConfig &compression,
             OperationReport &report, DeviceArchives &out) {
  MemberBundle bundle{member.bytes, std::nullopt};
  std::string_view &bytes = bundle.bytes;
  if (bytes.size() >= kCompressedBundleCommonHeaderSize &&
      hasCompressedBundleMagic(bytes)) {
    auto partial = decompressMemberEntriesOnly(bytes, wanted, compression);
    if (!partial)
      return partial.takeError();
    if (*partial) {
      out.ownedBytes.push_back(std::move((*partial)->bytes));
      bytes = out.ownedBytes.back();
      bundle.fullSize = (*partial)->fullSize;
    } else {
      auto decompressed = decompressAsRequested(
          bytes, archivePath + "(" + member.name + ")",
          compression.decompressionRequest(), kMemberDecompressionFailed,
          compression.verbose ? &report.diagnostics : nullptr);
      if (!decompressed)
        return decompressed.takeError();
      out.decompressedMembers.push_back(std::move(decompressed->bytes));
      bytes = out.decompressedMembers.back().view();
    }
  } else if (compression.verbose &&
             bytes.size() >= kCompressedBundleCommonHeaderSize) {
    report.diagnostics += "Uncompressed bundle.\n";
  }
  return bundle;
}

// Adds each entry of the member that a requested target can use to that
// target's device archive, under the name deviceMemberName gives it.
Status collectMemberEntries(const ArchiveMember &member,
                            const std::string &archivePath,
                            const MatchingConfig &matching,
                            const CompressionConfig &compression,
                            const OutputConfig &output, OperationReport &report,
                            DeviceArchives &out) {
  const WantedTargets wanted{&out.requested, matching.hipOpenmpCompatible};
  auto bundle =
      memberBundle(member, archivePath, wanted, compression, report, out);
  if (!bundle)
    return bundle.takeError();
  const std::string_view bytes = bundle->bytes;
  const ContainerChoice choice{ContainerFormat::FatObject, ""};
  auto reader = bundle->fullSize
                    ? openPartialBundle(bytes, *bundle->fullSize, archivePath)
                    : openReader(choice, bytes, archivePath, output,
                                 archivePath, report.diagnostics);
  if (!reader)
    return reader.takeError();
  BundleReader &entries = **reader;
  return forEachEntry(
      entries, [&](std::string_view entryId) -> Result<EntryWalk> {
        std::optional<OffloadTarget> codeObject =
            OffloadTarget::parseStored(entryId);
        if (!codeObject)
          return makeError("Invalid bundle id read from code object");
        std::vector<size_t> compatible;
        for (size_t i = 0; i < out.requested.size(); ++i)
          if (isCodeObjectCompatible(*codeObject, out.requested[i],
                                     matching.hipOpenmpCompatible))
            compatible.push_back(i);
        if (compatible.empty()) {
          if (Status status = entries.skipEntry(); !status.ok())
            return status.takeError();
          return EntryWalk::Continue;
        }
        auto payload = entries.readEntry();
        if (!payload)
          return payload.takeError();
        std::string_view data = bytes.substr(payload->offset, payload->size);
        if (payload->rewrittenObject) {
          out.ownedBytes.push_back(payload->rewrittenObject->render());
          data = out.ownedBytes.back();
        }
        out.ownedBytes.push_back(
            deviceMemberName(member.name, entryId, codeObject->targetId));
        const std::string &name = out.ownedBytes.back();
        for (size_t index : compatible)
          out.archives[index].push_back({name, data});
        return EntryWalk::Continue;
      });
}

// LLVM's archive writer reports an output it cannot create by the reason
// alone ("No such file or directory"), naming no file.
Error withoutFileName(Error error, const std::string &path) {
  const std::string named = quotedFileName(path) + ": ";
  if (error.message.compare(0, named.size(), named) == 0)
    error.message.erase(0, named.size());
  return error;
}

// Writes each requested target's device archive to its output, all of them
// or none.
Status writeDeviceArchives(const DeviceArchives &archives,
                           const InputFile &archive, const FilesConfig &files,
                           const MatchingConfig &matching,
                           const OutputConfig &output,
                           OperationReport &report) {
  const std::string &archivePath = files.inputFileNames.front();
  OutputTransaction transaction;
  // Written as LLVM's archive writer writes: a temporary renamed over the
  // output.
  transaction.renameOverPaths(OutputTransaction::LinksReplaced::All);
  const ArchiveWriteOptions options =
      llvmArchiveWriteOptions(output.archiveSym64Threshold);
  for (size_t i = 0; i < archives.requested.size(); ++i) {
    if (archives.archives[i].empty() && !matching.allowMissingBundles)
      return makeError("no compatible code object found for the target '" +
                           files.targetNames[i] +
                           "' in heterogeneous archive library: " + archivePath,
                       ErrorCode::NoSuchTarget);
    auto plan = planGnuArchive(archives.archives[i], options);
    if (!plan)
      return plan.takeError();
    for (const std::string &warning : plan->warnings())
      report.diagnostics += "warning: " + warning + "\n";
    const std::string &outputName = files.outputFileNames.at(i);
    auto created = transaction.createFile(outputName);
    if (!created)
      return withoutFileName(created.takeError(), outputName);
    // Pieces that lie in the input archive are read from the file (without
    // faulting its mapping in); the rest is written from memory.
    std::string_view archiveBytes = archive.contents();
    auto writePiece = [&](std::string_view piece) {
      if (piece.data() >= archiveBytes.data() &&
          piece.data() + piece.size() <=
              archiveBytes.data() + archiveBytes.size())
        return (*created)->copyFrom(
            archive, static_cast<uint64_t>(piece.data() - archiveBytes.data()),
            piece.size());
      return (*created)->write(piece);
    };
    if (Status status = plan->stream(writePiece); !status.ok())
      return status;
  }
  return transaction.commit();
}

} // namespace

Status unbundleArchive(const BundlerConfig &config, OperationReport &report) {
  const auto &[files, matching, compression, output] = config;
  const std::string &archivePath = files.inputFileNames.front();
  auto opened = openInput(archivePath);
  if (!opened)
    return opened.takeError();
  // A thin archive's members are found beside the archive's file, also
  // when the archive is named by a code object URI.
  auto members =
      readArchive((*opened)->contents(), inputFilePath(archivePath),
                  inMemoryInputLimit(), ArchiveEnd::AsTheBundlerReadsIt);
  if (!members)
    return members.takeError();
  if (matching.checkInputArchive)
    if (Status status =
            checkHeterogeneousArchive(*members, archivePath, output);
        !status.ok())
      return status;

  DeviceArchives archives;
  archives.requested = files.targets;
  archives.archives.resize(archives.requested.size());
  for (const ArchiveMember &member : *members)
    if (Status status =
            collectMemberEntries(member, archivePath, matching, compression,
                                 output, report, archives);
        !status.ok())
      return status;
  return writeDeviceArchives(archives, **opened, files, matching, output,
                             report);
}

} // namespace offbundle
