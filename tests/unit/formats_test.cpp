// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text and binary bundle containers: how readers walk them, what they refuse,
// and what writers produce; and how an input's bundles are decoded.
#include "formats/binary_bundle.h"
#include "formats/bundle_decoding.h"
#include "formats/container_format.h"
#include "formats/file_magic.h"
#include "formats/text_bundle.h"
#include "support/output_transaction.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace offbundle {
namespace {

using namespace std::string_literals;

std::vector<std::string> walkIds(BundleReader &reader) {
  std::vector<std::string> ids;
  for (;;) {
    auto next = reader.nextEntry();
    EXPECT_TRUE(next.ok());
    if (!next.ok() || !*next)
      return ids;
    ids.emplace_back(**next);
    EXPECT_TRUE(reader.skipEntry().ok());
  }
}

const std::string kTwoEntryText =
    "\n; __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n"
    "host code\n"
    "\n; __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n"
    "\n; __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa--gfx906\n"
    "dev"
    "\n; __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa--gfx906\n";

TEST(TextBundleReader, ListsEntriesInFileOrder) {
  TextBundleReader reader(kTwoEntryText, ";");
  EXPECT_EQ(walkIds(reader),
            (std::vector<std::string>{"host-x86_64-unknown-linux-gnu-",
                                      "hip-amdgcn-amd-amdhsa--gfx906"}));
}

TEST(TextBundleReader, PayloadExcludesTheMarkersNewlines) {
  TextBundleReader reader(kTwoEntryText, ";");
  ASSERT_TRUE(**reader.nextEntry() == "host-x86_64-unknown-linux-gnu-");
  auto host = reader.readEntry();
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(kTwoEntryText.substr(host->offset, host->size), "host code\n");
  ASSERT_TRUE(**reader.nextEntry() == "hip-amdgcn-amd-amdhsa--gfx906");
  auto device = reader.readEntry();
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(kTwoEntryText.substr(device->offset, device->size), "dev");
}

TEST(TextBundleReader, OtherCommentStyleFindsNothing) {
  TextBundleReader reader(kTwoEntryText, "//");
  EXPECT_TRUE(walkIds(reader).empty());
}

TEST(TextBundleReader, MissingEndMarkerIsAnError) {
  std::string text =
      "\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-\n"
      "no end";
  TextBundleReader lister(text, "//");
  ASSERT_TRUE(lister.nextEntry().ok());
  EXPECT_FALSE(lister.skipEntry().ok());
  TextBundleReader extractor(text, "//");
  ASSERT_TRUE(extractor.nextEntry().ok());
  auto payload = extractor.readEntry();
  ASSERT_FALSE(payload.ok());
  EXPECT_NE(payload.error().message.find("no end marker"), std::string::npos);
}

TEST(TextBundleReader, StartMarkerWithoutNewlineEndsTheWalk) {
  TextBundleReader reader(
      "x\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-unknown-linux-gnu-",
      "//");
  auto next = reader.nextEntry();
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next->has_value());
}

std::string little64(uint64_t value) {
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>(value >> (8 * i)));
  return bytes;
}

std::string
binaryBundle(const std::vector<std::pair<std::string, std::string>> &entries) {
  uint64_t headerSize = 32;
  for (const auto &entry : entries)
    headerSize += 24 + entry.first.size();
  std::string header = "__CLANG_OFFLOAD_BUNDLE__" + little64(entries.size());
  std::string payloads;
  for (const auto &entry : entries) {
    header += little64(headerSize + payloads.size()) +
              little64(entry.second.size()) + little64(entry.first.size()) +
              entry.first;
    payloads += entry.second;
  }
  return header + payloads;
}

