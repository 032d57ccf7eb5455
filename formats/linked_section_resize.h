// Rewriting one section of a linked ELF file (an executable or a shared
// library) with contents of another size, so that the file shrinks or grows
// with it and still loads.
//
// A linked file maps its contents with PT_LOAD program headers (64-bit:
// type u32, flags u32, offset, vaddr, paddr, filesz, memsz, align u64 each;
// e_phnum of them at e_phoff). Each segment maps file bytes
// [offset, offset + filesz) at [vaddr, vaddr + filesz), and offset and vaddr
// must agree modulo the page size. Code and data address each other by
// virtual address, so nothing else may change address; only file offsets
// can.
//
// Shrinking. A section of N bytes whose contents become N - D bytes:
//
//   [file before the section]  unchanged, but for the patches below
//   [new contents, N - D]
//   [gap]                      zeros; the program header table when it
//                              had to move (see below)
//   [file after the section]   moved down by P bytes, P the largest
//                              multiple of the page size that fits in D
//
// Everything after the section keeps its addresses and moves by whole
// pages, so every segment after it stays congruent. When the section ends
// its segment, that segment just ends sooner. When more of the segment
// follows it (lld and GNU ld put .eh_frame_hdr and .eh_frame after
// .hip_fatbin in one read-only segment), the segment is split in two: the
// part up to the new contents, and the part after, which keeps its
// addresses at its new offsets. That adds a program header, and the table
// at e_phoff has no room to grow (the next section follows it directly),
// so the table moves to the gap, at the end of the first part, which maps
// it; e_phoff and PT_PHDR follow. With less than a page to gain (after
// room for the table), nothing moves: the section ends early and zeros
// fill the rest.
//
// Growing. Contents longer than the section cannot stay where it is, as
// what follows it keeps its addresses: they go to the end of the file, at
// the next page, mapped by a new PT_LOAD segment (the old one's flags)
// at the first page-aligned address past every segment. The section's old
// place is given up as when shrinking to nothing; the program header
// table, one entry longer, moves there.
//
// What pointed into the section is moved with its contents: the caller
// names where each old address goes (the starts of the bundles it laid out
// anew, as offsets into the new contents), and the plan patches
//   - the addends of RELATIVE relocations in SHT_RELA sections
//     (R_X86_64_RELATIVE, R_AARCH64_RELATIVE) that point into the section;
//     one that points at no named address is refused;
//   - 8-byte pointer fields the caller names (the HIP wrappers of a program
//     linked without -pie, or whose relocations are packed in RELR), where
//     they hold an old address;
//   - the values of .symtab and .dynsym symbols defined in the section.
// Section header offsets after the section, e_shoff and the offsets of
// later segments move down by P.
//
// Read: 64-bit little-endian executables and shared libraries. Refused, with
// a message: other classes and byte orders, a section that lies in no
// PT_LOAD segment or that another segment overlaps, structures (program
// header table, patched tables) outside the file or inside the section, and
// a section too small to hold the moved program header table when it must.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "support/error.h"
#include "support/output_plan.h"

namespace offbundle {

// An address inside the section, and where what was there goes: an offset
// into the new contents.
struct AddressMove {
  uint64_t from = 0;
  uint64_t toOffset = 0;
};

struct LinkedSectionResize {
  std::string_view sectionName;
  std::vector<AddressMove> moves; // sorted by `from`
  // Addresses of 8-byte fields that may hold an old address.
  std::vector<uint64_t> pointerFields;
};

// The whole rewritten file, the section's new contents (whose input ranges,
// like the plan's own, are ranges of `file`) in it.
Result<OutputPlan> planLinkedSectionResize(std::string_view file,
                                           const LinkedSectionResize &request,
                                           OutputPlan contents);

} // namespace offbundle
