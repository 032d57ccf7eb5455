// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The container registry (see container_format.h): one row per container,
// and the -type table that picks one.

#include "formats/container_format.h"

#include <array>

#include "formats/binary_bundle.h"
#include "formats/embedded_offload.h"
#include "formats/fat_object.h"
#include "formats/text_bundle.h"
#include "support/output_file.h"

namespace offbundle {

namespace {

// Widens a reader's result to the interface every container shares.
template <typename Reader>
Result<std::unique_ptr<BundleReader>>
asBundleReader(Result<std::unique_ptr<Reader>> reader) {
  if (!reader)
    return reader.takeError();
  return std::unique_ptr<BundleReader>(std::move(*reader));
}

Result<std::unique_ptr<BundleReader>>
openBinaryBundle(std::string_view contents, const ReaderOptions &options) {
  return asBundleReader(options.fileOrder
                            ? BinaryBundleReader::openInFileOrder(contents)
                            : BinaryBundleReader::open(contents));
}

Result<std::unique_ptr<BundleReader>>
openTextBundle(std::string_view contents, const ReaderOptions &options) {
  return std::unique_ptr<BundleReader>(
      std::make_unique<TextBundleReader>(contents, options.comment));
}

Result<std::unique_ptr<BundleReader>>
openFatObject(std::string_view contents, const ReaderOptions &options) {
  return asBundleReader(FatObjectReader::open(contents, options.printCommands,
                                              options.commandInput,
                                              options.commandLog));
}

Result<std::unique_ptr<BundleReader>>
openOffloadBinary(std::string_view contents, const ReaderOptions &) {
  return asBundleReader(OffloadBinaryReader::open(contents));
}

Status writeBinary(OutputFile &output, const std::vector<EntryToWrite> &entries,
                   const WriterOptions &options) {
  return writeBinaryBundle(output, entries, options.alignment);
}

Status writeText(OutputFile &output, const std::vector<EntryToWrite> &entries,
                 const WriterOptions &options) {
  return writeTextBundle(output, options.comment, entries);
}

Status writeFat(OutputFile &output, const std::vector<EntryToWrite> &entries,
                const WriterOptions &options) {
  if (options.hostIndex >= entries.size())
    return makeError("internal error: a fat object needs a host entry");
  return writeFatObject(output, *entries[options.hostIndex].payload, entries,
                        options.hostIndex);
}

// In the order of ContainerFormat's values.
constexpr std::array<ContainerInfo, 4> kContainers = {{
    {ContainerFormat::BinaryBundle, "binary", FileMagic::BinaryBundle,
     openBinaryBundle, writeBinary},
    {ContainerFormat::TextBundle, "text", FileMagic::Unknown, openTextBundle,
     writeText},
    {ContainerFormat::FatObject, "fat-object", FileMagic::Elf, openFatObject,
     writeFat},
    {ContainerFormat::OffloadBinary, "offload-binary", FileMagic::OffloadBinary,
     openOffloadBinary, nullptr},
}};

constexpr bool rowsInEnumOrder() {
  for (size_t i = 0; i < kContainers.size(); ++i)
    if (static_cast<size_t>(kContainers[i].format) != i)
      return false;
  return true;
}
static_assert(rowsInEnumOrder(), "kContainers rows follow ContainerFormat");

} // namespace

const ContainerInfo &containerInfo(ContainerFormat format) {
  return kContainers[static_cast<size_t>(format)];
}

std::optional<ContainerFormat> containerWithMagic(FileMagic magic) {
  if (magic == FileMagic::Unknown)
    return std::nullopt;
  for (const ContainerInfo &container : kContainers)
    if (container.magic == magic)
      return container.format;
  return std::nullopt;
}

Result<std::unique_ptr<BundleReader>>
openContainer(ContainerFormat format, std::string_view contents,
              const std::string &path, const ReaderOptions &options) {
  auto reader = containerInfo(format).open(contents, options);
  if (!reader)
    return withCode(fileError(path, reader.error()), ErrorCode::DamagedInput);
  return reader;
}

ContainerFormat ContainerChoice::resolve(std::string_view bytes) const {
  if (format == ContainerFormat::FatObject && !looksLikeObjectFile(bytes))
    return ContainerFormat::BinaryBundle;
  return format;
}

Result<ContainerChoice> containerForType(std::string_view filesType) {
  struct TypeEntry {
    std::string_view type;
    ContainerChoice choice;
  };
  static constexpr std::array<TypeEntry, 12> kTypes = {{
      {"i", {ContainerFormat::TextBundle, "//"}},
      {"ii", {ContainerFormat::TextBundle, "//"}},
      {"cui", {ContainerFormat::TextBundle, "//"}},
      {"hipi", {ContainerFormat::TextBundle, "//"}},
      {"d", {ContainerFormat::TextBundle, "#"}},
      {"ll", {ContainerFormat::TextBundle, ";"}},
      {"bc", {ContainerFormat::BinaryBundle, ""}},
      {"s", {ContainerFormat::TextBundle, "#"}},
      {"o", {ContainerFormat::FatObject, ""}},
      {"a", {ContainerFormat::FatObject, ""}},
      {"gch", {ContainerFormat::BinaryBundle, ""}},
      {"ast", {ContainerFormat::BinaryBundle, ""}},
  }};
  for (const TypeEntry &entry : kTypes)
    if (entry.type == filesType)
      return entry.choice;
  return makeError("'" + std::string(filesType) +
                       "': invalid file type specified",
                   ErrorCode::InvalidArgument);
}

bool looksLikeObjectFile(std::string_view bytes) {
  const FileMagic magic = identifyFile(bytes);
  return magic == FileMagic::Elf || magic == FileMagic::MachO ||
         magic == FileMagic::Wasm;
}

} // namespace offbundle