TEST(BinaryBundleReader, VisitsEntriesInStringMapOrder) {
  // This order is what LLVM 22's `clang-offload-bundler -list` prints for
  // the same header: its StringMap's bucket order, not file order.
  std::string bundle =
      binaryBundle({{"host-x86_64-unknown-linux-gnu-", "h"},
                    {"hip-amdgcn-amd-amdhsa--gfx906", "a"},
                    {"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "b"}});
  auto reader = BinaryBundleReader::open(bundle);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->entryIds(), (std::vector<std::string_view>{
                                       "hip-amdgcn-amd-amdhsa--gfx906",
                                       "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                                       "host-x86_64-unknown-linux-gnu-"}));
}

TEST(BinaryBundleReader, RepeatedIdKeepsLastRange) {
  std::string bundle = binaryBundle({{"hip-amdgcn-amd-amdhsa--gfx906", "a"},
                                     {"hip-amdgcn-amd-amdhsa--gfx906", "bb"}});
  auto reader = BinaryBundleReader::open(bundle);
  ASSERT_TRUE(reader.ok());
  ASSERT_EQ((*reader)->entryIds().size(), 1u);
  ASSERT_TRUE((*reader)->nextEntry().ok());
  auto range = (*reader)->readEntry();
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(bundle.substr(range->offset, range->size), "bb");
}

TEST(BinaryBundleReader, InputWithoutMagicHasNoEntries) {
  auto reader = BinaryBundleReader::open("plain host file");
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE((*reader)->entryIds().empty());
}

TEST(BinaryBundleReader, RefusesEveryTruncationOfTheHeader) {
  std::string bundle = binaryBundle({{"host-x86_64-unknown-linux-gnu-", "h"},
                                     {"hip-amdgcn-amd-amdhsa--gfx906", "d"}});
  // Cutting anywhere from the end of the magic to the last payload byte
  // leaves a header that claims more than the file holds.
  for (size_t length = 24; length < bundle.size(); ++length)
    EXPECT_FALSE(BinaryBundleReader::open(bundle.substr(0, length)).ok())
        << "length " << length;
}

TEST(BinaryBundleReader, RefusesAbsurdCountsAndRanges) {
  std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
  EXPECT_FALSE(BinaryBundleReader::open(magic + little64(~uint64_t{0})).ok());
  std::string id = "host-x86_64-unknown-linux-gnu-";
  auto entry = [&](uint64_t offset, uint64_t size) {
    return magic + little64(1) + little64(offset) + little64(size) +
           little64(id.size()) + id + "payload";
  };
  EXPECT_TRUE(BinaryBundleReader::open(entry(32 + 24 + id.size(), 7)).ok());
  EXPECT_FALSE(BinaryBundleReader::open(entry(0, 1)).ok());
  EXPECT_FALSE(BinaryBundleReader::open(entry(32 + 24 + id.size(), 8)).ok());
  // offset + size wraps around 2^64.
  EXPECT_FALSE(BinaryBundleReader::open(entry(40, ~uint64_t{0} - 20)).ok());
}

// Readers search forward from where the last step stopped, never from the
// start again, so hostile text bundles cost time in proportion to their
// size. Each shape below is a few megabytes; a reader rescanning for every
// marker would take hours on it, a linear one milliseconds.
TEST(TextBundleReader, HostileMarkerPatternsTakeLinearTime) {
  const std::string start = "\n// __CLANG_OFFLOAD_BUNDLE____START__ ";
  const std::string end = "\n// __CLANG_OFFLOAD_BUNDLE____END__ ";
  const size_t count = 100000;
  std::string startsOnly, startsThenOneEnd, nearMisses, emptyEntries;
  for (size_t i = 0; i < count; ++i) {
    startsOnly += start + "id" + std::to_string(i) + "\n";
    nearMisses += start.substr(0, start.size() - 2) + "\n" + end.substr(0, 20);
    emptyEntries += start + "e\n" + end + "e\n";
  }
  startsThenOneEnd = startsOnly + end + "x\n";
  const auto began = std::chrono::steady_clock::now();
  for (const std::string *text :
       {&startsOnly, &startsThenOneEnd, &nearMisses, &emptyEntries}) {
    for (bool read : {false, true}) {
      TextBundleReader reader(*text, "//");
      size_t entries = 0;
      for (;;) {
        auto next = reader.nextEntry();
        ASSERT_TRUE(next.ok());
        if (!*next)
          break;
        ++entries;
        bool moved = read ? reader.readEntry().ok() : reader.skipEntry().ok();
        if (!moved)
          break;
      }
      EXPECT_LE(entries, count);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began)
          .count();
  // Generous for sanitizer builds on a busy machine.
  EXPECT_LT(seconds, 20.0);
}

class TemporaryFolder : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/offbundle-formats-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    folder_ = pattern;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + folder_ + "'";
    ASSERT_EQ(std::system(command.c_str()), 0);
  }
  std::string path(const std::string &name) const {
    return folder_ + "/" + name;
  }
  void writeFile(const std::string &name, const std::string &bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }
  std::string readFile(const std::string &name) const {
    std::ifstream file(path(name), std::ios::binary);
    return {std::istreambuf_iterator<char>(file),
            std::istreambuf_iterator<char>()};
  }
  std::string folder_;
};

using BundleWriters = TemporaryFolder;

TEST_F(BundleWriters, BinaryBundleAlignsPayloadsAndRoundTrips) {
  writeFile("host", "host");
  writeFile("device", std::string(100, 'd'));
  auto host = InputFile::open(path("host"));
  auto device = InputFile::open(path("device"));
  ASSERT_TRUE(host.ok() && device.ok());
  {
    OutputTransaction transaction;
    auto output = transaction.create(path("bundle"));
    ASSERT_TRUE(output.ok());
    ASSERT_TRUE(
        writeBinaryBundle(**output,
                          {{"host-x86_64-unknown-linux-gnu-", host->get()},
                           {"hip-amdgcn-amd-amdhsa--gfx906", device->get()}},
                          64)
            .ok());
    ASSERT_TRUE(transaction.commit().ok());
  }
  std::string bundle = readFile("bundle");
  auto reader = BinaryBundleReader::open(bundle);
  ASSERT_TRUE(reader.ok());
  for (;;) {
    auto next = (*reader)->nextEntry();
    ASSERT_TRUE(next.ok());
    if (!*next)
      break;
    auto range = (*reader)->readEntry();
    ASSERT_TRUE(range.ok());
    EXPECT_EQ(range->offset % 64, 0u);
    EXPECT_EQ(bundle.substr(range->offset, range->size),
              **next == "hip-amdgcn-amd-amdhsa--gfx906" ? std::string(100, 'd')
                                                        : "host");
  }
}

TEST_F(BundleWriters, ZeroAlignmentIsRefused) {
  writeFile("host", "host");
  auto host = InputFile::open(path("host"));
  ASSERT_TRUE(host.ok());
  OutputTransaction transaction;
  auto output = transaction.create(path("bundle"));
  ASSERT_TRUE(output.ok());
  EXPECT_FALSE(
      writeBinaryBundle(**output,
                        {{"host-x86_64-unknown-linux-gnu-", host->get()}}, 0)
          .ok());
}

TEST_F(BundleWriters, TextBundleFramesEachPayload) {
  writeFile("host", "int x;");
  auto host = InputFile::open(path("host"));
  ASSERT_TRUE(host.ok());
  OutputTransaction transaction;
  auto output = transaction.create(path("bundle"));
  ASSERT_TRUE(output.ok());
  ASSERT_TRUE(writeTextBundle(**output, "//",
                              {{"host-x86_64-unknown-linux-gnu-", host->get()}})
                  .ok());
  ASSERT_TRUE(transaction.commit().ok());
  EXPECT_EQ(readFile("bundle"),
            "\n// __CLANG_OFFLOAD_BUNDLE____START__ "
            "host-x86_64-unknown-linux-gnu-\nint x;\n// "
            "__CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-unknown-linux-gnu-\n");
}

TEST_F(BundleWriters, UncommittedOutputsLeaveNothingBehind) {
  writeFile("existing", "old bytes");
  {
    OutputTransaction transaction;
    auto output = transaction.create(path("existing"));
    ASSERT_TRUE(output.ok());
    ASSERT_TRUE((*output)->write("new bytes").ok());
    auto fresh = transaction.create(path("fresh"));
    ASSERT_TRUE(fresh.ok());
    // No commit: as when a later step of the operation fails.
  }
  EXPECT_EQ(readFile("existing"), "old bytes");
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(folder_))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"existing"});
}

// Outputs are written in blocks of a few MiB, copies read into the same
// block as the writes around them: pieces of every size, straddling block
// boundaries, must come out in order and intact, from a whole input and from
// a slice of one.
TEST_F(BundleWriters, GatheredBlocksKeepEveryByteInOrder) {
  std::string source(5 << 20, '\0');
  uint32_t state = 12345;
  for (char &byte : source) {
    state = state * 1103515245u + 12345u;
    byte = static_cast<char>(state >> 24);
  }
  writeFile("source", source);
  auto input = InputFile::open(path("source"));
  ASSERT_TRUE(input.ok());
  auto slice = InputFile::slice(**input, 1000, source.size() - 1000);

  std::string expected;
  {
    OutputTransaction transaction;
    auto output = transaction.create(path("out"));
    ASSERT_TRUE(output.ok());
    OutputFile &out = **output;
    const uint64_t sizes[] = {1,       65535,         65536,  (2 << 20) - 7,
                              3 << 20, (2 << 20) + 1, 100000, 4 << 20};
    uint64_t from = 17;
    for (uint64_t size : sizes) {
      ASSERT_TRUE(out.write("<header>").ok());
      expected += "<header>";
      from = (from * 7919 + size) % (source.size() - size);
      ASSERT_TRUE(out.copyFrom(**input, from, size).ok());
      expected += source.substr(from, size);
      ASSERT_TRUE(out.copyFrom(*slice, from / 2, size / 3).ok());
      expected += source.substr(1000 + from / 2, size / 3);
      ASSERT_TRUE(out.writeZeros(size % 70000).ok());
      expected += std::string(size % 70000, '\0');
    }
    // A replacement of bytes still waiting in the current block.
    ASSERT_TRUE(out.overwrite(expected.size() - 3, "xyz").ok());
    expected.replace(expected.size() - 3, 3, "xyz");
    EXPECT_EQ(out.bytesWritten(), expected.size());
    ASSERT_TRUE(transaction.commit().ok());
  }
  std::string written = readFile("out");
  ASSERT_EQ(written.size(), expected.size());
  EXPECT_TRUE(written == expected);
}

// The registry: each container's row is found by its format and its magic,
// and openContainer gives the reader of that container.
TEST(ContainerRegistry, RowsFollowTheEnumAndTheMagic) {
  for (ContainerFormat format :
       {ContainerFormat::BinaryBundle, ContainerFormat::TextBundle,
        ContainerFormat::FatObject, ContainerFormat::OffloadBinary}) {
    const ContainerInfo &info = containerInfo(format);
    EXPECT_EQ(info.format, format);
    ASSERT_NE(info.open, nullptr);
    if (info.magic != FileMagic::Unknown) {
      EXPECT_EQ(containerWithMagic(info.magic), format);
    }
  }
  EXPECT_EQ(containerName(ContainerFormat::FatObject), "fat-object");
  EXPECT_EQ(containerName(ContainerFormat::OffloadBinary), "offload-binary");
  EXPECT_EQ(containerWithMagic(identifyFile(binaryBundle({{"a", "b"}}))),
            ContainerFormat::BinaryBundle);
  EXPECT_EQ(containerWithMagic(identifyFile("\x7f"
                                            "ELF\x02\x01\x01")),
            ContainerFormat::FatObject);
  EXPECT_EQ(containerWithMagic(FileMagic::Unknown), std::nullopt);
  EXPECT_EQ(containerWithMagic(FileMagic::Archive), std::nullopt);
  // Offload binaries are written by the packager, not through the registry.
  EXPECT_EQ(containerInfo(ContainerFormat::OffloadBinary).write, nullptr);
  EXPECT_NE(containerInfo(ContainerFormat::FatObject).write, nullptr);
}

TEST(FileMagic, TellsEveryKindApartByItsFirstBytes) {
  const std::string pe = "MZ" + std::string(0x3a, '\0') + "\x40\0\0\0PE\0\0"s;
  const std::string bigObject =
      "\0\0\xff\xff\x02\0\x64\x86\0\0\0\0"
      "\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6\x6a\xa4\xdc\xb8"s;
  const std::string clGlObject =
      "\0\0\xff\xff\x02\0\x64\x86\0\0\0\0"
      "\x38\xfe\xb3\x0c\xa5\xd9\xab\x4d\xac\x9b\xd6\xb6\x22\x26\x53\xc2"s;
  const std::pair<std::string, FileMagic> cases[] = {
      {"\x7f"
       "ELF\x02\x01"s,
       FileMagic::Elf},
      {"\xcf\xfa\xed\xfe\x07"s, FileMagic::MachO},
      {"\xfe\xed\xfa\xce\x00"s, FileMagic::MachO},
      {"\0asm\x01\0\0\0"s, FileMagic::Wasm},
      {"\x64\x86\x01\0"s, FileMagic::Coff},    // x86-64
      {"\x66\x01\x01\0"s, FileMagic::Coff},    // MIPS
      {"\x68\x02\x01\0"s, FileMagic::Coff},    // Motorola 68000
      {"\x68\x01\x01\0"s, FileMagic::Unknown}, // not a machine
      {"\x41\xa6\x01\0"s, FileMagic::Coff},    // ARM64EC
      {"\0\0\x01\0"s, FileMagic::Coff},        // the unknown machine
      {bigObject, FileMagic::CoffBigObject},
      {clGlObject, FileMagic::CoffClGlObject},
      {"\0\0\xff\xff\0\0"s, FileMagic::CoffImport},
      {"\0\0\0\0\x20\0\0\0\xff\xff\0\0\xff\xff\0\0"s,
       FileMagic::WindowsResource},
      {pe, FileMagic::PeImage},
      {"MZ" + std::string(0x3e, '\0'), FileMagic::Unknown}, // no PE header
      {"\x01\xdf\0\0"s, FileMagic::Xcoff},
      {"\x03\xf0\x00\0"s, FileMagic::Goff},
      {"\x03\x02\x23\x07"s, FileMagic::Unknown}, // SPIR-V
      {"DXBC"s, FileMagic::DxContainer},
      {"\x50\xed\x55\xba"s, FileMagic::CudaFatbinary},
      {"\x50\x01\0\0"s, FileMagic::Coff},
      {"!<arch>\n"s, FileMagic::Archive},
      {"!<thin>\n"s, FileMagic::ThinArchive},
      {"BC\xc0\xde"s, FileMagic::Bitcode},
      {"\xde\xc0\x17\x0b"s, FileMagic::BitcodeWrapper},
      {"\x10\xff\x10\xad"s, FileMagic::OffloadBinary},
      {binaryBundle({{"a", "b"}}), FileMagic::BinaryBundle},
      {"\x7f"
       "EL"s,
       FileMagic::Unknown}, // under 4 bytes
  };
  for (const auto &[bytes, kind] : cases)
    EXPECT_EQ(identifyFile(bytes), kind) << testing::PrintToString(bytes);
}

TEST(ContainerRegistry, OpensTheReaderOfEachContainer) {
  std::string binary = binaryBundle({{"host-x86_64-unknown-linux-gnu-", "h"},
                                     {"hip-amdgcn-amd-amdhsa--gfx906", "d"}});
  auto reader =
      openContainer(ContainerFormat::BinaryBundle, binary, "b.bundle");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(walkIds(**reader).size(), 2u);

  ReaderOptions semicolons;
  semicolons.comment = ";";
  auto text = openContainer(ContainerFormat::TextBundle, kTwoEntryText, "t.ll",
                            semicolons);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(walkIds(**text),
            (std::vector<std::string>{"host-x86_64-unknown-linux-gnu-",
                                      "hip-amdgcn-amd-amdhsa--gfx906"}));
  // The default comment is "//": the same text holds no entry for it.
  auto slashes =
      openContainer(ContainerFormat::TextBundle, kTwoEntryText, "t.ll");
  ASSERT_TRUE(slashes.ok());
  EXPECT_TRUE(walkIds(**slashes).empty());

  // A reader's refusal names the file it was given.
  for (ContainerFormat format :
       {ContainerFormat::FatObject, ContainerFormat::OffloadBinary}) {
    auto refused = openContainer(format, "not this", "broken.o");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message.rfind("'broken.o': ", 0), 0u)
        << refused.error().message;
  }
}

