// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The model of the ELF object rewriter (formats/elf/elf_object.h), shared
// by the files that implement its steps: what llvm-objcopy 22 does for the
// commands the bundler runs, step by step, because every step is visible in
// the output:
//
// bundler runs, step by step, because every step is visible in the output:
//
//  1. Reading. Each section gets a role from its type and flags: non-alloc
//     string tables are rebuilt from scratch (so one nobody refers to shrinks
//     to a single zero byte), the symbol table, relocation and group sections
//     are decoded and re-encoded, everything else is copied as it is.
//  2. Removing sections (none when bundling, but the step still runs and
//     drops empty groups), with what depends on them: relocation sections of
//     removed sections, groups left empty, symbols defined in them.
//  3. Ordering symbols: locals first, keeping their relative order.
//  4. Adding the bundle sections at the end and setting their flags.
//  5. Finalizing: section names and symbol names go into tail-merged string
//     tables, sizes of rebuilt tables are recomputed, and sections are laid
//     out after the ELF header in the order of their old file offsets (new
//     sections last), each at its alignment; the section header table
//
// The steps live in objcopy_reading.cpp (1), objcopy_editing.cpp
// (2 to 4), objcopy_writing.cpp (5 and the bytes), and
// objcopy_relocations.cpp (REL, RELA and CREL decoded and encoded).
#pragma once

#include "formats/elf/elf_file.h"
#include "formats/elf/elf_object.h"
#include "formats/objcopy/objcopy.h"
#include "support/tail_merged_string_table.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace offbundle::elf_rewrite {

// Rounding up the way LLVM's alignTo does it, wrapping on overflow; the
// callers check the results against limits that make wrapping impossible.
inline uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}
inline uint64_t alignUpSkewed(uint64_t value, uint64_t alignment,
                              uint64_t skew) {
  skew %= alignment;
  return alignUp(value - skew, alignment) + skew;
}

// How llvm-objcopy treats a section, decided by its type and flags when the
// file is read.
enum class SectionRole {
  Plain,             // bytes copied; sh_link follows the section it names
  StringTable,       // non-alloc SHT_STRTAB: rebuilt from what uses it
  SymbolTable,       // rebuilt
  SymbolIndexTable,  // SHT_SYMTAB_SHNDX: rebuilt, or dropped when unneeded
  Relocation,        // non-alloc REL/RELA/CREL: re-encoded
  DynamicRelocation, // alloc REL/RELA/CREL: bytes copied
  Group,             // rebuilt from its members
  Compressed,        // SHF_COMPRESSED: bytes, sh_link and sh_info as they are
  Added,             // a bundle section
};

constexpr int kNone = -1;
constexpr uint64_t kNewSectionOffset = std::numeric_limits<uint64_t>::max();

struct SymbolRecord {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t binding = 0;
  uint8_t type = 0;
  uint8_t other = 0;
  int definedIn = kNone;      // section id
  uint16_t reservedIndex = 0; // st_shndx when not defined in a section
  uint32_t outputIndex = 0;
};

struct SectionRecord {
  SectionRole role = SectionRole::Plain;
  std::string name;
  uint32_t type = 0;
  uint32_t originalType = 0;
  uint64_t flags = 0;
  uint64_t originalFlags = 0;
  uint64_t address = 0;
  uint64_t size = 0;
  uint64_t alignment = 1;
  uint32_t entrySize = 0; // llvm-objcopy keeps only 32 bits of sh_entsize
  uint64_t link = 0;
  uint64_t info = 0;
  uint64_t originalOffset = kNewSectionOffset;
  std::string_view contents; // copied bytes, or encoded relocations
  bool zeroFilled = false;   // SHT_NOBITS turned into SHT_PROGBITS
  int payloadIndex = kNone;  // for Added

  // Plain and relocation sections: the section sh_link names.
  int linkedSection = kNone;
  bool linksSymbolTable = false; // Plain: sh_link named the symbol table
  // Relocation sections: the section they apply to.
  int targetSection = kNone;
  // Groups: flag word, members, signature symbol (by input index).
  uint32_t groupFlags = 0;
  std::vector<int> groupMembers;
  int groupSymbol = kNone;
  // Whether a symbol was defined in this section when the file was read.
  bool hasSymbol = false;

  // Results of layout.
  uint32_t index = 0;
  uint64_t offset = 0;
  uint64_t nameIndex = 0;
};

// One relocation as llvm-objcopy holds it.
struct Relocation {
  uint64_t offset = 0;
  uint64_t addend = 0;
  uint32_t type = 0;
  uint32_t symbol = 0; // input symbol index, 0 for none
};

