// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Finding every bundle an input holds, wherever it sits: the input itself
// (a binary or text bundle, compressed bundles end to end, a fat object, an
// offload binary), the .hip_fatbin and .llvm.offloading sections of an ELF
// executable, shared library or object, and the members of an archive of
// any of these. The -list and -unbundle fallbacks for files LLVM's tool finds
// nothing in, -list -format=json and -unbundle -output-dir all start here.
#pragma once

#include <cstdint>
#include <functional>
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
#include "support/input_file.h"

namespace offbundle {

// A compressed binary bundle that discovery decompressed only as far as its
// header (DiscoveryOptions::compressedHeadersOnly): what decompresses to
// the whole, and how.
struct DeferredDecompression {
  // The compressed bundle, header included.
  std::unique_ptr<InputFile> compressed;
  uint64_t wholeSize = 0;
  DecompressionRequest request;
  // Where the bundle lies, for the message of a failure.
  std::string errorPrefix;
};

struct DiscoveredBundle {
  // The archive member holding it; "" when it is not in an archive.
  std::string member;
  // The ELF section holding it; "" when it is the (member) file itself.
  std::string section;
  ContainerFormat format = ContainerFormat::BinaryBundle;
  // A text bundle's line comment ("//", "#", ";"), from the -type it was
  // found by; empty for the other formats.
  std::string_view comment;
  // Where its bytes (compressed, if it is) lie in the input file; nullopt
  // for the members of thin archives, which live in files of their own.
  std::optional<uint64_t> fileOffset;
  uint64_t fileSize = 0;
  // In a thin archive's member: its bytes are in the member's own file,
  // none in the input.
  bool inThinMember = false;
  // The compressed bundle's header, when it was compressed.
  std::optional<CompressedBundleHeader> compression;
  // The bundle to read: a view of the input, or the decompressed bytes.
  std::unique_ptr<InputFile> data;
  // Set when `data` holds only the first bytes of the decompressed bundle,
  // as far as its header: its entries' payloads are read from
  // decompressDeferred's result.
  std::unique_ptr<const DeferredDecompression> deferred;
  // Made of kpack code objects (bundler/kpack_discovery.h): what each
  // entry, in file order, takes in the input file.
  bool kpack = false;
  std::vector<uint64_t> kpackStoredSizes;

  // Where an offset of `data` lies in the input file, when it does.
  std::optional<uint64_t> fileOffsetOf(uint64_t offset) const {
    if (!fileOffset || compression)
      return std::nullopt;
    return *fileOffset + offset;
  }
};

struct Discovery {
  std::vector<DiscoveredBundle> bundles;
  // Inputs the bundles' data views (the members of thin archives).
  std::vector<std::unique_ptr<InputFile>> holders;
};

// Strict: a file that looks like an ELF file or archive but cannot be read
// as one is an error (the new modes, which promise to describe the input).
// Lenient: it holds no bundles, as LLVM's tool would have it (the implicit
// fallbacks of -list and -unbundle). Damaged offload data that was found is
// an error either way.
enum class DiscoveryMode { Strict, Lenient };

// What discovery takes from the command line: how text bundles are marked,
// how compressed bundles are decompressed, and where -verbose reports go.
struct DiscoveryOptions {
  // The line comment of the text format -type names; empty for the other
  // types, and text bundles are then not looked for.
  std::string_view textComment;
  DecompressionRequest decompression;
  // Receives LLVM's -verbose report of each decompression; null without
  // -verbose.
  std::string *verboseReport = nullptr;
  // Compressed binary bundles are decompressed only as far as their
  // headers, which is all a description of the input needs; their payloads
  // are decompressed (and their hashes checked) when they are read.
  bool compressedHeadersOnly = false;
};

// The line comment of the text format a -type value names; empty for any
// other value.
std::string_view textBundleComment(std::string_view filesType);

// The discovery options a run of the bundler asks for; the reports go to
// `diagnostics`.
DiscoveryOptions discoveryOptions(const BundlerConfig &config,
                                  std::string &diagnostics);
// The same, with the text format's comment of a -type already resolved.
DiscoveryOptions discoveryOptions(const CompressionConfig &compression,
                                  std::string_view textComment,
                                  std::string &diagnostics);

// Every bundle of `input`, in file order; everything but text bundles is
// recognised by its contents.
Result<Discovery> discoverBundles(const InputFile &input,
                                  const DiscoveryOptions &options,
                                  DiscoveryMode mode);

// Whether the bytes are of a kind LLVM's bundler finds nothing in but
// discoverBundles reads: an ELF file, an archive, an offload binary.
bool holdsEmbeddedBundles(std::string_view bytes);

// A reader over a discovered bundle. `fileOrder` visits binary bundles'
// header records in file order, repeats included (listings that describe
// the file); otherwise entries come in the order LLVM's tool visits them.
Result<std::unique_ptr<BundleReader>>
openDiscoveredBundle(const DiscoveredBundle &bundle, const OutputConfig &output,
                     bool fileOrder, std::string &commandLog);

// The bundle whole, when discovery deferred its decompression: decompressed
// now, as DiscoveryOptions asked then (its size, and hash, checked), for
// the caller to read and let go. Nothing for the other bundles, whose data
// is whole already.
Result<std::optional<DiscoveredBundle>>
decompressDeferred(const DiscoveredBundle &bundle);

// Decompresses every bundle of `discovery` whose decompression was deferred,
// one at a time, and lets it go: the first fault (a size or hash that
// differs from its header's, damaged data) is the error.
Status checkDeferredBundles(const Discovery &discovery);

// The one walk over an input's inventory that the API's Input::open, the
// JSON listing and -output-dir extraction share: every bundle of
// `discovery` in turn, opened with its entries in file order, and every
// entry of it. `entry` gets the bundle, the entry's stored ID and the reader
// standing at it (reading or skipping the payload is the visitor's);
// `beginBundle` and `endBundle`, when given, run around each bundle's
// entries, `beginBundle` before the bundle is opened. An error of the entry
// walk (the reader's, or what `entry` returns, which reads entries only)
// comes back naming the bundle's file.
struct InventoryVisitor {
  std::function<Status(const DiscoveredBundle &)> beginBundle;
  std::function<Result<EntryWalk>(const DiscoveredBundle &, std::string_view,
                                  BundleReader &)>
      entry;
  std::function<Status(const DiscoveredBundle &)> endBundle;
};
Status walkInventory(const Discovery &discovery, const OutputConfig &output,
                     std::string &commandLog, const InventoryVisitor &visitor);

} // namespace offbundle
