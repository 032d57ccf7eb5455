// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The code a kpack'd binary will load, and what a kpack archive holds, as
// bundles the rest of the tools read (formats/kpack/kpack_marker.h and
// formats/kpack/kpack_archive.h describe the formats).
//
// A kpack'd binary names its archives by search paths relative to its own
// folder; "@GFXARCH@" in a path's file name stands for any architecture, so
// every file the pattern matches is an archive of it (ROCm's runtime
// expands the placeholder with the GPUs it finds; offbundle describes every
// GPU the binary can serve). Archives are taken in search-path order, the
// matches of one pattern in name order. For each HIP fat binary wrapper, by
// the index it carries, the code objects of "<kernel_name>#<index>" are
// gathered: for each architecture, from the first archive that lists the
// architecture and has that entry, as the runtime chooses. They become one
// binary bundle per wrapper, held in memory, entry IDs
// "hipv4-amdgcn-amd-amdhsa--<architecture>" in table order.
//
// Everything the runtime would trip over is an error naming the archive:
// no archive found, a table entry for an architecture the archive does not
// list, a wrapper no archive has an entry for, a code object that does not
// read or decompress to its original size, or is not an AMDGPU ELF file for
// its architecture.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

struct AssembledKpackBundle {
  std::string name;   // "<kernel_name>#<index>": the table key
  std::string bundle; // a binary bundle of its code objects
  // The bytes each entry takes in the file read: in an archive, its stored
  // (perhaps compressed) size; in a kpack'd binary, 0.
  std::vector<uint64_t> storedSizes;
};

// The bundles of a kpack'd binary at `binaryPath` (its folder anchors the
// search paths), from its marker's bytes and its wrappers' indices in
// wrapper order.
Result<std::vector<AssembledKpackBundle>>
assembleKpackReferences(const std::string &binaryPath,
                        std::string_view markerBytes,
                        const std::vector<uint64_t> &wrapperIndices);

// The bundles of a kpack archive read alone: one per table key, in table
// order.
Result<std::vector<AssembledKpackBundle>>
assembleKpackArchive(std::string_view archiveBytes);

} // namespace offbundle
