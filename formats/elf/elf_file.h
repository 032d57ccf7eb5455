// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ELF structures, decoded in one place for every reader in the project: the
// llvm-objcopy-compatible rewriter (formats/elf/elf_object) and the archive
// symbol table writer (archive/archive_symbols). Each of those keeps its own
// checks and messages; this file only knows where the fields are.
//
// Layout (gABI). Every integer is in the byte order e_ident[EI_DATA] names
// (1 little-endian, 2 big-endian); "word" fields (addresses, offsets, sizes)
// are 4 bytes in ELF32 and 8 in ELF64 (e_ident[EI_CLASS] 1 and 2).
//
//   ELF header (52 / 64 bytes), at offset 0:
//     e_ident[16]: "\x7fELF", class, data, version, OS ABI, ABI version, pad
//     e_type:2 e_machine:2 e_version:4 e_entry:word e_phoff:word e_shoff:word
//     e_flags:4 e_ehsize:2 e_phentsize:2 e_phnum:2 e_shentsize:2 e_shnum:2
//     e_shstrndx:2
//   Section header (40 / 64 bytes), e_shnum of them at e_shoff:
//     sh_name:4 sh_type:4 sh_flags:word sh_addr:word sh_offset:word
//     sh_size:word sh_link:4 sh_info:4 sh_addralign:word sh_entsize:word
//     With 0xff00 sections or more e_shnum is 0 and the real count is the
//     null entry's sh_size; when e_shstrndx is SHN_XINDEX (0xffff) the real
//     name table index is the null entry's sh_link.
//   Symbol (16 / 24 bytes), the fields in a different order per class:
//     ELF32: st_name:4 st_value:4 st_size:4 st_info:1 st_other:1 st_shndx:2
//     ELF64: st_name:4 st_info:1 st_other:1 st_shndx:2 st_value:8 st_size:8
//     st_info holds the binding in its high nibble and the type in the low.
//   String tables: NUL-terminated names, referred to by byte offset.
//
// Nothing here checks a range: callers check that what they decode lies
// inside the bytes (support/byte_range.h), each with its own messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace offbundle {

// Section types and flags the callers of formats/ may want to test.
inline constexpr uint32_t kElfSectionTypeNull = 0;
inline constexpr uint32_t kElfSectionTypeNoBits = 8;
// SHT_LLVM_OFFLOADING, the type of .llvm.offloading sections.
inline constexpr uint32_t kElfSectionTypeLlvmOffloading = 0x6fff4c0b;
inline constexpr uint64_t kElfSectionFlagExclude = 0x80000000;

