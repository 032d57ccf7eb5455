// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MessagePack through msgpack-c and the kpack readers built on it: values
// read back, the declared sizes checked before msgpack-c allocates, and
// kpack archives and markers laid out by hand.
#include <gtest/gtest.h>

#include <string>

#include "formats/kpack/kpack_archive.h"
#include "formats/kpack/kpack_marker.h"
#include "formats/kpack/message_pack.h"
#include "targets/amdgpu_elf_mach.h"

namespace offbundle {
namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int value : values)
    out += static_cast<char>(value);
  return out;
}

// A fixstr.
std::string str(std::string_view text) {
  return static_cast<char>(0xa0 | text.size()) + std::string(text);
}

TEST(MessagePack, ReadsMapsArraysStringsAndIntegers) {
  // {"a": [1, "bc", 300]}
  const std::string data = bytes({0x81}) + str("a") + bytes({0x93, 0x01}) +
                           str("bc") + bytes({0xcd, 0x01, 0x2c});
  auto document = MessagePackDocument::parse(data);
  ASSERT_TRUE(document) << document.error().message;
  EXPECT_EQ(document->consumed(), data.size());
  MessagePackValue root = document->root();
  ASSERT_TRUE(root.isMap());
  std::optional<MessagePackValue> list = root.find("a");
  ASSERT_TRUE(list && list->isArray());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ(list->element(0).asUnsigned(), 1u);
  EXPECT_EQ(list->element(1).asString(), "bc");
  EXPECT_EQ(list->element(2).asUnsigned(), 300u);
  EXPECT_FALSE(list->element(1).asUnsigned());
  EXPECT_EQ(list->element(1).kindName(), "string");
  EXPECT_FALSE(root.find("b"));
}

TEST(MessagePack, CountsLargerThanTheDataAreRefusedBeforeAllocating) {
  // array32 and map32 claiming 2^32 - 1 elements in nine bytes; bin32 and
  // str32 claiming 4 GiB.
  for (int kind : {0xdd, 0xdf, 0xc6, 0xdb}) {
    auto document = MessagePackDocument::parse(
        bytes({kind, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}));
    ASSERT_FALSE(document) << kind;
    EXPECT_NE(document.error().message.find("runs past the end"),
              std::string::npos)
        << document.error().message;
  }
}

TEST(MessagePack, NestingDeeperThanMsgpackCAllowsIsRefused) {
  std::string deep(40, static_cast<char>(0x91));
  deep += bytes({0x01});
  auto document = MessagePackDocument::parse(deep);
  ASSERT_FALSE(document);
  EXPECT_NE(document.error().message.find("nest"), std::string::npos);
  std::string allowed(30, static_cast<char>(0x91));
  allowed += bytes({0x01});
  EXPECT_TRUE(MessagePackDocument::parse(allowed));
}

TEST(MessagePack, TruncatedAndUnusedBytesAreErrors) {
  EXPECT_FALSE(MessagePackDocument::parse(bytes({0x92, 0x01})));
  EXPECT_FALSE(MessagePackDocument::parse(bytes({0xc1})));
  EXPECT_FALSE(MessagePackDocument::parse(""));
}

// A kpack archive with the "none" scheme: the table is given, the blobs
// are `blobs`, starting at offset 64.
std::string archive(const std::string &blobs, const std::string &table) {
  std::string out = "KPAK";
  out += bytes({1, 0, 0, 0});
  const uint64_t tocOffset = 64 + blobs.size();
  for (int i = 0; i < 8; ++i)
    out += static_cast<char>((tocOffset >> (8 * i)) & 0xff);
  out.resize(64, '\0');
  return out + blobs + table;
}

