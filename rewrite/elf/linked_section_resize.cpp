// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Resizing a section of a linked ELF file (see the header for the layout):
// the layout chosen (linked_layout_choice.h), then every pointer into what
// moved patched and the output written.
#include "rewrite/elf/linked_section_resize.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "formats/elf/elf_object.h"
#include "rewrite/elf/linked_layout_choice.h"
#include "support/byte_order.h"
#include "support/byte_range.h"
#include "support/hex.h"
#include "support/input_edits.h"

namespace offbundle {
namespace {

using namespace linked_resize;

class Resizer : LayoutChooser {
public:
  Resizer(std::string_view file, const LinkedSectionResize &request,
          OutputPlan contents, const ElfObject &object)
      : LayoutChooser(file, request, std::move(contents), object) {}

  Result<OutputPlan> plan() {
    if (Status found = findSection(); !found.ok())
      return found.takeError();
    if (Status read = readProgramHeaders(); !read.ok())
      return read.takeError();
    if (Status located = locateSegment(); !located.ok())
      return located.takeError();
    findTableHome();
    if (Status chosen = chooseLayout(); !chosen.ok())
      return chosen.takeError();
    patchSectionHeaders();
    renumberSections();
    if (Status moved = movePointers(); !moved.ok())
      return moved.takeError();
    if (Status moved = moveBlockReferences(); !moved.ok())
      return moved.takeError();
    if (patches_.touches(section_->offset, tailStart()))
      return makeError("a table to update lies inside " + sectionName());
    // The block's bytes, with what was patched in them, before its old
    // place gives way to the table.
    const std::string block = block_.empty()
                                  ? std::string()
                                  : patches_.render(block_.offset, block_.end);
    writeHeaders();
    return emit(block);
  }

private:
  struct Placement {
    uint64_t address = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
  };

  // Where each section is once rewritten.
  Placement placementOf(size_t index) const {
    const ElfSection &section = object_.sections()[index];
    if (index == sectionIndex_)
      return {newAddress(), newOffset(), contentsSize_};
    if (block_.holdsSection(index))
      return {block_.movedAddress(section.address),
              block_.movedOffset(section.offset), section.size};
    if (section.offset > section_->offset && section.offset < tailStart())
      return {section.address, keptEnd(), section.size}; // empty, inside
    return {section.address, moved(section.offset), section.size};
  }

