// Helpers the bundler's operations share (see operation_support.h): picking a
// container's reader, decompressing as the options ask, and decompressing only
// as much of a compressed bundle as the requested entries need.

#include "bundler/operation_support.h"

#include <algorithm>
#include <chrono>

#include "formats/binary_bundle.h"
#include "formats/elf/elf_object.h"

namespace offbundle {

Error unsupportedObject(const std::string &path) {
  return fileError(path, "only ELF objects can be fat objects here (Mach-O "
                         "and Wasm objects are not supported)");
}

// Picks the reader for a container's bytes, after the -type value has been
// checked. `commandLog` receives the commands --### prints (fat objects).
Result<std::unique_ptr<BundleReader>> openReader(const ContainerChoice &choice,
                                                 std::string_view contents,
                                                 const std::string &path,
                                                 const BundlerConfig &config,
                                                 std::string &commandLog) {
  const ContainerFormat format = choice.resolve(contents);
  if (format == ContainerFormat::FatObject && !isElf(contents))
    return unsupportedObject(path);
  ReaderOptions options;
  options.comment = choice.comment;
  options.printCommands = config.printedCommands();
  options.commandInput = config.inputFileNames.front();
  options.commandLog = &commandLog;
  return openContainer(format, contents, path, options);
}

Result<DecompressedBundle>
decompressAsConfigured(std::string_view bytes, const std::string &file,
                       const CompressionConfig &config,
                       const std::string &errorPrefix,
                       std::string *verboseReport) {
  const bool verifies = checksHash(config.decompression());
  const HashCheck check =
      verboseReport || verifies ? HashCheck::Compute : HashCheck::Skip;
  const auto start = std::chrono::steady_clock::now();
  auto decompressed = decompressBundle(bytes, check);
  if (!decompressed)
    return makeError(errorPrefix + decompressed.error().message);
  const CompressedBundleHeader &header = decompressed->header;
  // LLVM prints its report, "Hashes match: No" included, and carries on.
  if (verboseReport)
    *verboseReport += formatDecompressionReport(
        header, decompressed->compressedExtent - header.headerSize,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count(),
        *decompressed->computedHash);
  if (verifies && *decompressed->computedHash != header.hash)
    return hashMismatchError(file, header.hash, *decompressed->computedHash,
                             config.hashCheckHint);
  return decompressed;
}

Result<std::optional<PartialBundle>>
decompressEntriesOnly(const CompressedBundleSpan &span,
                      const std::vector<OffloadTarget> &requested,
                      const MatchingConfig &config) {
  const uint64_t fullSize = span.header.uncompressedSize;
  auto reader = CompressedPrefixReader::open(span.bytes);
  if (!reader)
    return reader.takeError();
  std::string_view prefix;
  for (uint64_t wanted = uint64_t{1} << 16;; wanted *= 4) {
    wanted = std::min(wanted, fullSize);
    auto decoded = (*reader)->prefix(wanted);
    if (!decoded)
      return decoded.takeError();
    prefix = *decoded;
    std::optional<uint64_t> headerSize = binaryBundleHeaderSize(prefix);
    if (headerSize == uint64_t{0} || (!headerSize && wanted == fullSize) ||
        prefix.size() < wanted)
      return std::optional<PartialBundle>();
    if (headerSize && *headerSize <= prefix.size())
      break;
    if (headerSize)
      wanted = *headerSize;
  }
  auto header = BinaryBundleReader::openHeader(prefix, fullSize);
  if (!header)
    return std::optional<PartialBundle>();
  uint64_t neededEnd = 0;
  bool unusable = false;
  BundleReader &entries = **header;
  // A header that cannot be walked to its end counts as far as it goes; an
  // entry that cannot be read or matched leaves the choice to the whole
  // decompression, which reports what is wrong.
  (void)forEachEntry(
      entries, [&](std::string_view entryId) -> Result<EntryWalk> {
        auto payload = entries.readEntry();
        std::optional<OffloadTarget> codeObject =
            OffloadTarget::parseStored(entryId);
        if (!payload || !codeObject) {
          unusable = true;
          return EntryWalk::Stop;
        }
        for (const OffloadTarget &target : requested)
          if (isCodeObjectCompatible(*codeObject, target,
                                     config.hipOpenmpCompatible))
            neededEnd = std::max(neededEnd, payload->offset + payload->size);
        return EntryWalk::Continue;
      });
  if (unusable)
    return std::optional<PartialBundle>();
  if (neededEnd == 0 || neededEnd >= fullSize)
    return std::optional<PartialBundle>();
  const uint64_t wanted = std::max<uint64_t>(neededEnd, prefix.size());
  auto bytes = decompressBundlePrefix(span.bytes, wanted);
  if (!bytes)
    return bytes.takeError();
  // The stream ended before the size the header claims.
  if (bytes->size() < wanted)
    return makeError("Decompressed size " + std::to_string(bytes->size()) +
                     " does not match the size in the header, " +
                     std::to_string(fullSize));
  return std::optional(PartialBundle{std::move(*bytes), fullSize});
}

} // namespace offbundle
