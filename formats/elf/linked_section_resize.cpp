// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Resizing a section of a linked ELF file (see the header for the layout).
#include "formats/elf/linked_section_resize.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "formats/elf/elf_object.h"
#include "support/byte_order.h"
#include "support/byte_range.h"
#include "support/hex.h"
#include "support/input_edits.h"

namespace offbundle {
namespace {

// The ELF64 layouts this code reads and patches in place, as
// formats/elf/elf_file.h declares them.
constexpr ElfShape kShape = ElfShape::of(true);
constexpr ElfHeaderFields kHeaderField = ElfHeaderFields::of(true);
constexpr ElfSectionHeaderFields kSectionField =
    ElfSectionHeaderFields::of(true);
constexpr ElfSymbolFields kSymbolField = ElfSymbolFields::of(true);
constexpr ElfRelaFields kRelaField = ElfRelaFields::of(true);
constexpr ElfDynamicFields kDynamicField = ElfDynamicFields::of(true);
constexpr uint64_t kProgramHeaderSize = ElfProgramHeader64::kSize;
// e_phnum is 16 bits, and 0xffff says the count is elsewhere.
constexpr uint64_t kMostProgramHeaders = 0xff00;
constexpr uint64_t kSmallestPage = 0x1000;
// Beyond the 64 KiB pages of some AArch64 systems, an alignment is a
// linker's choice (2 MiB huge pages), not a page size whole-page moves
// must keep.
constexpr uint64_t kLargestPage = uint64_t{1} << 21;

// Section types (gABI and the GNU extensions) that only the dynamic table,
// the program headers and the section headers address, so that they can
// move: .dynstr, dynamic relocations, hash tables, notes, .dynsym and the
// symbol versions. (.interp is SHT_PROGBITS and is recognised by name.)
bool isMovableType(uint32_t type) {
  switch (type) {
  case elf::kTypeStringTable:
  case elf::kTypeRela:
  case elf::kTypeHash:
  case elf::kTypeNote:
  case elf::kTypeRel:
  case elf::kTypeDynamicSymbols:
  case elf::kTypeRelr:
  case elf::kTypeGnuHash:
  case elf::kTypeGnuVerdef:
  case elf::kTypeGnuVerneed:
  case elf::kTypeGnuVersym:
    return true;
  default:
    return false;
  }
}

using ProgramHeader = ElfProgramHeader64;

uint64_t roundDown(uint64_t value, uint64_t multiple) {
  return value / multiple * multiple;
}
uint64_t roundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
// The largest address at or below `limit` that is congruent to `reference`
// modulo `alignment`.
uint64_t congruentAtOrBelow(uint64_t limit, uint64_t alignment,
                            uint64_t reference) {
  return limit - (limit - reference) % alignment;
}
// The smallest address at or above `floor` congruent to `reference`.
uint64_t congruentAtOrAbove(uint64_t floor, uint64_t alignment,
                            uint64_t reference) {
  return floor + (reference - floor) % alignment;
}
bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// Sections moved out of the program header table's way: one run of the
// file, [offset, end), moved as a whole so that it keeps its inner layout.
struct DisplacedBlock {
  uint64_t offset = 0;
  uint64_t end = 0;
  uint64_t address = 0; // of `offset`
  uint64_t alignment = 1;
  std::vector<size_t> sections;
  uint64_t newOffset = 0;
  uint64_t newAddress = 0;
  // Where the table's room at home ends once the block is gone.
  uint64_t roomEnd = 0;

  uint64_t size() const { return end - offset; }
  bool empty() const { return end == offset; }
  bool holdsAddress(uint64_t value) const {
    return value >= address && value - address < size();
  }
  bool holdsSection(size_t index) const {
    return std::find(sections.begin(), sections.end(), index) != sections.end();
  }
  uint64_t movedAddress(uint64_t value) const {
    return value - address + newAddress;
  }
  uint64_t movedOffset(uint64_t value) const {
    return value - offset + newOffset;
  }
};

class Resizer {
public:
  Resizer(std::string_view file, const LinkedSectionResize &request,
          OutputPlan contents, const ElfObject &object)
      : file_(file), request_(request), contents_(std::move(contents)),
        object_(object), patches_(file), contentsSize_(contents_.size()) {}

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
  std::string sectionName() const { return std::string(request_.sectionName); }