TEST(ContainerRegistry, TypeValuesChooseTheirContainer) {
  auto ll = containerForType("ll");
  ASSERT_TRUE(ll.ok());
  EXPECT_EQ(ll->format, ContainerFormat::TextBundle);
  EXPECT_EQ(ll->comment, ";");
  auto object = containerForType("o");
  ASSERT_TRUE(object.ok());
  // A fat object only around an object file; a binary bundle otherwise.
  EXPECT_EQ(object->resolve("\x7f"
                            "ELF\x02\x01\x01"),
            ContainerFormat::FatObject);
  EXPECT_EQ(object->resolve("plain bytes"), ContainerFormat::BinaryBundle);
  EXPECT_EQ(object->resolve(""), ContainerFormat::BinaryBundle);
  auto bc = containerForType("bc");
  ASSERT_TRUE(bc.ok());
  EXPECT_EQ(bc->resolve("\x7f"
                        "ELF\x02\x01\x01"),
            ContainerFormat::BinaryBundle);
  auto unknown = containerForType("exe");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "'exe': invalid file type specified");
}

} // namespace
} // namespace offbundle

namespace offbundle {
namespace {

// A binary bundle of a small host entry and two 1 MiB device entries, the
// gfx906 one first in the file.
std::string threeEntryBundle() {
  auto host = InputFile::fromMemory("host", std::string("host"));
  auto gfx906 = InputFile::fromMemory("gfx906", std::string(1 << 20, '6'));
  auto gfx90a = InputFile::fromMemory("gfx90a", std::string(1 << 20, 'a'));
  OutputTransaction transaction;
  OutputFile &bundle = *transaction.createInMemory();
  EXPECT_TRUE(
      writeBinaryBundle(bundle,
                        {{"host-x86_64-unknown-linux-gnu-", host.get()},
                         {"hip-amdgcn-amd-amdhsa--gfx906", gfx906.get()},
                         {"hip-amdgcn-amd-amdhsa--gfx90a", gfx90a.get()}},
                        4096)
          .ok());
  return std::string(bundle.memoryContents());
}

std::string compressed(const std::string &bundle) {
  Result<std::string> bytes = compressBundle(bundle, {});
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::string();
}

TEST(BundleDecoding, EntriesOnlyStopsAfterTheWantedEntries) {
  const std::string bundle = threeEntryBundle();
  auto input = InputFile::fromMemory("in", compressed(bundle));
  const std::vector<OffloadTarget> wanted = {
      OffloadTarget::parse("hip-amdgcn-amd-amdhsa--gfx906")};
  DecodeRequest request;
  request.decompression.policy = DecompressionPolicy::EntriesOnly;
  request.entriesFor = WantedTargets{&wanted, false};
  auto decoded = decodeBundles(*input, request);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ASSERT_EQ(decoded->bundles().size(), 1u);
  const DecodedBundle &only = decoded->bundles().front();
  ASSERT_EQ(only.fullSize, std::optional<uint64_t>(bundle.size()));
  const std::string_view prefix = only.file->contents();
  EXPECT_LT(prefix.size(), bundle.size() - (1 << 20) + 4096);
  EXPECT_EQ(prefix, std::string_view(bundle).substr(0, prefix.size()));
  EXPECT_NE(prefix.find(std::string(1 << 20, '6')), std::string_view::npos);

  // Verifying the hash needs the whole bundle, whatever is wanted.
  request.decompression.policy = DecompressionPolicy::Verify;
  auto whole = decodeBundles(*input, request);
  ASSERT_TRUE(whole.ok());
  EXPECT_FALSE(whole->bundles().front().fullSize);
  EXPECT_EQ(whole->bundles().front().file->contents(), bundle);
}

TEST(BundleDecoding, ConcatenatedBundlesComeBackInOrder) {
  const std::string first = threeEntryBundle();
  const std::string second = "plain text that is no bundle";
  auto input =
      InputFile::fromMemory("in", compressed(first) + compressed(second));
  auto decoded = decodeBundles(*input, DecodeRequest{});
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ASSERT_EQ(decoded->bundles().size(), 2u);
  EXPECT_EQ(decoded->bundles()[0].file->contents(), first);
  EXPECT_EQ(decoded->bundles()[1].file->contents(), second);
}

TEST(BundleDecoding, DeferredHashMismatchIsFoundByCheckHashes) {
  std::string bytes = compressed(threeEntryBundle());
  auto header = parseCompressedBundleHeader(bytes);
  ASSERT_TRUE(header.ok());
  // The hash is the header's last field.
  bytes[header->headerSize - 8] ^= 1;
  auto input = InputFile::fromMemory("damaged.bundle", std::move(bytes));

  DecodeRequest now;
  now.decompression.hashCheckHint = "use -no-check";
  auto refused = decodeBundles(*input, now);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("damaged.bundle"), std::string::npos);