// The other constants of the gABI and processor supplements this project
// uses.
namespace elf {

inline constexpr size_t kIdentSize = 16;
inline constexpr uint8_t kClass32 = 1;
inline constexpr uint8_t kClass64 = 2;
inline constexpr uint8_t kDataLittle = 1;
inline constexpr uint8_t kDataBig = 2;

inline constexpr uint16_t kFileTypeExecutable = 2;
inline constexpr uint16_t kFileTypeShared = 3;

inline constexpr uint16_t kMachineMips = 8;
inline constexpr uint16_t kMachineArm = 40;
inline constexpr uint16_t kMachineX86_64 = 62;
inline constexpr uint16_t kMachineHexagon = 164;
inline constexpr uint16_t kMachineAArch64 = 183;
inline constexpr uint16_t kMachineAmdgpu = 224;
inline constexpr uint16_t kMachineRiscV = 243;
inline constexpr uint16_t kMachineCSky = 252;

inline constexpr uint32_t kTypeProgBits = 1;
inline constexpr uint32_t kTypeSymbolTable = 2;
inline constexpr uint32_t kTypeStringTable = 3;
inline constexpr uint32_t kTypeRela = 4;
inline constexpr uint32_t kTypeRel = 9;
inline constexpr uint32_t kTypeDynamicSymbols = 11;
inline constexpr uint32_t kTypeGroup = 17;
inline constexpr uint32_t kTypeSymbolIndexTable = 18;
inline constexpr uint32_t kTypeCrel = 0x40000014;
inline constexpr uint32_t kTypeHash = 5;
inline constexpr uint32_t kTypeNote = 7;
inline constexpr uint32_t kTypeRelr = 19;
inline constexpr uint32_t kTypeGnuHash = 0x6ffffff6;
inline constexpr uint32_t kTypeGnuVerdef = 0x6ffffffd;
inline constexpr uint32_t kTypeGnuVerneed = 0x6ffffffe;
inline constexpr uint32_t kTypeGnuVersym = 0x6fffffff;

// R_X86_64_RELATIVE and R_AARCH64_RELATIVE: the dynamic relocations that
// store load address + addend.
inline constexpr uint32_t kRelocationRelativeX86_64 = 8;
inline constexpr uint32_t kRelocationRelativeAArch64 = 1027;
// Program header (segment) types.
inline constexpr uint32_t kSegmentNull = 0;
inline constexpr uint32_t kSegmentLoad = 1;
inline constexpr uint32_t kSegmentDynamic = 2;
inline constexpr uint32_t kSegmentInterpreter = 3;
inline constexpr uint32_t kSegmentProgramHeaders = 6;

inline constexpr uint64_t kFlagAlloc = 0x2;
inline constexpr uint64_t kFlagInfoLink = 0x40;
inline constexpr uint64_t kFlagLinkOrder = 0x80;
inline constexpr uint64_t kFlagGroup = 0x200;
inline constexpr uint64_t kFlagTls = 0x400;
inline constexpr uint64_t kFlagCompressed = 0x800;
inline constexpr uint64_t kFlagMaskOs = 0x0ff00000;
inline constexpr uint64_t kFlagMaskProcessor = 0xf0000000;
inline constexpr uint64_t kFlagX86_64Large = 0x10000000;

inline constexpr uint32_t kGroupComdat = 1;

inline constexpr uint8_t kBindingLocal = 0;
inline constexpr uint8_t kSymbolTypeSection = 3;
inline constexpr uint8_t kSymbolTypeFile = 4;

inline constexpr uint32_t kSectionIndexUndefined = 0;
inline constexpr uint32_t kSectionIndexLoReserve = 0xff00;
inline constexpr uint32_t kSectionIndexAbsolute = 0xfff1;
inline constexpr uint32_t kSectionIndexCommon = 0xfff2;
inline constexpr uint32_t kSectionIndexExtended = 0xffff;

inline bool isKnownClass(uint8_t fileClass) {
  return fileClass == kClass32 || fileClass == kClass64;
}
inline bool isKnownDataEncoding(uint8_t encoding) {
  return encoding == kDataLittle || encoding == kDataBig;
}

} // namespace elf

// Sizes of the class-dependent structures.
struct ElfShape {
  bool is64;
  size_t wordSize;   // addresses, offsets and sizes
  size_t headerSize; // Elf_Ehdr
  size_t programHeaderSize;
  size_t sectionHeaderSize;
  size_t symbolSize;
  size_t relSize;
  size_t relaSize;

  static constexpr ElfShape of(bool is64) {
    if (is64)
      return {true, 8, 64, 56, 64, 24, 16, 24};
    return {false, 4, 52, 32, 40, 16, 8, 12};
  }
};

// Offsets of the ELF header fields after e_ident.
struct ElfHeaderFields {
  size_t entry, phoff, shoff, flags, ehsize, phentsize, phnum, shentsize, shnum,
      shstrndx;
  static constexpr ElfHeaderFields of(bool is64) {
    if (is64)
      return {24, 32, 40, 48, 52, 54, 56, 58, 60, 62};
    return {24, 28, 32, 36, 40, 42, 44, 46, 48, 50};
  }
};

