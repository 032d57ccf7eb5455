#include "bundler/operation_support.h"

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

} // namespace offbundle