// What the operation does besides rewriting.
struct Edit {
  bool removeBundleSections = false;
  const std::vector<OffloadBundleSection> *added = nullptr;
  // A section whose contents are replaced: its name and the new bytes.
  const std::pair<std::string_view, std::string_view> *updated = nullptr;
};

class ElfPlanBuilder {
public:
  explicit ElfPlanBuilder(const ElfObject &object)
      : object_(object), header_(object.header()),
        shape_(ElfShape::of(header_.is64Bit)), order_(header_.isLittleEndian) {}

  Result<ElfWritePlan> run(const Edit &edit);

private:
  // Reading.
  Status readSections();
  Status readSymbols();
  Status resolveSymbolSection(SymbolRecord &symbol, size_t index,
                              uint16_t sectionIndex,
                              std::string_view extendedIndices);
  Status linkSections();
  Status readRelocations(SectionRecord &section, int sectionId);
  Status checkSectionIndex(uint64_t index, const std::string &what) const;
  Result<std::vector<Relocation>>
  decodeRelocations(const SectionRecord &section) const;
  Result<std::vector<Relocation>> decodeCrel(std::string_view bytes) const;
  uint64_t packRelocationInfo(uint32_t symbol, uint32_t type) const;
  std::pair<uint32_t, uint32_t> unpackRelocationInfo(uint64_t info) const;

  // Editing.
  Status removeSections(const std::function<bool(int)> &shouldRemove);
  Status checkKeptRelocations(const SectionRecord &section, int id,
                              const std::unordered_set<int> &removed);
  std::unordered_set<uint32_t>
  dropSymbolsDefinedIn(const std::unordered_set<int> &removed);
  Status orderSymbolsLocalFirst();
  Status checkGroupSymbols() const;
  void addBundleSections(const std::vector<OffloadBundleSection> &added);
  Status updateSection(std::string_view name, std::string_view contents);

  // Finalizing (step 5), in the order finalizeAndWrite runs the steps.
  Result<ElfWritePlan> finalizeAndWrite();
  Status dropEmptySymbolTable();
  void relinkSymbolTableUsers();
  Status provideSymbolIndexTableIfNeeded();
  void sizeRebuiltSections();
  void buildStringTables();
  void encodeCrelSections();
  uint64_t endOfHeaders() const;
  Status layOutSections();
  Status checkOutputSize() const;
  void resolveLinksAndInfos();
  uint64_t outputSectionCount() const { return live_.size() + 1; }

  // Writing.
  static void addGenerated(ElfWritePlan &plan, uint64_t at, std::string bytes);
  std::string encodeElfHeader() const;
  void writeSectionContents(ElfWritePlan &plan);
  std::string encodeSymbolTable(const SectionRecord &section);
  std::string encodeSymbolIndexTable(const SectionRecord &section) const;
  std::string encodeGroup(const SectionRecord &section) const;
  std::string encodeSectionHeaderTable() const;
  std::string encodeCrel(const std::vector<Relocation> &relocations) const;
  std::string
  encodeRelocations(const SectionRecord &section,
                    const std::vector<Relocation> &relocations) const;

  bool isRelocationRole(const SectionRecord &section) const {
    return section.role == SectionRole::Relocation ||
           section.role == SectionRole::DynamicRelocation;
  }
  bool isMips64Little() const {
    return header_.machine == elf::kMachineMips && header_.is64Bit &&
           header_.isLittleEndian;
  }
  const std::string &nameOf(int sectionId) const {
    return sections_[sectionId].name;
  }

  const ElfObject &object_;
  const ElfHeader &header_;
  const ElfShape shape_;
  const ElfByteOrder order_;

  // Every section ever known, by id: input section i has id i - 1; added
  // ones follow. `live_` lists the ids of the output's sections in order.
  std::vector<SectionRecord> sections_;
  std::vector<int> live_;
  int symbolTable_ = kNone;
  int symbolNames_ = kNone; // the symbol table's string table
  int symbolIndexTable_ = kNone;
  int sectionNames_ = kNone;
  bool writeSectionHeaders_ = true;

  // Symbols by input index, and the input indices of those kept, in output
  // order.
  std::vector<SymbolRecord> symbols_;
  std::vector<uint32_t> symbolOrder_;
  bool symbolIndicesChanged_ = false;
  // Relocations of each relocation section, by section id.
  std::unordered_map<int, std::vector<Relocation>> relocations_;

  // What finalizing computes for writing: the rebuilt string tables and
  // CREL sections by section id, the sections in file offset order, and
  // where the section header table and the file end.
  std::unordered_map<int, TailMergedStringTable> stringTables_;
  std::unordered_map<int, std::string> encodedRelocations_;
  std::vector<int> layoutOrder_;
  uint64_t sectionHeaderTableOffset_ = 0;
  uint64_t outputSize_ = 0;
};

} // namespace offbundle::elf_rewrite
