// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Host files: the files offload code travels in. A bundle container
// (container_format.h) is the code; a host file carries containers inside
// it, in sections, members or entries, and each kind is found, rewritten and
// checked its own way. This is the one classification of a file as a host
// and the one table of host kinds:
//
//   kind            first bytes (file_magic.h)      bundles are found in
//   Kpack           "KPAK" (kpack/kpack_archive.h)  its code objects, by name
//   Bundle          a bundle or CCOB                the file itself, bundles
//                                                   end to end
//   OffloadBinary   "\x10\xff\x10\xad"              its images, end to end
//                                                   (embedded_sections.h)
//   Elf             "\x7fELF"                       .hip_fatbin and bundle
//                                                   sections; .llvm.offloading
//   CoffObject      a COFF machine                  .hip_fat* and bundle
//                                                   sections
//   PeImage         "MZ" ... "PE\0\0"               .hip_fat, through the
//                                                   .hipFatB wrappers
//   Archive         "!<arch>\n" or "!<thin>\n"      each member, as a file
//   Bitcode         "BC\xC0\xDE" or its wrapper     .llvm.offloading globals
//   None            anything else                   nowhere
//
// The layers above hold the rest of each row, indexed by the same kind and
// checked complete at compile time: bundler/bundle_discovery.cpp how a
// kind's bundles are found, rewrite/host_editors.cpp how it is rewritten.
// A new host format is one row here, one in each of those, and a folder of
// its own under formats/ and rewrite/.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace offbundle {

enum class HostKind {
  None,
  Kpack,
  Bundle,
  OffloadBinary,
  Elf,
  CoffObject,
  PeImage,
  Archive,
  Bitcode,
};

inline constexpr size_t kHostKindCount = 9;

struct HostKindRow {
  HostKind kind;
  // How messages and listings name the kind.
  std::string_view name;
  // Whether a file of this kind may carry GPU code at all: what a walk of
  // an installation reads further.
  bool mayHoldOffloadCode;
  // Whether bundles sit inside it (sections, members), rather than the
  // file being a bundle or holding none.
  bool embedsBundles;
  // Whether a loader maps it: its layout is checked as a linked file's
  // when it is (ELF, by its program headers) or always is (PE images).
  bool mayBeLinked;
};

// The rows, in the order of HostKind.
inline constexpr std::array<HostKindRow, kHostKindCount> kHostKinds = {{
    {HostKind::None, "other file", false, false, false},
    {HostKind::Kpack, "kpack archive", true, false, false},
    {HostKind::Bundle, "offload bundle", true, false, false},
    {HostKind::OffloadBinary, "offload binary", true, true, false},
    {HostKind::Elf, "ELF file", true, true, true},
    {HostKind::CoffObject, "COFF object", true, true, false},
    {HostKind::PeImage, "PE image", true, true, true},
    {HostKind::Archive, "archive", true, true, false},
    {HostKind::Bitcode, "LLVM bitcode", true, false, false},
}};

// A table indexed by kind is complete and in order when every row's kind is
// its index: the tables of the layers above are checked with this too.
template <typename Table>
constexpr bool isIndexedByHostKind(const Table &rows) {
  if (rows.size() != kHostKindCount)
    return false;
  for (size_t index = 0; index < rows.size(); ++index)
    if (static_cast<size_t>(rows[index].kind) != index)
      return false;
  return true;
}
static_assert(isIndexedByHostKind(kHostKinds));

// What kind of host the bytes (a file's first bytes will do) are.
HostKind classifyHost(std::string_view bytes);

inline const HostKindRow &hostKindRow(HostKind kind) {
  return kHostKinds[static_cast<size_t>(kind)];
}

} // namespace offbundle
