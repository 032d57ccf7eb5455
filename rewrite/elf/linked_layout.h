// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The layout rules of a linked ELF file (an executable or shared library)
// that the tools run on it after linking rely on: GNU strip and objcopy
// (BFD), eu-strip, patchelf, and the kernel and dynamic loader. Linkers
// always follow them; a rewrite (rewrite/elf/linked_section_resize.h) must too,
// or a distribution's packaging step breaks the file. Checked here:
//
//   1. The program header table (e_phoff, e_phnum entries of 56 bytes)
//      starts a PT_LOAD, or follows the ELF header in the PT_LOAD that maps
//      offset 0: BFD always writes it right after the ELF header and takes a
//      segment holding it to start there.
//   2. PT_PHDR, when present, is exactly the table, and its address is the
//      one the PT_LOAD holding the table gives it.
//   3. In an executable (a file with PT_INTERP, or of type ET_EXEC), the
//      table is mapped at the first PT_LOAD's load address plus e_phoff:
//      kernels before Linux 5.18 pass that as AT_PHDR.
//   4. PT_LOADs are in ascending address order, each maps offset and
//      address congruently modulo its alignment, and no two share a page
//      of memory (the later mapping would replace the earlier's bytes).
//   5. Every allocated section lies inside one PT_LOAD, at the address its
//      file offset gives there (a section without file bytes, inside its
//      memory); thread-local ones without file bytes are exempt.
//   6. The section header table lists allocated sections with file bytes
//      in file order: patchelf 0.14 walks it from the start to find the
//      sections that stand where the program header table must grow.
//
// Read: 64-bit little-endian files; anything else is not checked.
#pragma once

#include <string_view>

#include "support/error.h"

namespace offbundle {

// The first rule `file` breaks, as an Error naming it; success when it
// breaks none, or is not a 64-bit little-endian linked file.
Status checkLinkedLayout(std::string_view file);

} // namespace offbundle
