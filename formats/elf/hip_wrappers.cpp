// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// HIP fat binary wrappers (see the header for the layout).
#include "formats/elf/hip_wrappers.h"

#include <unordered_map>

#include "formats/elf/elf_object.h"
#include "support/byte_order.h"
#include "support/offload_sections.h"

namespace offbundle {
namespace {

// Elf64_Rela, as formats/elf/elf_file.h declares it.
constexpr uint64_t kRelaSize = ElfShape::of(true).relaSize;
constexpr ElfRelaFields kRelaField = ElfRelaFields::of(true);

// The addends of the RELATIVE relocations of every SHT_RELA section, by the
// address they patch.
Result<std::unordered_map<uint64_t, uint64_t>>
relativeAddends(const ElfObject &object) {
  std::unordered_map<uint64_t, uint64_t> addends;
  for (const ElfSection &section : object.sections()) {
    if (section.type != elf::kTypeRela)
      continue;
    if (section.size % kRelaSize != 0)
      return makeError("relocation section '" + std::string(section.name) +
                       "' is not a whole number of entries");
    const std::string_view table = object.contents(section);
    for (uint64_t at = 0; at + kRelaSize <= table.size(); at += kRelaSize) {
      const uint32_t type =
          static_cast<uint32_t>(loadLittle64(table, at + kRelaField.info));
      if (type == elf::kRelocationRelativeX86_64 ||
          type == elf::kRelocationRelativeAArch64)
        addends[loadLittle64(table, at + kRelaField.offset)] =
            loadLittle64(table, at + kRelaField.addend);
    }
  }
  return addends;
}

} // namespace

Result<std::optional<HipWrappers>> readHipWrappers(std::string_view bytes) {
  if (!isElf(bytes))
    return std::optional<HipWrappers>();
  auto object = parseElfObject(bytes);
  if (!object)
    return object.takeError();
  return readHipWrappers(*object);
}

Result<std::optional<HipWrappers>> readHipWrappers(const ElfObject &object) {
  const ElfHeader &header = object.header();
  if (!header.is64Bit || !header.isLittleEndian ||
      header.programHeaderCount == 0)
    return std::optional<HipWrappers>();
  const ElfSection *wrapperSection = nullptr;
  const ElfSection *fatbin = nullptr;
  for (const ElfSection &section : object.sections()) {
    if (section.name == kHipWrapperSection)
      wrapperSection = &section;
    if (section.name == kHipFatbinSection)
      fatbin = &section;
  }
  if (!wrapperSection || !fatbin || !wrapperSection->hasContents())
    return std::optional<HipWrappers>();
  if (fatbin->address + fatbin->size < fatbin->address)
    return makeError(".hip_fatbin's addresses wrap around the address space");
  if (wrapperSection->size % kHipWrapperSize != 0)
    return makeError(".hipFatBinSegment holds " +
                     std::to_string(wrapperSection->size) +
                     " bytes, not a whole number of 24-byte wrappers");
  auto addends = relativeAddends(object);
  if (!addends)
    return addends.takeError();

  HipWrappers found;
  found.fatbinStart = fatbin->address;
  found.fatbinEnd = fatbin->address + fatbin->size;
  found.fatbinOffset = fatbin->offset;
  const std::string_view contents = object.contents(*wrapperSection);
  for (uint64_t at = 0; at + kHipWrapperSize <= contents.size();
       at += kHipWrapperSize) {
    HipWrapper wrapper;
    wrapper.address = wrapperSection->address + at;
    wrapper.magic = loadLittle32(contents, at);
    wrapper.version = loadLittle32(contents, at + kHipWrapperVersionOffset);
    auto relocated = addends->find(wrapper.address + kHipWrapperBinaryOffset);
    wrapper.binary = relocated != addends->end()
                         ? relocated->second
                         : loadLittle64(contents, at + kHipWrapperBinaryOffset);
    wrapper.reserved = loadLittle64(contents, at + kHipWrapperReservedOffset);
    found.wrappers.push_back(wrapper);
  }
  return std::optional<HipWrappers>(std::move(found));
}

} // namespace offbundle
