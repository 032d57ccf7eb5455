// Rewriting the files of a walk in place (see in_place.h).
#include "toolkit/in_place.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

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

// The name a path resolves to, symbolic links, "." and ".." followed: two
// paths of one file that resolve alike are one name of it, given twice.
std::string resolvedName(const std::string &path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? resolved : path;
}

// The names, among the files walked, of each file: one path for each of its
// hard links that was named, the first given of those that resolve alike.
// Only a file met more than once has its paths resolved.
std::map<Identity, std::vector<std::string>>
namesByIdentity(const api::FileWalk &walk) {
  std::map<Identity, std::vector<std::string>> names;
  for (const api::WalkedFile &file : walk.files)
    if (file.failure.empty())
      names[identityOf(file)].push_back(file.path);
  for (auto &[identity, paths] : names) {
    if (paths.size() == 1)
      continue;
    std::set<std::string> resolved;
    std::erase_if(paths, [&](const std::string &path) {
      return !resolved.insert(resolvedName(path)).second;
    });
  }
  return names;
}

// Temporaries a killed run left beside the files named as operands
// (".<name>.offbundle-XXXXXX"; those in the folders walked the walk found),
// each such file's folder listed once, in name order.
std::vector<std::string>
temporariesBesideNamedFiles(const api::FileWalk &walk) {
  std::map<std::string, std::set<std::string, std::less<>>> namesByFolder;
  for (const api::WalkedFile &file : walk.files)
    if (!file.inFolder)
      namesByFolder[folderOf(file.path)].insert(baseNameOf(file.path));
  std::vector<std::string> temporaries;
  for (const auto &[folder, names] : namesByFolder) {
    std::error_code error;
    std::vector<std::string> found;
    for (std::filesystem::directory_iterator it(folder, error), end;
         !error && it != end; it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (names.count(temporaryOwnerName(name)) != 0)
        found.push_back(folder + (folder.back() == '/' ? "" : "/") + name);
    }
    std::sort(found.begin(), found.end());
    temporaries.insert(temporaries.end(), found.begin(), found.end());
  }
  return temporaries;
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
                      const std::vector<std::string> &otherNames) {
  if (!file.failure.empty())
    return failed(file.failure);
  if (file.links > otherNames.size() + 1)
    return failed(
        fileError(file.path,
                  "has " + std::to_string(file.links) +
                      " hard links, not all among the files given: not "
                      "rewritten, which would make its names two files "
                      "(name every link, or break the links first)")
            .message);
  api::Expected<api::Rewrite> rewrite =
      api::Rewrite::plan(file.path, request.options);
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
// once among those walked (named twice, or by several hard links) is
// rewritten once, by its first name.
std::vector<std::pair<const api::WalkedFile *, std::vector<std::string>>>
filesToRewrite(const api::FileWalk &walk) {
  const std::map<Identity, std::vector<std::string>> names =
      namesByIdentity(walk);
  std::set<Identity> seen;
  std::vector<std::pair<const api::WalkedFile *, std::vector<std::string>>>
      files;
  for (const api::WalkedFile &file : walk.files) {
    std::vector<std::string> otherNames;
    if (file.failure.empty()) {
      if (!seen.insert(identityOf(file)).second)
        continue;
      const std::vector<std::string> &all = names.at(identityOf(file));
      otherNames.assign(all.begin() + 1, all.end());
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
  if (!request.dryRun) {
    std::vector<std::string> temporaries = walk.temporaries;
    const std::vector<std::string> beside = temporariesBesideNamedFiles(walk);
    temporaries.insert(temporaries.end(), beside.begin(), beside.end());
    for (const std::string &temporary : temporaries) {
      auto removed = removeIfLeftOver(temporary);
      if (!removed)
        fail(removed.error().message);
      else if (*removed)
        ++totals.temporariesRemoved;
    }
  }
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
  if (totals.temporariesRemoved != 0)
    summary += "; removed " +
               counted(totals.temporariesRemoved, "temporary", "temporaries") +
               " a killed run left";
  if (dryRun)
    summary += " (dry run: nothing written)";
  return summary + "\n";
}

} // namespace offbundle
