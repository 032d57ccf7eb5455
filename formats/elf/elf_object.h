// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF objects for -type=o: reading their section tables, and rewriting them
// the way LLVM 22's llvm-objcopy does when clang-offload-bundler calls it.
//
// LLVM's bundler never edits an object itself: to bundle it runs
//
//   llvm-objcopy --add-section=__CLANG_OFFLOAD_BUNDLE__<id>=<file>
//                --set-section-flags=__CLANG_OFFLOAD_BUNDLE__<id>=readonly,exclude
//                ... -- host.o fat.o
//
// (the host's own section holding a single zero byte), and to take the host
// object back out of a fat object it runs
//
//   llvm-objcopy --regex --remove-section=__CLANG_OFFLOAD_BUNDLE__.* fat.o
//   host.o
//
// llvm-objcopy rebuilds the whole file even when it changes nothing: string
// tables are rebuilt with tail merging, symbol and relocation tables are
// re-encoded, sections are laid out afresh in order of their old offsets and
// the section header table moves to the end. The functions here reproduce
// those bytes exactly, without running anything.
//
// Supported: ELF32 and ELF64, little- and big-endian, with no program headers
// (relocatable objects, which is what compilers hand to the bundler).
// Anything malformed is refused with one line of explanation; nothing is
// ever read outside the given bytes.
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

namespace elf_rewrite {
class ElfPlanBuilder; // the rewriter, formats/elf/elf_rewrite.h
} // namespace elf_rewrite

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

// Reads and checks the ELF header, the section header table, the section
// name table and every section's place in the file: sizes and offsets are
// checked with overflow-safe arithmetic, sections may not overlap each other
// or the headers, and names must lie inside the name table.
Result<ElfObject> parseElfObject(std::string_view bytes);

// A rewritten object, described as the bytes to put at each offset so that
// large payloads can be streamed from where they already are. Bytes between
// chunks are zero.
struct ElfOutputChunk {
  uint64_t offset = 0;
  std::string_view bytes;
  // For a bundle section's payload, its position in the list given to
  // planOffloadBundleSections (`bytes` then views that payload), so a
  // caller can copy it from its file instead; -1 otherwise.
  int payloadIndex = -1;
};

class ElfWritePlan {
public:
  uint64_t size() const { return size_; }
  // In increasing offset order, never overlapping, never empty.
  const std::vector<ElfOutputChunk> &chunks() const { return chunks_; }
  // The whole output in one string.
  std::string render() const;
  // Hands the output over in order: chunk bytes to writeBytes, the gaps
  // between them to writeZeros. Stops at the first error.
  Status stream(const std::function<Status(std::string_view)> &writeBytes,
                const std::function<Status(uint64_t)> &writeZeros) const;

private:
  friend class elf_rewrite::ElfPlanBuilder;
  uint64_t size_ = 0;
  std::vector<ElfOutputChunk> chunks_;
  // Bytes computed here (headers, rebuilt tables) that chunks point into;
  // each string is allocated once and never moves.
  std::vector<std::unique_ptr<const std::string>> generated_;
};

// One bundle section to add: the entry ID (without the prefix) and its
// payload. For the host entry the bundler passes a single zero byte.
using OffloadBundleSection = std::pair<std::string, std::string_view>;

// What llvm-objcopy writes for the bundling command above, one
// --add-section/--set-section-flags pair per entry, in order. The chunks view
// `object` and the payloads, which must outlive the plan.
Result<ElfWritePlan>
planOffloadBundleSections(std::string_view object,
                          const std::vector<OffloadBundleSection> &sections);

// What llvm-objcopy --update-section=<name>=<file> writes: the contents of
// the section of that name replaced by `contents`, of any size, everything
// else rewritten as above. The section must have contents (not SHT_NOBITS)
// and no relocations applying to it. The chunks view `object` and
// `contents`, which must outlive the plan.
Result<ElfWritePlan> planSectionUpdate(const ElfObject &object,
                                       std::string_view sectionName,
                                       std::string_view contents);

// What llvm-objcopy writes for the host extraction command above: every
// section whose name starts with the prefix is removed (with what hangs on
// it), everything else is rewritten.
Result<ElfWritePlan> planHostObjectExtraction(std::string_view object);

} // namespace offbundle
