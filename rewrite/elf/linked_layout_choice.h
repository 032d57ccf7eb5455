// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The first half of a resize (linked_resize_model.h): the input's section
// and program headers read, and the output's layout chosen: where the
// program header table lives, whether the holding segment is split, which
// block of sections moves out of the table's way, and how far the rest of
// the file moves. Internal to rewrite/elf/.
#pragma once

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

#include "rewrite/elf/linked_resize_model.h"
#include "support/byte_order.h"
#include "support/byte_range.h"
#include "support/hex.h"

namespace offbundle::linked_resize {

class LayoutChooser : protected ResizeModel {
protected:
  using ResizeModel::ResizeModel;

  Status findSection() {
    const auto &sections = object_.sections();
    for (size_t i = 1; i < sections.size(); ++i)
      if (sections[i].name == request_.sectionName) {
        section_ = &sections[i];
        sectionIndex_ = i;
        break;
      }
    if (!section_)
      return makeError("no " + sectionName() + " section");
    // A loaded section without file bytes (SHT_NOBITS: ROCm's kpack tool
    // leaves .hip_fatbin so) only gains contents: they go to the end.
    noBits_ = !section_->hasContents();
    if (!(section_->flags & elf::kFlagAlloc))
      return makeError(sectionName() + " is not a loaded section");
    // What lives at the section's addresses leaves with it: nothing else
    // may be there (thread-local sections without file bytes take no
    // addresses of their own).
    auto end = [](const ElfSection &section) {
      return section.address > UINT64_MAX - section.size
                 ? UINT64_MAX
                 : section.address + section.size;
    };
    for (size_t i = 1; i < sections.size(); ++i) {
      const ElfSection &other = sections[i];
      if (i == sectionIndex_ || !(other.flags & elf::kFlagAlloc) ||
          other.size == 0 ||
          (!other.hasContents() && (other.flags & elf::kFlagTls)))
        continue;
      if (other.address < end(*section_) && section_->address < end(other))
        return makeError("section " + std::to_string(i) + " (" +
                         std::string(other.name) + ") overlaps the addresses " +
                         "of " + sectionName());
    }
    relocate_ = noBits_ || contentsSize_ > section_->size;
    return Status::success();
  }

  Status readProgramHeaders() {
    const ElfHeader &header = object_.header();
    const uint64_t count = header.programHeaderCount;
    if (!rangeFits(header.programHeaderOffset, tableSize(count),
                   file_.size()) ||
        loadLittle16(file_, kHeaderField.phentsize) != kProgramHeaderSize ||
        loadLittle16(file_, kHeaderField.ehsize) != kShape.headerSize)
      return makeError("the program header table lies outside the file");
    for (uint64_t i = 0; i < count; ++i) {
      segments_.push_back(ProgramHeader::read(
          file_, header.programHeaderOffset + i * kProgramHeaderSize));
      if (segments_.back().type != elf::kSegmentNull)
        ++usedEntries_;
    }
    return Status::success();
  }

  // The PT_LOAD segment holding the section, and the page size: the largest
  // alignment of a PT_LOAD segment.
  Status locateSegment() {
    const uint64_t start = section_->offset;
    const uint64_t end = tailStart();
    for (size_t i = 0; i < segments_.size(); ++i) {
      const ProgramHeader &segment = segments_[i];
      if (segment.type == elf::kSegmentLoad) {
        pageSize_ = std::max(pageSize_, segment.align);
        if (segment.vaddr > UINT64_MAX - segment.memsz)
          return makeError("program header " + std::to_string(i) +
                           " wraps around the address space");
        addressEnd_ = std::max(addressEnd_, segment.vaddr + segment.memsz);
        lastLoad_ = i;
      }
      if (noBits_) {
        // Held by its addresses: the segment zero-fills them.
        if (segment.type == elf::kSegmentLoad &&
            section_->address >= segment.vaddr &&
            section_->address - segment.vaddr <= segment.memsz &&
            section_->size <=
                segment.memsz - (section_->address - segment.vaddr) &&
            load_ == SIZE_MAX)
          load_ = i;
        continue;
      }
      if (!segment.overlapsFile(start, end))
        continue;
      const bool holds =
          segment.type == elf::kSegmentLoad && segment.offset <= start &&
          end - segment.offset <= segment.filesz &&
          section_->address - segment.vaddr == start - segment.offset &&
          segment.memsz >= segment.filesz;
      if (!holds || load_ != SIZE_MAX)
        return makeError("program header " + std::to_string(i) + " overlaps " +
                         sectionName() + " in a way that cannot be rewritten");
      load_ = i;
    }
    if (load_ == SIZE_MAX)
      return makeError(sectionName() + " lies in no loadable segment");
    if (!isPowerOfTwo(pageSize_) || pageSize_ > kLargestPage)
      return makeError("a loadable segment's alignment " +
                       hexNumber(pageSize_) + " is not a power of two up to " +
                       hexNumber(kLargestPage));
    return Status::success();
  }

