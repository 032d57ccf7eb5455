// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// -list -format=json: one JSON document describing every bundle of the
// input and every entry of each. The schema (docs/clang-offload-bundler.md,
// "Machine-readable listings"):
//
//   { "input": <name as given>,
//     "bundles": [ { "index", "member", "section", "format", "offset",
//                    "size", "uri", "compression", "entries": [ { "id",
//                    "offset", "size", "file_offset", "uri", "kind",
//                    "triple", "target_id", "image" } ] } ] }
//
// Keys always appear, in this order, with null where a value does not
// apply, so that consumers need no special cases.
#include "bundler/bundle_discovery.h"
#include "bundler/operations.h"
#include "formats/code_object_uri.h"
#include "formats/embedded_offload.h"
#include "formats/fat_object.h"
#include "support/json_writer.h"
#include "support/string_split.h"
#include "targets/offload_target.h"
#include "targets/target_id.h"

namespace offbundle {

// --- The listing -------------------------------------------------------------

namespace {

// What the entry ID says, part by part, as written (not normalised), except
// that the three-field triple of an ID from an earlier release is given in
// the four-field form the unbundling matches it as.
void writeParsedId(JsonWriter &json, std::string_view storedId) {
  std::optional<std::string> normalized = normalizeStoredBundleId(storedId);
  if (!normalized) {
    json.nullField("kind");
    json.nullField("triple");
    json.nullField("target_id");
    return;
  }
  std::string_view id = *normalized;
  std::vector<std::string_view> parts = splitOnDash(id, 6);
  json.field("kind", parts[0]);
  json.key("triple");
  json.beginObject();
  json.field("text",
             id.substr(parts[0].size() + 1,
                       parts[4].data() + parts[4].size() - parts[1].data()));
  json.field("arch", parts[1]);
  json.field("vendor", parts[2]);
  json.field("os", parts[3]);
  json.field("environment", parts[4]);
  json.endObject();
  json.key("target_id");
  if (parts.size() < 6 || parts[5].empty()) {
    json.null();
    return;
  }
  json.beginObject();
  json.field("text", parts[5]);
  TargetFeatureMap features;
  std::optional<std::string_view> processor =
      parseTargetIdFormat(parts[5], &features);
  if (!processor) {
    json.nullField("processor");
    json.nullField("features");
  } else {
    json.field("processor", *processor);
    json.key("features");
    json.beginObject();
    for (const auto &[name, enabled] : features) {
      json.key(name);
      json.boolean(enabled);
    }
    json.endObject();
  }
  json.endObject();
}

void writeImage(JsonWriter &json, const OffloadBinaryView &image) {
  json.key("image");
  json.beginObject();
  json.field("kind", imageKindDescription(image.imageKind));
  json.field("offload_kind", offloadKindDescription(image.offloadKind));
  json.field("flags", uint64_t{image.flags});
  json.key("strings");
  json.beginObject();
  for (const auto &[key, value] : image.strings)
    json.field(key, value);
  json.endObject();
  json.endObject();
}

void writeCompression(JsonWriter &json, const DiscoveredBundle &bundle) {
  json.key("compression");
  if (!bundle.compression) {
    json.null();
    return;
  }
  const CompressedBundleHeader &header = *bundle.compression;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hash = "0x";
  for (int shift = 60; shift >= 0; shift -= 4)
    hash += kHex[(header.hash >> shift) & 15];
  json.beginObject();
  json.field("version", uint64_t{header.version});
  json.field("method",
             header.method == CompressionMethod::Zstd ? "zstd" : "zlib");
  json.field("total_size", header.totalFileSize);
  json.field("uncompressed_size", header.uncompressedSize);
  json.field("hash", hash);
  json.endObject();
}

// Where the current entry of `entries` lies in its bundle, moving past it.
Result<ByteRange> entryRange(const DiscoveredBundle &bundle,
                             BundleReader &entries) {
  if (bundle.format == ContainerFormat::FatObject) {
    // The section as it is: readEntry would rewrite the host object.
    const ElfSection &section =
        static_cast<FatObjectReader &>(entries).currentSection();
    ByteRange range{section.offset, section.hasContents() ? section.size : 0};
    if (Status status = entries.skipEntry(); !status.ok())
      return status.takeError();
    return range;
  }
  Result<EntryPayload> payload = entries.readEntry();
  if (!payload)
    return payload.takeError();
  return ByteRange(*payload);
}

class JsonListing {
public:
  explicit JsonListing(const InputFile &input) {
    // URIs name the file itself; standard input has no name to give. A
    // file whose absolute path cannot be found (its folder was removed while
    // it was read) gets null URIs rather than ones that name another file.
    if (input.path() == "-")
      return;
    if (auto path = uriFilePath(inputFilePath(input.path())))
      uriPath_ = std::move(*path);
  }

