// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Step 5 of the ELF object rewriter (see objcopy_model.h) and the bytes:
// tables rebuilt and sized, sections laid out in llvm-objcopy's order, the
// headers, symbol tables, groups and section header table encoded into the
// write plan; and ElfPlanBuilder::run, which runs every step in order.
#include "formats/objcopy/objcopy_model.h"
#include "support/hex.h"

#include <algorithm>
#include <cstring>

namespace offbundle::elf_rewrite {

// An executable or shared object loses an empty symbol table (and its string
// table, unless that also names the sections), as llvm-objcopy's writer does.
Status ElfPlanBuilder::dropEmptySymbolTable() {
  const bool relocatable = header_.fileType != elf::kFileTypeExecutable &&
                           header_.fileType != elf::kFileTypeShared;
  if (relocatable || symbolTable_ == kNone || symbolOrder_.size() != 1)
    return Status::success();
  int table = symbolTable_;
  int names = symbolNames_ == sectionNames_ ? kNone : symbolNames_;
  return removeSections([&](int id) { return id == table || id == names; });
}

// Sections that named the symbol table keep naming it only if no symbol
// moved; otherwise their contents may be stale and the link is cut.
void ElfPlanBuilder::relinkSymbolTableUsers() {
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    if (section.role == SectionRole::Plain && section.linksSymbolTable &&
        symbolTable_ != kNone && !symbolIndicesChanged_)
      section.linkedSection = symbolTable_;
  }
}

// SHT_SYMTAB_SHNDX is needed only when a section that holds symbols sits at
// index 0xff00 or above: then one is added if missing, otherwise it goes.
Status ElfPlanBuilder::provideSymbolIndexTableIfNeeded() {
  bool needsExtendedIndices = false;
  if (live_.size() >= elf::kSectionIndexLoReserve)
    for (size_t position = elf::kSectionIndexLoReserve - 1;
         position < live_.size(); ++position)
      needsExtendedIndices |= sections_[live_[position]].hasSymbol;
  if (!needsExtendedIndices) {
    if (symbolIndexTable_ == kNone)
      return Status::success();
    int table = symbolIndexTable_;
    return removeSections([&](int id) { return id == table; });
  }
  if (symbolTable_ != kNone && symbolIndexTable_ == kNone) {
    SectionRecord table;
    table.role = SectionRole::SymbolIndexTable;
    table.name = ".symtab_shndx";
    table.type = table.originalType = elf::kTypeSymbolIndexTable;
    table.alignment = 4;
    table.entrySize = 4;
    symbolIndexTable_ = static_cast<int>(sections_.size());
    live_.push_back(symbolIndexTable_);
    sections_.push_back(std::move(table));
  }
  return Status::success();
}

// Sizes, entry sizes and alignments of the sections rebuilt from their
// records (string tables and CREL come later: they depend on more).
void ElfPlanBuilder::sizeRebuiltSections() {
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    switch (section.role) {
    case SectionRole::SymbolTable:
      section.entrySize = static_cast<uint32_t>(shape_.symbolSize);
      section.size = symbolOrder_.size() * shape_.symbolSize;
      section.alignment = shape_.wordSize;
      break;
    case SectionRole::Relocation:
      if (section.type != elf::kTypeCrel) {
        section.entrySize = static_cast<uint32_t>(
            section.type == elf::kTypeRel ? shape_.relSize : shape_.relaSize);
        section.size = relocations_[id].size() * section.entrySize;
        section.alignment = shape_.wordSize;
      }
      break;
    case SectionRole::Group:
      section.size = 4 + 4 * section.groupMembers.size();
      break;
    default:
      break;
    }
  }
  if (symbolTable_ == kNone)
    return;
  for (size_t position = 0; position < symbolOrder_.size(); ++position)
    symbols_[symbolOrder_[position]].outputIndex =
        static_cast<uint32_t>(position);
  if (symbolIndexTable_ != kNone)
    sections_[symbolIndexTable_].size = 4 * symbolOrder_.size();
}

