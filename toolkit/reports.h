// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What offbundle list and sizes print, for one file or several: text for
// people and JSON for programs (the man page and docs/offbundle.md give
// both layouts).
//
//   list   a line per entry: URI (or "-"), entry ID and size, tab-separated;
//          with several files, each file's lines after a "<file>:" line.
//          JSON: {"files": [{"file", "entries": [{"bundle", "member",
//          "section", "compressed", "id", "target", "size", "uri"}]}]}
//   sizes  per file a heading, a table of targets (entries, bytes, file
//          bytes, share), and the compressed and plain totals.
//          JSON: {"files": [{"file", <summary>}], <summary of all files>},
//          a summary being "file_size", "targets": [{"target", "entries",
//          "bytes", "file_bytes", "share"}], "compressed" and "plain":
//          {"bundles", "file_bytes", "bytes"}
//   prune, compress, decompress
//          "OUT: N -> M bytes" and, for prune, the entries kept and
//          removed, or why nothing changed
#pragma once

#include <offbundle/offbundle.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/json_writer.h"
#include "toolkit/inventory.h"

namespace offbundle {

struct FileEntries {
  std::string file;
  std::vector<InventoryEntry> entries;
};

struct FileSizes {
  std::string file;
  SizeSummary summary;
};

// The reports of list and sizes over the files `walk` found; what it
// skipped closes them (in JSON, as "skipped", when a folder was walked).
// Over folders, sizes gives the totals per target, then the files by their
// GPU bytes (their bundles' sizes), largest first, instead of a table per
// file.
std::string listText(const std::vector<FileEntries> &files,
                     const api::FileWalk &walk);
std::string listJson(const std::vector<FileEntries> &files,
                     const api::FileWalk &walk);
std::string sizesText(const std::vector<FileSizes> &files,
                      const api::FileWalk &walk);
std::string sizesJson(const std::vector<FileSizes> &files,
                      const api::FileWalk &walk);

// Several files' sizes as one: targets of the same name add up.
SizeSummary combineSizes(const std::vector<FileSizes> &files);

// The line saying what a rewrite did, written to `output`.
std::string rewriteSummary(const std::string &output, api::RewriteKind kind,
                           const api::RewriteReport &report);

// "1 bundle", "2 bundles".
// The bytes of GPU code in a file: its bundles' sizes in it.
uint64_t gpuBytes(const SizeSummary &summary);
// The files by their GPU bytes, largest first (in walk order among equals).
std::vector<const FileSizes *>
rankedByGpuBytes(const std::vector<FileSizes> &files);

// "skipped N files holding no GPU code, M symlinks (not followed), K
// special files" with only the counts that are not zero, and a newline; ""
// when nothing was skipped.
std::string skippedText(const api::SkippedFiles &skipped);

// part / whole as "12.3%", or "-" when whole is 0.
std::string percent(uint64_t part, uint64_t whole);
// Text padded with spaces to `width`, on the left or on the right.
std::string padLeft(const std::string &text, size_t width);
std::string padRight(const std::string &text, size_t width);
// "skipped": what a folder walk skipped, when a folder was walked.
void skippedJson(JsonWriter &json, const api::FileWalk &walk);

std::string counted(uint64_t count, const std::string &singular,
                    const std::string &plural);

// unpack-kpack's line: what was rebuilt, and where.
std::string unpackedKpackText(const std::string &input,
                              const std::string &output, size_t bundles,
                              size_t codeObjects, bool compressed);

} // namespace offbundle
