// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The state a resize of a section of a linked ELF file works on (see
// linked_section_resize.h for the layout): what is read of the input, the
// layout chosen for the output, and the facts both steps derive from them.
// Its two halves are the LayoutChooser (linked_layout_choice.h), which reads
// the input and decides where everything goes, and the Resizer
// (linked_section_resize.cpp), which patches what points into the moved
// parts and writes the output. Internal to rewrite/elf/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/elf/elf_object.h"
#include "rewrite/elf/linked_section_resize.h"
#include "support/input_edits.h"
#include "support/output_plan.h"

namespace offbundle::linked_resize {

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
inline bool isMovableType(uint32_t type) {
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

inline uint64_t roundDown(uint64_t value, uint64_t multiple) {
  return value / multiple * multiple;
}
inline uint64_t roundUp(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
// The largest address at or below `limit` that is congruent to `reference`
// modulo `alignment`.
inline uint64_t congruentAtOrBelow(uint64_t limit, uint64_t alignment,
                                   uint64_t reference) {
  return limit - (limit - reference) % alignment;
}
// The smallest address at or above `floor` congruent to `reference`.
inline uint64_t congruentAtOrAbove(uint64_t floor, uint64_t alignment,
                                   uint64_t reference) {
  return floor + (reference - floor) % alignment;
}
inline bool isPowerOfTwo(uint64_t value) {
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

class ResizeModel {
protected:
  ResizeModel(std::string_view file, const LinkedSectionResize &request,
              OutputPlan contents, const ElfObject &object)
      : file_(file), request_(request), contents_(std::move(contents)),
        object_(object), patches_(file), contentsSize_(contents_.size()) {}

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

  // Offsets of what follows the section move down (up when the section
  // grows where it is: movedBy_ then wraps around).
  uint64_t moved(uint64_t offset) const {
    return offset >= tailStart() ? offset - movedBy_ : offset;
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

} // namespace offbundle::linked_resize