// Every non-alloc string table is rebuilt, tail-merged, from the names that
// use it: section names first, then symbol names. Section records must stay
// put in memory from here on: the tables view their names.
void ElfPlanBuilder::buildStringTables() {
  for (int id : live_)
    if (sections_[id].role == SectionRole::StringTable)
      stringTables_[id];
  if (sectionNames_ != kNone)
    for (int id : live_)
      stringTables_[sectionNames_].add(sections_[id].name);
  if (symbolTable_ != kNone && symbolNames_ != kNone)
    for (uint32_t symbol : symbolOrder_)
      stringTables_[symbolNames_].add(symbols_[symbol].name);
  for (auto &[id, table] : stringTables_) {
    table.finalize();
    sections_[id].size = table.size();
  }
}

// CREL sections are encoded now, since their sizes depend on the final
// symbol indices.
void ElfPlanBuilder::encodeCrelSections() {
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    if (section.role == SectionRole::Relocation &&
        section.type == elf::kTypeCrel) {
      encodedRelocations_[id] = encodeCrel(relocations_[id]);
      section.size = encodedRelocations_[id].size();
    }
  }
}

// Where the sections may start: after the ELF header and the (empty)
// program header table. Both are laid out like segments: in order of offset
// (the larger alignment first on a tie), each at its alignment with its
// address as skew. Only an odd e_phoff makes this differ from "right after
// the ELF header".
uint64_t ElfPlanBuilder::endOfHeaders() const {
  struct HeaderPiece {
    uint64_t offset, alignment, fileSize;
  };
  HeaderPiece elfHeaderPiece{0, 1, shape_.headerSize};
  HeaderPiece programHeaderPiece{header_.programHeaderOffset, shape_.wordSize,
                                 0};
  std::vector<HeaderPiece> headerPieces = {elfHeaderPiece, programHeaderPiece};
  if (header_.programHeaderOffset == 0)
    std::swap(headerPieces[0], headerPieces[1]);
  uint64_t offset = 0;
  for (const HeaderPiece &piece : headerPieces) {
    uint64_t placed = alignUpSkewed(offset, piece.alignment, piece.offset);
    offset = std::max(offset, placed + piece.fileSize);
  }
  return offset;
}

// Indices follow the section order; file offsets follow the old offsets,
// each section at its alignment, then the section header table aligned to
// the address size.
Status ElfPlanBuilder::layOutSections() {
  for (size_t position = 0; position < live_.size(); ++position)
    sections_[live_[position]].index = static_cast<uint32_t>(position + 1);
  uint64_t offset = endOfHeaders();
  layoutOrder_ = live_;
  std::stable_sort(layoutOrder_.begin(), layoutOrder_.end(), [&](int a, int b) {
    return sections_[a].originalOffset < sections_[b].originalOffset;
  });
  // Offsets stay at most 2^62, so nothing below wraps.
  constexpr uint64_t kSizeLimit = uint64_t(1) << 62;
  for (int id : layoutOrder_) {
    SectionRecord &section = sections_[id];
    const uint64_t alignment = section.alignment == 0 ? 1 : section.alignment;
    if (alignment > kSizeLimit)
      return invalidElfObject("section '" + section.name + "' has alignment " +
                              hexNumber(alignment));
    // Both at most 2^62, so this cannot wrap.
    offset = alignUp(offset, alignment);
    if (offset > kSizeLimit)
      return makeError("the output object would be too large");
    section.offset = offset;
    if (section.type != kElfSectionTypeNoBits) {
      if (section.size > kSizeLimit - offset)
        return makeError("the output object would be too large");
      offset += section.size;
    }
  }
  sectionHeaderTableOffset_ = offset;
  outputSize_ = offset;
  if (writeSectionHeaders_) {
    sectionHeaderTableOffset_ = alignUp(offset, shape_.wordSize);
    outputSize_ = sectionHeaderTableOffset_ +
                  outputSectionCount() * shape_.sectionHeaderSize;
  }
  return checkOutputSize();
}