TEST(KpackArchive, ReadsTheTableAndTheBlobs) {
  // {"gfx_arches": ["gfx906"], "toc": {"x#0": {"gfx906": {"ordinal": 0,
  //  "original_size": 3}}}, "blobs": [{"offset": 64, "size": 3}]}
  const std::string table =
      bytes({0x83}) + str("gfx_arches") + bytes({0x91}) + str("gfx906") +
      str("toc") + bytes({0x81}) + str("x#0") + bytes({0x81}) + str("gfx906") +
      bytes({0x82}) + str("ordinal") + bytes({0x00}) + str("original_size") +
      bytes({0x03}) + str("blobs") + bytes({0x91, 0x82}) + str("offset") +
      bytes({0x40}) + str("size") + bytes({0x03});
  const std::string data = archive("abc", table);
  auto read = KpackArchive::read(data);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->compression(), KpackCompression::None);
  ASSERT_EQ(read->binaries().size(), 1u);
  const KpackBinary *binary = read->find("x#0");
  ASSERT_NE(binary, nullptr);
  ASSERT_EQ(binary->codeObjects.size(), 1u);
  EXPECT_EQ(binary->codeObjects[0].architecture, "gfx906");
  auto object = read->codeObject(binary->codeObjects[0]);
  ASSERT_TRUE(object);
  EXPECT_EQ(*object, "abc");

  // The same table claiming a blob past the end of the file.
  std::string lying = table;
  lying[lying.size() - 1] = 0x7f;
  auto refused = KpackArchive::read(archive("abc", lying));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("runs past the end of the archive"),
            std::string::npos)
      << refused.error().message;
}

TEST(KpackArchive, HeaderFaultsAreNamed) {
  EXPECT_FALSE(KpackArchive::read("KPAK"));
  std::string version = archive("", bytes({0x80}));
  version[4] = 2;
  auto refused = KpackArchive::read(version);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("version 2"), std::string::npos);
  auto noToc = KpackArchive::read(
      archive("", bytes({0x81}) + str("blobs") + bytes({0x90})));
  ASSERT_FALSE(noToc);
  EXPECT_NE(noToc.error().message.find("toc"), std::string::npos);
}

TEST(KpackMarker, ReadsTheNameAndSearchPaths) {
  const std::string marker = bytes({0x82}) + str("kpack_search_paths") +
                             bytes({0x92}) + str("a_@GFXARCH@.kpack") +
                             bytes({0x07}) + str("kernel_name") + str("lib/x");
  auto read = readKpackMarker(marker + "padding");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->kernelName, "lib/x");
  ASSERT_EQ(read->searchPaths.size(), 1u);
  EXPECT_EQ(read->searchPaths[0], "a_@GFXARCH@.kpack");
  EXPECT_EQ(kpackBinaryKey(*read, 3), "lib/x#3");
  EXPECT_FALSE(
      readKpackMarker(bytes({0x81}) + str("kernel_name") + str("lib/x")));
}

TEST(AmdgpuElfMach, NamesProcessorsBothWays) {
  EXPECT_EQ(processorOfAmdgpuMach(0x02f), "gfx906");
  EXPECT_EQ(processorOfAmdgpuMach(0x04c), "gfx942");
  EXPECT_EQ(processorOfAmdgpuMach(0x05f), "gfx9-4-generic");
  EXPECT_FALSE(processorOfAmdgpuMach(0x040)); // reserved
  for (uint32_t mach = 0; mach < 0x100; ++mach) {
    if (std::optional<std::string_view> name = processorOfAmdgpuMach(mach)) {
      EXPECT_EQ(amdgpuMachOfProcessor(*name), mach) << *name;
    }
  }
}

TEST(KpackArchive, CodeObjectsAreCheckedForTheirProcessor) {
  std::string elf(64, '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  elf[4] = 2;
  elf[5] = 1;
  elf[18] = static_cast<char>(224);
  elf[48] = 0x36; // gfx1030
  EXPECT_TRUE(checkAmdgpuCodeObject(elf, "gfx1030").ok());
  EXPECT_TRUE(checkAmdgpuCodeObject(elf, "gfx1030:xnack-").ok());
  Status other = checkAmdgpuCodeObject(elf, "gfx906");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message, "it is built for gfx1030, not gfx906");
  elf[18] = 62; // x86-64
  EXPECT_FALSE(checkAmdgpuCodeObject(elf, "gfx1030").ok());
}

} // namespace
} // namespace offbundle
