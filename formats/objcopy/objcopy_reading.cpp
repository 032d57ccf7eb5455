// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Step 1 of the ELF object rewriter (see objcopy_model.h): the sections,
// symbols and relocations of the input read into the model, each section
// with the role llvm-objcopy gives it, and the links between them resolved.
#include "formats/objcopy/objcopy_model.h"

#include "support/hex.h"

namespace offbundle::elf_rewrite {

Status ElfPlanBuilder::checkSectionIndex(uint64_t index,
                                         const std::string &what) const {
  if (index == 0 || index >= object_.sections().size())
    return invalidElfObject(what);
  return Status::success();
}

Status ElfPlanBuilder::readSections() {
  if (header_.programHeaderCount != 0)
    return makeError("ELF files with program headers are not supported, "
                     "only relocatable objects",
                     ErrorCode::Unsupported);
  const auto &input = object_.sections();
  const size_t count = input.empty() ? 0 : input.size() - 1;
  sections_.resize(count);
  for (size_t index = 1; index < input.size(); ++index) {
    const ElfSection &from = input[index];
    SectionRecord &section = sections_[index - 1];
    section.name = std::string(from.name);
    section.type = section.originalType = from.type;
    section.flags = section.originalFlags = from.flags;
    section.address = from.address;
    section.size = from.size;
    section.alignment = from.alignment;
    section.entrySize = static_cast<uint32_t>(from.entrySize);
    section.link = from.link;
    section.info = from.info;
    section.originalOffset = from.offset;
    section.contents = object_.contents(from);
    // Live sections are renumbered at layout; a removed one keeps this,
    // which is what a kept SHF_COMPRESSED relocation section whose target
    // went away ends up naming in sh_info.
    section.index = static_cast<uint32_t>(index);

    const bool allocated = (from.flags & elf::kFlagAlloc) != 0;
    switch (from.type) {
    case elf::kTypeRel:
    case elf::kTypeRela:
    case elf::kTypeCrel:
      section.role =
          allocated ? SectionRole::DynamicRelocation : SectionRole::Relocation;
      break;
    case elf::kTypeStringTable:
      // An allocated string table is part of the memory image: kept as is.
      section.role = allocated ? SectionRole::Plain : SectionRole::StringTable;
      break;
    case elf::kTypeGroup:
      section.role = SectionRole::Group;
      break;
    case elf::kTypeSymbolTable:
      if (symbolTable_ != kNone)
        return invalidElfObject("more than one symbol table");
      section.role = SectionRole::SymbolTable;
      symbolTable_ = static_cast<int>(index - 1);
      break;
    case elf::kTypeSymbolIndexTable:
      if (symbolIndexTable_ != kNone)
        return makeError("ELF files with more than one SHT_SYMTAB_SHNDX "
                         "section are not supported",
                         ErrorCode::Unsupported);
      section.role = SectionRole::SymbolIndexTable;
      symbolIndexTable_ = static_cast<int>(index - 1);
      break;
    case kElfSectionTypeNoBits:
      section.role = SectionRole::Plain;
      break;
    default:
      section.role = (from.flags & elf::kFlagCompressed)
                         ? SectionRole::Compressed
                         : SectionRole::Plain;
      break;
    }
  }

  // Without a section name table llvm-objcopy writes no section headers.
  writeSectionHeaders_ = header_.sectionNameTableIndex != 0;
  if (writeSectionHeaders_) {
    sectionNames_ = static_cast<int>(header_.sectionNameTableIndex) - 1;
    if (sections_[sectionNames_].role != SectionRole::StringTable)
      return invalidElfObject("the section name table is an allocated section");
  }

  live_.resize(count);
  for (size_t id = 0; id < count; ++id)
    live_[id] = static_cast<int>(id);
  return Status::success();
}

Status ElfPlanBuilder::readSymbols() {
  if (symbolIndexTable_ != kNone) {
    const SectionRecord &table = sections_[symbolIndexTable_];
    if (table.link == 0 || table.link >= object_.sections().size() ||
        sections_[table.link - 1].role != SectionRole::SymbolTable)
      return invalidElfObject("the SHT_SYMTAB_SHNDX section '" + table.name +
                              "' is not linked to the symbol table");
    if (table.entrySize != 4 || table.size % 4 != 0)
      return invalidElfObject("the SHT_SYMTAB_SHNDX section '" + table.name +
                              "' has a bad entry size or size");
  }
  if (symbolTable_ == kNone)
    return Status::success();

  const SectionRecord &table = sections_[symbolTable_];
  const std::string where = "the symbol table '" + table.name + "'";
  if (table.link == 0 || table.link >= object_.sections().size() ||
      sections_[table.link - 1].role != SectionRole::StringTable)
    return invalidElfObject(where + " is not linked to a string table");
  symbolNames_ = static_cast<int>(table.link) - 1;
  const std::string_view names = sections_[symbolNames_].contents;
  if (names.empty() || names.back() != '\0')
    return invalidElfObject("the symbol name table '" + nameOf(symbolNames_) +
                            "' is empty or not null-terminated");
  if (table.entrySize != shape_.symbolSize)
    return invalidElfObject(where + " has entry size " +
                            std::to_string(table.entrySize) + ", not " +
                            std::to_string(shape_.symbolSize));
  if (table.size % shape_.symbolSize != 0)
    return invalidElfObject(where + " has a size that is not a whole number of "
                                    "entries");

  const size_t count = table.size / shape_.symbolSize;
  std::string_view extendedIndices;
  if (symbolIndexTable_ != kNone) {
    extendedIndices = sections_[symbolIndexTable_].contents;
    if (extendedIndices.size() / 4 != count)
      return invalidElfObject("the SHT_SYMTAB_SHNDX section has " +
                              std::to_string(extendedIndices.size() / 4) +
                              " entries for " + std::to_string(count) +
                              " symbols");
  }

  // The table's entries, decoded in place.
  const ElfFile entries(table.contents, header_.is64Bit,
                        header_.isLittleEndian);
  symbols_.resize(count);
  symbolOrder_.resize(count);
  for (size_t index = 0; index < count; ++index) {
    const ElfSymbolEntry entry = entries.readSymbol(index * shape_.symbolSize);
    SymbolRecord &symbol = symbols_[index];
    if (entry.nameOffset >= names.size())
      return invalidElfObject(
          "symbol " + std::to_string(index) + " has name offset " +
          hexNumber(entry.nameOffset) + ", past the end of the string table");
    symbol.name = elfStringAt(names, entry.nameOffset);
    symbol.binding = entry.binding;
    symbol.type = entry.type;
    symbol.other = entry.other;
    symbol.value = entry.value;
    symbol.size = entry.size;
    const uint16_t sectionIndex = entry.sectionIndex;
    if (Status status =
            resolveSymbolSection(symbol, index, sectionIndex, extendedIndices);
        !status.ok())
      return status;
    if (symbol.definedIn != kNone)
      sections_[symbol.definedIn].hasSymbol = true;
    symbolOrder_[index] = static_cast<uint32_t>(index);
  }
  return Status::success();
}

// Where symbol `index` is defined: a section (through SHT_SYMTAB_SHNDX when
// st_shndx is SHN_XINDEX), one of the reserved indices llvm-objcopy carries
// over, or nowhere.
Status ElfPlanBuilder::resolveSymbolSection(SymbolRecord &symbol, size_t index,
                                            uint16_t sectionIndex,
                                            std::string_view extendedIndices) {
  const std::string what = "symbol " + std::to_string(index) + " ('" +
                           std::string(symbol.name) + "')";

  if (sectionIndex == elf::kSectionIndexExtended) {
    if (symbolIndexTable_ == kNone)
      return invalidElfObject(what +
                              " has an extended section index but there is "
                              "no SHT_SYMTAB_SHNDX section");
    uint32_t realIndex = order_.read32(extendedIndices.data() + 4 * index);
    if (Status status =
            checkSectionIndex(realIndex, what + " has invalid section index " +
                                             std::to_string(realIndex));
        !status.ok())
      return status;
    symbol.definedIn = static_cast<int>(realIndex) - 1;
  } else if (sectionIndex >= elf::kSectionIndexLoReserve) {
    // The reserved indices llvm-objcopy knows how to carry over.
    bool known = sectionIndex == elf::kSectionIndexAbsolute ||
                 sectionIndex == elf::kSectionIndexCommon;
    if (header_.machine == elf::kMachineAmdgpu)
      known = known || sectionIndex == 0xff00; // SHN_AMDGPU_LDS
    else if (header_.machine == elf::kMachineMips)
      known = known || sectionIndex == 0xff00 || // SHN_MIPS_ACOMMON
              sectionIndex == 0xff03 ||          // SHN_MIPS_SCOMMON
              sectionIndex == 0xff04;            // SHN_MIPS_SUNDEFINED
    else if (header_.machine == elf::kMachineHexagon)
      known = known || (sectionIndex >= 0xff00 && sectionIndex <= 0xff04);
    if (!known)
      return invalidElfObject(what +
                              " has unsupported reserved section index " +
                              hexNumber(sectionIndex));
    symbol.reservedIndex = sectionIndex;
  } else if (sectionIndex != elf::kSectionIndexUndefined) {
    if (Status status = checkSectionIndex(sectionIndex,
                                          what + " has invalid section index " +
                                              std::to_string(sectionIndex));
        !status.ok())
      return status;
    symbol.definedIn = sectionIndex - 1;
  }
  return Status::success();
}

Status ElfPlanBuilder::readRelocations(SectionRecord &section, int sectionId) {
  Result<std::vector<Relocation>> decoded = decodeRelocations(section);
  if (!decoded.ok())
    return decoded.takeError();
  for (const Relocation &relocation : *decoded) {
    if (relocation.symbol == 0)
      continue;
    if (symbolTable_ == kNone)
      return invalidElfObject(
          "relocation section '" + section.name + "' refers to symbol " +
          std::to_string(relocation.symbol) + " but there is no symbol table");
    if (relocation.symbol >= symbols_.size())
      return invalidElfObject("relocation section '" + section.name +
                              "' refers to symbol " +
                              std::to_string(relocation.symbol) + " of " +
                              std::to_string(symbols_.size()));
  }
  relocations_[sectionId] = std::move(*decoded);
  return Status::success();
}

Status ElfPlanBuilder::linkSections() {
  const uint64_t inputCount = object_.sections().size();
  for (int id = 0; id < static_cast<int>(sections_.size()); ++id) {
    SectionRecord &section = sections_[id];
    const std::string where = "section '" + section.name + "'";
    switch (section.role) {
    case SectionRole::Plain:
      if (section.link != 0) {
        if (Status status = checkSectionIndex(
                section.link, where + " links to invalid section " +
                                  std::to_string(section.link));
            !status.ok())
          return status;
        // A link to the symbol table survives only if no symbol moves.
        if (sections_[section.link - 1].type == elf::kTypeSymbolTable)
          section.linksSymbolTable = true;
        else
          section.linkedSection = static_cast<int>(section.link) - 1;
      }
      break;
    case SectionRole::Relocation:
    case SectionRole::DynamicRelocation: {
      if (section.link != 0) {
        const bool dynamic = section.role == SectionRole::DynamicRelocation;
        if (section.link >= inputCount ||
            (dynamic ? sections_[section.link - 1].originalType !=
                           elf::kTypeDynamicSymbols
                     : sections_[section.link - 1].role !=
                           SectionRole::SymbolTable))
          return invalidElfObject(where + " is not linked to a symbol table");
        section.linkedSection = static_cast<int>(section.link) - 1;
      }
      if (section.info != 0) {
        if (Status status = checkSectionIndex(
                section.info, where + " applies to invalid section " +
                                  std::to_string(section.info));
            !status.ok())
          return status;
        section.targetSection = static_cast<int>(section.info) - 1;
      }
      if (section.role == SectionRole::Relocation)
        if (Status status = readRelocations(section, id); !status.ok())
          return status;
      break;
    }
    case SectionRole::Group: {
      if (section.alignment % 4 != 0)
        return invalidElfObject("group " + where + " has alignment " +
                                std::to_string(section.alignment));
      if (section.link != 0) {
        if (section.link >= inputCount ||
            sections_[section.link - 1].role != SectionRole::SymbolTable)
          return invalidElfObject("group " + where +
                                  " is not linked to the symbol table");
        if (section.info >= symbols_.size())
          return invalidElfObject("group " + where + " names invalid symbol " +
                                  std::to_string(section.info));
        section.linkedSection = static_cast<int>(section.link) - 1;
        section.groupSymbol = static_cast<int>(section.info);
      }
      if (section.contents.empty() || section.contents.size() % 4 != 0)
        return invalidElfObject("group " + where + " has malformed contents");
      section.groupFlags = order_.read32(section.contents.data());
      for (size_t at = 4; at < section.contents.size(); at += 4) {
        uint32_t member = order_.read32(section.contents.data() + at);
        if (Status status = checkSectionIndex(
                member, "group " + where + " has invalid member " +
                            std::to_string(member));
            !status.ok())
          return status;
        section.groupMembers.push_back(static_cast<int>(member) - 1);
      }
      break;
    }
    default:
      break;
    }
  }
  return Status::success();
}

} // namespace offbundle::elf_rewrite
