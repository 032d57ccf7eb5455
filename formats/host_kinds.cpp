// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The classification of host files (host_kinds.h), by file_magic.h's one
// reading of a file's first bytes and kpack's magic, which LLVM's
// identify_magic does not know.
#include "formats/host_kinds.h"

#include "formats/file_magic.h"
#include "formats/kpack/kpack_archive.h"

namespace offbundle {

HostKind classifyHost(std::string_view bytes) {
  if (hasKpackMagic(bytes))
    return HostKind::Kpack;
  switch (identifyFile(bytes)) {
  case FileMagic::BinaryBundle:
  case FileMagic::CompressedBundle:
    return HostKind::Bundle;
  case FileMagic::OffloadBinary:
    return HostKind::OffloadBinary;
  case FileMagic::Elf:
    return HostKind::Elf;
  case FileMagic::Coff:
    // Big objects (/bigobj) are not read for bundles: clang writes HIP
    // objects in the plain format.
    return HostKind::CoffObject;
  case FileMagic::PeImage:
    return HostKind::PeImage;
  case FileMagic::Archive:
  case FileMagic::ThinArchive:
    return HostKind::Archive;
  case FileMagic::Bitcode:
  case FileMagic::BitcodeWrapper:
    return HostKind::Bitcode;
  default:
    return HostKind::None;
  }
}

} // namespace offbundle