  // The section header table with every section's new place. Linkers
  // order it by file offset, and tools rely on that (patchelf 0.14 grows
  // the program header table over the sections it finds first in it): when
  // sections move past others, the table is ordered again, and every
  // section index in the file follows (renumberSections).
  void patchSectionHeaders() {
    const ElfHeader &header = object_.header();
    const auto &sections = object_.sections();
    std::vector<Placement> placements(sections.size());
    for (size_t i = 1; i < sections.size(); ++i)
      placements[i] = placementOf(i);
    std::vector<size_t> order(sections.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin() + (order.empty() ? 0 : 1), order.end(),
                     [&](size_t a, size_t b) {
                       return placements[a].offset < placements[b].offset;
                     });
    newIndex_.assign(sections.size(), 0);
    for (size_t position = 0; position < order.size(); ++position)
      newIndex_[order[position]] = position;
    renumbered_ = !std::is_sorted(order.begin(), order.end());
    if (!renumbered_) {
      newIndex_.clear();
      for (size_t i = 1; i < sections.size(); ++i) {
        const ElfSection &section = sections[i];
        const Placement &placement = placements[i];
        if (placement.offset == section.offset &&
            placement.size == section.size &&
            placement.address == section.address)
          continue;
        const uint64_t entry =
            header.sectionHeaderOffset + i * kShape.sectionHeaderSize;
        patches_.setWord(entry + kSectionField.addr, placement.address);
        patches_.setWord(entry + kSectionField.offset, placement.offset);
        patches_.setWord(entry + kSectionField.size, placement.size);
        if (i == sectionIndex_ && noBits_) {
          std::string type;
          appendLittleEndian(type, elf::kTypeProgBits, 4);
          patches_.set(entry + kSectionField.type, std::move(type));
        }
      }
    } else {
      std::string table;
      for (size_t old : order) {
        std::string entry(file_.substr(header.sectionHeaderOffset +
                                           old * kShape.sectionHeaderSize,
                                       kShape.sectionHeaderSize));
        if (old != 0) {
          const ElfSection &section = sections[old];
          const Placement &placement = placements[old];
          storeLittle(entry, kSectionField.addr, placement.address, 8);
          storeLittle(entry, kSectionField.offset, placement.offset, 8);
          storeLittle(entry, kSectionField.size, placement.size, 8);
          if (old == sectionIndex_ && noBits_)
            storeLittle(entry, kSectionField.type, elf::kTypeProgBits, 4);
          if (section.link != 0)
            storeLittle(entry, kSectionField.link, renumbered(section.link), 4);
          if (section.info != 0 && (section.type == elf::kTypeRela ||
                                    section.type == elf::kTypeRel ||
                                    (section.flags & elf::kFlagInfoLink)))
            storeLittle(entry, kSectionField.info, renumbered(section.info), 4);
        } else if (header.sectionNameTableIndex != 0 &&
                   loadLittle16(file_, kHeaderField.shstrndx) ==
                       elf::kSectionIndexExtended) {
          storeLittle(entry, kSectionField.link,
                      renumbered(header.sectionNameTableIndex), 4);
        }
        table += entry;
      }
      patches_.set(header.sectionHeaderOffset, std::move(table));
      if (loadLittle16(file_, kHeaderField.shstrndx) !=
          elf::kSectionIndexExtended) {
        std::string index;
        appendLittleEndian(index, renumbered(header.sectionNameTableIndex), 2);
        patches_.set(kHeaderField.shstrndx, std::move(index));
      }
    }
    if (header.sectionHeaderOffset >= tailStart())
      patches_.setWord(kHeaderField.shoff,
                       header.sectionHeaderOffset - movedBy_);
  }

  // A section index as it is once the table is ordered again; indices that
  // name no section (reserved ones, or out of range) stay.
  uint64_t renumbered(uint64_t index) const {
    return index < newIndex_.size() ? newIndex_[index] : index;
  }

  static void storeLittle(std::string &bytes, size_t at, uint64_t value,
                          unsigned width) {
    for (unsigned i = 0; i < width; ++i)
      bytes[at + i] = static_cast<char>(value >> (8 * i));
  }

  // Every section index in symbol tables (st_shndx, and the extended
  // indices of SHT_SYMTAB_SHNDX) and section groups, when the section
  // header table was ordered again.
  void renumberSections() {
    if (!renumbered_)
      return;
    for (const ElfSection &table : object_.sections()) {
      const std::string_view entries = object_.contents(table);
      if (table.type == elf::kTypeSymbolTable ||
          table.type == elf::kTypeDynamicSymbols) {
        for (uint64_t at = 0; at + kShape.symbolSize <= entries.size();
             at += kShape.symbolSize) {
          const uint16_t index = loadLittle16(entries, at + 6);
          if (index == 0 || index >= elf::kSectionIndexLoReserve ||
              renumbered(index) == index)
            continue;
          std::string field;
          appendLittleEndian(field, renumbered(index), 2);
          patches_.set(table.offset + at + 6, std::move(field));
        }
      } else if (table.type == elf::kTypeSymbolIndexTable ||
                 table.type == elf::kTypeGroup) {
        // Group sections start with a flag word.
        for (uint64_t at = table.type == elf::kTypeGroup ? 4 : 0;
             at + 4 <= entries.size(); at += 4) {
          const uint32_t index = loadLittle32(entries, at);
          if (renumbered(index) == index)
            continue;
          std::string field;
          appendLittleEndian(field, renumbered(index), 4);
          patches_.set(table.offset + at, std::move(field));
        }
      }
    }
  }

