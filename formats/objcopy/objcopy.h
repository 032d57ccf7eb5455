// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-objcopy's rewriting of ELF relocatable objects, as far as offload
// bundles need it: what clang-offload-bundler's fat objects (formats/
// fat_object.h) are written and taken apart with, and what a rewrite of an
// object's bundle section (rewrite/elf/object_rewrite.cpp) writes.
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
// those bytes exactly, without running anything; the model and its steps are
// in objcopy_model.h. This is a writer, not a reader: the objects it takes
// are read by formats/elf/elf_object.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/elf/elf_object.h"
#include "support/error.h"

namespace offbundle {

namespace elf_rewrite {
class ElfPlanBuilder; // the rewriter, objcopy_model.h
} // namespace elf_rewrite

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
