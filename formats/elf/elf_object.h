// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF files read for what they hold: the header, the section header table,
// the section names and each section's place, checked strictly enough that a
// writer can lay the file out again (formats/objcopy/objcopy.h rewrites
// relocatable objects as llvm-objcopy does; rewrite/elf/ edits linked ones).
//
// ELF32 and ELF64, little- and big-endian. Anything malformed is refused with
// one line of explanation; nothing is ever read outside the given bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/elf/elf_file.h"
#include "support/error.h"

namespace offbundle {

// Names of bundle sections are this prefix followed by the entry ID.
inline constexpr std::string_view kOffloadBundleSectionPrefix =
    "__CLANG_OFFLOAD_BUNDLE__";

// A validated view of an ELF file. It does not own the bytes: they must
// outlive the object.
class ElfObject {
public:
  const ElfHeader &header() const { return header_; }
  std::string_view bytes() const { return bytes_; }
  // Indexed like the section header table: [0] is the null entry (the list
  // is empty when the file has no section header table).
  const std::vector<ElfSection> &sections() const { return sections_; }
  // The section's bytes; empty for SHT_NOBITS and for the null entry [0].
  // Always within bytes().
  std::string_view contents(const ElfSection &section) const;

private:
  friend Result<ElfObject> parseElfObject(std::string_view bytes);
  std::string_view bytes_;
  ElfHeader header_;
  std::vector<ElfSection> sections_;
};

// Whether the bytes start like an ELF file (magic, a known class and data
// encoding). Says nothing about the rest being valid.
bool isElf(std::string_view bytes);

// "section N ('name')": a section as messages name it.
std::string describeSection(const ElfSection &section, size_t index);

// "invalid ELF object: <what>": how every refusal of an object reads.
Error invalidElfObject(const std::string &what);

// Reads and checks the ELF header, the section header table, the section
// name table and every section's place in the file: sizes and offsets are
// checked with overflow-safe arithmetic, sections may not overlap each other
// or the headers, and names must lie inside the name table.
Result<ElfObject> parseElfObject(std::string_view bytes);

} // namespace offbundle
