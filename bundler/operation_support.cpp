#include "bundler/operation_support.h"

#include <chrono>

#include "formats/binary_bundle.h"
#include "formats/fat_object.h"
#include "formats/text_bundle.h"

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
  if (choice.kind == ContainerKind::Text)
    return std::unique_ptr<BundleReader>(
        std::make_unique<TextBundleReader>(contents, choice.comment));
  if (choice.kind == ContainerKind::ObjectOrBinary &&
      looksLikeObjectFile(contents)) {
    if (!isElf(contents))
      return unsupportedObject(path);
    auto reader =
        FatObjectReader::open(contents, config.printExternalCommands,
                              config.inputFileNames.front(), commandLog);
    if (!reader)
      return fileError(path, reader.error().message);
    return std::unique_ptr<BundleReader>(std::move(*reader));
  }
  auto reader = BinaryBundleReader::open(contents);
  if (!reader)
    return fileError(path, reader.error().message);
  return std::unique_ptr<BundleReader>(std::move(*reader));
}

Result<DecompressedBundle>
decompressAsConfigured(std::string_view bytes, const std::string &file,
                       const BundlerConfig &config,
                       const std::string &errorPrefix,
                       std::string *verboseReport) {
  const HashCheck check =
      verboseReport || config.verifyHash ? HashCheck::Compute : HashCheck::Skip;
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
  if (config.verifyHash && *decompressed->computedHash != header.hash)
    return hashMismatchError(file, header.hash, *decompressed->computedHash);
  return decompressed;
}

} // namespace offbundle
