// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a file is, from its first bytes: the one place the formats offbundle
// meets are told apart, by the rules of LLVM's identify_magic (which the
// bundler's readers, the packager's input search and the archive writer's
// symbol table all follow). Each kind is one magic, and no two overlap:
//
//   BinaryBundle      "__CLANG_OFFLOAD_BUNDLE__"
//   CompressedBundle  "CCOB", with room for the header's common fields
//   OffloadBinary     "\x10\xff\x10\xad"
//   Elf               "\x7fELF"
//   MachO             0xFEEDFACE / 0xFEEDFACF, either byte order
//   Wasm              "\0asm"
//   Coff              a COFF object: a machine identify_magic knows (the
//                     first two bytes), or machine 0 (unknown)
//   CoffBigObject     "\0\0\xff\xff" and the big object class ID
//   CoffClGlObject    "\0\0\xff\xff" and cl.exe /GL's class ID (LTO)
//   CoffImport        "\0\0\xff\xff" otherwise: an import library member
//   WindowsResource   an empty 32-byte resource entry
//   PeImage           "MZ", and "PE\0\0" where the DOS header points
//   Xcoff             0x01DF (32-bit) or 0x01F7 (64-bit), big-endian
//   Goff              "\x03\xf0\x00"
//   DxContainer       "DXBC"
//   CudaFatbinary     0xBA55ED50, little-endian
//   Archive           "!<arch>\n"
//   ThinArchive       "!<thin>\n"
//   Bitcode           "BC\xC0\xDE"
//   BitcodeWrapper    0x0B17C0DE, little-endian, before the bitcode
//
// Files under 4 bytes are Unknown, as identify_magic has them. Whether the
// rest of the file is sound is the reader's to say.
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
  CoffBigObject,
  CoffClGlObject,
  CoffImport,
  WindowsResource,
  PeImage,
  Xcoff,
  Goff,
  DxContainer,
  CudaFatbinary,
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

// The kinds llvm::object::ObjectFile::createObjectFile opens.
inline bool isLlvmObjectFile(FileMagic magic) {
  switch (magic) {
  case FileMagic::Elf:
  case FileMagic::MachO:
  case FileMagic::Wasm:
  case FileMagic::Coff:
  case FileMagic::CoffBigObject:
  case FileMagic::PeImage:
  case FileMagic::Xcoff:
  case FileMagic::Goff:
    return true;
  default:
    return false;
  }
}

} // namespace offbundle