  DecodeRequest later;
  later.deferHashCheck = true;
  later.decompression.hashCheckHint = "use -no-check";
  auto decoded = decodeBundles(*input, later);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  Status checked = decoded->checkHashes("damaged.bundle", "use -no-check");
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().message, refused.error().message);

  // Without verification the damaged hash goes unnoticed.
  DecodeRequest unchecked;
  unchecked.decompression.policy = DecompressionPolicy::EntriesOnly;
  auto plain = decodeBundles(*input, unchecked);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->checkHashes("damaged.bundle", "").ok());
}

TEST(BundleDecoding, UncompressedInputIsItsOwnBundle) {
  auto input = InputFile::fromMemory("in", threeEntryBundle());
  std::string verbose;
  DecodeRequest request;
  request.verboseReport = &verbose;
  auto decoded = decodeBundles(*input, request);
  ASSERT_TRUE(decoded.ok());
  ASSERT_EQ(decoded->bundles().size(), 1u);
  EXPECT_EQ(decoded->bundles().front().file->contents(), input->contents());
  EXPECT_EQ(verbose, "Uncompressed bundle.\n");
}

TEST(BundleDecoding, EntryIdsComeFromTheHeaderAlone) {
  const std::string bundle = threeEntryBundle();
  auto reader = BinaryBundleReader::open(bundle);
  ASSERT_TRUE(reader.ok());
  std::string expected;
  for (std::string_view id : (*reader)->entryIds())
    expected += std::string(id) + "\n";
  ASSERT_NE(expected.find("gfx90a"), std::string::npos);

  auto input =
      InputFile::fromMemory("in", compressed(bundle) + compressed(bundle));
  auto ids = compressedBundleEntryIds(*input);
  ASSERT_TRUE(ids.ok());
  ASSERT_TRUE(*ids);
  EXPECT_EQ(**ids, expected + expected);

  auto plain = InputFile::fromMemory("in", bundle);
  auto none = compressedBundleEntryIds(*plain);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(*none);
}

} // namespace
} // namespace offbundle