// Refuses outputs llvm-objcopy could not write either: mostly padding from
// absurd alignments (it would try to allocate all of it), or too large for
// ELF32.
Status ElfPlanBuilder::checkOutputSize() const {
  constexpr uint64_t kPaddingLimit = uint64_t(1) << 30;
  uint64_t contentBytes = shape_.headerSize;
  for (int id : live_)
    if (sections_[id].type != kElfSectionTypeNoBits)
      contentBytes += sections_[id].size;
  if (writeSectionHeaders_)
    contentBytes += outputSectionCount() * shape_.sectionHeaderSize;
  if (outputSize_ - std::min(outputSize_, contentBytes) > kPaddingLimit)
    return makeError("the output object would hold more than 1 GiB of "
                     "alignment padding");
  if (!header_.is64Bit && outputSize_ > 0xffffffff)
    return makeError("the output object would be larger than 4 GiB, which "
                     "ELF32 cannot describe");
  return Status::success();
}

// sh_link and sh_info in output indices, and each section's name offset.
void ElfPlanBuilder::resolveLinksAndInfos() {
  uint32_t lastLocal = 0;
  for (size_t position = 0; position < symbolOrder_.size(); ++position)
    if (symbols_[symbolOrder_[position]].binding == elf::kBindingLocal)
      lastLocal = static_cast<uint32_t>(position);
  auto indexOf = [&](int id) -> uint64_t {
    return id == kNone ? 0 : sections_[id].index;
  };
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    switch (section.role) {
    case SectionRole::Plain:
      section.link = indexOf(section.linkedSection);
      break;
    case SectionRole::SymbolTable:
      section.link = indexOf(symbolNames_);
      section.info = lastLocal + 1;
      break;
    case SectionRole::SymbolIndexTable:
      section.link = indexOf(symbolTable_);
      break;
    case SectionRole::Relocation:
    case SectionRole::DynamicRelocation:
      section.link = indexOf(section.linkedSection);
      if (section.targetSection != kNone)
        section.info = indexOf(section.targetSection);
      break;
    case SectionRole::Group:
      section.info = section.groupSymbol == kNone
                         ? 0
                         : symbols_[section.groupSymbol].outputIndex;
      section.link = indexOf(section.linkedSection);
      // A group whose signature is local is no longer deduplicated.
      if ((section.groupFlags & elf::kGroupComdat) &&
          section.groupSymbol != kNone &&
          symbols_[section.groupSymbol].binding == elf::kBindingLocal)
        section.groupFlags &= ~elf::kGroupComdat;
      break;
    default:
      break;
    }
    if (writeSectionHeaders_)
      section.nameIndex = stringTables_[sectionNames_].offsetOf(section.name);
  }
}

// Hands bytes computed here to the plan, which keeps them alive.
void ElfPlanBuilder::addGenerated(ElfWritePlan &plan, uint64_t at,
                                  std::string bytes) {
  if (bytes.empty())
    return;
  auto owned = std::make_unique<const std::string>(std::move(bytes));
  plan.chunks_.push_back({at, *owned, -1});
  plan.generated_.push_back(std::move(owned));
}

std::string ElfPlanBuilder::encodeElfHeader() const {
  std::string elfHeader(shape_.headerSize, '\0');
  char *out = elfHeader.data();
  const ElfHeaderFields fields = ElfHeaderFields::of(header_.is64Bit);
  std::memcpy(out,
              "\x7f"
              "ELF",
              4);
  out[4] = static_cast<char>(header_.is64Bit ? elf::kClass64 : elf::kClass32);
  out[5] = static_cast<char>(header_.isLittleEndian ? elf::kDataLittle
                                                    : elf::kDataBig);
  out[6] = 1; // EV_CURRENT
  out[7] = static_cast<char>(header_.osAbi);
  out[8] = static_cast<char>(header_.abiVersion);
  order_.write(out + 16, header_.fileType, 2);
  order_.write(out + 18, header_.machine, 2);
  order_.write(out + 20, header_.version, 4);
  order_.write(out + fields.entry, header_.entry, shape_.wordSize);
  order_.write(out + fields.flags, header_.flags, 4);
  order_.write(out + fields.ehsize, shape_.headerSize, 2);
  if (writeSectionHeaders_ && !live_.empty()) {
    const uint64_t sectionCount = outputSectionCount();
    order_.write(out + fields.shoff, sectionHeaderTableOffset_,
                 shape_.wordSize);
    order_.write(out + fields.shentsize, shape_.sectionHeaderSize, 2);
    order_.write(out + fields.shnum,
                 sectionCount >= elf::kSectionIndexLoReserve ? 0 : sectionCount,
                 2);
    const uint32_t namesIndex = sections_[sectionNames_].index;
    order_.write(out + fields.shstrndx,
                 namesIndex >= elf::kSectionIndexLoReserve
                     ? elf::kSectionIndexExtended
                     : namesIndex,
                 2);
  }
  return elfHeader;
}

