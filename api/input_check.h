// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading and checking one input as `offbundle verify` does, in one place
// for the reader and the rewrites: Input::open reads a file with
// readInputFile and Input::verify checks it with verifyReadInput, which is
// what verify runs; Rewrite::plan and unpackKpack run checkBeforeRewrite,
// the same two, on the very file they are about to rewrite, before anything
// is planned. So a rewrite refuses exactly the files verify refuses, with
// verify's message, and writes nothing for them: a damaged file does not
// come out of a rewrite as one that looks sound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

#include "bundler/bundle_discovery.h"
#include "formats/bundle_format.h"
#include "support/error.h"
#include "support/input_file.h"
#include "targets/offload_target.h"

namespace offbundle::api {

// An input as Input::open reads it: every bundle found (compressed binary
// bundles decompressed only as far as their headers) and every entry of
// each walked, as the public API describes them.
struct InputReading {
  Discovery discovery;
  std::vector<Bundle> bundles;
};

// `file` read as Input::open reads it, its text bundles by the bundler
// -type `type`; the first fault found is the error. The reading views
// `file`, which must outlive it.
offbundle::Result<InputReading> readInputFile(const InputFile &file,
                                              const std::string &type);

// Input::checkCompressedBundles: every compressed bundle of `reading` whose
// decompression was deferred, decompressed against the size and hash its
// header records, `threads` at a time (0: one per core), each holding one
// bundle in memory; its input pages are let go of after it. The first
// fault in file order is the error, whatever the number of threads.
offbundle::Status checkCompressedInput(const InputFile &file,
                                       const InputReading &reading,
                                       unsigned threads);

struct InputChecks {
  // Whether compressed bundles are decompressed against their hashes;
  // verify always does, a rewrite unless told not to
  // (RewriteOptions::verifyHash).
  bool hashes = true;
  unsigned threads = 0; // as for checkCompressedInput
};

// What verify checks of an input beyond reading it, in this order:
// checkLinkedHipFile (linked_file_check.h), then checkCompressedInput
// unless `checks.hashes` is false.
offbundle::Status verifyReadInput(const InputFile &file,
                                  const InputReading &reading,
                                  const InputChecks &checks);

// `file` read and checked as verify checks it (readInputFile with -type o,
// then verifyReadInput), for a rewrite about to read it: verify's error
// when verify would refuse it. On success, where the compressed bundles
// whose hashes were checked lie in the file, sorted by offset (none without
// `checks.hashes`): the rewrite decompresses those without checking them
// again (RewriteRequest::hashesChecked).
offbundle::Result<std::vector<ByteRange>>
checkBeforeRewrite(const InputFile &file, const InputChecks &checks);

// The public API's Target of a parsed target.
Target publicTarget(const OffloadTarget &target);

} // namespace offbundle::api
