// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Steps 2 to 4 of the ELF object rewriter (see objcopy_model.h): sections
// removed with what depends on them, symbols ordered locals first, bundle
// sections added, and a section's contents replaced (--update-section).
#include "formats/objcopy/objcopy_model.h"
#include "support/hex.h"

#include <algorithm>

namespace offbundle::elf_rewrite {

// A kept relocation section may neither use a removed symbol table nor
// relocate against a symbol defined in a removed section.
Status
ElfPlanBuilder::checkKeptRelocations(const SectionRecord &section, int id,
                                     const std::unordered_set<int> &removed) {
  auto isRemoved = [&](int other) {
    return other != kNone && removed.count(other);
  };
  if (isRemoved(section.linkedSection))
    return makeError("symbol table '" + nameOf(section.linkedSection) +
                     "' cannot be removed because it is referenced by "
                     "the relocation section '" +
                     section.name + "'");
  for (const Relocation &relocation : relocations_[id]) {
    if (relocation.symbol == 0)
      continue;
    const SymbolRecord &symbol = symbols_[relocation.symbol];
    if (isRemoved(symbol.definedIn))
      return makeError(
          "section '" + nameOf(symbol.definedIn) + "' cannot be removed: (" +
          (section.targetSection != kNone ? nameOf(section.targetSection)
                                          : std::string()) +
          "+" + hexNumber(relocation.offset) +
          ") has relocation against symbol '" + std::string(symbol.name) + "'");
  }
  return Status::success();
}

// Symbols defined in removed sections go with them (never the null one);
// returns their input indices.
std::unordered_set<uint32_t>
ElfPlanBuilder::dropSymbolsDefinedIn(const std::unordered_set<int> &removed) {
  std::unordered_set<uint32_t> removedSymbols;
  std::vector<uint32_t> remaining;
  remaining.reserve(symbolOrder_.size());
  for (size_t position = 0; position < symbolOrder_.size(); ++position) {
    uint32_t symbol = symbolOrder_[position];
    const int definedIn = symbols_[symbol].definedIn;
    if (position != 0 && definedIn != kNone && removed.count(definedIn))
      removedSymbols.insert(symbol);
    else
      remaining.push_back(symbol);
  }
  if (remaining.size() != symbolOrder_.size())
    symbolIndicesChanged_ = true;
  symbolOrder_ = std::move(remaining);
  return removedSymbols;
}

Status
ElfPlanBuilder::removeSections(const std::function<bool(int)> &shouldRemove) {
  // A section goes when asked, and so do relocations for a section that
  // goes and groups all of whose members go. Compressed sections stay.
  std::vector<int> kept;
  std::unordered_set<int> removed;
  for (int id : live_) {
    const SectionRecord &section = sections_[id];
    bool remove = shouldRemove(id);
    if (!remove && !(section.originalFlags & elf::kFlagCompressed)) {
      if (isRelocationRole(section) && section.targetSection != kNone)
        remove = shouldRemove(section.targetSection);
      else if (section.type == elf::kTypeGroup)
        remove = std::all_of(section.groupMembers.begin(),
                             section.groupMembers.end(), shouldRemove);
    }
    if (remove)
      removed.insert(id);
    else
      kept.push_back(id);
  }
  if (removed.empty())
    return Status::success();
  auto isRemoved = [&](int id) { return id != kNone && removed.count(id); };

  if (symbolTable_ != kNone && shouldRemove(symbolTable_))
    symbolTable_ = kNone;
  if (sectionNames_ != kNone && shouldRemove(sectionNames_))
    sectionNames_ = kNone;
  if (symbolIndexTable_ != kNone && shouldRemove(symbolIndexTable_))
    symbolIndexTable_ = kNone;

  // A removed group's members stop being group members.
  for (int id : removed)
    if (sections_[id].role == SectionRole::Group)
      for (int member : sections_[id].groupMembers)
        sections_[member].flags &= ~elf::kFlagGroup;

  // What stays must not need what goes.
  std::unordered_set<uint32_t> removedSymbols;
  for (int id : kept) {
    SectionRecord &section = sections_[id];
    switch (section.role) {
    case SectionRole::Plain:
      if (isRemoved(section.linkedSection))
        return makeError("section '" + nameOf(section.linkedSection) +
                         "' cannot be removed because it is referenced by "
                         "the section '" +
                         section.name + "'");
      break;
    case SectionRole::Relocation:
    case SectionRole::DynamicRelocation:
      if (Status status = checkKeptRelocations(section, id, removed);
          !status.ok())
        return status;
      break;
    case SectionRole::Group:
      if (isRemoved(section.linkedSection))
        return makeError("section '.symtab' cannot be removed because it is "
                         "referenced by the group section '" +
                         section.name + "'");
      std::erase_if(section.groupMembers, isRemoved);
      break;
    case SectionRole::SymbolTable:
      if (isRemoved(symbolNames_))
        return makeError("string table '" + nameOf(symbolNames_) +
                         "' cannot be removed because it is referenced by "
                         "the symbol table '" +
                         section.name + "'");
      removedSymbols = dropSymbolsDefinedIn(removed);
      break;
    default:
      break;
    }
  }
  // llvm-objcopy would go on with dangling pointers here; refuse instead.
  if (!removedSymbols.empty())
    for (int id : kept)
      if (sections_[id].role == SectionRole::Group &&
          sections_[id].groupSymbol != kNone &&
          removedSymbols.count(sections_[id].groupSymbol))
        return makeError(
            "symbol '" + std::string(symbols_[sections_[id].groupSymbol].name) +
            "' cannot be removed because it is referenced by the section '" +
            sections_[id].name + "'");
  live_ = std::move(kept);
  return Status::success();
}

Status ElfPlanBuilder::orderSymbolsLocalFirst() {
  if (symbolTable_ == kNone)
    return Status::success();
  std::vector<uint32_t> ordered;
  ordered.reserve(symbolOrder_.size());
  for (uint32_t symbol : symbolOrder_)
    if (symbols_[symbol].binding == elf::kBindingLocal)
      ordered.push_back(symbol);
  for (uint32_t symbol : symbolOrder_)
    if (symbols_[symbol].binding != elf::kBindingLocal)
      ordered.push_back(symbol);
  if (ordered != symbolOrder_)
    symbolIndicesChanged_ = true;
  symbolOrder_ = std::move(ordered);
  return Status::success();
}

Status ElfPlanBuilder::checkGroupSymbols() const {
  // llvm-objcopy asks every group whether its signature symbol is being
  // stripped whenever there is a symbol table; a group without one crashes
  // it.
  if (symbolTable_ == kNone)
    return Status::success();
  for (int id : live_)
    if (sections_[id].role == SectionRole::Group &&
        sections_[id].groupSymbol == kNone)
      return invalidElfObject("group section '" + sections_[id].name +
                              "' has no signature symbol");
  return Status::success();
}

void ElfPlanBuilder::addBundleSections(
    const std::vector<OffloadBundleSection> &added) {
  std::unordered_set<std::string> bundleNames;
  for (size_t i = 0; i < added.size(); ++i) {
    SectionRecord section;
    section.role = SectionRole::Added;
    section.name = std::string(kOffloadBundleSectionPrefix) + added[i].first;
    section.type = section.originalType = elf::kTypeProgBits;
    section.size = added[i].second.size();
    section.contents = added[i].second;
    section.payloadIndex = static_cast<int>(i);
    live_.push_back(static_cast<int>(sections_.size()));
    sections_.push_back(std::move(section));
    bundleNames.insert(sections_.back().name);
  }

  // --set-section-flags=<name>=readonly,exclude, which also reaches
  // sections of those names that the object already had. Flags tied to the
  // section's nature survive; on x86-64 "large" is not one of them.
  uint64_t preserved =
      (elf::kFlagCompressed | elf::kFlagGroup | elf::kFlagLinkOrder |
       elf::kFlagMaskOs | elf::kFlagMaskProcessor | elf::kFlagTls |
       elf::kFlagInfoLink) &
      ~kElfSectionFlagExclude;
  if (header_.machine == elf::kMachineX86_64)
    preserved &= ~elf::kFlagX86_64Large;
  for (int id : live_) {
    SectionRecord &section = sections_[id];
    if (!bundleNames.count(section.name))
      continue;
    section.flags =
        (section.flags & preserved) | (kElfSectionFlagExclude & ~preserved);
    // Like GNU objcopy, a non-alloc SHT_NOBITS section gets contents
    // (zeros).
    if (section.type == kElfSectionTypeNoBits &&
        !(section.flags & elf::kFlagAlloc)) {
      section.type = elf::kTypeProgBits;
      section.zeroFilled = true;
    }
  }
}

// llvm-objcopy --update-section: new contents of any size for a section
// that has contents of its own and that no relocations apply to (their
// offsets would no longer mean anything).
Status ElfPlanBuilder::updateSection(std::string_view name,
                                     std::string_view contents) {
  for (size_t id = 0; id < sections_.size(); ++id) {
    SectionRecord &section = sections_[id];
    if (section.name != name)
      continue;
    if (section.type == kElfSectionTypeNoBits)
      return makeError("section '" + std::string(name) +
                       "' has no contents to replace");
    for (const SectionRecord &other : sections_)
      if (isRelocationRole(other) &&
          other.targetSection == static_cast<int>(id))
        return makeError("section '" + std::string(name) +
                         "' has relocations and cannot be replaced");
    section.contents = contents;
    section.size = contents.size();
    return Status::success();
  }
  return makeError("no section '" + std::string(name) + "'");
}

} // namespace offbundle::elf_rewrite