  // The table's home: right after the ELF header, in the PT_LOAD that maps
  // the start of the file; and how far it can grow there before it meets
  // the first section (or the end of that segment, or the section header
  // table).
  void findTableHome() {
    for (size_t i = 0; i < segments_.size(); ++i) {
      const ProgramHeader &segment = segments_[i];
      if (segment.type == elf::kSegmentLoad && segment.offset == 0 &&
          segment.filesz >= kShape.headerSize &&
          segment.memsz >= segment.filesz &&
          (homeLoad_ == SIZE_MAX || segment.vaddr < segments_[homeLoad_].vaddr))
        homeLoad_ = i;
    }
    const ElfHeader &header = object_.header();
    tableAtHome_ = header.programHeaderOffset == kShape.headerSize &&
                   homeLoad_ != SIZE_MAX;
    if (homeLoad_ == SIZE_MAX)
      return;
    homeRoomEnd_ = segments_[homeLoad_].filesz;
    if (header.sectionHeaderOffset >= kShape.headerSize)
      homeRoomEnd_ = std::min(homeRoomEnd_, header.sectionHeaderOffset);
    for (const ElfSection &section : object_.sections())
      if (section.occupiesFileBytes() && section.offset >= kShape.headerSize)
        homeRoomEnd_ = std::min(homeRoomEnd_, section.offset);
  }

  // Whether the table fits at home with `entries` entries, the sections in
  // its way moved (the block, then set). Fails when something that cannot
  // move is in the way.
  bool makeRoomAtHome(uint64_t entries) {
    block_ = DisplacedBlock();
    if (homeLoad_ == SIZE_MAX)
      return false;
    const uint64_t needEnd = kShape.headerSize + tableSize(entries);
    if (needEnd <= homeRoomEnd_)
      return true;
    if (isSharedObject() &&
        moveSectionsBefore(needEnd + tableSize(kEntriesLeftForPatchelf)))
      return true;
    return moveSectionsBefore(needEnd);
  }

  // Whether the sections before `needEnd` can move out of the table's way;
  // if so, they are the block.
  bool moveSectionsBefore(uint64_t needEnd) {
    block_ = DisplacedBlock();
    // Every section starting where the table must go, then everything that
    // must move with them (growBlock).
    uint64_t start = UINT64_MAX, end = 0;
    for (const ElfSection &section : object_.sections())
      if (section.occupiesFileBytes() && section.offset >= kShape.headerSize &&
          section.offset < needEnd) {
        start = std::min(start, section.offset);
        end = std::max(end, section.offset + section.size);
      }
    if (start == UINT64_MAX)
      return false; // not a section in the way: the header table, or the end
    if (!growBlock(start, end))
      return false;
    if (end > segments_[homeLoad_].filesz ||
        object_.header().sectionHeaderOffset < end || start < kShape.headerSize)
      return false;
    std::optional<DisplacedBlock> block = describeBlock(start, end);
    if (!block)
      return false;
    block_ = std::move(*block);
    return true;
  }

