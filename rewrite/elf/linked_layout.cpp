// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The layout rules of linked ELF files (see the header).
#include "rewrite/elf/linked_layout.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "formats/elf/elf_object.h"
#include "support/byte_order.h"
#include "support/byte_range.h"
#include "support/hex.h"

namespace offbundle {
namespace {

constexpr uint64_t kProgramHeaderSize = ElfProgramHeader64::kSize;
constexpr uint64_t kElfHeaderSize = ElfShape::of(true).headerSize;

// A program header and its place in the table, for messages.
struct Segment : ElfProgramHeader64 {
  size_t index = 0;
  std::string name() const { return "program header " + std::to_string(index); }
};

Error broken(const std::string &what) {
  return makeError("the file's layout breaks what strip, objcopy and the "
                   "loader rely on: " +
                       what,
                   ErrorCode::DamagedInput);
}

// The program headers as the rules look at them.
struct Segments {
  std::vector<Segment> loads;
  std::optional<Segment> phdr;
  bool executable = false;
};

Result<Segments> readSegments(std::string_view file, const ElfHeader &header,
                              uint64_t tableOffset) {
  Segments segments;
  segments.executable = header.fileType == elf::kFileTypeExecutable;
  for (uint64_t i = 0; i < header.programHeaderCount; ++i) {
    const uint64_t at = tableOffset + i * kProgramHeaderSize;
    Segment segment;
    static_cast<ElfProgramHeader64 &>(segment) =
        ElfProgramHeader64::read(file, at);
    segment.index = i;
    if (segment.offset > UINT64_MAX - segment.filesz ||
        segment.vaddr > UINT64_MAX - segment.memsz)
      return broken(segment.name() + " wraps around");
    if (segment.type == elf::kSegmentLoad)
      segments.loads.push_back(segment);
    else if (segment.type == elf::kSegmentInterpreter)
      segments.executable = true;
    else if (segment.type == elf::kSegmentProgramHeaders)
      segments.phdr = segment;
  }
  if (segments.loads.empty())
    return broken("no PT_LOAD segment");
  return segments;
}

// Rule 4: order, congruence, no page mapped twice with different bytes.
Status checkLoadOrder(const std::vector<Segment> &loads) {
  const Segment *previous = nullptr;
  for (const Segment &load : loads) {
    if (load.align > 1 && ((load.align & (load.align - 1)) != 0 ||
                           (load.vaddr - load.offset) % load.align != 0))
      return broken(load.name() + " maps offset " + hexNumber(load.offset) +
                    " at " + hexNumber(load.vaddr) +
                    ", not congruent modulo its alignment " +
                    hexNumber(load.align));
    if (previous) {
      if (load.vaddr < previous->vaddr + previous->memsz)
        return broken(load.name() + " starts below the end of " +
                      previous->name());
      const uint64_t page = std::max<uint64_t>(load.align, 1);
      const bool sharePage =
          previous->memsz != 0 &&
          (previous->vaddr + previous->memsz - 1) / page == load.vaddr / page;
      if (sharePage &&
          load.vaddr - load.offset != previous->vaddr - previous->offset)
        return broken(load.name() + " and " + previous->name() +
                      " map different file bytes into one page");
    }
    previous = &load;
  }
  return Status::success();
}

// Rules 1 to 3: where the table is, PT_PHDR, and AT_PHDR for old kernels.
Status checkTablePlace(const Segments &segments, uint64_t tableOffset,
                       uint64_t tableSize) {
  const Segment *table = nullptr;
  for (const Segment &load : segments.loads)
    if (load.holdsFile(tableOffset, tableSize) &&
        (load.offset == tableOffset ||
         (load.offset == 0 && tableOffset == kElfHeaderSize)))
      table = &load;
  if (!table)
    return broken("the program header table (at " + hexNumber(tableOffset) +
                  ") neither starts a PT_LOAD nor follows the ELF header in "
                  "the first");
  const uint64_t tableAddress = table->addressOf(tableOffset);
  const std::optional<Segment> &phdr = segments.phdr;
  if (phdr && (phdr->offset != tableOffset || phdr->filesz != tableSize ||
               phdr->vaddr != tableAddress))
    return broken("PT_PHDR (offset " + hexNumber(phdr->offset) + ", address " +
                  hexNumber(phdr->vaddr) + ") is not the program header " +
                  "table (offset " + hexNumber(tableOffset) + ", address " +
                  hexNumber(tableAddress) + ")");
  const Segment &first = segments.loads.front();
  if (segments.executable &&
      tableAddress != first.vaddr - first.offset + tableOffset)
    return broken("the program header table is mapped at " +
                  hexNumber(tableAddress) +
                  ", not at the load address plus "
                  "e_phoff (" +
                  hexNumber(first.vaddr - first.offset + tableOffset) +
                  "), where kernels before 5.18 look for it");
  return Status::success();
}

// Rules 5 and 6: every allocated section inside a segment that maps it at
// its address, in the file in section header order.
Status checkAllocatedSections(const std::vector<ElfSection> &sections,
                              const std::vector<Segment> &loads) {
  uint64_t lastOffset = 0;
  std::string lastName;
  for (size_t i = 1; i < sections.size(); ++i) {
    const ElfSection &section = sections[i];
    if (!(section.flags & elf::kFlagAlloc) || section.size == 0)
      continue;
    const std::string name =
        "section " + std::to_string(i) + " (" + std::string(section.name) + ")";
    if (!section.hasContents()) {
      if (section.flags & elf::kFlagTls)
        continue;
      bool held = false;
      for (const Segment &load : loads)
        held = held || load.holdsMemory(section.address, section.size);
      if (!held)
        return broken(name + " lies in no PT_LOAD's memory");
      continue;
    }
    bool held = false;
    for (const Segment &load : loads)
      held = held || (load.holdsFile(section.offset, section.size) &&
                      load.addressOf(section.offset) == section.address);
    if (!held)
      return broken(name + " (offset " + hexNumber(section.offset) +
                    ", address " + hexNumber(section.address) +
                    ") lies in no PT_LOAD that maps it there");
    if (section.offset < lastOffset)
      return broken(name + " comes after " + lastName +
                    " in the section header table, but before it in the "
                    "file");
    lastOffset = section.offset;
    lastName = name;
  }
  return Status::success();
}

} // namespace

Status checkLinkedLayout(std::string_view file) {
  auto object = parseElfObject(file);
  if (!object)
    return object.takeError();
  const ElfHeader &header = object->header();
  if (!header.is64Bit || !header.isLittleEndian ||
      header.programHeaderCount == 0)
    return Status::success();
  const uint64_t tableOffset = header.programHeaderOffset;
  const uint64_t tableSize = header.programHeaderCount * kProgramHeaderSize;
  if (loadLittle16(file, ElfHeaderFields::of(true).phentsize) !=
          kProgramHeaderSize ||
      !rangeFits(tableOffset, tableSize, file.size()))
    return broken("the program header table lies outside the file");
  auto segments = readSegments(file, header, tableOffset);
  if (!segments)
    return segments.takeError();
  if (Status status = checkLoadOrder(segments->loads); !status.ok())
    return status;
  if (Status status = checkTablePlace(*segments, tableOffset, tableSize);
      !status.ok())
    return status;
  return checkAllocatedSections(object->sections(), segments->loads);
}

} // namespace offbundle
