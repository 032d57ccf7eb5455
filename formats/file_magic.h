// What a file is, from its first bytes: the one place the formats offbundle
// reads are told apart, as LLVM's identify_magic tells them. Each format is
// one magic prefix, and no prefix starts another, so the order of the tests
// does not matter:
//
//   BinaryBundle      "__CLANG_OFFLOAD_BUNDLE__"
//   CompressedBundle  "CCOB", with room for the header's common fields
//   OffloadBinary     0x10FF10AD, little-endian
//   Elf               "\x7fELF"
//   MachO             0xFEEDFACE / 0xFEEDFACF, either byte order
//   Wasm              "\0asm"
//   Coff              an object of a machine COFF readers open
//                     (formats/coff_object.h)
//   Archive           "!<arch>\n"
//   ThinArchive       "!<thin>\n"
//   Bitcode           "BC\xC0\xDE"
//   BitcodeWrapper    0x0B17C0DE, little-endian, before the bitcode
//
// Whether the rest of the file is sound is the reader's to say.
#pragma once

#include <string_view>

namespace offbundle {

inline constexpr std::string_view kArchiveMagic = "!<arch>\n";
inline constexpr std::string_view kThinArchiveMagic = "!<thin>\n";

enum class FileMagic {
  Unknown,
  BinaryBundle,
  CompressedBundle,
  OffloadBinary,
  Elf,
  MachO,
  Wasm,
  Coff,
  Archive,
  ThinArchive,
  Bitcode,
  BitcodeWrapper,
};

FileMagic identifyFile(std::string_view bytes);

// The kinds a bundle or offload data starts with.
inline bool isOffloadData(FileMagic magic) {
  return magic == FileMagic::BinaryBundle ||
         magic == FileMagic::CompressedBundle ||
         magic == FileMagic::OffloadBinary;
}
inline bool isBitcode(FileMagic magic) {
  return magic == FileMagic::Bitcode || magic == FileMagic::BitcodeWrapper;
}
inline bool isArchive(FileMagic magic) {
  return magic == FileMagic::Archive || magic == FileMagic::ThinArchive;
}

} // namespace offbundle
