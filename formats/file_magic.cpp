// The magic prefixes of the formats offbundle reads (see file_magic.h).
#include "formats/file_magic.h"

#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/coff_object.h"
#include "formats/offload_binary.h"

namespace offbundle {

FileMagic identifyFile(std::string_view bytes) {
  auto startsWith = [&](std::string_view magic) {
    return bytes.substr(0, magic.size()) == magic;
  };
  using namespace std::string_view_literals;
  if (hasBinaryBundleMagic(bytes))
    return FileMagic::BinaryBundle;
  if (bytes.size() >= kCompressedBundleCommonHeaderSize &&
      hasCompressedBundleMagic(bytes))
    return FileMagic::CompressedBundle;
  if (hasOffloadBinaryMagic(bytes))
    return FileMagic::OffloadBinary;
  if (startsWith("\x7f"
                 "ELF"sv))
    return FileMagic::Elf;
  if (startsWith("\xfe\xed\xfa\xce"sv) || startsWith("\xfe\xed\xfa\xcf"sv) ||
      startsWith("\xce\xfa\xed\xfe"sv) || startsWith("\xcf\xfa\xed\xfe"sv))
    return FileMagic::MachO;
  if (startsWith("\0asm"sv))
    return FileMagic::Wasm;
  if (startsWith(kArchiveMagic))
    return FileMagic::Archive;
  if (startsWith(kThinArchiveMagic))
    return FileMagic::ThinArchive;
  if (startsWith("BC\xC0\xDE"sv))
    return FileMagic::Bitcode;
  if (startsWith("\xDE\xC0\x17\x0B"sv))
    return FileMagic::BitcodeWrapper;
  if (isCoffObject(bytes))
    return FileMagic::Coff;
  return FileMagic::Unknown;
}

} // namespace offbundle
