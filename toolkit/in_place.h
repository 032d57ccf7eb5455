// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// prune, compress and decompress: one file into another (-o), and with
// --in-place every file the operands name (api::walkFiles) rewritten where
// it is, through the public API's Rewrite::writeInPlace.
//
// Each file is planned first. One whose plan changes nothing (already
// pruned to the targets kept, already compressed or uncompressed) is left
// alone: same inode, same mtime; so is one holding none of the targets
// prune keeps (pruning it would leave no GPU code at all). One found in a
// folder that holds no GPU code is skipped and counted. Otherwise the file is
// replaced atomically, keeping its owner, group, permissions and extended
// attributes; its other hard links are pointed at the new file when they are
// among the files walked, and a file with a link outside them is refused
// (rewriting it would split its names into two files), as is one whose
// names cannot all be pointed at the new file, and anything but a regular
// file. A damaged or unreadable file gets its error line and stays as it
// was; the others go on. Temporaries a killed run left in the folders walked
// are removed first, and a replacement it left half done (some names new,
// some old) is finished (support/in_place_output.h).
//
// Every file is reached as the walk found it, through descriptors of its
// folders and never through a symbolic link (api::walkFiles,
// Rewrite::plan), so that a folder swapped for a link while the run goes on
// cannot turn the run against files outside the operands.
//
// With --dry-run nothing is written: each file's line gives the sizes the
// real run would give.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

#include "toolkit/each_input.h"

namespace offbundle {

struct InPlaceRequest {
  api::RewriteOptions options;
  // The files and folders named, walked again after a killed run's
  // replacement was finished.
  std::vector<std::string> operands;
  bool dryRun = false;
  unsigned jobs = 1; // files rewritten at once
};

struct InPlaceTotals {
  uint64_t rewritten = 0;
  uint64_t unchanged = 0;
  uint64_t failed = 0;
  uint64_t bytesBefore = 0; // of the files rewritten and unchanged
  uint64_t bytesAfter = 0;
  uint64_t temporariesRemoved = 0;
  uint64_t replacementsFinished = 0; // journals a killed run left
};

// Rewrites the files of `walk`, `request.jobs` at a time; in walk order,
// `print` takes each file's line, `fail` each error message (without
// "offbundle: error: "), and `done` each file done.
InPlaceTotals rewriteInPlace(api::FileWalk &walk, const InPlaceRequest &request,
                             const std::function<void(std::string)> &print,
                             const std::function<void(std::string)> &fail,
                             const FileDone &done = {});

// One file rewritten into `output` (-o), which appears only once complete;
// the line to print, or the error: a prune that would keep no GPU entry is
// refused. With `dryRun`, nothing is written.
Result<std::string> rewriteInto(const std::string &path,
                                const std::string &output,
                                const api::RewriteOptions &options,
                                bool dryRun);

// "N files rewritten, M unchanged, K failed; X -> Y bytes", and what else
// happened, as the last line of a run.
std::string inPlaceSummary(const InPlaceTotals &totals, bool dryRun);

} // namespace offbundle