  // Widens [start, end) by every section and every segment other than a
  // PT_LOAD that shares bytes with it, and by what must move with a symbol
  // table, until nothing more joins. False when something that cannot move
  // would have to.
  bool growBlock(uint64_t &start, uint64_t &end) const {
    const auto &sections = object_.sections();
    for (bool grew = true; grew;) {
      grew = false;
      for (const ElfSection &section : sections)
        if (section.occupiesFileBytes() && section.offset >= start &&
            section.offset < end && section.offset + section.size > end) {
          end = section.offset + section.size;
          grew = true;
        }
      for (const ProgramHeader &segment : segments_)
        if (segment.type != elf::kSegmentLoad &&
            segment.type != elf::kSegmentProgramHeaders &&
            segment.overlapsFile(start, end) &&
            (segment.offset < start || segment.filesz > end - segment.offset)) {
          if (segment.offset < kShape.headerSize ||
              segment.filesz > UINT64_MAX - segment.offset)
            return false;
          start = std::min(start, segment.offset);
          end = std::max(end, segment.offset + segment.filesz);
          grew = true;
        }
      if (!growWithSymbolTableUsers(start, end, grew))
        return false;
    }
    return true;
  }

  // A symbol table moves with its string table and the relocation sections
  // that use it: BFD, reading either of those first, reads the symbol table
  // before it, and would number it out of file order if it were left
  // behind.
  bool growWithSymbolTableUsers(uint64_t start, uint64_t &end,
                                bool &grew) const {
    const auto &sections = object_.sections();
    for (size_t i = 1; i < sections.size(); ++i) {
      const ElfSection &table = sections[i];
      if ((table.type != elf::kTypeSymbolTable &&
           table.type != elf::kTypeDynamicSymbols) ||
          table.size == 0 || table.offset < start || table.offset >= end)
        continue;
      for (size_t j = 1; j < sections.size(); ++j) {
        const ElfSection &user = sections[j];
        const bool belongs =
            j == table.link ||
            ((user.type == elf::kTypeRela || user.type == elf::kTypeRel) &&
             user.link == i);
        if (!belongs || !user.hasContents() || user.size == 0 ||
            (user.offset >= start && user.offset < end))
          continue;
        if (user.offset < start)
          return false;
        end = user.offset + user.size;
        grew = true;
      }
    }
    return true;
  }

  // The block [start, end) of the home segment as it moves, or nothing when
  // a section in it cannot move: only what the dynamic table and the
  // headers address, mapped where the first segment maps it.
  std::optional<DisplacedBlock> describeBlock(uint64_t start,
                                              uint64_t end) const {
    const ProgramHeader &home = segments_[homeLoad_];
    const auto &sections = object_.sections();
    DisplacedBlock block;
    block.offset = start;
    block.end = end;
    block.address = home.vaddr + start;
    for (size_t i = 1; i < sections.size(); ++i) {
      const ElfSection &section = sections[i];
      if (section.size == 0)
        continue;
      if (!section.hasContents()) {
        // Memory without file bytes where the block was: refused.
        if ((section.flags & elf::kFlagAlloc) &&
            block.holdsAddress(section.address))
          return std::nullopt;
        continue;
      }
      if (section.offset < start || section.offset >= end)
        continue;
      if (!(section.flags & elf::kFlagAlloc) ||
          !(isMovableType(section.type) ||
            (section.type == elf::kTypeProgBits &&
             section.name == ".interp")) ||
          section.address != home.vaddr + section.offset)
        return std::nullopt;
      const uint64_t alignment = std::max<uint64_t>(section.alignment, 1);
      if (!isPowerOfTwo(alignment) || alignment > pageSize_)
        return std::nullopt;
      block.alignment = std::max(block.alignment, alignment);
      block.sections.push_back(i);
    }
    if (section_->offset < end && section_->offset >= start)
      return std::nullopt;
    block.roomEnd = std::min(home.filesz, object_.header().sectionHeaderOffset);
    for (const ElfSection &section : sections)
      if (section.occupiesFileBytes() && section.offset >= end)
        block.roomEnd = std::min(block.roomEnd, section.offset);
    return block;
  }

