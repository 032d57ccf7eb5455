// offbundle extract: the entries of one file, all of them or those of the
// targets named, written decompressed into a folder (the API's extract():
// all or nothing, one file per entry), and the message for a file that
// holds no entry of the targets asked for.
#pragma once

#include <string>
#include <vector>

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

} // namespace offbundle
