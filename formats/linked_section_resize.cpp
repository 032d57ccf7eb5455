// Shrinking a section of a linked ELF file (see the header for the layout).
#include "formats/linked_section_resize.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "formats/elf_object.h"
#include "support/byte_order.h"
#include "support/byte_range.h"
#include "support/hex.h"

namespace offbundle {
namespace {

constexpr uint32_t kSegmentLoad = 1;
constexpr uint32_t kSegmentProgramHeaders = 6;
constexpr uint64_t kProgramHeaderSize = 56;
constexpr uint64_t kSectionHeaderSize = 64;
constexpr uint64_t kSymbolSize = 24;
constexpr uint64_t kSymbolValueField = 8;
constexpr uint64_t kRelaSize = 24;
constexpr uint32_t kRelativeX86_64 = 8;
constexpr uint32_t kRelativeAArch64 = 1027;
constexpr uint64_t kSmallestPage = 0x1000;
// Beyond the 64 KiB pages of some AArch64 systems, an alignment is a
// linker's choice (2 MiB huge pages), not a page size whole-page moves
// must keep.
constexpr uint64_t kLargestPage = uint64_t{1} << 21;

struct ProgramHeader {
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t paddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
  uint64_t align = 0;

  static ProgramHeader read(std::string_view bytes, uint64_t at) {
    return {loadLittle32(bytes, at),      loadLittle32(bytes, at + 4),
            loadLittle64(bytes, at + 8),  loadLittle64(bytes, at + 16),
            loadLittle64(bytes, at + 24), loadLittle64(bytes, at + 32),
            loadLittle64(bytes, at + 40), loadLittle64(bytes, at + 48)};
  }
  void append(std::string &out) const {
    appendLittleEndian(out, type, 4);
    appendLittleEndian(out, flags, 4);
    for (uint64_t field : {offset, vaddr, paddr, filesz, memsz, align})
      appendLittleEndian(out, field, 8);
  }
};

uint64_t roundDown(uint64_t value, uint64_t multiple) {
  return value / multiple * multiple;
}

// Byte edits to the input, by input offset. Edits may overlap; a later one
// wins where they do.
class Patches {
public:
  explicit Patches(std::string_view input) : input_(input) {}

  void set(uint64_t offset, std::string bytes) {
    uint64_t start = offset;
    uint64_t end = offset + bytes.size();
    // Merge with every edit this one touches, so edits never overlap.
    auto first = edits_.lower_bound(start);
    if (first != edits_.begin() &&
        std::prev(first)->first + std::prev(first)->second.size() > start)
      --first;
    auto last = first;
    while (last != edits_.end() && last->first < end)
      ++last;
    if (first == last) {
      edits_[offset] = std::move(bytes);
      return;
    }
    start = std::min(start, first->first);
    end =
        std::max(end, std::prev(last)->first + std::prev(last)->second.size());
    std::string merged(input_.substr(start, end - start));
    for (auto at = first; at != last; ++at)
      merged.replace(at->first - start, at->second.size(), at->second);
    merged.replace(offset - start, bytes.size(), bytes);
    edits_.erase(first, last);
    edits_[start] = std::move(merged);
  }

  void setWord(uint64_t offset, uint64_t value) {
    std::string bytes;
    appendLittleEndian(bytes, value, 8);
    set(offset, std::move(bytes));
  }

  // Whether any edit touches [start, end).
  bool touches(uint64_t start, uint64_t end) const {
    auto after = edits_.lower_bound(end);
    return after != edits_.begin() &&
           std::prev(after)->first + std::prev(after)->second.size() > start;
  }

  // Input bytes [start, end) with the edits, into `plan`.
  void emit(OutputPlan &plan, uint64_t start, uint64_t end) const {
    uint64_t at = start;
    for (auto edit = edits_.lower_bound(start);
         edit != edits_.end() && edit->first < end; ++edit) {
      plan.addInput(at, edit->first - at);
      plan.addBytes(edit->second);
      at = edit->first + edit->second.size();
    }
    plan.addInput(at, end - at);
  }

private:
  std::string_view input_;
  std::map<uint64_t, std::string> edits_;
};

class Resizer {
public:
  Resizer(std::string_view file, const LinkedSectionResize &request,
          OutputPlan contents, const ElfObject &object)
      : file_(file), request_(request), contents_(std::move(contents)),
        object_(object), patches_(file) {}