std::string ElfPlanBuilder::encodeSymbolTable(const SectionRecord &section) {
  std::string bytes(section.size, '\0');
  const ElfSymbolFields fields = ElfSymbolFields::of(header_.is64Bit);
  const TailMergedStringTable *names =
      symbolNames_ == kNone ? nullptr : &stringTables_[symbolNames_];
  for (size_t position = 0; position < symbolOrder_.size(); ++position) {
    const SymbolRecord &symbol = symbols_[symbolOrder_[position]];
    char *entry = bytes.data() + position * shape_.symbolSize;
    order_.write(entry + fields.name, names ? names->offsetOf(symbol.name) : 0,
                 4);
    order_.write(entry + fields.value, symbol.value, shape_.wordSize);
    order_.write(entry + fields.size, symbol.size, shape_.wordSize);
    entry[fields.info] =
        static_cast<char>((symbol.binding << 4) + (symbol.type & 0xf));
    entry[fields.other] = static_cast<char>(symbol.other);
    uint32_t sectionIndex = symbol.reservedIndex;
    if (symbol.definedIn != kNone) {
      sectionIndex = sections_[symbol.definedIn].index;
      if (sectionIndex >= elf::kSectionIndexLoReserve)
        sectionIndex = elf::kSectionIndexExtended;
    }
    order_.write(entry + fields.shndx, sectionIndex, 2);
  }
  return bytes;
}

// The real section index of each symbol whose section index did not fit
// st_shndx, 0 for the others.
std::string
ElfPlanBuilder::encodeSymbolIndexTable(const SectionRecord &section) const {
  std::string bytes(section.size, '\0');
  for (size_t position = 0; position < symbolOrder_.size(); ++position) {
    const SymbolRecord &symbol = symbols_[symbolOrder_[position]];
    uint32_t index =
        symbol.definedIn == kNone ? 0 : sections_[symbol.definedIn].index;
    order_.write(bytes.data() + 4 * position,
                 index >= elf::kSectionIndexLoReserve ? index : 0, 4);
  }
  return bytes;
}

std::string ElfPlanBuilder::encodeGroup(const SectionRecord &section) const {
  std::string bytes(section.size, '\0');
  order_.write(bytes.data(), section.groupFlags, 4);
  for (size_t i = 0; i < section.groupMembers.size(); ++i)
    order_.write(bytes.data() + 4 + 4 * i,
                 sections_[section.groupMembers[i]].index, 4);
  return bytes;
}

// Each section's bytes: copied ones as views of the input or payload,
// rebuilt ones encoded here. Layout order is also offset order.
void ElfPlanBuilder::writeSectionContents(ElfWritePlan &plan) {
  for (int id : layoutOrder_) {
    SectionRecord &section = sections_[id];
    if (section.type == kElfSectionTypeNoBits || section.size == 0)
      continue;
    switch (section.role) {
    case SectionRole::Plain:
    case SectionRole::DynamicRelocation:
    case SectionRole::Compressed:
      if (!section.zeroFilled && !section.contents.empty())
        plan.chunks_.push_back({section.offset, section.contents, -1});
      break;
    case SectionRole::Added:
      plan.chunks_.push_back(
          {section.offset, section.contents, section.payloadIndex});
      break;
    case SectionRole::StringTable: {
      std::string bytes(section.size, '\0');
      stringTables_[id].writeTo(bytes.data());
      addGenerated(plan, section.offset, std::move(bytes));
      break;
    }
    case SectionRole::SymbolTable:
      addGenerated(plan, section.offset, encodeSymbolTable(section));
      break;
    case SectionRole::SymbolIndexTable:
      addGenerated(plan, section.offset, encodeSymbolIndexTable(section));
      break;
    case SectionRole::Relocation:
      if (section.type == elf::kTypeCrel)
        addGenerated(plan, section.offset, std::move(encodedRelocations_[id]));
      else
        addGenerated(plan, section.offset,
                     encodeRelocations(section, relocations_[id]));
      break;
    case SectionRole::Group:
      addGenerated(plan, section.offset, encodeGroup(section));
      break;
    }
  }
}