  // The new program header table: the holding segment shrunk, split or
  // gone, later offsets moved, the block's segments moved with it, a
  // segment added for grown contents, PT_PHDR at home.
  std::vector<ProgramHeader> newProgramHeaders() const {
    const ProgramHeader &home = segments_[tableHome_ ? homeLoad_ : 0];
    std::vector<ProgramHeader> table;
    for (size_t i = 0; i < segments_.size(); ++i) {
      ProgramHeader segment = segments_[i];
      if (segment.type == elf::kSegmentNull)
        continue; // spare entries go to the end
      if (segment.offset >= tailStart())
        segment.offset -= movedBy_;
      if (i == load_) {
        if (split_) {
          segment.filesz = segment.memsz = keptEnd() - segment.offset;
          if (!dropLoad_)
            table.push_back(segment);
          table.push_back(tail_);
        } else if (!dropLoad_) {
          if (movedBy_ != 0 || legacyTable_)
            segment.filesz = segment.memsz = keptEnd() - segment.offset;
          table.push_back(segment);
        }
      } else {
        if (segment.type != elf::kSegmentLoad && !block_.empty() &&
            segment.filesz != 0 && segment.offset >= block_.offset &&
            segment.offset < block_.end) {
          segment.offset = block_.movedOffset(segment.offset);
          segment.vaddr = block_.movedAddress(segment.vaddr);
          segment.paddr = block_.movedAddress(segment.paddr);
        }
        if (segment.type == elf::kSegmentProgramHeaders && tableHome_) {
          segment.offset = kShape.headerSize;
          segment.vaddr = home.vaddr + kShape.headerSize;
          segment.paddr = home.paddr + kShape.headerSize;
          segment.filesz = segment.memsz = tableSize(tableSlots());
        }
        table.push_back(segment);
      }
      if (i == lastLoad_ && relocate_)
        table.push_back(added_);
    }
    table.resize(tableSlots());
    return table;
  }

  // Entries of the written table: those in use, then spare PT_NULL ones.
  // In an executable, a table at home never shrinks, and fills what the
  // block left (see isSharedObject); spare entries also serve the next
  // rewrite. A shared object's table at home has no spare entries: the
  // zeros after it are room enough for the next rewrite.
  uint64_t tableSlots() const {
    uint64_t slots = entries_;
    if (tableHome_ && isSharedObject())
      return slots;
    if (!tableHome_ || tableAtHome_)
      slots = std::max<uint64_t>(slots, segments_.size());
    if (tableHome_ && !block_.empty())
      slots = std::max(slots,
                       std::min<uint64_t>((block_.roomEnd - kShape.headerSize) /
                                              kProgramHeaderSize,
                                          kMostProgramHeaders));
    return slots;
  }

  void writeHeaders() {
    const ElfHeader &header = object_.header();
    const std::vector<ProgramHeader> table = newProgramHeaders();
    std::string encoded;
    for (const ProgramHeader &segment : table)
      segment.append(encoded);
    if (!tableHome_) {
      patches_.set(header.programHeaderOffset, std::move(encoded));
      return;
    }
    // Home: the table, then zeros over what the block left and the old
    // table when it was elsewhere.
    const uint64_t oldTableEnd =
        header.programHeaderOffset + tableSize(segments_.size());
    uint64_t cleared = kShape.headerSize + encoded.size();
    if (!block_.empty())
      cleared = std::max(cleared, block_.end);
    if (tableAtHome_)
      cleared = std::max(cleared, oldTableEnd);
    else
      patches_.set(header.programHeaderOffset,
                   std::string(tableSize(segments_.size()), '\0'));
    encoded.resize(cleared - kShape.headerSize, '\0');
    patches_.set(kShape.headerSize, std::move(encoded));
    patches_.setWord(kHeaderField.phoff, kShape.headerSize);
    std::string count;
    appendLittleEndian(count, table.size(), 2);
    patches_.set(kHeaderField.phnum, std::move(count));
  }

