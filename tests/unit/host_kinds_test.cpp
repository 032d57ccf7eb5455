// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one classification of host files (formats/host_kinds.h), the PE
// header reader every PE reader shares (formats/coff/pe_header.h), and the
// tables indexed by host kind: each names its own kind in its row, so a
// kind added to the enum without a row in every table fails to build, and a
// row out of place fails here.
#include "formats/coff/pe_header.h"
#include "formats/file_magic.h"
#include "formats/host_kinds.h"
#include "rewrite/host_editors.h"

#include <gtest/gtest.h>

#include <string>

namespace offbundle {
namespace {

using namespace std::string_literals;

// A PE image's first bytes: "MZ", the pointer at 0x3c, and "PE\0\0" where it
// points (or wherever `signatureAt` says), padded to `size` bytes.
std::string peStub(uint32_t pointer, size_t signatureAt, size_t size) {
  std::string bytes(size, '\0');
  bytes[0] = 'M';
  bytes[1] = 'Z';
  for (int i = 0; i < 4; ++i)
    bytes[0x3c + i] = static_cast<char>(pointer >> (8 * i));
  if (signatureAt + 4 <= size)
    bytes.replace(signatureAt, 4, "PE\0\0"s);
  return bytes;
}

TEST(HostKinds, ClassifiesEachKindByItsFirstBytes) {
  EXPECT_EQ(classifyHost("\x7f"
                         "ELF\x02\x01\x01"s +
                         std::string(57, '\0')),
            HostKind::Elf);
  EXPECT_EQ(classifyHost("!<arch>\n"s), HostKind::Archive);
  EXPECT_EQ(classifyHost("!<thin>\n"s), HostKind::Archive);
  EXPECT_EQ(classifyHost("KPAK\x01\0\0\0"s), HostKind::Kpack);
  EXPECT_EQ(classifyHost("__CLANG_OFFLOAD_BUNDLE__"s), HostKind::Bundle);
  EXPECT_EQ(classifyHost("\x10\xff\x10\xad"s + std::string(60, '\0')),
            HostKind::OffloadBinary);
  EXPECT_EQ(classifyHost("BC\xc0\xde"s), HostKind::Bitcode);
  EXPECT_EQ(classifyHost(peStub(0x80, 0x80, 0x100)), HostKind::PeImage);
  // x86-64's machine number, little-endian, opens a COFF object.
  EXPECT_EQ(classifyHost("\x64\x86\x01\x00"s + std::string(16, '\0')),
            HostKind::CoffObject);
  EXPECT_EQ(classifyHost("plain text, no magic"s), HostKind::None);
  EXPECT_EQ(classifyHost(""s), HostKind::None);
}

TEST(HostKinds, RowsDescribeWhatEachKindHolds) {
  EXPECT_FALSE(hostKindRow(HostKind::None).mayHoldOffloadCode);
  EXPECT_TRUE(hostKindRow(HostKind::Kpack).mayHoldOffloadCode);
  EXPECT_TRUE(hostKindRow(HostKind::Elf).embedsBundles);
  EXPECT_TRUE(hostKindRow(HostKind::Archive).embedsBundles);
  EXPECT_FALSE(hostKindRow(HostKind::Bundle).embedsBundles);
  EXPECT_TRUE(hostKindRow(HostKind::PeImage).mayBeLinked);
  EXPECT_FALSE(hostKindRow(HostKind::CoffObject).mayBeLinked);
  for (size_t index = 0; index < kHostKindCount; ++index) {
    const auto kind = static_cast<HostKind>(index);
    EXPECT_EQ(hostKindRow(kind).kind, kind);
    EXPECT_FALSE(hostKindRow(kind).name.empty());
  }
}

TEST(HostKinds, EveryKindHasItsEditor) {
  for (size_t index = 0; index < kHostKindCount; ++index) {
    const auto kind = static_cast<HostKind>(index);
    EXPECT_EQ(rewriting::hostEditor(kind).kind, kind);
    EXPECT_NE(rewriting::hostEditor(kind).edit, nullptr);
  }
}

TEST(PeHeader, FindsTheFileHeaderWhereTheStubPoints) {
  EXPECT_EQ(peFileHeaderOffset(peStub(0x80, 0x80, 0x100)), 0x84u);
  // The pointer may land on the last four bytes.
  EXPECT_EQ(peFileHeaderOffset(peStub(0xfc, 0xfc, 0x100)), 0x100u);
}

TEST(PeHeader, RefusesStubsThatPointNowhere) {
  // No signature where the pointer lands.
  EXPECT_EQ(peFileHeaderOffset(peStub(0x80, 0x90, 0x100)), std::nullopt);
  // The pointer runs past the end, or the signature is cut short.
  EXPECT_EQ(peFileHeaderOffset(peStub(0x1000, 0x80, 0x100)), std::nullopt);
  EXPECT_EQ(peFileHeaderOffset(peStub(0xfe, 0xfe, 0x100)), std::nullopt);
  // A DOS header too short to hold the pointer.
  EXPECT_EQ(peFileHeaderOffset(peStub(0x80, 0x80, 0x100).substr(0, 0x3f)),
            std::nullopt);
  // Found by the reader, a stub that points nowhere is no PE image.
  EXPECT_EQ(identifyFile(peStub(0x80, 0x90, 0x100)), FileMagic::Unknown);
}

} // namespace
} // namespace offbundle