std::string ElfPlanBuilder::encodeSectionHeaderTable() const {
  const uint64_t sectionCount = outputSectionCount();
  std::string table(sectionCount * shape_.sectionHeaderSize, '\0');
  const ElfSectionHeaderFields fields =
      ElfSectionHeaderFields::of(header_.is64Bit);
  // The null entry carries the count and name table index when they do not
  // fit the ELF header.
  if (sectionCount >= elf::kSectionIndexLoReserve)
    order_.write(table.data() + fields.size, sectionCount, shape_.wordSize);
  if (sections_[sectionNames_].index >= elf::kSectionIndexLoReserve)
    order_.write(table.data() + fields.link, sections_[sectionNames_].index, 4);
  for (int id : live_) {
    const SectionRecord &section = sections_[id];
    char *entry = table.data() + section.index * shape_.sectionHeaderSize;
    order_.write(entry + fields.name, section.nameIndex, 4);
    order_.write(entry + fields.type, section.type, 4);
    order_.write(entry + fields.flags, section.flags, shape_.wordSize);
    order_.write(entry + fields.addr, section.address, shape_.wordSize);
    order_.write(entry + fields.offset, section.offset, shape_.wordSize);
    order_.write(entry + fields.size, section.size, shape_.wordSize);
    order_.write(entry + fields.link, section.link, 4);
    order_.write(entry + fields.info, section.info, 4);
    order_.write(entry + fields.addralign, section.alignment, shape_.wordSize);
    order_.write(entry + fields.entsize, section.entrySize, shape_.wordSize);
  }
  return table;
}

// Step 5 of the model at the top of this file: the last removals, sizes,
// string tables, layout, links, then the bytes.
Result<ElfWritePlan> ElfPlanBuilder::finalizeAndWrite() {
  if (sectionNames_ == kNone && writeSectionHeaders_)
    return makeError("cannot write section header table because section "
                     "header string table was removed");
  if (Status status = dropEmptySymbolTable(); !status.ok())
    return status.takeError();
  relinkSymbolTableUsers();
  if (Status status = provideSymbolIndexTableIfNeeded(); !status.ok())
    return status.takeError();
  sizeRebuiltSections();
  buildStringTables();
  encodeCrelSections();
  if (Status status = layOutSections(); !status.ok())
    return status.takeError();
  resolveLinksAndInfos();

  ElfWritePlan plan;
  plan.size_ = outputSize_;
  addGenerated(plan, 0, encodeElfHeader());
  writeSectionContents(plan);
  if (writeSectionHeaders_)
    addGenerated(plan, sectionHeaderTableOffset_, encodeSectionHeaderTable());
  return plan;
}

Result<ElfWritePlan> ElfPlanBuilder::run(const Edit &edit) {
  if (Status status = readSections(); !status.ok())
    return status.takeError();
  if (Status status = readSymbols(); !status.ok())
    return status.takeError();
  if (Status status = linkSections(); !status.ok())
    return status.takeError();

  // Removal runs even when nothing is asked for: it drops empty groups.
  auto isBundleSection = [&](int id) {
    return edit.removeBundleSections &&
           std::string_view(sections_[id].name)
                   .substr(0, kOffloadBundleSectionPrefix.size()) ==
               kOffloadBundleSectionPrefix;
  };
  if (Status status = removeSections(isBundleSection); !status.ok())
    return status.takeError();
  if (Status status = orderSymbolsLocalFirst(); !status.ok())
    return status.takeError();
  if (Status status = checkGroupSymbols(); !status.ok())
    return status.takeError();
  if (edit.added)
    addBundleSections(*edit.added);
  if (edit.updated)
    if (Status status =
            updateSection(edit.updated->first, edit.updated->second);
        !status.ok())
      return status.takeError();
  return finalizeAndWrite();
}

} // namespace offbundle::elf_rewrite
