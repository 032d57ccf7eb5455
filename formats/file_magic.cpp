// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The magics of the formats offbundle meets (see file_magic.h). Tested by
// first byte, as identify_magic does, so that the machines COFF objects
// start with are told apart from the other magics sharing their first byte.
#include "formats/file_magic.h"

#include "formats/coff/pe_header.h"

#include <cstdint>

#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/offload_binary.h"
#include "support/byte_order.h"

namespace offbundle {
namespace {

using namespace std::string_view_literals;

bool startsWith(std::string_view bytes, std::string_view magic) {
  return bytes.substr(0, magic.size()) == magic;
}

// "\0\0\xff\xff": which COFF form, by the class ID at offset 12 (too short a
// file for one is an import library member, as identify_magic reads it).
FileMagic identifyAnonymousCoff(std::string_view bytes) {
  constexpr size_t kClassIdOffset = 12;
  constexpr std::string_view kBigObjectClassId =
      "\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6\x6a\xa4\xdc\xb8"sv;
  constexpr std::string_view kClGlObjectClassId =
      "\x38\xfe\xb3\x0c\xa5\xd9\xab\x4d\xac\x9b\xd6\xb6\x22\x26\x53\xc2"sv;
  const std::string_view classId =
      bytes.size() >= kClassIdOffset + kBigObjectClassId.size()
          ? bytes.substr(kClassIdOffset, kBigObjectClassId.size())
          : std::string_view();
  if (classId == kBigObjectClassId)
    return FileMagic::CoffBigObject;
  if (classId == kClGlObjectClassId)
    return FileMagic::CoffClGlObject;
  return FileMagic::CoffImport;
}

FileMagic identifyStartingWithZero(std::string_view bytes) {
  if (startsWith(bytes, "\0\0\xff\xff"sv))
    return identifyAnonymousCoff(bytes);
  constexpr std::string_view kWindowsResourceMagic =
      "\0\0\0\0\x20\0\0\0\xff\xff\0\0\xff\xff\0\0"sv;
  if (startsWith(bytes, kWindowsResourceMagic))
    return FileMagic::WindowsResource;
  if (bytes[1] == 0)
    return FileMagic::Coff; // for the unknown machine
  if (startsWith(bytes, "\0asm"sv))
    return FileMagic::Wasm;
  return FileMagic::Unknown;
}

// "MZ": a PE image when "PE\0\0" lies where the DOS header points.
FileMagic identifyDosStub(std::string_view bytes) {
  return startsWith(bytes, "MZ"sv) && peFileHeaderOffset(bytes)
             ? FileMagic::PeImage
             : FileMagic::Unknown;
}

// The first byte of a COFF object is the low byte of its machine; the
// second tells the machines apart (identify_magic's groups).
FileMagic identifyCoffMachine(uint8_t first, uint8_t second) {
  switch (first) {
  case 0x50: // a machine byte, once the CUDA fat binary magic is ruled out
  case 0xf0: // PowerPC
  case 0x83: // M68K
  case 0x84: // Alpha64
  case 0x66: // MIPS
  case 0x4c: // i386
  case 0xc4: // ARM Thumb-2
    return second == 0x01 || second == 0x02 ? FileMagic::Coff
                                            : FileMagic::Unknown;
  case 0x90: // PA-RISC
  case 0x68: // Motorola 68000
    return second == 0x02 ? FileMagic::Coff : FileMagic::Unknown;
  case 0x64: // x86-64 (0x8664) or ARM64 (0xaa64)
    return second == 0x86 || second == 0xaa ? FileMagic::Coff
                                            : FileMagic::Unknown;
  case 0x41: // ARM64EC (0xa641)
  case 0x4e: // ARM64X (0xa64e)
    return second == 0xa6 ? FileMagic::Coff : FileMagic::Unknown;
  default:
    return FileMagic::Unknown;
  }
}

} // namespace

FileMagic identifyFile(std::string_view bytes) {
  if (bytes.size() < 4)
    return FileMagic::Unknown;
  if (hasBinaryBundleMagic(bytes))
    return FileMagic::BinaryBundle;
  if (bytes.size() >= kCompressedBundleCommonHeaderSize &&
      hasCompressedBundleMagic(bytes))
    return FileMagic::CompressedBundle;
  if (hasOffloadBinaryMagic(bytes))
    return FileMagic::OffloadBinary;
  if (startsWith(bytes, kArchiveMagic))
    return FileMagic::Archive;
  if (startsWith(bytes, kThinArchiveMagic))
    return FileMagic::ThinArchive;
  const auto first = static_cast<uint8_t>(bytes[0]);
  const auto second = static_cast<uint8_t>(bytes[1]);
  switch (first) {
  case 0x00:
    return identifyStartingWithZero(bytes);
  case 0x01:
    return second == 0xdf || second == 0xf7 ? FileMagic::Xcoff
                                            : FileMagic::Unknown;
  case 0x03:
    return startsWith(bytes, "\x03\xf0\x00"sv) ? FileMagic::Goff
                                               : FileMagic::Unknown;
  case 0x7f:
    return startsWith(bytes, "\x7f"
                             "ELF"sv)
               ? FileMagic::Elf
               : FileMagic::Unknown;
  case 'B':
    return startsWith(bytes, "BC\xc0\xde"sv) ? FileMagic::Bitcode
                                             : FileMagic::Unknown;
  case 0xde:
    return startsWith(bytes, "\xde\xc0\x17\x0b"sv) ? FileMagic::BitcodeWrapper
                                                   : FileMagic::Unknown;
  case 0xfe:
  case 0xce:
  case 0xcf:
    return startsWith(bytes, "\xfe\xed\xfa\xce"sv) ||
                   startsWith(bytes, "\xfe\xed\xfa\xcf"sv) ||
                   startsWith(bytes, "\xce\xfa\xed\xfe"sv) ||
                   startsWith(bytes, "\xcf\xfa\xed\xfe"sv)
               ? FileMagic::MachO
               : FileMagic::Unknown;
  case 'M':
    return identifyDosStub(bytes);
  case 'D':
    return startsWith(bytes, "DXBC"sv) ? FileMagic::DxContainer
                                       : FileMagic::Unknown;
  case 0x50:
    if (startsWith(bytes, "\x50\xed\x55\xba"sv))
      return FileMagic::CudaFatbinary;
    return identifyCoffMachine(first, second);
  default:
    return identifyCoffMachine(first, second);
  }
}

} // namespace offbundle