  // How far the rest of the file moves, whether the segment splits, where
  // the moved block goes and how many program headers the file gets.
  Status chooseLayout() {
    const ProgramHeader &load = segments_[load_];
    const uint64_t count = usedEntries_;
    const uint64_t oldTable = object_.header().programHeaderOffset;
    entries_ = count;
    // A file rewritten by an earlier version has its table right after the
    // section, at the end of the segment: it goes back home, and the
    // segment ends with the section.
    legacyTable_ =
        !tableAtHome_ && load.memsz == load.filesz && oldTable >= tailStart() &&
        oldTable - tailStart() < 8 &&
        oldTable + tableSize(segments_.size()) == load.offset + load.filesz;
    const bool segmentGoesOn =
        !legacyTable_ &&
        (load.offset + load.filesz > tailStart() || load.memsz > load.filesz);
    const uint64_t saved = section_->size - keptSize();

    if (noBits_) {
      // Nothing in the file to give back: the old addresses stay as the
      // input maps them (zeros nothing points at any more), and the
      // contents go to a new segment at the end.
      entries_ = count + 1;
      if (!makeRoomAtHome(entries_))
        return makeError("the program header table has no room for the "
                         "segment " +
                         sectionName() + " needs");
      tableHome_ = true;
      return placeAtEnd();
    }
    if (relocate_ && !segmentGoesOn && tableAtHome_ && canGrowInPlace()) {
      // The section ends its segment and the addresses after it are free
      // (a section shrunk before): it grows where it is, and what follows
      // it in the file moves up by whole pages.
      relocate_ = false;
      movedBy_ = 0 - roundUp(contentsSize_ - section_->size, pageSize_);
      return Status::success();
    }
    if (relocate_) {
      if (segmentGoesOn) {
        // What followed the section in its segment becomes a segment of its
        // own, so that the old place is given back.
        if (trySplit(count + 2, true))
          return placeAtEnd();
      } else {
        // The old place is given back; a segment that held nothing else
        // goes.
        dropLoad_ = section_->offset == load.offset;
        movedBy_ = roundDown(saved, pageSize_);
      }
      entries_ = count + 1 - (dropLoad_ ? 1 : 0);
      if (!makeRoomAtHome(entries_))
        return makeError("the program header table has no room for the "
                         "segment a bigger " +
                         sectionName() + " needs");
      tableHome_ = true;
      return placeAtEnd();
    }
    if (segmentGoesOn) {
      if (trySplit(count + 1, true))
        return Status::success();
    } else {
      movedBy_ = roundDown(saved, pageSize_);
    }
    // No new segment. A table away from home goes back when it fits there
    // as it is; a table the shrunk segment no longer maps must.
    if (!tableAtHome_ && makeRoomAtHome(count) && block_.empty()) {
      tableHome_ = true;
      return Status::success();
    }
    block_ = DisplacedBlock();
    if (tableAtHome_) {
      // A shared object's table is written again, without the spare
      // entries an earlier version left in it.
      tableHome_ = isSharedObject();
      return Status::success();
    }
    // Its way home is blocked: the block starts a segment of its own in
    // the addresses the section gave up.
    if (!segmentGoesOn && trySplit(count + 1, false))
      return Status::success();
    // Elsewhere, the table stays as the input has it, but not in what the
    // shrunk segment no longer maps.
    if (!legacyTable_)
      return Status::success();
    return makeError("the program header table cannot be moved back to the "
                     "start of the file");
  }

  // Whether the grown contents fit below the next segment's first page.
  bool canGrowInPlace() const {
    const uint64_t start = section_->address;
    if (start > UINT64_MAX - contentsSize_ - 2 * pageSize_)
      return false;
    const uint64_t end = roundUp(start + contentsSize_, pageSize_);
    for (size_t i = 0; i < segments_.size(); ++i) {
      const ProgramHeader &segment = segments_[i];
      if (i == load_ || segment.type != elf::kSegmentLoad)
        continue;
      if (segment.vaddr + segment.memsz > start &&
          roundDown(segment.vaddr, pageSize_) < end)
        return false;
    }
    return true;
  }

