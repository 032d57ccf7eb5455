// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fat objects (see fat_object.h): reading and writing the bundle sections of an
// ELF host object through elf_object.h's write plans, and the llvm-objcopy
// commands --### prints, which are never run.

#include "formats/fat_object.h"
#include "support/output_file.h"

#include <random>

namespace offbundle {
namespace {

// A name like the temporary files LLVM creates for llvm-objcopy
// (clang-offload-bundler-%%%%%%.tmp in the temporary folder).
std::string temporaryFileName(const std::string &folder) {
  std::random_device seed;
  std::mt19937 generator(seed());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = folder + "/clang-offload-bundler-";
  for (int i = 0; i < 6; ++i)
    name += kHex[generator() % 16];
  return name + ".tmp";
}

std::string quoted(std::string_view argument) {
  return "\"" + std::string(argument) + "\"";
}

} // namespace

Result<std::unique_ptr<FatObjectReader>>
FatObjectReader::open(std::string_view contents,
                      const ExternalCommandSettings *printCommands,
                      std::string_view inputPath, std::string *commandLog) {
  auto object = parseElfObject(contents);
  if (!object)
    return object.takeError();
  std::unique_ptr<FatObjectReader> reader(
      new FatObjectReader(std::move(*object)));
  // Commands are printed only where they have somewhere to go.
  reader->printCommands_ = commandLog ? printCommands : nullptr;
  reader->inputPath_ = std::string(inputPath);
  reader->commandLog_ = commandLog;
  return reader;
}

Result<std::optional<std::string_view>> FatObjectReader::nextEntry() {
  const auto &sections = object_.sections();
  while (nextSection_ < sections.size()) {
    const ElfSection &section = sections[nextSection_++];
    if (section.name.substr(0, kBundleMagic.size()) == kBundleMagic) {
      current_ = &section;
      return std::optional<std::string_view>(
          section.name.substr(kBundleMagic.size()));
    }
  }
  return std::optional<std::string_view>();
}

Result<EntryPayload> FatObjectReader::readEntry() {
  EntryPayload payload;
  std::string_view contents = object_.contents(*current_);
  // LLVM recognises the host entry by its content alone: one zero byte.
  if (contents.size() == 1 && contents.front() == '\0') {
    if (printCommands_ != nullptr) {
      *commandLog_ += objcopyHostExtractionCommand(*printCommands_, inputPath_);
      payload.rewrittenObject = std::make_shared<ElfWritePlan>();
      return payload;
    }
    auto plan = planHostObjectExtraction(object_.bytes());
    if (!plan)
      return plan.takeError();
    payload.rewrittenObject =
        std::make_shared<const ElfWritePlan>(std::move(*plan));
    return payload;
  }
  if (current_->hasContents()) {
    payload.offset = current_->offset;
    payload.size = current_->size;
  }
  return payload;
}

Status writeElfPlan(OutputFile &output, const ElfWritePlan &plan,
                    const std::vector<const InputFile *> &payloadFiles) {
  uint64_t position = 0;
  for (const ElfOutputChunk &chunk : plan.chunks()) {
    if (chunk.offset > position)
      if (Status status = output.writeZeros(chunk.offset - position);
          !status.ok())
        return status;
    Status status = Status::success();
    const InputFile *file =
        chunk.payloadIndex >= 0 &&
                static_cast<size_t>(chunk.payloadIndex) < payloadFiles.size()
            ? payloadFiles[static_cast<size_t>(chunk.payloadIndex)]
            : nullptr;
    if (file != nullptr && chunk.bytes.size() == file->size())
      status = output.copyFrom(*file, 0, file->size());
    else
      status = output.write(chunk.bytes);
    if (!status.ok())
      return status;
    position = chunk.offset + chunk.bytes.size();
  }
  if (plan.size() > position)
    return output.writeZeros(plan.size() - position);
  return Status::success();
}

Status writeFatObject(OutputFile &output, const InputFile &host,
                      const std::vector<EntryToWrite> &entries,
                      size_t hostIndex) {
  static constexpr char kHostMarker[1] = {'\0'};
  std::vector<OffloadBundleSection> sections;
  std::vector<const InputFile *> payloadFiles;
  for (size_t i = 0; i < entries.size(); ++i) {
    bool isHost = i == hostIndex;
    sections.emplace_back(std::string(entries[i].id),
                          isHost ? std::string_view(kHostMarker, 1)
                                 : entries[i].payload->contents());
    payloadFiles.push_back(isHost ? nullptr : entries[i].payload);
  }
  auto plan = planOffloadBundleSections(host.contents(), sections);
  if (!plan)
    return fileError(host.path(), plan.error());
  return writeElfPlan(output, *plan, payloadFiles);
}

std::string objcopyBundleCommand(const ExternalCommandSettings &settings,
                                 const std::vector<std::string> &targetNames,
                                 const std::vector<std::string> &inputNames,
                                 size_t hostIndex,
                                 const std::string &outputName) {
  std::string command = quoted(settings.objcopy);
  for (size_t i = 0; i < targetNames.size(); ++i) {
    std::string section = std::string(kBundleMagic) + targetNames[i];
    std::string file = i == hostIndex
                           ? temporaryFileName(settings.temporaryFolder)
                           : inputNames[i];
    command += " " + quoted("--add-section=" + section + "=" + file);
    command +=
        " " + quoted("--set-section-flags=" + section + "=readonly,exclude");
  }
  command += " " + quoted("--") + " " + quoted(inputNames.at(hostIndex)) + " " +
             quoted(outputName) + "\n";
  return command;
}

std::string
objcopyHostExtractionCommand(const ExternalCommandSettings &settings,
                             std::string_view inputName) {
  return quoted(settings.objcopy) + " " + quoted("--regex") + " " +
         quoted("--remove-section=__CLANG_OFFLOAD_BUNDLE__.*") + " " +
         quoted("--") + " " + quoted(inputName) + " " +
         quoted(temporaryFileName(settings.temporaryFolder)) + "\n";
}

} // namespace offbundle
