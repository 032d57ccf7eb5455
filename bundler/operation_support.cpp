// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers the bundler's operations share (see operation_support.h): picking a
// container's reader as the options ask.

#include "bundler/operation_support.h"

#include "formats/binary_bundle.h"
#include "formats/elf/elf_object.h"

namespace offbundle {

Error unsupportedObject(const std::string &path) {
  return fileError(path,
                   "only ELF objects can be fat objects here (Mach-O "
                   "and Wasm objects are not supported)",
                   ErrorCode::Unsupported);
}

// Picks the reader for a container's bytes, after the -type value has been
// checked. `commandLog` receives the commands -### prints for fat objects,
// which name `commandInput` as their input.
Result<std::unique_ptr<BundleReader>>
openReader(const ContainerChoice &choice, std::string_view contents,
           const std::string &path, const OutputConfig &output,
           const std::string &commandInput, std::string &commandLog) {
  const ContainerFormat format = choice.resolve(contents);
  if (format == ContainerFormat::FatObject && !isElf(contents))
    return unsupportedObject(path);
  ReaderOptions options;
  options.comment = choice.comment;
  options.printCommands = output.printedCommands();
  options.commandInput = commandInput;
  options.commandLog = &commandLog;
  return openContainer(format, contents, path, options);
}

Result<std::unique_ptr<BundleReader>>
openPartialBundle(std::string_view prefix, uint64_t fullSize,
                  const std::string &path) {
  auto reader = BinaryBundleReader::openHeader(prefix, fullSize);
  if (!reader)
    return fileError(path, reader.error());
  return std::unique_ptr<BundleReader>(std::move(*reader));
}

} // namespace offbundle