// Offsets of the section header fields.
struct ElfSectionHeaderFields {
  size_t name, type, flags, addr, offset, size, link, info, addralign, entsize;
  static constexpr ElfSectionHeaderFields of(bool is64) {
    if (is64)
      return {0, 4, 8, 16, 24, 32, 40, 44, 48, 56};
    return {0, 4, 8, 12, 16, 20, 24, 28, 32, 36};
  }
};

// Offsets of the symbol fields.
struct ElfSymbolFields {
  size_t name, info, other, shndx, value, size;
  static constexpr ElfSymbolFields of(bool is64) {
    if (is64)
      return {0, 4, 5, 6, 8, 16};
    return {0, 12, 13, 14, 4, 8};
  }
};

// Offsets of the fields of a relocation with addend (Elf_Rela).
struct ElfRelaFields {
  size_t offset, info, addend;
  static constexpr ElfRelaFields of(bool is64) {
    if (is64)
      return {0, 8, 16};
    return {0, 4, 8};
  }
};

// A dynamic table entry (Elf_Dyn): its size and the offset of d_val/d_ptr.
struct ElfDynamicFields {
  size_t size, tag, value;
  static constexpr ElfDynamicFields of(bool is64) {
    if (is64)
      return {16, 0, 8};
    return {8, 0, 4};
  }
};

// Fixed-size integers in the file's byte order, read and written byte by
// byte so that neither alignment nor the host's order matters.
class ElfByteOrder {
public:
  explicit ElfByteOrder(bool little) : little_(little) {}

  uint64_t read(const char *at, size_t width) const;
  uint16_t read16(const char *at) const {
    return static_cast<uint16_t>(read(at, 2));
  }
  uint32_t read32(const char *at) const {
    return static_cast<uint32_t>(read(at, 4));
  }
  void write(char *at, uint64_t value, size_t width) const;

private:
  bool little_;
};

struct ElfHeader {
  bool is64Bit = false;
  bool isLittleEndian = true;
  uint8_t osAbi = 0;
  uint8_t abiVersion = 0;
  uint16_t fileType = 0; // e_type: 1 relocatable, 2 executable, 3 shared
  uint16_t machine = 0;
  uint32_t version = 0;
  uint64_t entry = 0;
  uint64_t programHeaderOffset = 0;
  uint16_t programHeaderCount = 0;
  uint64_t sectionHeaderOffset = 0;
  uint32_t flags = 0;
  // The real section count and name table index, after the extended
  // numbering of files with 0xff00 sections or more is resolved.
  uint64_t sectionCount = 0;
  uint32_t sectionNameTableIndex = 0;
};

// The header fields that describe the header tables, as the file has them
// (before the extended numbering is resolved).
struct ElfTableFields {
  uint16_t programHeaderEntrySize = 0;
  uint16_t sectionHeaderEntrySize = 0;
  uint16_t sectionCount = 0;          // e_shnum
  uint16_t sectionNameTableIndex = 0; // e_shstrndx
};

struct ElfSection {
  std::string_view name; // views the object's bytes
  uint32_t nameOffset = 0;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t address = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t alignment = 0;
  uint64_t entrySize = 0;

  // SHT_NOBITS sections (.bss) occupy no bytes of the file.
  bool hasContents() const { return type != kElfSectionTypeNoBits; }
  // Whether the section claims bytes of the file, whatever its type
  // (SHT_NULL included): what no other piece of the file may overlap.
  bool occupiesFileBytes() const { return hasContents() && size != 0; }
};

// A program header of a 64-bit little-endian file (56 bytes: type u32,
// flags u32, offset, vaddr, paddr, filesz, memsz, align u64 each), the only
// kind the linked-file code reads and writes.
struct ElfProgramHeader64 {
  static constexpr uint64_t kSize = 56;
  uint32_t type = 0;
  uint32_t flags = 0;
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t paddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
  uint64_t align = 0;

