// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle extract over the API's extract() (see extraction.h).
#include "toolkit/extraction.h"

#include <map>
#include <set>
#include <unordered_set>

#include <offbundle/offbundle.h>

#include "rewrite/target_selection.h"
#include "support/ordered_parallel.h"
#include "toolkit/inventory.h"
#include "toolkit/reports.h"

namespace offbundle {
namespace {

// The targets a file holds, for the message saying none matched; "" when
// it cannot be read.
std::string heldTargets(const std::string &file) {
  api::Expected<api::Input> input = api::Input::open(file);
  if (!input)
    return "";
  std::vector<std::string> targets;
  std::unordered_set<std::string> seen;
  for (const api::Bundle &bundle : input->bundles())
    for (const api::Entry &entry : bundle.entries)
      if (std::string target = targetOf(entry); seen.insert(target).second)
        targets.push_back(std::move(target));
  // One error line stays readable even for a file of thousands of targets.
  constexpr size_t kTargetsNamed = 16;
  std::string text;
  for (size_t i = 0; i < targets.size() && i < kTargetsNamed; ++i)
    text += (text.empty() ? "" : ", ") + targets[i];
  if (targets.size() > kTargetsNamed)
    text += " and " + std::to_string(targets.size() - kTargetsNamed) +
            " more (see 'offbundle sizes')";
  return text;
}

} // namespace

std::string noEntryReason(const std::string &file,
                          const std::vector<std::string> &asked) {
  std::string names;
  for (std::string_view text : targetTexts(asked))
    names += (names.empty() ? "" : ", ") + std::string(text);
  const std::string held = heldTargets(file);
  return "holds no entry for " + names +
         (held.empty() ? "; it holds no entry at all"
                       : "; its targets: " + held);
}

Error noEntryError(const std::string &file,
                   const std::vector<std::string> &asked) {
  return fileError(file, noEntryReason(file, asked));
}

std::string treeExtractionSkippedText(const api::FileWalk &walk,
                                      const TreeExtraction &done) {
  api::SkippedFiles skipped = walk.skipped;
  skipped.noGpuCode += done.noGpuCode;
  std::string text = skippedText(skipped);
  if (done.withoutTargets != 0)
    text += "skipped " + counted(done.withoutTargets, "file", "files") +
            " holding none of the targets\n";
  return text;
}

Result<std::string> extractFile(const ExtractionRequest &request) {
  api::Expected<std::vector<std::string>> written =
      api::extract({request.file, request.outputDirectory, request.targets});
  if (!written)
    return makeError(written.error().message);
  if (written->empty())
    return noEntryError(request.file, request.targets);
  std::string lines;
  for (const std::string &path : *written)
    lines += path + "\n";
  return lines;
}

std::string extractionFolderFor(const std::string &output,
                                const std::string &file) {
  std::string folder = output;
  size_t start = 0;
  while (start <= file.size()) {
    size_t end = file.find('/', start);
    if (end == std::string::npos)
      end = file.size();
    const std::string part = file.substr(start, end - start);
    if (!part.empty() && part != ".")
      folder += "/" + (part == ".." ? std::string("__") : part);
    start = end + 1;
  }
  return folder;
}

TreeExtraction extractTree(const api::FileWalk &walk, const std::string &output,
                           const std::vector<std::string> &targets,
                           unsigned jobs,
                           const std::function<void(std::string)> &print,
                           const std::function<void(std::string)> &fail) {
  struct Extracted {
    std::string lines;
    std::string error;
    bool withoutTargets = false;
    bool noGpuCode = false;
  };
  // A file named twice is extracted once: its folder is the same. Another
  // file whose path makes the same folder name ("a/../p" beside "a/__/p")
  // is an error of its own rather than a second writer into that folder.
  std::vector<std::pair<const api::WalkedFile *, std::string>> files;
  std::map<std::string, const api::WalkedFile *> byFolder;
  for (const api::WalkedFile &file : walk.files) {
    const std::string folder = extractionFolderFor(output, file.path);
    const auto [first, inserted] = byFolder.emplace(folder, &file);
    const api::WalkedFile &other = *first->second;
    if (inserted) {
      files.emplace_back(&file, "");
    } else if (!file.failure.empty() || !other.failure.empty() ||
               file.device != other.device || file.inode != other.inode) {
      files.emplace_back(
          &file, fileError(file.path, "its entries would go to '" + folder +
                                          "', as those of '" + other.path +
                                          "' do: extract it by itself, or "
                                          "into another folder")
                     .message);
    }
  }
  TreeExtraction done;
  runInOrder<Extracted>(
      files.size(), jobs,
      [&](size_t index) {
        const api::WalkedFile &file = *files[index].first;
        Extracted extracted;
        if (!files[index].second.empty() || !file.failure.empty()) {
          extracted.error =
              files[index].second.empty() ? file.failure : files[index].second;
          return extracted;
        }
        api::Expected<std::vector<std::string>> written = api::extract(
            {file.path, extractionFolderFor(output, file.path), targets});
        if (!written && file.inFolder && holdsNoBundle(file.path))
          extracted.noGpuCode = true;
        else if (!written)
          extracted.error = written.error().message;
        else if (written->empty() && file.inFolder)
          (holdsNoBundle(file.path) ? extracted.noGpuCode
                                    : extracted.withoutTargets) = true;
        else if (written->empty())
          extracted.error = noEntryError(file.path, targets).message;
        for (const std::string &path :
             written ? *written : std::vector<std::string>())
          extracted.lines += path + "\n";
        return extracted;
      },
      [&](size_t, Extracted extracted) {
        if (!extracted.error.empty()) {
          fail(extracted.error);
          done.failed = true;
        } else if (extracted.withoutTargets) {
          ++done.withoutTargets;
        } else if (extracted.noGpuCode) {
          ++done.noGpuCode;
        } else {
          ++done.filesExtracted;
          print(extracted.lines);
        }
      });
  return done;
}

} // namespace offbundle