  // Splits the holding segment after the new contents: the part after
  // (what followed the section in the segment, when `keepRest`) keeps its
  // addresses, starts with the moved block, and moves down by whole pages.
  // Not done when less than a page would be gained.
  bool trySplit(uint64_t entries, bool keepRest) {
    const ProgramHeader &load = segments_[load_];
    // Contents moving to the end leave nothing before them in a segment
    // the section started: that segment goes, and the part after is all
    // that is left of it.
    dropLoad_ = keptEnd() == load.offset;
    if (!makeRoomAtHome(entries - (dropLoad_ ? 1 : 0))) {
      dropLoad_ = false;
      return false;
    }
    const uint64_t saved = section_->size - keptSize();
    const uint64_t tailAddress = section_->address + section_->size;
    uint64_t lead = 0;
    if (!block_.empty()) {
      if (tailAddress < block_.size()) {
        block_ = DisplacedBlock();
        dropLoad_ = false;
        return false;
      }
      const uint64_t start = congruentAtOrBelow(
          tailAddress - block_.size(), block_.alignment, block_.address);
      lead = tailAddress - start;
    }
    if (saved < lead || saved - lead < pageSize_) {
      block_ = DisplacedBlock();
      dropLoad_ = false;
      return false;
    }
    movedBy_ = roundDown(saved - lead, pageSize_);
    const uint64_t skipped = tailStart() - load.offset;
    tail_ = load;
    tail_.offset = tailStart() - movedBy_ - lead;
    tail_.vaddr = tailAddress - lead;
    tail_.paddr = load.paddr + (tail_.vaddr - load.vaddr);
    tail_.filesz = (keepRest ? load.filesz - skipped : 0) + lead;
    tail_.memsz = (keepRest ? load.memsz - skipped : 0) + lead;
    block_.newOffset = tail_.offset;
    block_.newAddress = tail_.vaddr;
    split_ = true;
    tableHome_ = true;
    entries_ = entries - (dropLoad_ ? 1 : 0);
    return true;
  }

  // Grown contents (and the block) in a new segment past every other.
  Status placeAtEnd() {
    const uint64_t fileEnd = file_.size() - movedBy_;
    const uint64_t segmentOffset = roundUp(fileEnd, pageSize_);
    const uint64_t segmentAddress = roundUp(addressEnd_, pageSize_);
    if (segmentOffset < fileEnd || segmentAddress < addressEnd_)
      return makeError("no address is left for a bigger " + sectionName());
    uint64_t alignment = std::max<uint64_t>(section_->alignment, 1);
    if (!isPowerOfTwo(alignment) || alignment > pageSize_)
      alignment = pageSize_;
    uint64_t start = segmentAddress;
    contentsAddress_ = segmentAddress;
    if (!block_.empty() && !split_) {
      start =
          congruentAtOrAbove(segmentAddress, block_.alignment, block_.address);
      contentsAddress_ = roundUp(start + block_.size(), alignment);
      block_.newAddress = start;
      block_.newOffset = segmentOffset + (start - segmentAddress);
    }
    if (contentsAddress_ < segmentAddress ||
        contentsAddress_ > UINT64_MAX - contentsSize_ - pageSize_)
      return makeError("no address is left for a bigger " + sectionName());
    contentsOffset_ = segmentOffset + (contentsAddress_ - segmentAddress);
    added_.type = elf::kSegmentLoad;
    added_.flags = segments_[load_].flags;
    added_.offset = segmentOffset + (start - segmentAddress);
    added_.vaddr = added_.paddr = start;
    added_.filesz = added_.memsz = contentsAddress_ + contentsSize_ - start;
    added_.align = pageSize_;
    return Status::success();
  }
};

} // namespace offbundle::linked_resize
