// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Finding the offload binaries in llvm-offload-binary's input (see
// offload_inputs.h). Inputs are told apart by their magic, as LLVM's
// identify_magic does; COFF objects are searched too, by section name, since
// COFF has no section types.

#include "packager/offload_inputs.h"

#include "archive/ar_reading.h"
#include "bitcode/embedded_objects.h"
#include "formats/coff/coff_object.h"
#include "formats/elf/elf_object.h"
#include "formats/host_kinds.h"
#include "support/offload_sections.h"

namespace offbundle {
namespace {

// LLVM finds `.llvm.offloading` sections by their type
// (kElfSectionTypeLlvmOffloading, formats/elf/elf_file.h), not by this name.

enum class InputKind {
  OffloadBinary,
  Elf,
  OtherElf,
  Coff,
  Archive,
  Bitcode,
  Other
};

// identify_magic(), as far as extractOffloadBinaries cares: of the host
// kinds, LLVM looks into offload binaries, archives, bitcode, COFF objects
// and ELF files that are objects, programs or libraries.
InputKind classify(std::string_view bytes) {
  switch (classifyHost(bytes)) {
  case HostKind::OffloadBinary:
    return InputKind::OffloadBinary;
  case HostKind::Archive:
    return InputKind::Archive;
  case HostKind::Bitcode:
    return InputKind::Bitcode;
  case HostKind::CoffObject:
    return InputKind::Coff;
  case HostKind::Elf:
    break;
  default:
    return InputKind::Other;
  }
  if (bytes.size() < 18)
    return InputKind::Other;
  // e_type, read in the file's byte order: relocatable, executable and
  // shared objects carry sections LLVM looks into; core files and anything
  // else do not.
  const bool bigEndian = bytes[5] == 2;
  const auto high = static_cast<uint8_t>(bytes[bigEndian ? 16 : 17]);
  const auto low = static_cast<uint8_t>(bytes[bigEndian ? 17 : 16]);
  return high == 0 && low >= 1 && low <= 3 ? InputKind::Elf
                                           : InputKind::OtherElf;
}

class Finder {
public:
  Finder(std::vector<FoundOffloadBinary> &found,
         std::vector<std::shared_ptr<const std::string>> &storage)
      : found_(found), storage_(storage) {}

  Status add(std::string_view bytes, const std::string &name,
             const std::string &archiveFolderPath, bool topLevel) {
    switch (classify(bytes)) {
    case InputKind::OffloadBinary:
      return addBinaries(bytes, name, quotedFileName(name));
    case InputKind::Elf:
      return addElf(bytes, name);
    case InputKind::Coff:
      return addCoff(bytes, name);
    case InputKind::Archive:
      return addArchive(bytes, archiveFolderPath);
    case InputKind::Bitcode:
      return addBitcode(bytes, name);
    case InputKind::OtherElf:
      return Status::success();
    case InputKind::Other:
      break;
    }
    if (!topLevel)
      return Status::success();
    return fileError(name, "not an offload binary, ELF or COFF object, "
                           "archive or LLVM bitcode file");
  }

private:
  Status addBinaries(std::string_view bytes, const std::string &source,
                     const std::string &context) {
    auto binaries = splitOffloadBinaries(bytes, context);
    if (!binaries)
      return binaries.takeError();
    for (OffloadBinaryView &binary : *binaries)
      found_.push_back({std::move(binary), source});
    return Status::success();
  }

  Status addElf(std::string_view bytes, const std::string &name) {
    auto object = parseElfObject(bytes);
    if (!object)
      return fileError(name, object.error());
    const auto &sections = object->sections();
    for (size_t index = 0; index < sections.size(); ++index) {
      const ElfSection &section = sections[index];
      if (section.type != kElfSectionTypeLlvmOffloading)
        continue;
      const std::string context = quotedFileName(name) + ": section " +
                                  std::to_string(index) + " '" +
                                  std::string(section.name) + "'";
      if (Status status = addBinaries(object->contents(section), name, context);
          !status.ok())
        return status;
    }
    return Status::success();
  }

  // COFF has no section types: LLVM goes by the name.
  Status addCoff(std::string_view bytes, const std::string &name) {
    auto sections = readCoffSections(bytes);
    if (!sections)
      return fileError(name, sections.error());
    for (size_t index = 0; index < sections->size(); ++index) {
      const CoffSection &section = (*sections)[index];
      if (!section.name.starts_with(kLlvmOffloadingSection))
        continue;
      const std::string context = quotedFileName(name) + ": section " +
                                  std::to_string(index + 1) + " '" +
                                  section.name + "'";
      if (Status status = addBinaries(section.contents, name, context);
          !status.ok())
        return status;
    }
    return Status::success();
  }

  Status addArchive(std::string_view bytes, const std::string &folderPath) {
    // LLVM's message for a damaged archive names no file; a thin member
    // that cannot be read is named by the message itself.
    auto members = readArchive(bytes, folderPath);
    if (!members)
      return members.takeError();
    for (const ArchiveMember &member : *members) {
      // Thin members' bytes live in memory the member shares; keep it.
      if (member.externalContents)
        storage_.push_back(member.externalContents);
      // LLVM names a member's buffer after the member; members are never
      // thin archives themselves, so nested paths resolve from the same
      // folder.
      if (Status status = add(member.bytes, member.name, folderPath,
                              /*topLevel=*/false);
          !status.ok())
        return status;
    }
    return Status::success();
  }

  Status addBitcode(std::string_view bytes, const std::string &name) {
    auto objects = findEmbeddedOffloadingObjects(bytes);
    if (!objects)
      return fileError(name, objects.error());
    for (EmbeddedObject &object : *objects) {
      storage_.push_back(object.contents);
      const std::string context =
          quotedFileName(name) + ": global '" + object.globalName + "'";
      if (Status status = addBinaries(*object.contents, name, context);
          !status.ok())
        return status;
    }
    return Status::success();
  }

  std::vector<FoundOffloadBinary> &found_;
  std::vector<std::shared_ptr<const std::string>> &storage_;
};

} // namespace

Result<std::vector<FoundOffloadBinary>>
findOffloadBinaries(std::string_view bytes, const std::string &path,
                    std::vector<std::shared_ptr<const std::string>> &storage) {
  std::vector<FoundOffloadBinary> found;
  Finder finder(found, storage);
  const std::string name = path == "-" ? "<stdin>" : path;
  if (Status status = finder.add(bytes, name, path, /*topLevel=*/true);
      !status.ok())
    return status.takeError();
  return found;
}

} // namespace offbundle
