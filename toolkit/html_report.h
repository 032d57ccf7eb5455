// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle sizes --html: the sizes report as one self-contained HTML page
// (inline CSS, SVG and JavaScript; nothing fetched, so it opens offline and
// can be mailed or attached to a ticket):
//
//   - the totals: files, bytes, GPU bytes and their share, what was
//     skipped;
//   - a bar chart (SVG) of the targets by the room they take;
//   - what keeping a single GPU target would save: per target, the room the
//     other GPU targets take in the files that hold it (a file without it
//     would be refused by prune, so it saves nothing), about what `prune
//     --in-place -k TARGET` removes (linked files shrink by whole pages);
//   - the files, one row each with its size, its GPU bytes and the room
//     each target takes in it, largest GPU bytes first; a click on a column
//     heading sorts by it (again: the other way), and `#sort=COLUMN` or
//     `#sort=-COLUMN` in the address sorts on opening.
//
// Text is HTML-escaped; numbers are shown with thousands separators and
// sorted by their values.
#pragma once

#include <offbundle/offbundle.h>

#include <string>
#include <vector>

#include "support/error.h"
#include "toolkit/reports.h"

namespace offbundle {

std::string sizesHtml(const std::vector<FileSizes> &files,
                      const api::FileWalk &walk);

// The page written to `path`, which appears only once it is complete.
Status writeSizesHtml(const std::string &path,
                      const std::vector<FileSizes> &files,
                      const api::FileWalk &walk);

} // namespace offbundle
