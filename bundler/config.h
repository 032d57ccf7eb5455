// The plain configuration value the command line produces and the operations
// consume. Nothing in here knows about argv, the environment or exit codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace offbundle {

struct BundlerConfig {
  std::string filesType;
  // Targets as written into bundles: normalised bundle entry IDs, in the
  // order given on the command line.
  std::vector<std::string> targetNames;
  std::vector<std::string> inputFileNames;
  std::vector<std::string> outputFileNames;

  uint64_t bundleAlignment = 1;
  bool allowMissingBundles = false;
  bool checkInputArchive = false;
  bool printExternalCommands = false;
  bool hipOpenmpCompatible = false;
  bool compress = false;
  bool verbose = false;
  // Whether the MD5 hash in a compressed bundle's header is checked against
  // the data whenever the bundle is decompressed (-verify-hash,
  // OFFLOAD_BUNDLER_VERIFY_HASH). Without the check, unbundling decompresses
  // only as far as the entries it extracts.
  bool verifyHash = true;
  // Compressed bundles: zstd at this level, in this format version (2 or 3).
  int compressionLevel = 3;
  uint16_t compressedBundleVersion = 3;

  // -list -format=json: a machine-readable description of every bundle.
  bool listAsJson = false;
  // -unbundle -output-dir=<folder>: every entry of every bundle into this
  // folder instead of chosen targets into -output files.
  std::optional<std::string> outputDirectory;

  // Index of the host target in targetNames, if any.
  static constexpr unsigned kNoHost = ~0u;
  unsigned hostInputIndex = kNoHost;
  // Bundling without a host entry is allowed when every target is HIP.
  bool allowNoHost = false;
};

} // namespace offbundle
