// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Fat objects (-type=o with an object-file host): the host object with one
// section per bundle entry, named "__CLANG_OFFLOAD_BUNDLE__<entry id>", flagged
// SHF_EXCLUDE so that linkers drop them. The host entry's section holds a
// single zero byte; unbundling it yields the object without any bundle
// section. LLVM's bundler runs llvm-objcopy for both directions; we rewrite
// the ELF file ourselves into the same bytes (formats/elf/elf_object.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "formats/bundle_format.h"
#include "formats/elf/elf_object.h"
#include "formats/objcopy/objcopy.h"
#include "support/output_file.h"

namespace offbundle {

// What --### prints for the external commands LLVM's bundler would run:
// the llvm-objcopy it would find and the folder of its temporary files
// (the command line finds both, from the tool's own folder, PATH and
// TMPDIR).
struct ExternalCommandSettings {
  std::string objcopy = "llvm-objcopy";
  std::string temporaryFolder = "/tmp";
};

// Walks the bundle sections of an ELF object in section order.
class FatObjectReader final : public BundleReader {
public:
  static Result<std::unique_ptr<FatObjectReader>>
  open(std::string_view contents, const ExternalCommandSettings *printCommands,
       std::string_view inputPath, std::string *commandLog);

  Result<std::optional<std::string_view>> nextEntry() override;
  Result<EntryPayload> readEntry() override;
  Status skipEntry() override { return Status::success(); }

  // The section of the entry the last nextEntry() moved to: its raw range,
  // for listings (readEntry gives the host entry as a rewritten object).
  const ElfSection &currentSection() const { return *current_; }

private:
  FatObjectReader(ElfObject object) : object_(std::move(object)) {}
  ElfObject object_;
  size_t nextSection_ = 0;
  const ElfSection *current_ = nullptr;
  // With --### (settings given), the command LLVM would run is logged
  // instead, and the host entry comes out empty (LLVM then reads back an
  // empty temporary file).
  const ExternalCommandSettings *printCommands_ = nullptr;
  std::string inputPath_;
  std::string *commandLog_ = nullptr;
};

// Writes the fat object for `entries` (in target order; the host entry's
// payload is ignored and replaced by a single zero byte) around `host`.
Status writeFatObject(OutputFile &output, const InputFile &host,
                      const std::vector<EntryToWrite> &entries,
                      size_t hostIndex);

// Writes an ELF write plan, copying payload chunks from their files.
Status writeElfPlan(OutputFile &output, const ElfWritePlan &plan,
                    const std::vector<const InputFile *> &payloadFiles);

// The llvm-objcopy command lines LLVM 22's bundler would run, as it prints
// them for --###: each argument in double quotes, the program path first.
std::string objcopyBundleCommand(const ExternalCommandSettings &settings,
                                 const std::vector<std::string> &targetNames,
                                 const std::vector<std::string> &inputNames,
                                 size_t hostIndex,
                                 const std::string &outputName);
std::string
objcopyHostExtractionCommand(const ExternalCommandSettings &settings,
                             std::string_view inputName);

} // namespace offbundle
