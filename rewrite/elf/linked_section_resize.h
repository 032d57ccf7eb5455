// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Rewriting one section of a linked ELF file (an executable or a shared
// library) with contents of another size, so that the file shrinks or grows
// with it and still loads, and so that every tool a distribution runs on it
// afterwards (GNU strip and objcopy, eu-strip, patchelf, llvm-strip) still
// understands it.
//
// A linked file maps its contents with PT_LOAD program headers (64-bit:
// type u32, flags u32, offset, vaddr, paddr, filesz, memsz, align u64 each;
// e_phnum of them at e_phoff). Each segment maps file bytes
// [offset, offset + filesz) at [vaddr, vaddr + filesz), and offset and vaddr
// must agree modulo the page size. Code and data address each other by
// virtual address, so nothing else may change address; only file offsets
// can.
//
// Where the program header table lives. Linkers put it right after the ELF
// header, inside the first PT_LOAD (which maps offset 0), covered by
// PT_PHDR; the first section follows it directly. Tools rely on that:
//   - BFD (GNU strip, objcopy) always writes the table right after the ELF
//     header and takes a segment holding it to start there: a table at the
//     end of a segment makes it shift every section of that segment ("lma
//     adjusted"), and the result crashes;
//   - elfutils lays segments out the same way;
//   - kernels before Linux 5.18 pass AT_PHDR as the load address plus
//     e_phoff, which is only right when the segment holding the table maps
//     it at the address its file offset gives.
// So the table never leaves its home (offset e_ehsize, in the first
// PT_LOAD). When it needs more entries than fit before the first section,
// the sections in the way move elsewhere, as patchelf makes room: only
// sections that nothing but the dynamic table and the program headers
// address (.interp, notes, .dynsym, .dynstr, hash tables, symbol versions,
// dynamic relocations), as one block that keeps its inner layout. What
// addressed them follows: PT_INTERP, PT_NOTE, PT_GNU_PROPERTY, the
// dynamic entries (DT_SYMTAB, DT_HASH, ...), symbol values, RELATIVE
// relocations. The block goes to the start of a segment (never after other
// sections in one, where `objcopy --only-keep-debug` could not keep notes
// after sections it empties): the new segment it starts is described below.
//
// Shrinking. A section of N bytes whose contents become N - D bytes:
//
//   [file before the section]  unchanged, but for the patches below
//   [new contents, N - D]
//   [gap]                      zeros
//   [moved block]              when the table needed room (below)
//   [file after the section]   moved down by P bytes, P a multiple of the
//                              page size
//
// Everything after the section keeps its addresses and moves by whole
// pages, so every segment after it stays congruent. When the section ends
// its segment, that segment just ends sooner. When more of the segment
// follows it (lld and GNU ld put .eh_frame_hdr and .eh_frame after
// .hip_fatbin in one read-only segment), the segment is split in two: the
// part up to the new contents, and the part after, which keeps its
// addresses at its new offsets. The part after starts with the moved block,
// placed at the addresses the section gave up just below it. With less
// than a page to gain, nothing moves: the section ends early and zeros fill
// the rest.
//
// Growing. Contents longer than the section cannot stay where it is, as
// what follows it keeps its addresses: they go to the end of the file, at
// the next page, mapped by a new PT_LOAD segment (the old one's flags) at
// the first page-aligned address past every segment, which starts with the
// moved block when there is one. The section's old place is given back
// when it ended its segment, and stays as zeros when it did not.
//
// A section without file bytes (SHT_NOBITS, as ROCm's kpack tool leaves
// .hip_fatbin) gets its contents the same way, at the end, and becomes
// SHT_PROGBITS; the segments that zero-filled its old addresses stay as
// they are, since nothing it held is left there to give back.
//
// A file whose table an earlier version of this code left at the end of a
// segment gets it back home the same way.
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
// a message: other classes and byte orders, a section that is not loaded
// (SHF_ALLOC), a section that lies in no PT_LOAD segment or that another
// segment overlaps, structures (program header table, patched tables) outside
// the file or inside the section, and a growing section when the table cannot
// get the entry it needs.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "support/error.h"
#include "support/output_plan.h"

namespace offbundle {

class ElfObject; // formats/elf/elf_object.h

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
// like the plan's own, are ranges of the file) in it. The first form takes
// the file parsed, the second parses it.
Result<OutputPlan> planLinkedSectionResize(const ElfObject &file,
                                           const LinkedSectionResize &request,
                                           OutputPlan contents);
Result<OutputPlan> planLinkedSectionResize(std::string_view file,
                                           const LinkedSectionResize &request,
                                           OutputPlan contents);

} // namespace offbundle
