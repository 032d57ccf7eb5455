// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle extract: the entries of one file, all of them or those of the
// targets named, written decompressed into a folder (the API's extract():
// all or nothing, one file per entry), and the message for a file that
// holds no entry of the targets asked for.
//
// Over several files or folders, each file's entries go to a folder of its
// own under the output folder, named by the file's path made relative
// (extractionFolderFor). A file found in a folder that holds no entry of
// the targets (or no GPU code) is skipped and counted.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

#include "support/error.h"

namespace offbundle {

struct ExtractionRequest {
  std::string file;
  std::string outputDirectory;
  std::vector<std::string> targets; // --target values; none: every entry
};

// What extract prints, a line per file written. An Error when nothing was
// written: the reason, or, when no entry matched, the message of
// noEntryError.
Result<std::string> extractFile(const ExtractionRequest &request);

// "'FILE' holds no entry for <targets asked>; its targets: <the file's>",
// the file read again to name what it holds (at most 16 targets). `asked`
// are --target values, each of which may list several, separated by
// commas.
Error noEntryError(const std::string &file,
                   const std::vector<std::string> &asked);
// The same without the file's name: "holds no entry for ...; its targets:
// ...".
std::string noEntryReason(const std::string &file,
                          const std::vector<std::string> &asked);

// `output`/`file`, the path made relative: "/" at its start and "."
// components dropped, ".." spelled "__" ("/opt/rocm/lib/x.so" goes to
// OUTPUT/opt/rocm/lib/x.so/).
std::string extractionFolderFor(const std::string &output,
                                const std::string &file);

struct TreeExtraction {
  uint64_t filesExtracted = 0;
  uint64_t withoutTargets = 0; // files in folders holding none of them
  uint64_t noGpuCode = 0;      // files in folders holding no bundle
  bool failed = false;
};

// What an extraction over `walk` skipped, the lines closing its report.
std::string treeExtractionSkippedText(const api::FileWalk &walk,
                                      const TreeExtraction &done);

// extract over the files of `walk`, `jobs` at a time; in walk order,
// `print` takes each file's lines, `fail` each error message.
TreeExtraction extractTree(const api::FileWalk &walk, const std::string &output,
                           const std::vector<std::string> &targets,
                           unsigned jobs,
                           const std::function<void(std::string)> &print,
                           const std::function<void(std::string)> &fail);

} // namespace offbundle
