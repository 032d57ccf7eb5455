// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Rewriting the files of a walk in place (see in_place.h).
#include "toolkit/in_place.h"

#include <algorithm>
#include <dirent.h>
#include <map>
#include <set>
#include <unistd.h>
#include <utility>
#include <vector>

#include "support/folder_handle.h"
#include "support/in_place_output.h"
#include "support/ordered_parallel.h"
#include "support/replaced_files.h"
#include "toolkit/extraction.h"
#include "toolkit/inventory.h"
#include "toolkit/reports.h"

namespace offbundle {
namespace {

using Identity = std::pair<uint64_t, uint64_t>; // device, inode

Identity identityOf(const api::WalkedFile &file) {
  return {file.device, file.inode};
}

// The names, among the files walked, of each file: one for each of its
// hard links reached (the walk takes each name once).
std::map<Identity, std::vector<const api::WalkedFile *>>
namesByIdentity(const api::FileWalk &walk) {
  std::map<Identity, std::vector<const api::WalkedFile *>> names;
  for (const api::WalkedFile &file : walk.files)
    if (file.failure.empty() && file.regular)
      names[identityOf(file)].push_back(&file);
  return names;
}

// The temporaries a killed run may have left: those the walk found in the
// folders it walked, and those beside the files named as operands, each
// such file's folder listed once (opened again by descriptor, as the walk
// saw it), in name order.
std::vector<AnchoredName> leftTemporaries(const api::FileWalk &walk) {
  std::vector<AnchoredName> temporaries;
  for (const api::WalkedFile &temporary : walk.temporaries) {
    auto folder = FolderHandle::openResolved(
        temporary.folder, {temporary.folderDevice, temporary.folderInode});
    if (folder)
      temporaries.push_back(
          {std::move(*folder), temporary.name, temporary.path});
  }
  // Each folder by its resolved path and identity: the names named in it,
  // and the folder as the first of them spells it.
  struct NamedIn {
    std::set<std::string, std::less<>> names;
    std::string shown;
  };
  std::map<std::pair<std::string, Identity>, NamedIn> namedFolders;
  for (const api::WalkedFile &file : walk.files)
    if (!file.inFolder && !file.name.empty()) {
      NamedIn &folder =
          namedFolders[{file.folder, {file.folderDevice, file.folderInode}}];
      folder.names.insert(file.name);
      if (folder.shown.empty())
        folder.shown = folderOf(file.path);
    }
  for (const auto &[folder, named] : namedFolders) {
    auto handle = FolderHandle::openResolved(
        folder.first, {folder.second.first, folder.second.second});
    if (!handle)
      continue;
    std::vector<std::string> found;
    const int fd = ::dup((*handle)->fd());
    DIR *listing = fd < 0 ? nullptr : ::fdopendir(fd);
    if (listing == nullptr) {
      if (fd >= 0)
        ::close(fd);
      continue;
    }
    while (const struct dirent *entry = ::readdir(listing))
      if (named.names.count(temporaryOwnerName(entry->d_name)) != 0)
        found.push_back(entry->d_name);
    ::closedir(listing);
    std::sort(found.begin(), found.end());
    for (std::string &name : found)
      temporaries.push_back({*handle, name, named.shown + "/" + name});
  }
  return temporaries;
}

// Finishes the journals and removes the other temporaries killed runs
// left (support/in_place_output.h), journals first: the temporaries a
// journal names hold the new file. Whether a journal was finished (the
// files then have other names than the walk saw).
bool finishLeftOvers(const api::FileWalk &walk, InPlaceTotals &totals,
                     const std::function<void(std::string)> &fail) {
  const std::vector<AnchoredName> temporaries = leftTemporaries(walk);
  bool finished = false;
  for (LeftOverPass pass : {LeftOverPass::Journals, LeftOverPass::Everything})
    for (const AnchoredName &temporary : temporaries) {
      auto outcome = finishOrRemoveLeftOver(temporary, pass);
      if (!outcome) {
        if (pass == LeftOverPass::Everything)
          fail(outcome.error().message);
      } else if (*outcome == LeftOver::Removed) {
        ++totals.temporariesRemoved;
      } else if (*outcome == LeftOver::JournalFinished) {
        ++totals.replacementsFinished;
        finished = true;
      }
    }
  return finished;
}

// What happened to one file.
enum class FileOutcome { Rewritten, Unchanged, Skipped, Failed };

struct FileResult {
  FileOutcome outcome = FileOutcome::Failed;
  std::string line;  // Rewritten, Unchanged
  std::string error; // Failed
  uint64_t bytesBefore = 0;
  uint64_t bytesAfter = 0;
};

FileResult failed(std::string message) {
  FileResult result;
  result.error = std::move(message);
  return result;
}

FileResult skipped() {
  FileResult result;
  result.outcome = FileOutcome::Skipped;
  return result;
}

// One file planned, and rewritten in place unless nothing changes or this
// is a dry run; `otherNames` are its other hard links among the files.
FileResult rewriteOne(const api::WalkedFile &file,
                      const InPlaceRequest &request,
                      const std::vector<api::WalkedFile> &otherNames) {
  if (!file.failure.empty())
    return failed(file.failure);
  // A FIFO, socket or device named as an operand: never opened, as reading
  // one could wait forever and nothing could replace it.
  if (file.device != 0 && !file.regular)
    return failed(fileError(file.path, "not a regular file").message);
  if (file.links > otherNames.size() + 1)
    return failed(
        fileError(file.path,
                  "has " + std::to_string(file.links) +
                      " hard links, not all among the files given: not "
                      "rewritten, which would make its names two files "
                      "(name every link, or break the links first)")
            .message);
  api::Expected<api::Rewrite> rewrite =
      api::Rewrite::plan(file, request.options);
  if (!rewrite) {
    if (file.inFolder && holdsNoBundle(file.path))
      return skipped();
    return failed(rewrite.error().message);
  }
  const api::RewriteReport &report = rewrite->report();
  if (file.inFolder && report.bundles == 0 && report.nothingToDo.empty())
    return skipped();
  const api::RewriteKind kind = request.options.kind;
  FileResult result;
  result.bytesBefore = report.inputSize;
  if (kind == api::RewriteKind::Prune && report.deviceEntriesKept == 0) {
    // In an installation, code for other GPUs only: left as it is (pruning
    // it would leave no GPU code at all), and said so.
    result.outcome = FileOutcome::Unchanged;
    result.line = file.path + ": " + std::to_string(report.inputSize) + " -> " +
                  std::to_string(report.inputSize) + " bytes, unchanged: " +
                  noEntryReason(file.path, request.options.keep) + "\n";
    result.bytesAfter = report.inputSize;
    return result;
  }
  if (report.changed && !request.dryRun)
    if (api::Outcome written = rewrite->writeInPlace(otherNames); !written)
      return failed(written.error().message);
  result.outcome =
      report.changed ? FileOutcome::Rewritten : FileOutcome::Unchanged;
  result.line = rewriteSummary(file.path, kind, report);
  result.bytesAfter = report.changed ? report.outputSize : report.inputSize;
  return result;
}

// The files to rewrite, each with its other names: a file met more than
// once among those walked (by several hard links) is rewritten once, by its
// first name.
std::vector<std::pair<const api::WalkedFile *, std::vector<api::WalkedFile>>>
filesToRewrite(const api::FileWalk &walk) {
  const auto names = namesByIdentity(walk);
  std::set<Identity> seen;
  std::vector<std::pair<const api::WalkedFile *, std::vector<api::WalkedFile>>>
      files;
  for (const api::WalkedFile &file : walk.files) {
    std::vector<api::WalkedFile> otherNames;
    if (file.failure.empty() && file.regular) {
      if (!seen.insert(identityOf(file)).second)
        continue;
      const auto &all = names.at(identityOf(file));
      for (auto other = all.begin() + 1; other != all.end(); ++other)
        otherNames.push_back(**other);
    }
    files.emplace_back(&file, std::move(otherNames));
  }
  return files;
}

} // namespace

InPlaceTotals rewriteInPlace(api::FileWalk &walk, const InPlaceRequest &request,
                             const std::function<void(std::string)> &print,
                             const std::function<void(std::string)> &fail,
                             const FileDone &done) {
  InPlaceTotals totals;
  // A run killed while it replaced a file's names left a journal: finished
  // first, then the files are walked again, as their names changed.
  if (!request.dryRun && finishLeftOvers(walk, totals, fail))
    walk = api::walkFiles(request.operands);
  const auto files = filesToRewrite(walk);
  runInOrder<FileResult>(
      files.size(), request.jobs,
      [&](size_t index) {
        return rewriteOne(*files[index].first, request, files[index].second);
      },
      [&](size_t index, FileResult result) {
        switch (result.outcome) {
        case FileOutcome::Rewritten:
          ++totals.rewritten;
          break;
        case FileOutcome::Unchanged:
          ++totals.unchanged;
          break;
        case FileOutcome::Skipped:
          ++walk.skipped.noGpuCode;
          break;
        case FileOutcome::Failed:
          ++totals.failed;
          fail(result.error);
          break;
        }
        if (!result.line.empty())
          print(result.line);
        totals.bytesBefore += result.bytesBefore;
        totals.bytesAfter += result.bytesAfter;
        if (done)
          done(*files[index].first);
      });
  return totals;
}

Result<std::string> rewriteInto(const std::string &path,
                                const std::string &output,
                                const api::RewriteOptions &options,
                                bool dryRun) {
  api::Expected<api::Rewrite> rewrite = api::Rewrite::plan(path, options);
  if (!rewrite)
    return makeError(rewrite.error().message);
  const api::RewriteReport &report = rewrite->report();
  if (options.kind == api::RewriteKind::Prune && report.deviceEntriesKept == 0)
    return noEntryError(path, options.keep);
  if (!dryRun)
    if (api::Outcome written = rewrite->write(output); !written)
      return makeError(written.error().message);
  return rewriteSummary(output, options.kind, report);
}

std::string inPlaceSummary(const InPlaceTotals &totals, bool dryRun) {
  std::string summary = counted(totals.rewritten, "file", "files") +
                        (dryRun ? " would be rewritten, " : " rewritten, ") +
                        std::to_string(totals.unchanged) + " unchanged, " +
                        std::to_string(totals.failed) + " failed; " +
                        std::to_string(totals.bytesBefore) + " -> " +
                        std::to_string(totals.bytesAfter) + " bytes";
  if (totals.replacementsFinished != 0)
    summary +=
        "; finished " +
        counted(totals.replacementsFinished, "replacement", "replacements") +
        " a killed run left";
  if (totals.temporariesRemoved != 0)
    summary += "; removed " +
               counted(totals.temporariesRemoved, "temporary", "temporaries") +
               " a killed run left";
  if (dryRun)
    summary += " (dry run: nothing written)";
  return summary + "\n";
}

} // namespace offbundle
