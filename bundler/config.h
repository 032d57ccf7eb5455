// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The plain configuration values the command line produces and the
// operations consume, one per concern, as llvm-objcopy splits its own: a
// function that needs only one concern takes only that part. Nothing in
// here knows about argv, the environment or exit codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "archive/ar_writing.h"
#include "compression/compressed_bundle.h"
#include "formats/bundle_decoding.h"
#include "formats/fat_object.h"
#include "targets/offload_target.h"

namespace offbundle {

// The files an operation reads and writes, and the targets they hold.
struct FilesConfig {
  std::string filesType;
  // Targets as written into bundles: normalised bundle entry IDs, in the
  // order given on the command line; and the same parsed, once, by
  // checkTargets (bundler/target_checks.h), which fills both.
  std::vector<std::string> targetNames;
  std::vector<OffloadTarget> targets;
  std::vector<std::string> inputFileNames;
  std::vector<std::string> outputFileNames;

  // Index of the host target in targetNames, if any.
  static constexpr unsigned kNoHost = ~0u;
  unsigned hostInputIndex = kNoHost;
  // Bundling without a host entry is allowed when every target is HIP.
  bool allowNoHost = false;
};

// How stored entries are matched with the targets asked for, and what may
// be missing.
struct MatchingConfig {
  bool allowMissingBundles = false;
  bool checkInputArchive = false;
  bool hipOpenmpCompatible = false;
};

// Compressed bundles, written and read.
struct CompressionConfig {
  bool compress = false;
  // Compressed bundles: zstd at this level, in this format version (2 or 3).
  int compressionLevel = kDefaultZstdLevel;
  uint16_t compressedBundleVersion = 3;
  // Whether the MD5 hash in a compressed bundle's header is checked against
  // the data whenever the bundle is decompressed (-verify-hash,
  // OFFLOAD_BUNDLER_VERIFY_HASH). Without the check, unbundling decompresses
  // only as far as the entries it extracts.
  bool verifyHash = true;
  // How the tool's user turns that check off, added to the message of a
  // mismatch; empty when the caller has no such switch.
  std::string hashCheckHint;
  // -verbose: LLVM's report of each compression and decompression.
  bool verbose = false;

  // What -verify-hash and -verbose choose together.
  DecompressionPolicy decompression() const {
    if (verbose)
      return verifyHash ? DecompressionPolicy::ReportAndVerify
                        : DecompressionPolicy::Report;
    return verifyHash ? DecompressionPolicy::Verify
                      : DecompressionPolicy::EntriesOnly;
  }
  DecompressionRequest decompressionRequest() const {
    return {decompression(), hashCheckHint};
  }
  // Listings never check the hash, as gzip -l does not; -verbose still
  // reports it.
  DecompressionRequest listingRequest() const {
    return {verbose ? DecompressionPolicy::Report
                    : DecompressionPolicy::EntriesOnly,
            hashCheckHint};
  }
};

// How outputs are laid out and what is printed besides them.
struct OutputConfig {
  uint64_t bundleAlignment = 1;
  // -###: the external commands LLVM's tool would run, printed with the
  // settings the command line found.
  bool printExternalCommands = false;
  ExternalCommandSettings externalCommands;
  const ExternalCommandSettings *printedCommands() const {
    return printExternalCommands ? &externalCommands : nullptr;
  }
  // -list -format=json: a machine-readable description of every bundle.
  bool listAsJson = false;
  // -unbundle -output-dir=<folder>: every entry of every bundle into this
  // folder instead of chosen targets into -output files.
  std::optional<std::string> outputDirectory;
  // -type=a: where device archives switch to the 64-bit symbol table
  // (ArchiveWriteOptions; the command line reads SYM64_THRESHOLD).
  uint64_t archiveSym64Threshold = kDefaultSym64Threshold;
};

// Everything one run of the bundler was asked for, a part per concern:
// each step of an operation is handed the parts it reads, by name, and not
// the whole.
struct BundlerConfig {
  FilesConfig files;
  MatchingConfig matching;
  CompressionConfig compression;
  OutputConfig output;
};

} // namespace offbundle
