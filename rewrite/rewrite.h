// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle prune, compress and decompress: a copy of a file whose bundles
// are rewritten, on the files this version rewrites:
//
//   - a standalone bundle: a binary bundle (.hipfb, the host entry empty),
//     or one compressed bundle (CCOB, as hipcc --genco --offload-compress
//     writes .hsaco files);
//   - a relocatable ELF object whose .hip_fatbin section holds one such
//     bundle, as clang writes each HIP translation unit; the section is
//     replaced as llvm-objcopy --update-section would replace it, so the
//     object links as before;
//   - an archive of such objects and bundles (other members are kept as
//     they are), written again as llvm-ar rcD writes it: GNU format, a
//     symbol table, no timestamps; the input is kept when nothing changed.
//
//   - an executable or shared library: the bundles its HIP wrappers
//     (.hipFatBinSegment) point at are rewritten and laid out anew in
//     .hip_fatbin, one after the other at the alignment each had; the
//     wrappers are repointed and the file shrinks by whole pages, or, when
//     .hip_fatbin grows (decompress), the section moves to a new segment
//     at the end of the file (see rewrite/elf/linked_section_resize.h). Plain
//     bundles are compressed on every core. The kept bytes are named as
//     ranges of the input, so that a 1 GiB library is rewritten without
//     holding it in memory.
//
//   - a relocatable object of clang's new offloading driver, whose
//     .llvm.offloading section holds offload binaries (version 1, one
//     image each): prune keeps the binaries of the kept targets; compress
//     and decompress leave it as it is, as it holds no bundle (and LLVM 22
//     reads no compressed offload binary), and say so.
//
// Thin archives are refused with an error naming what they are.
//
// What each does to a bundle:
//   prune       keeps the host entries and the entries a kept target selects
//               (see target_selection.h), in their order and alignment (the
//               largest power of two up to 4096 that every payload offset is
//               a multiple of, which reproduces clang's -bundle-align); a
//               compressed bundle is decompressed (its hash checked), pruned
//               and compressed again with its format version and method
//   compress    a plain bundle becomes the compressed bundle LLVM 22's
//               clang-offload-bundler -compress writes for it (zstd, the
//               given level, format version 3); a compressed one is kept
//   decompress  a compressed bundle becomes the plain bundle it holds (its
//               hash checked); a plain one is kept
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "archive/ar_writing.h"
#include "compression/compressed_bundle.h"
#include "formats/bundle_format.h"
#include "rewrite/target_selection.h"
#include "support/error.h"
#include "support/in_place_output.h"
#include "support/input_file.h"
#include "support/output_plan.h"

namespace offbundle {

enum class RewriteKind { Prune, Compress, Decompress };

struct RewriteRequest {
  RewriteKind kind = RewriteKind::Compress;
  std::vector<TargetSelector> keep; // prune
  // compress, and prune's recompression
  int compressionLevel = kDefaultZstdLevel;
  // Whether compressed bundles are checked against the hash in their header
  // as they are decompressed (prune, decompress); a mismatch fails.
  bool verifyHash = true;
  // The compressed bundles whose hashes were checked already, where they
  // lie in the input, sorted by offset: decompressed without checking them
  // again. (The API checks every compressed bundle of a file as verify does
  // before rewriting it.)
  std::vector<ByteRange> hashesChecked;
  // Archives: where they switch to the 64-bit symbol table
  // (ArchiveWriteOptions; the command line reads SYM64_THRESHOLD).
  uint64_t archiveSym64Threshold = kDefaultSym64Threshold;
  unsigned threads = 0; // bundles at once; 0: one per core
};

struct RewriteResult {
  OutputPlan plan;          // the whole new file
  uint64_t entriesKept = 0; // prune: host entries included
  uint64_t deviceEntriesKept = 0;
  uint64_t entriesRemoved = 0;
  bool changed = false; // whether any bundle changed
  uint64_t bundles = 0; // the bundles and offload binaries it holds
  // Why nothing could change, when the file holds nothing the command
  // works on (offload binaries for compress and decompress).
  std::string nothingToDo;
};

// The rewritten copy of `file` (whose contents are `bytes`, named `file` in
// messages). The plan's input ranges are ranges of `bytes`. `pages`, when
// given, is the input `bytes` are the contents of: bundles compressed are
// read in ahead and have their pages released after (InputFile), so that
// memory stays flat on large libraries.
Result<RewriteResult> rewriteFile(const std::string &file,
                                  std::string_view bytes,
                                  const RewriteRequest &request,
                                  const InputFile *pages = nullptr);

// Writes a rewrite's output to `path`, which appears only once it is
// complete. A new file gets the input's permissions (less the umask), as
// llvm-objcopy gives its output: a rewritten program stays executable.
Status writeRewrittenFile(const std::string &path, const RewriteResult &result,
                          const InputFile &input);

// Replaces the input, read from names.front(), with a rewrite's output
// under every name in `names` (all the names it has), as InPlaceOutput
// replaces files (support/in_place_output.h): owner, group, permissions
// and extended attributes kept, on the disk before it returns, every name
// pointed at the new file as one unit.
Status replaceRewrittenFile(std::vector<AnchoredName> names,
                            const RewriteResult &result,
                            const InputFile &input);

} // namespace offbundle