  // The header at `at`, which the caller checked lies inside `bytes`.
  static ElfProgramHeader64 read(std::string_view bytes, uint64_t at);
  void append(std::string &out) const;
  // Whether the segment's file bytes meet [start, end).
  bool overlapsFile(uint64_t start, uint64_t end) const {
    return filesz != 0 && offset < end &&
           (offset >= start || filesz > start - offset);
  }
  // Whether [start, start + size) lies in the segment's file bytes.
  bool holdsFile(uint64_t start, uint64_t size) const {
    return start >= offset && start - offset <= filesz &&
           size <= filesz - (start - offset);
  }
  // Whether [address, address + size) lies in the segment's memory.
  bool holdsMemory(uint64_t address, uint64_t size) const {
    return address >= vaddr && address - vaddr <= memsz &&
           size <= memsz - (address - vaddr);
  }
  // Where the segment maps a file offset it holds.
  uint64_t addressOf(uint64_t fileOffset) const {
    return vaddr + (fileOffset - offset);
  }
};

struct ElfSymbolEntry {
  uint32_t nameOffset = 0;
  uint8_t binding = 0;
  uint8_t type = 0;
  uint8_t other = 0;
  uint16_t sectionIndex = 0; // st_shndx
  uint64_t value = 0;
  uint64_t size = 0;
};

// Decodes the structures of one ELF file whose class and data encoding are
// known. Every method reads only where its comment says; the caller checks
// that those bytes exist.
class ElfFile {
public:
  ElfFile(std::string_view bytes, bool is64, bool isLittleEndian)
      : bytes_(bytes), shape_(ElfShape::of(is64)), order_(isLittleEndian),
        isLittleEndian_(isLittleEndian) {}

  std::string_view bytes() const { return bytes_; }
  const ElfShape &shape() const { return shape_; }
  const ElfByteOrder &order() const { return order_; }

  // The `width`-byte integer at `at`.
  uint64_t read(uint64_t at, size_t width) const {
    return order_.read(bytes_.data() + at, width);
  }
  uint16_t read16(uint64_t at) const {
    return static_cast<uint16_t>(read(at, 2));
  }
  uint32_t read32(uint64_t at) const {
    return static_cast<uint32_t>(read(at, 4));
  }
  uint64_t readWord(uint64_t at) const { return read(at, shape_.wordSize); }

  // The ELF header; reads shape().headerSize bytes. The section count and
  // name table index are left as e_shnum and e_shstrndx (see
  // sectionCount()); `tables` receives the raw table fields.
  ElfHeader readHeader(ElfTableFields &tables) const;
  // The section header at `at`; reads shape().sectionHeaderSize bytes.
  ElfSection readSectionHeader(uint64_t at) const;
  // The real section count: e_shnum, or when that is 0, the sh_size of the
  // null section header at `tableOffset` (which is then read).
  uint64_t sectionCount(uint64_t tableOffset, uint16_t countField) const;
  // The real name table index: e_shstrndx, or when that is SHN_XINDEX, the
  // sh_link of the null section header at `tableOffset` (then read).
  uint32_t sectionNameTableIndex(uint64_t tableOffset,
                                 uint16_t indexField) const;
  // The symbol at `at`; reads shape().symbolSize bytes.
  ElfSymbolEntry readSymbol(uint64_t at) const;

private:
  std::string_view bytes_;
  ElfShape shape_;
  ElfByteOrder order_;
  bool isLittleEndian_;
};

// The name at `offset` in a string table that ends with a NUL, for an
// offset inside the table: up to the first NUL from there.
std::string_view elfStringAt(std::string_view table, uint64_t offset);

// The name LLVM's getELFSectionTypeName() gives the generic section types
// ("Unknown" for the others), which appear in LLVM's error messages.
std::string elfSectionTypeName(uint32_t type);

// Whether a dynamic entry's value is an address (d_ptr): the gABI's tags
// (DT_PLTGOT, DT_HASH, DT_STRTAB, ...), and the GNU extensions'
// DT_ADDRRNGLO..DT_ADDRRNGHI range and version tables.
bool isDynamicAddressTag(uint64_t tag);

} // namespace offbundle