  Result<OutputPlan> emit(const std::string &block) {
    OutputPlan plan;
    patches_.emit(plan, 0, section_->offset);
    if (!relocate_)
      plan.append(std::move(contents_));
    const uint64_t restOffset = tailStart() - movedBy_;
    if (split_ && !block.empty()) {
      plan.addZeros(block_.newOffset - keptEnd());
      plan.addBytes(block);
      plan.addZeros(restOffset - (block_.newOffset + block.size()));
    } else {
      plan.addZeros(restOffset - keptEnd());
    }
    patches_.emit(plan, tailStart(), file_.size());
    if (relocate_) {
      if (!block.empty() && !split_) {
        plan.addZeros(block_.newOffset - plan.size());
        plan.addBytes(block);
      }
      plan.addZeros(contentsOffset_ - plan.size());
      plan.append(std::move(contents_));
    }
    return plan;
  }

  // Where an address inside the section goes: to the move that starts at
  // or before it, as far into it; never past the new end.
  std::optional<uint64_t> movedAddress(uint64_t address) const {
    auto after =
        std::upper_bound(request_.moves.begin(), request_.moves.end(), address,
                         [](uint64_t value, const AddressMove &move) {
                           return value < move.from;
                         });
    if (after == request_.moves.begin())
      return std::nullopt;
    const AddressMove &move = *std::prev(after);
    return newAddress() +
           std::min(move.toOffset + (address - move.from), contentsSize_);
  }

  std::optional<uint64_t> exactMove(uint64_t address) const {
    auto found =
        std::lower_bound(request_.moves.begin(), request_.moves.end(), address,
                         [](const AddressMove &move, uint64_t value) {
                           return move.from < value;
                         });
    if (found == request_.moves.end() || found->from != address)
      return std::nullopt;
    return newAddress() + found->toOffset;
  }

  bool insideSection(uint64_t address) const {
    return address >= section_->address &&
           address - section_->address < section_->size;
  }

  Status movePointers() {
    for (const ElfSection &table : object_.sections()) {
      if (table.type == elf::kTypeRela) {
        if (Status moved = moveRelocations(table); !moved.ok())
          return moved;
      } else if (table.type == elf::kTypeSymbolTable ||
                 table.type == elf::kTypeDynamicSymbols) {
        moveSymbols(table);
      }
    }
    for (uint64_t field : request_.pointerFields) {
      auto offset = fileOffsetOf(field);
      if (!offset)
        continue;
      if (auto to = exactMove(loadLittle64(file_, *offset)))
        patches_.setWord(*offset, *to);
    }
    return Status::success();
  }

  Status moveRelocations(const ElfSection &table) {
    const std::string_view entries = object_.contents(table);
    for (uint64_t at = 0; at + kShape.relaSize <= entries.size();
         at += kShape.relaSize) {
      const uint64_t where = loadLittle64(entries, at);
      if (block_.holdsAddress(where))
        patches_.setWord(table.offset + at, block_.movedAddress(where));
      const uint32_t type =
          static_cast<uint32_t>(loadLittle64(entries, at + kRelaField.info));
      if (type != elf::kRelocationRelativeX86_64 &&
          type != elf::kRelocationRelativeAArch64)
        continue;
      const uint64_t addend = loadLittle64(entries, at + kRelaField.addend);
      if (block_.holdsAddress(addend)) {
        patches_.setWord(table.offset + at + kRelaField.addend,
                         block_.movedAddress(addend));
        continue;
      }
      if (!insideSection(addend))
        continue;
      auto to = exactMove(addend);
      if (!to)
        return makeError("the relocation of " + hexNumber(where) +
                         " points into " + sectionName() + " at " +
                         hexNumber(addend) + ", at no bundle's start");
      patches_.setWord(table.offset + at + kRelaField.addend, *to);
    }
    return Status::success();
  }