  // The bundle's fields, up to its list of entries.
  Status beginBundle(const DiscoveredBundle &bundle) {
    json_.beginObject();
    json_.field("index", uint64_t{bundlesWritten_++});
    writeNameOrNull("member", bundle.member);
    writeNameOrNull("section", bundle.section);
    json_.field("format",
                bundle.kpack ? "kpack" : containerName(bundle.format));
    json_.field("offset", bundle.fileOffset);
    json_.field("size", bundle.fileSize);
    writeUri(bundle.fileOffset, bundle.fileSize);
    writeCompression(json_, bundle);
    json_.key("entries");
    json_.beginArray();
    return Status::success();
  }

  Result<EntryWalk> writeEntry(const DiscoveredBundle &bundle,
                               std::string_view id, BundleReader &entries) {
    Result<ByteRange> range = entryRange(bundle, entries);
    if (!range)
      return range.takeError();
    json_.beginObject();
    json_.field("id", id);
    json_.field("offset", range->offset);
    json_.field("size", range->size);
    std::optional<uint64_t> fileOffset = bundle.fileOffsetOf(range->offset);
    json_.field("file_offset", fileOffset);
    writeUri(fileOffset, range->size);
    writeParsedId(json_, id);
    if (bundle.format == ContainerFormat::OffloadBinary)
      writeImage(json_, static_cast<OffloadBinaryReader &>(entries).binary());
    else
      json_.nullField("image");
    json_.endObject();
    return EntryWalk::Continue;
  }

  Status endBundle(const DiscoveredBundle &) {
    json_.endArray();
    json_.endObject();
    return Status::success();
  }

  JsonWriter &json() { return json_; }

private:
  void writeNameOrNull(std::string_view key, const std::string &name) {
    if (name.empty())
      json_.nullField(key);
    else
      json_.field(key, name);
  }

  void writeUri(const std::optional<uint64_t> &offset, uint64_t size) {
    if (!offset || !uriPath_)
      json_.nullField("uri");
    else
      json_.field("uri", formatCodeObjectUri(*uriPath_, *offset, size));
  }

  std::optional<std::string> uriPath_;
  uint64_t bundlesWritten_ = 0;
  JsonWriter json_;
};

} // namespace

Status listBundlesAsJson(const BundlerConfig &config, OperationReport &report) {
  const std::string &inputName = config.files.inputFileNames.front();
  auto input = openInput(inputName);
  if (!input)
    return input.takeError();
  // A listing never checks the hash of compressed bundles (see -list).
  DiscoveryOptions options = discoveryOptions(config, report.diagnostics);
  options.decompression = config.compression.listingRequest();
  // Compressed bundles are read as far as their headers, but for
  // -verbose, which reports each decompression whole.
  options.compressedHeadersOnly = !options.verboseReport;
  auto discovery = discoverBundles(**input, options, DiscoveryMode::Strict);
  if (!discovery)
    return discovery.takeError();
  JsonListing listing(**input);
  JsonWriter &json = listing.json();
  json.beginObject();
  json.field("input", inputName);
  json.key("bundles");
  json.beginArray();
  InventoryVisitor visitor;
  visitor.beginBundle = [&](const DiscoveredBundle &bundle) {
    return listing.beginBundle(bundle);
  };
  visitor.entry = [&](const DiscoveredBundle &bundle, std::string_view id,
                      BundleReader &entries) {
    return listing.writeEntry(bundle, id, entries);
  };
  visitor.endBundle = [&](const DiscoveredBundle &bundle) {
    return listing.endBundle(bundle);
  };
  if (Status status =
          walkInventory(*discovery, config.output, report.diagnostics, visitor);
      !status.ok())
    return status;
  json.endArray();
  json.endObject();
  // Printed only once complete: a failed listing prints no partial JSON.
  report.standardOutput += json.finish();
  return Status::success();
}

} // namespace offbundle
