// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF structures, decoded in one place; see elf_file.h for the layout.
#include "formats/elf/elf_file.h"

#include "support/byte_order.h"

namespace offbundle {

uint64_t ElfByteOrder::read(const char *at, size_t width) const {
  return loadInByteOrder(std::string_view(at, width), 0,
                         static_cast<unsigned>(width), !little_);
}

ElfProgramHeader64 ElfProgramHeader64::read(std::string_view bytes,
                                            uint64_t at) {
  return {loadLittle32(bytes, at),      loadLittle32(bytes, at + 4),
          loadLittle64(bytes, at + 8),  loadLittle64(bytes, at + 16),
          loadLittle64(bytes, at + 24), loadLittle64(bytes, at + 32),
          loadLittle64(bytes, at + 40), loadLittle64(bytes, at + 48)};
}

void ElfProgramHeader64::append(std::string &out) const {
  appendLittleEndian(out, type, 4);
  appendLittleEndian(out, flags, 4);
  for (uint64_t field : {offset, vaddr, paddr, filesz, memsz, align})
    appendLittleEndian(out, field, 8);
}

void ElfByteOrder::write(char *at, uint64_t value, size_t width) const {
  for (size_t i = 0; i < width; ++i) {
    size_t shift = little_ ? 8 * i : 8 * (width - 1 - i);
    at[i] = static_cast<char>((value >> shift) & 0xff);
  }
}

ElfHeader ElfFile::readHeader(ElfTableFields &tables) const {
  const ElfHeaderFields fields = ElfHeaderFields::of(shape_.is64);
  ElfHeader header;
  header.is64Bit = shape_.is64;
  header.isLittleEndian = isLittleEndian_;
  header.osAbi = static_cast<uint8_t>(bytes_[7]);
  header.abiVersion = static_cast<uint8_t>(bytes_[8]);
  header.fileType = read16(16);
  header.machine = read16(18);
  header.version = read32(20);
  header.entry = readWord(fields.entry);
  header.programHeaderOffset = readWord(fields.phoff);
  header.sectionHeaderOffset = readWord(fields.shoff);
  header.flags = read32(fields.flags);
  header.programHeaderCount = read16(fields.phnum);
  tables.programHeaderEntrySize = read16(fields.phentsize);
  tables.sectionHeaderEntrySize = read16(fields.shentsize);
  tables.sectionCount = read16(fields.shnum);
  tables.sectionNameTableIndex = read16(fields.shstrndx);
  header.sectionCount = tables.sectionCount;
  header.sectionNameTableIndex = tables.sectionNameTableIndex;
  return header;
}

ElfSection ElfFile::readSectionHeader(uint64_t at) const {
  const ElfSectionHeaderFields fields = ElfSectionHeaderFields::of(shape_.is64);
  ElfSection section;
  section.nameOffset = read32(at + fields.name);
  section.type = read32(at + fields.type);
  section.flags = readWord(at + fields.flags);
  section.address = readWord(at + fields.addr);
  section.offset = readWord(at + fields.offset);
  section.size = readWord(at + fields.size);
  section.link = read32(at + fields.link);
  section.info = read32(at + fields.info);
  section.alignment = readWord(at + fields.addralign);
  section.entrySize = readWord(at + fields.entsize);
  return section;
}

uint64_t ElfFile::sectionCount(uint64_t tableOffset,
                               uint16_t countField) const {
  if (countField != 0)
    return countField;
  return readWord(tableOffset + ElfSectionHeaderFields::of(shape_.is64).size);
}

uint32_t ElfFile::sectionNameTableIndex(uint64_t tableOffset,
                                        uint16_t indexField) const {
  if (indexField != elf::kSectionIndexExtended)
    return indexField;
  return read32(tableOffset + ElfSectionHeaderFields::of(shape_.is64).link);
}

ElfSymbolEntry ElfFile::readSymbol(uint64_t at) const {
  const ElfSymbolFields fields = ElfSymbolFields::of(shape_.is64);
  ElfSymbolEntry symbol;
  symbol.nameOffset = read32(at + fields.name);
  const uint8_t info = static_cast<uint8_t>(bytes_[at + fields.info]);
  symbol.binding = info >> 4;
  symbol.type = info & 0xf;
  symbol.other = static_cast<uint8_t>(bytes_[at + fields.other]);
  symbol.sectionIndex = read16(at + fields.shndx);
  symbol.value = readWord(at + fields.value);
  symbol.size = readWord(at + fields.size);
  return symbol;
}

std::string_view elfStringAt(std::string_view table, uint64_t offset) {
  std::string_view rest = table.substr(offset);
  return rest.substr(0, rest.find('\0'));
}

bool isDynamicAddressTag(uint64_t tag) {
  switch (tag) {
  case 3:          // DT_PLTGOT
  case 4:          // DT_HASH
  case 5:          // DT_STRTAB
  case 6:          // DT_SYMTAB
  case 7:          // DT_RELA
  case 12:         // DT_INIT
  case 13:         // DT_FINI
  case 17:         // DT_REL
  case 21:         // DT_DEBUG
  case 23:         // DT_JMPREL
  case 25:         // DT_INIT_ARRAY
  case 26:         // DT_FINI_ARRAY
  case 32:         // DT_PREINIT_ARRAY
  case 34:         // DT_SYMTAB_SHNDX
  case 36:         // DT_RELR
  case 0x6ffffff0: // DT_VERSYM
  case 0x6ffffffc: // DT_VERDEF
  case 0x6ffffffe: // DT_VERNEED
    return true;
  default:
    return tag >= 0x6ffffe00 && tag <= 0x6ffffeff;
  }
}

std::string elfSectionTypeName(uint32_t type) {
  switch (type) {
  case 0:
    return "SHT_NULL";
  case 1:
    return "SHT_PROGBITS";
  case 2:
    return "SHT_SYMTAB";
  case 3:
    return "SHT_STRTAB";
  case 4:
    return "SHT_RELA";
  case 5:
    return "SHT_HASH";
  case 6:
    return "SHT_DYNAMIC";
  case 7:
    return "SHT_NOTE";
  case 8:
    return "SHT_NOBITS";
  case 9:
    return "SHT_REL";
  case 10:
    return "SHT_SHLIB";
  case 11:
    return "SHT_DYNSYM";
  case 14:
    return "SHT_INIT_ARRAY";
  case 15:
    return "SHT_FINI_ARRAY";
  case 16:
    return "SHT_PREINIT_ARRAY";
  case 17:
    return "SHT_GROUP";
  case 18:
    return "SHT_SYMTAB_SHNDX";
  case 19:
    return "SHT_RELR";
  case 0x40000014:
    return "SHT_CREL";
  case 0x6ffffff5:
    return "SHT_GNU_ATTRIBUTES";
  case 0x6ffffff6:
    return "SHT_GNU_HASH";
  case 0x6ffffffd:
    return "SHT_GNU_verdef";
  case 0x6ffffffe:
    return "SHT_GNU_verneed";
  case 0x6fffffff:
    return "SHT_GNU_versym";
  default:
    return "Unknown";
  }
}

} // namespace offbundle
