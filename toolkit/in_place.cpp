// Rewriting the files of a walk in place (see in_place.h).
#include "toolkit/in_place.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

#include "support/replaced_files.h"
#include "toolkit/extraction.h"
#include "toolkit/reports.h"

namespace offbundle {
namespace {

using Identity = std::pair<uint64_t, uint64_t>; // device, inode

Identity identityOf(const WalkedFile &file) {
  return {file.device, file.inode};
}

// Whether a file that could not be planned simply holds no bundle: then,
// found in a folder, it is skipped like any file without GPU code.
bool holdsNoBundle(const std::string &path) {
  api::Expected<api::Input> input = api::Input::open(path);
  return input && input->bundles().empty();
}

// The other names, among the files walked, of each file with several.
std::map<Identity, std::vector<std::string>>
namesByIdentity(const OperandWalk &walk) {
  std::map<Identity, std::vector<std::string>> names;
  for (const WalkedFile &file : walk.files)
    if (file.failure.empty() && file.links > 1)
      names[identityOf(file)].push_back(file.path);
  return names;
}

// What happened to one file.
enum class FileOutcome { Rewritten, Unchanged, Skipped, Failed };

struct FileRun {
  const WalkedFile &file;
  const InPlaceRequest &request;
  const std::vector<std::string> &otherNames;
  const std::function<void(std::string)> &print;
  const std::function<void(std::string)> &fail;
  InPlaceTotals &totals;

  FileOutcome failWith(const std::string &message) {
    fail(message);
    return FileOutcome::Failed;
  }

  FileOutcome run() {
    if (!file.failure.empty())
      return failWith(file.failure);
    if (file.links > otherNames.size() + 1)
      return failWith(
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
        return FileOutcome::Skipped;
      return failWith(rewrite.error().message);
    }
    const api::RewriteReport &report = rewrite->report();
    if (file.inFolder && report.bundles == 0 && report.nothingToDo.empty())
      return FileOutcome::Skipped;
    const api::RewriteKind kind = request.options.kind;
    if (kind == api::RewriteKind::Prune && report.deviceEntriesKept == 0)
      return failWith(noEntryError(file.path, request.options.keep).message);
    if (report.changed && !request.dryRun)
      if (api::Outcome written = rewrite->writeInPlace(otherNames); !written)
        return failWith(written.error().message);
    print(rewriteSummary(file.path, kind, report));
    totals.bytesBefore += report.inputSize;
    totals.bytesAfter += report.changed ? report.outputSize : report.inputSize;
    return report.changed ? FileOutcome::Rewritten : FileOutcome::Unchanged;
  }
};

} // namespace

InPlaceTotals rewriteInPlace(OperandWalk &walk, const InPlaceRequest &request,
                             const std::function<void(std::string)> &print,
                             const std::function<void(std::string)> &fail) {
  InPlaceTotals totals;
  if (!request.dryRun)
    for (const std::string &temporary : walk.temporaries) {
      auto removed = removeIfLeftOver(temporary);
      if (!removed)
        fail(removed.error().message);
      else if (*removed)
        ++totals.temporariesRemoved;
    }
  const std::map<Identity, std::vector<std::string>> names =
      namesByIdentity(walk);
  std::set<Identity> done;
  for (const WalkedFile &file : walk.files) {
    // A file with several names is rewritten once, by its first.
    std::vector<std::string> otherNames;
    if (file.failure.empty() && file.links > 1) {
      if (!done.insert(identityOf(file)).second)
        continue;
      for (const std::string &name : names.at(identityOf(file)))
        if (name != file.path)
          otherNames.push_back(name);
    }
    FileRun one{file, request, otherNames, print, fail, totals};
    switch (one.run()) {
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
      break;
    }
  }
  return totals;
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