  Result<OutputPlan> plan() {
    if (Status found = findSection(); !found.ok())
      return found.takeError();
    if (Status read = readProgramHeaders(); !read.ok())
      return read.takeError();
    if (Status located = locateSegment(); !located.ok())
      return located.takeError();
    if (Status chosen = chooseLayout(); !chosen.ok())
      return chosen.takeError();
    patchHeaders();
    if (Status moved = movePointers(); !moved.ok())
      return moved.takeError();
    const uint64_t tailStart = section_->offset + section_->size;
    if (patches_.touches(section_->offset, tailStart))
      return makeError("a table to update lies inside " + sectionName());

    OutputPlan plan;
    patches_.emit(plan, 0, section_->offset);
    const uint64_t keptEnd = section_->offset + keptSize();
    if (!relocate_)
      plan.append(std::move(contents_));
    if (moveTable_) {
      plan.addZeros(tableOffset_ - keptEnd);
      plan.addBytes(newTable_);
      plan.addZeros(tailStart - movedBy_ - (tableOffset_ + newTable_.size()));
    } else {
      plan.addZeros(tailStart - movedBy_ - keptEnd);
    }
    patches_.emit(plan, tailStart, file_.size());
    if (relocate_) {
      plan.addZeros(newOffset_ - plan.size());
      plan.append(std::move(contents_));
    }
    return plan;
  }

private:
  std::string sectionName() const { return std::string(request_.sectionName); }

  // Bytes of the section's old place its new contents use: all of them,
  // unless the contents move to the end of the file.
  uint64_t keptSize() const { return relocate_ ? 0 : contents_.size(); }
  // Where the section is once rewritten.
  uint64_t newAddress() const {
    return relocate_ ? newAddress_ : section_->address;
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
    if (!section_->hasContents() || !(section_->flags & elf::kFlagAlloc))
      return makeError(sectionName() + " is not a loaded section with "
                                       "contents");
    relocate_ = contents_.size() > section_->size;
    return Status::success();
  }

  Status readProgramHeaders() {
    const ElfHeader &header = object_.header();
    const uint64_t count = header.programHeaderCount;
    if (!rangeFits(header.programHeaderOffset, count * kProgramHeaderSize,
                   file_.size()) ||
        loadLittle16(file_, 54) != kProgramHeaderSize)
      return makeError("the program header table lies outside the file");
    for (uint64_t i = 0; i < count; ++i)
      segments_.push_back(ProgramHeader::read(
          file_, header.programHeaderOffset + i * kProgramHeaderSize));
    return Status::success();
  }

