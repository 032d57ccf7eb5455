// Pieces the operations share: choosing the reader for a container.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bundler/config.h"
#include "compression/compressed_bundle.h"
#include "formats/bundle_format.h"
#include "formats/container_format.h"
#include "support/error.h"
#include "targets/offload_target.h"

namespace offbundle {

Error unsupportedObject(const std::string &path);

// Picks the reader for a container's bytes, after the -type value has been
// checked. `commandLog` receives the commands --### prints (fat objects).
Result<std::unique_ptr<BundleReader>> openReader(const ContainerChoice &choice,
                                                 std::string_view contents,
                                                 const std::string &path,
                                                 const BundlerConfig &config,
                                                 std::string &commandLog);

// Decompresses one compressed bundle of `file` as the configuration asks:
// the hash in its header checked unless -verify-hash=false, and computed
// anyway when `verboseReport` is given, which receives LLVM's -verbose
// report. A hash mismatch is a line of its own naming `file`; any other
// failure is `errorPrefix` followed by the decompressor's message.
Result<DecompressedBundle>
decompressAsConfigured(std::string_view bytes, const std::string &file,
                       const CompressionConfig &config,
                       const std::string &errorPrefix,
                       std::string *verboseReport);

// The first `neededEnd` bytes of a compressed binary bundle: as far as the
// furthest entry compatible with one of `requested` ends, found from the
// bundle's header. Nothing when that saves nothing or does not apply: the
// bundle inside is no binary bundle, its header is unreadable (the full
// path reports that), or no entry matches, in which case the whole bundle
// may become the host output.
struct PartialBundle {
  std::string bytes;
  uint64_t fullSize = 0;
};
Result<std::optional<PartialBundle>>
decompressEntriesOnly(const CompressedBundleSpan &span,
                      const std::vector<OffloadTarget> &requested,
                      const MatchingConfig &config);

} // namespace offbundle