  void moveSymbols(const ElfSection &table) {
    const std::string_view entries = object_.contents(table);
    for (uint64_t at = 0; at + kShape.symbolSize <= entries.size();
         at += kShape.symbolSize) {
      const uint16_t index = loadLittle16(entries, at + 6);
      const uint64_t value = loadLittle64(entries, at + kSymbolField.value);
      if (index != sectionIndex_) {
        if (block_.holdsSection(index))
          patches_.setWord(table.offset + at + kSymbolField.value,
                           block_.movedAddress(value));
        continue;
      }
      if (value < section_->address ||
          value - section_->address > section_->size)
        continue;
      // A symbol before the first move (no bundle there) keeps its offset
      // into the section.
      const uint64_t to = movedAddress(value).value_or(
          newAddress() + (value - section_->address));
      if (to != value)
        patches_.setWord(table.offset + at + kSymbolField.value, to);
      // A symbol spanning the whole section still does; none reaches past
      // its new end.
      const uint64_t size = loadLittle64(entries, at + kSymbolField.size);
      const uint64_t end = newAddress() + contentsSize_;
      uint64_t newSize = size;
      if (value == section_->address && size == section_->size)
        newSize = contentsSize_;
      else if (size > end - to)
        newSize = end - to;
      if (newSize != size)
        patches_.setWord(table.offset + at + kSymbolField.size, newSize);
    }
  }

  // The dynamic entries that address the block follow it.
  Status moveBlockReferences() {
    if (block_.empty())
      return Status::success();
    for (const ProgramHeader &segment : segments_) {
      if (segment.type != elf::kSegmentDynamic)
        continue;
      if (!rangeFits(segment.offset, segment.filesz, file_.size()))
        return makeError("the dynamic segment lies outside the file");
      for (uint64_t at = segment.offset;
           at + kDynamicField.size <= segment.offset + segment.filesz;
           at += kDynamicField.size) {
        const uint64_t tag = loadLittle64(file_, at);
        if (tag == 0)
          break;
        const uint64_t value = loadLittle64(file_, at + kDynamicField.value);
        if (isDynamicAddressTag(tag) && block_.holdsAddress(value))
          patches_.setWord(at + kDynamicField.value,
                           block_.movedAddress(value));
      }
    }
    return Status::success();
  }

  // The file offset of an 8-byte field at `address`, in a section with
  // contents; nothing when no section holds it.
  std::optional<uint64_t> fileOffsetOf(uint64_t address) const {
    for (const ElfSection &section : object_.sections())
      if (section.hasContents() && section.type != kElfSectionTypeNull &&
          address >= section.address && section.size >= 8 &&
          address - section.address <= section.size - 8 &&
          // In the file, whatever the header claims.
          rangeFits(section.offset, address - section.address + 8,
                    file_.size()))
        return section.offset + (address - section.address);
    return std::nullopt;
  }
};

} // namespace

Result<OutputPlan> planLinkedSectionResize(std::string_view file,
                                           const LinkedSectionResize &request,
                                           OutputPlan contents) {
  auto object = parseElfObject(file);
  if (!object)
    return object.takeError();
  return planLinkedSectionResize(*object, request, std::move(contents));
}

Result<OutputPlan> planLinkedSectionResize(const ElfObject &object,
                                           const LinkedSectionResize &request,
                                           OutputPlan contents) {
  const ElfHeader &header = object.header();
  if (!header.is64Bit || !header.isLittleEndian ||
      (header.fileType != elf::kFileTypeExecutable &&
       header.fileType != elf::kFileTypeShared) ||
      header.programHeaderCount == 0)
    return makeError("only 64-bit little-endian executables and shared "
                     "libraries are rewritten this way");
  if (!std::is_sorted(request.moves.begin(), request.moves.end(),
                      [](const AddressMove &a, const AddressMove &b) {
                        return a.from < b.from;
                      }))
    return makeError("address moves must be sorted");
  Resizer resizer(object.bytes(), request, std::move(contents), object);
  return resizer.plan();
}

} // namespace offbundle