  // The PT_LOAD segment holding the section, and the page size: the largest
  // alignment of a PT_LOAD segment.
  Status locateSegment() {
    const uint64_t start = section_->offset;
    const uint64_t end = start + section_->size;
    for (size_t i = 0; i < segments_.size(); ++i) {
      const ProgramHeader &segment = segments_[i];
      if (segment.type == kSegmentLoad) {
        pageSize_ = std::max(pageSize_, segment.align);
        if (segment.vaddr > UINT64_MAX - segment.memsz)
          return makeError("program header " + std::to_string(i) +
                           " wraps around the address space");
        addressEnd_ = std::max(addressEnd_, segment.vaddr + segment.memsz);
        lastLoad_ = i;
      }
      const bool overlaps =
          segment.filesz != 0 && segment.offset < end &&
          (segment.offset >= start || segment.filesz > start - segment.offset);
      if (!overlaps)
        continue;
      const bool holds =
          segment.type == kSegmentLoad && segment.offset <= start &&
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
    if ((pageSize_ & (pageSize_ - 1)) != 0 || pageSize_ > kLargestPage)
      return makeError("a loadable segment's alignment " +
                       hexNumber(pageSize_) + " is not a power of two up to " +
                       hexNumber(kLargestPage));
    return Status::success();
  }

  // How far the rest of the file moves, whether the segment splits, and
  // where the program header table goes.
  Status chooseLayout() {
    const ProgramHeader &load = segments_[load_];
    const uint64_t saved = section_->size - keptSize();
    const uint64_t tailStart = section_->offset + section_->size;
    const uint64_t keptEnd = section_->offset + keptSize();
    const bool segmentGoesOn =
        load.offset + load.filesz > tailStart || load.memsz > load.filesz;
    const uint64_t appended = relocate_ ? 1 : 0;
    tableOffset_ = (keptEnd + 7) / 8 * 8;
    auto room = [&](uint64_t entries) {
      return tableOffset_ - keptEnd + entries * kProgramHeaderSize;
    };
    const uint64_t count = segments_.size();
    // A file rewritten before has its moved table right after the section;
    // moved again, it leaves nothing behind the section for the segment to
    // map, which then needs no splitting.
    const uint64_t oldTable = object_.header().programHeaderOffset;
    const bool onlyTableFollows =
        load.memsz == load.filesz && oldTable >= tailStart &&
        oldTable - tailStart < 8 &&
        oldTable + count * kProgramHeaderSize == load.offset + load.filesz;
    if (segmentGoesOn && onlyTableFollows && saved >= room(count + appended)) {
      moveTable_ = shrinkLoad_ = true;
      movedBy_ = roundDown(saved - room(count + appended), pageSize_);
    } else if (segmentGoesOn &&
               saved >= room(count + 1 + appended) + pageSize_) {
      split_ = moveTable_ = true;
      movedBy_ = roundDown(saved - room(count + 1 + appended), pageSize_);
    } else if (relocate_) {
      // The table takes the old place, which the segment still maps.
      if (saved < room(count + 1))
        return makeError(sectionName() + " is too small to make room for "
                                         "the program header table");
      moveTable_ = true;
      if (!segmentGoesOn)
        movedBy_ = roundDown(saved - room(count + 1), pageSize_);
    } else if (!segmentGoesOn) {
      movedBy_ = roundDown(saved, pageSize_);
    }
    shrinkLoad_ = shrinkLoad_ || (!split_ && movedBy_ != 0);
    if (relocate_) {
      const uint64_t fileEnd = file_.size() - movedBy_;
      newOffset_ = (fileEnd + pageSize_ - 1) / pageSize_ * pageSize_;
      newAddress_ = (addressEnd_ + pageSize_ - 1) / pageSize_ * pageSize_;
      if (newOffset_ < fileEnd || newAddress_ < addressEnd_ ||
          newAddress_ > UINT64_MAX - contents_.size())
        return makeError("no address is left for a bigger " + sectionName());
    }
    return Status::success();
  }

  void patchHeaders() {
    const ElfHeader &header = object_.header();
    const uint64_t tailStart = section_->offset + section_->size;
    const uint64_t keptEnd = section_->offset + keptSize();
    auto moved = [&](uint64_t offset) {
      return offset >= tailStart ? offset - movedBy_ : offset;
    };

    // Sections: later ones move; the rewritten one shrinks, or moves to
    // the end of the file.
    const auto &sections = object_.sections();
    for (size_t i = 1; i < sections.size(); ++i) {
      const ElfSection &section = sections[i];
      uint64_t offset = moved(section.offset);
      uint64_t address = section.address;
      uint64_t size = section.size;
      if (i == sectionIndex_) {
        size = contents_.size();
        offset = relocate_ ? newOffset_ : offset;
        address = newAddress();
      } else if (section.offset > section_->offset &&
                 section.offset < tailStart) {
        offset = keptEnd; // an empty section inside the old range
      }
      if (offset == section.offset && size == section.size &&
          address == section.address)
        continue;
      const uint64_t entry =
          header.sectionHeaderOffset + i * kSectionHeaderSize;
      patches_.setWord(entry + 16, address);
      patches_.setWord(entry + 24, offset);
      patches_.setWord(entry + 32, size);
    }

    // Segments: later ones move; the holding one shrinks or splits; a
    // section moved to the end gets a segment of its own, after the last.
    const uint64_t entries =
        segments_.size() + (split_ ? 1 : 0) + (relocate_ ? 1 : 0);
    const uint64_t tableEnd = tableOffset_ + entries * kProgramHeaderSize;
    std::vector<ProgramHeader> table;
    for (size_t i = 0; i < segments_.size(); ++i) {
      ProgramHeader segment = segments_[i];
      if (segment.offset >= tailStart)
        segment.offset -= movedBy_;
      if (i == load_ && split_) {
        ProgramHeader head = segment;
        head.filesz = head.memsz = tableEnd - head.offset;
        ProgramHeader tail = segment;
        const uint64_t skipped = tailStart - segment.offset;
        tail.offset = tailStart - movedBy_;
        tail.vaddr += skipped;
        tail.paddr += skipped;
        tail.filesz -= skipped;
        tail.memsz -= skipped;
        table.push_back(head);
        table.push_back(tail);
      } else {
        if (i == load_ && shrinkLoad_)
          segment.filesz = segment.memsz =
              (moveTable_ ? tableEnd : keptEnd) - segment.offset;
        if (segment.type == kSegmentProgramHeaders && moveTable_) {
          segment.offset = tableOffset_;
          segment.vaddr = segment.paddr =
              section_->address + (tableOffset_ - section_->offset);
          segment.filesz = segment.memsz = entries * kProgramHeaderSize;
        }
        table.push_back(segment);
      }
      if (i == lastLoad_ && relocate_) {
        ProgramHeader added;
        added.type = kSegmentLoad;
        added.flags = segments_[load_].flags;
        added.offset = newOffset_;
        added.vaddr = added.paddr = newAddress_;
        added.filesz = added.memsz = contents_.size();
        added.align = pageSize_;
        table.push_back(added);
      }
    }
    std::string encoded;
    for (const ProgramHeader &segment : table)
      segment.append(encoded);
    if (moveTable_) {
      newTable_ = std::move(encoded);
      // The old table is no longer read; zeros say so.
      patches_.set(header.programHeaderOffset,
                   std::string(segments_.size() * kProgramHeaderSize, '\0'));
      patches_.setWord(32, tableOffset_);
      std::string count;
      appendLittleEndian(count, table.size(), 2);
      patches_.set(56, std::move(count));
    } else {
      patches_.set(header.programHeaderOffset, std::move(encoded));
    }
    if (header.sectionHeaderOffset >= tailStart)
      patches_.setWord(40, header.sectionHeaderOffset - movedBy_);
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
           std::min(move.toOffset + (address - move.from), contents_.size());
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
    for (uint64_t at = 0; at + kRelaSize <= entries.size(); at += kRelaSize) {
      const uint32_t type =
          static_cast<uint32_t>(loadLittle64(entries, at + 8));
      if (type != kRelativeX86_64 && type != kRelativeAArch64)
        continue;
      const uint64_t addend = loadLittle64(entries, at + 16);
      if (!insideSection(addend))
        continue;
      auto to = exactMove(addend);
      if (!to)
        return makeError("the relocation of " +
                         hexNumber(loadLittle64(entries, at)) +
                         " points into " + sectionName() + " at " +
                         hexNumber(addend) + ", at no bundle's start");
      patches_.setWord(table.offset + at + 16, *to);
    }
    return Status::success();
  }

  void moveSymbols(const ElfSection &table) {
    const std::string_view entries = object_.contents(table);
    for (uint64_t at = 0; at + kSymbolSize <= entries.size();
         at += kSymbolSize) {
      if (loadLittle16(entries, at + 6) != sectionIndex_)
        continue;
      const uint64_t value = loadLittle64(entries, at + kSymbolValueField);
      if (value < section_->address ||
          value - section_->address > section_->size)
        continue;
      // A symbol before the first move (no bundle there) keeps its offset
      // into the section.
      const uint64_t to = movedAddress(value).value_or(
          newAddress() + (value - section_->address));
      if (to != value)
        patches_.setWord(table.offset + at + kSymbolValueField, to);
    }
  }

  // The file offset of an 8-byte field at `address`, in a section with
  // contents; nothing when no section holds it.
  std::optional<uint64_t> fileOffsetOf(uint64_t address) const {
    for (const ElfSection &section : object_.sections())
      if (section.hasContents() && section.type != kElfSectionTypeNull &&
          address >= section.address && section.size >= 8 &&
          address - section.address <= section.size - 8)
        return section.offset + (address - section.address);
    return std::nullopt;
  }

  std::string_view file_;
  const LinkedSectionResize &request_;
  OutputPlan contents_;
  const ElfObject &object_;
  Patches patches_;
  const ElfSection *section_ = nullptr;
  size_t sectionIndex_ = 0;
  std::vector<ProgramHeader> segments_;
  size_t load_ = SIZE_MAX;
  size_t lastLoad_ = 0;
  uint64_t addressEnd_ = 0;
  uint64_t pageSize_ = kSmallestPage;
  bool relocate_ = false;   // the contents go to the end of the file
  bool split_ = false;      // the holding segment is split in two
  bool moveTable_ = false;  // the program header table moves
  bool shrinkLoad_ = false; // the holding segment ends with the section
  uint64_t movedBy_ = 0;
  uint64_t tableOffset_ = 0;
  std::string newTable_;
  uint64_t newOffset_ = 0; // where relocated contents go, in the file
  uint64_t newAddress_ = 0;
};

} // namespace

Result<OutputPlan> planLinkedSectionResize(std::string_view file,
                                           const LinkedSectionResize &request,
                                           OutputPlan contents) {
  auto object = parseElfObject(file);
  if (!object)
    return object.takeError();
  const ElfHeader &header = object->header();
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
  Resizer resizer(file, request, std::move(contents), *object);
  return resizer.plan();
}

} // namespace offbundle
