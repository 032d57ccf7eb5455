// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-offload-binary's operations over a plain configuration. They return
// errors as values and what to print in a report; only the command-line
// layer knows about argv, exit codes and message prefixes. Every file an
// operation writes belongs to one OutputTransaction: all of them appear when
// the operation succeeds, none when it fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "archive/ar_writing.h"
#include "formats/compressed_offload_binary.h"
#include "support/error.h"
#include "support/output_transaction.h"

namespace offbundle {

struct PackagerConfig {
  // -o: the binary to write when packaging; the archive to write with
  // --archive when extracting everything.
  std::string outputFile;
  // The positional input to extract from.
  std::string inputFile;
  // Every --image value, in order.
  std::vector<std::string> images;
  bool createArchive = false;
  // --compress: one compressed binary (format version 3, see
  // formats/compressed_offload_binary.h) holding every image, instead of
  // one version 1 binary per image.
  bool compress = false;
  OffloadCompressionFormat compressionFormat = OffloadCompressionFormat::Zstd;
  // --compression-level; the format's default when absent.
  std::optional<int> compressionLevel;
  // --archive: where archives switch to the 64-bit symbol table
  // (ArchiveWriteOptions; the command line reads SYM64_THRESHOLD).
  uint64_t archiveSym64Threshold = kDefaultSym64Threshold;
};

struct PackagerReport {
  std::string standardOutput;
  // Warning texts, printed as "<argv0>: warning: <text>".
  std::vector<std::string> warnings;
  // Lines printed as they are, in order after the warnings (LLVM's archive
  // writer warns as "warning: <text>", without the program's name).
  std::vector<std::string> plainDiagnostics;
};

// -o OUT --image=file=F,key=value...: one binary per file, concatenated, as
// LLVM 22 writes them; with --compress, one compressed binary holding them
// all.
Status packageImages(const PackagerConfig &config, PackagerReport &report);

// IN --image=<filters>: for each --image, the images whose strings match
// every key=value of the filter ("kind" compares the offload kind, "member"
// the archive member the image came from, "file" names the output) go to that
// file, or to an archive with --archive, or to files named after the input when
// there is no file=. As LLVM 22 does it.
Status extractMatchingImages(const PackagerConfig &config,
                             PackagerReport &report);

// IN with no --image: every image, nested offload binaries followed, to
// "<input stem>-<triple>[-<arch>].<index>.<image kind>", each reported as
// "Extracted: <name>". (LLVM 22 extracts nothing.)
Status extractAllImages(const PackagerConfig &config, PackagerReport &report);

// IN --archive -o LIB [--image=<filters>]: every image (or every image some
// filter matches) into one archive, members named as extractAllImages
// names files. (LLVM 22 refuses an input together with -o.)
Status archiveAllImages(const PackagerConfig &config, PackagerReport &report);

// IN --list: one line per image (nested binaries followed): index, triple,
// arch, offload kind, image kind, size, then every other key=value.
Status listImages(const PackagerConfig &config, PackagerReport &report);

} // namespace offbundle