  // Bytes of the section's old place its new contents use: all of them,
  // unless the contents move to the end of the file.
  uint64_t keptSize() const { return relocate_ ? 0 : contentsSize_; }
  uint64_t keptEnd() const { return section_->offset + keptSize(); }
  // The bytes the section takes in the file: none when it has none
  // (SHT_NOBITS).
  uint64_t fileSize() const { return noBits_ ? 0 : section_->size; }
  uint64_t tailStart() const { return section_->offset + fileSize(); }
  // Where the section is once rewritten.
  uint64_t newAddress() const {
    return relocate_ ? contentsAddress_ : section_->address;
  }
  uint64_t newOffset() const {
    return relocate_ ? contentsOffset_ : section_->offset;
  }
  uint64_t tableSize(uint64_t entries) const {
    return entries * kProgramHeaderSize;
  }

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

  // A shared object (ET_DYN: a library, or a position-independent
  // program) is where patchelf 0.14 appends what it grows, in a segment of
  // its own, after growing the program header table by one entry and
  // moving every section the grown table reaches, as it moves .interp and
  // .dynsym from after a linker's table. A section that code addresses
  // there (lld's .rodata) would move from under the code, so such a table
  // is followed by zeros, not by spare entries, with room for a few
  // patchelf runs when sections move anyway. An executable (ET_EXEC) is the
  // opposite: patchelf puts what it grows (.dynamic among them) into free
  // bytes after the table, in a segment that is not writable, so spare
  // entries fill them.
  static constexpr uint64_t kEntriesLeftForPatchelf = 4;
  bool isSharedObject() const {
    return object_.header().fileType == elf::kFileTypeShared;
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

  // Offsets of what follows the section move down (up when the section
  // grows where it is: movedBy_ then wraps around).
  uint64_t moved(uint64_t offset) const {
    return offset >= tailStart() ? offset - movedBy_ : offset;
  }

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

  std::string_view file_;
  const LinkedSectionResize &request_;
  OutputPlan contents_;
  const ElfObject &object_;
  InputEdits patches_;
  uint64_t contentsSize_ = 0; // contents_ is handed to the plan at the end
  const ElfSection *section_ = nullptr;
  size_t sectionIndex_ = 0;
  std::vector<ProgramHeader> segments_;
  size_t load_ = SIZE_MAX;     // the segment holding the section
  size_t lastLoad_ = 0;        // the last PT_LOAD in the table
  size_t homeLoad_ = SIZE_MAX; // the PT_LOAD mapping the start of the file
  uint64_t addressEnd_ = 0;
  uint64_t pageSize_ = kSmallestPage;
  bool tableAtHome_ = false; // the input's table is at home
  bool tableHome_ = false;   // the output's table is written at home
  uint64_t homeRoomEnd_ = 0; // where the table's room at home ends
  bool legacyTable_ = false; // the table ends the holding segment
  bool relocate_ = false;    // the contents go to the end of the file
  bool noBits_ = false;      // the section has no file bytes (SHT_NOBITS)
  bool split_ = false;       // the holding segment is split in two
  bool dropLoad_ = false;    // no part of the holding segment stays before the
                             // section's old place
  uint64_t usedEntries_ = 0; // program headers of the input but PT_NULL
  uint64_t entries_ = 0;     // program headers in use once rewritten
  // How far what follows the section moves down the file, modulo 2^64:
  // a section growing where it is moves it up.
  uint64_t movedBy_ = 0;
  DisplacedBlock block_;
  bool renumbered_ = false;      // the section header table is reordered
  std::vector<size_t> newIndex_; // by old section index, when it is
  ProgramHeader tail_;           // the second part of a split segment
  ProgramHeader added_;          // the segment of grown contents
  uint64_t contentsOffset_ = 0;
  uint64_t contentsAddress_ = 0;
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
