// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bundles inside other files: code object URIs, splitting the offload data
// of .hip_fatbin and .llvm.offloading sections, offload binaries, and the
// JSON text of -list -format=json. Inputs are crafted here byte by byte from
// the documented layouts, so that every expectation is independent of the
// code under test.
#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/code_object_uri.h"
#include "formats/embedded_offload.h"
#include "formats/embedded_sections.h"
#include "in_memory.h"
#include "support/json_writer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace offbundle {
namespace {

using in_memory::readOffloadBinary;

using namespace std::string_literals;

void appendLittle(std::string &out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// A binary bundle: header, then the payloads at `alignment`.
std::string
binaryBundle(const std::vector<std::pair<std::string, std::string>> &entries,
             uint64_t alignment = 1) {
  uint64_t headerSize = 24 + 8;
  for (const auto &[id, payload] : entries)
    headerSize += 24 + id.size();
  std::string header = "__CLANG_OFFLOAD_BUNDLE__";
  appendLittle(header, entries.size(), 8);
  std::string body;
  uint64_t end = headerSize;
  for (const auto &[id, payload] : entries) {
    uint64_t offset = (end + alignment - 1) / alignment * alignment;
    body.append(offset - end, '\0');
    body += payload;
    appendLittle(header, offset, 8);
    appendLittle(header, payload.size(), 8);
    appendLittle(header, id.size(), 8);
    header += id;
    end = offset + payload.size();
  }
  return header + body;
}

// An offload binary with one image, laid out as LLVM writes it: header,
// entry, string table, strings, image.
std::string
offloadBinary(uint16_t imageKind, uint16_t offloadKind,
              const std::vector<std::pair<std::string, std::string>> &strings,
              const std::string &image, uint32_t version = 1) {
  const uint64_t entryOffset = 32;
  const uint64_t stringTableOffset = entryOffset + 40;
  uint64_t stringsAt = stringTableOffset + 16 * strings.size();
  std::string table;
  std::string text;
  for (const auto &[key, value] : strings) {
    appendLittle(table, stringsAt + text.size(), 8);
    text += key + '\0';
    appendLittle(table, stringsAt + text.size(), 8);
    text += value + '\0';
  }
  uint64_t imageOffset = stringsAt + text.size();
  imageOffset = (imageOffset + 7) / 8 * 8;
  // LLVM pads every binary to a multiple of 8 bytes.
  uint64_t size = (imageOffset + image.size() + 7) / 8 * 8;
  std::string out = "\x10\xFF\x10\xAD"s;
  appendLittle(out, version, 4);
  appendLittle(out, size, 8);
  appendLittle(out, entryOffset, 8);
  appendLittle(out, 40, 8);
  appendLittle(out, imageKind, 2);
  appendLittle(out, offloadKind, 2);
  appendLittle(out, 0, 4);
  appendLittle(out, stringTableOffset, 8);
  appendLittle(out, strings.size(), 8);
  appendLittle(out, imageOffset, 8);
  appendLittle(out, image.size(), 8);
  out += table + text;
  out.append(imageOffset - out.size(), '\0');
  out += image;
  out.append(size - out.size(), '\0');
  return out;
}

std::string padTo(std::string bytes, size_t alignment) {
  bytes.append((alignment - bytes.size() % alignment) % alignment, '\0');
  return bytes;
}

// --- Code object URIs
// ---------------------------------------------------------

TEST(CodeObjectUri, RocmExamples) {
  auto plain = parseCodeObjectUri("file:///dir1/dir2/file1");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->path, "/dir1/dir2/file1");
  EXPECT_EQ(plain->offset, 0u);
  EXPECT_FALSE(plain->size.has_value());

  auto ranged =
      parseCodeObjectUri("file:///dir3/dir4/file2#offset=0x2000&size=3000");
  ASSERT_TRUE(ranged.ok());
  EXPECT_EQ(ranged->path, "/dir3/dir4/file2");
  EXPECT_EQ(ranged->offset, 0x2000u);
  EXPECT_EQ(ranged->size, 3000u);

  // roc-obj-ls writes relative paths straight after the scheme.
  auto relative =
      parseCodeObjectUri("file://dir1/dir2/hello_world#offset=133&size=14472");
  ASSERT_TRUE(relative.ok());
  EXPECT_EQ(relative->path, "dir1/dir2/hello_world");
  EXPECT_EQ(relative->offset, 133u);
  EXPECT_EQ(relative->size, 14472u);
}

TEST(CodeObjectUri, NumbersAreCIntegerLiterals) {
  auto octal = parseCodeObjectUri("file://f?offset=010&size=0X1f");
  ASSERT_TRUE(octal.ok());
  EXPECT_EQ(octal->offset, 8u);
  EXPECT_EQ(octal->size, 31u);
  auto zero = parseCodeObjectUri("file://f#offset=0&size=0");
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->offset, 0u);
  EXPECT_EQ(zero->size, 0u);
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset=08").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset=0x").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset=-1").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset=18446744073709551616").ok());
  EXPECT_TRUE(parseCodeObjectUri("file://f#offset=18446744073709551615").ok());
}

TEST(CodeObjectUri, EitherParameterMayBeOmittedOrComeFirst) {
  auto sizeOnly = parseCodeObjectUri("file://f#size=5");
  ASSERT_TRUE(sizeOnly.ok());
  EXPECT_EQ(sizeOnly->offset, 0u);
  EXPECT_EQ(sizeOnly->size, 5u);
  auto reversed = parseCodeObjectUri("FILE://f#size=5&offset=2");
  ASSERT_TRUE(reversed.ok());
  EXPECT_EQ(reversed->offset, 2u);
}

TEST(CodeObjectUri, PathsArePercentDecoded) {
  auto uri = parseCodeObjectUri("file:///tmp/a%20b%23c%25d%2fe");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->path, "/tmp/a b#c%d/e");
  EXPECT_FALSE(parseCodeObjectUri("file:///tmp/a%2").ok());
  EXPECT_FALSE(parseCodeObjectUri("file:///tmp/a%zz").ok());
  EXPECT_FALSE(parseCodeObjectUri("file:///tmp/a%00").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://#offset=1").ok());
}

TEST(CodeObjectUri, RefusesWhatItCannotRead) {
  auto memory = parseCodeObjectUri("memory://1234#offset=0x20000&size=3000");
  ASSERT_FALSE(memory.ok());
  EXPECT_NE(memory.error().message.find("memory://"), std::string::npos);
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset=1&offset=2").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#length=1").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#").ok());
  EXPECT_FALSE(parseCodeObjectUri("file://f#offset=1&").ok());
}

TEST(CodeObjectUri, FormattingEncodesEverythingOutsideTheSafeSet) {
  EXPECT_EQ(formatCodeObjectUri("/a b/c#d%e~f_g.h-i", 4096, 10),
            "file:///a%20b/c%23d%25e~f_g.h-i#offset=4096&size=10");
  std::string path = "/tmp/\x01\xff"s;
  auto back = parseCodeObjectUri(formatCodeObjectUri(path, 1, 2));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->path, path);
}

TEST(CodeObjectUri, PercentEncodingIsRocmsRule) {
  // ROCr's loader keeps [a-zA-Z0-9/_.~-] and writes everything else as two
  // uppercase hexadecimal digits; the reserved characters of URIs and
  // bytes of UTF-8 names included.
  EXPECT_EQ(percentEncodeUriPath("/AZaz09/_.~-"), "/AZaz09/_.~-");
  EXPECT_EQ(percentEncodeUriPath("/a b#c?d%e&f=g+h:i@j;k,l!m'n(o)p*q$r"),
            "/a%20b%23c%3Fd%25e%26f%3Dg%2Bh%3Ai%40j%3Bk%2Cl%21m%27n%28o%29p%"
            "2Aq%24r");
  EXPECT_EQ(percentEncodeUriPath("/caf\xc3\xa9/\x7f\x80\xff\x01\n"s),
            "/caf%C3%A9/%7F%80%FF%01%0A");
  EXPECT_EQ(percentEncodeUriPath("/back\\slash\"quote\""),
            "/back%5Cslash%22quote%22");
}

TEST(CodeObjectUri, PercentDecodingUndoesAnyEncoding) {
  auto lower = percentDecodeUriPath("/caf%c3%a9%2fx%7E");
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(*lower, "/caf\xc3\xa9/x~");
  // Bytes left unencoded, as typed by hand, pass through.
  auto raw = percentDecodeUriPath("/a b/c\xc3\xa9");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, "/a b/c\xc3\xa9");
  EXPECT_FALSE(percentDecodeUriPath("/a%").ok());
  EXPECT_FALSE(percentDecodeUriPath("/a%4").ok());
  EXPECT_FALSE(percentDecodeUriPath("/a%g0").ok());
  EXPECT_FALSE(percentDecodeUriPath("/a%00").ok());
  EXPECT_FALSE(percentDecodeUriPath("").ok());
}

TEST(CodeObjectUri, EveryByteRoundTrips) {
  std::string path = "/";
  for (int c = 1; c < 256; ++c)
    path += static_cast<char>(c);
  std::string encoded = percentEncodeUriPath(path);
  // Nothing left in the encoding that ends the path or starts an escape.
  EXPECT_EQ(encoded.find_first_of("#?& "), std::string::npos);
  auto decoded = percentDecodeUriPath(encoded);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, path);
  EXPECT_EQ(percentEncodeUriPath(*decoded), encoded);

  // Through a whole URI, with a range after the path.
  std::string odd = "/dir with space/#1%20?x=y&z/\xe2\x82\xac.co";
  auto uri = parseCodeObjectUri(formatCodeObjectUri(odd, 12288, 4568));
  ASSERT_TRUE(uri.ok()) << uri.error().message;
  EXPECT_EQ(uri->path, odd);
  EXPECT_EQ(uri->offset, 12288u);
  EXPECT_EQ(uri->size, 4568u);
}

class UriInputTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("offbundle-uri-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
    path_ = (folder_ / "file with space").string();
    std::ofstream(path_, std::ios::binary) << "0123456789";
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  // The file's URI with the given range specifier.
  std::string uri(const std::string &range) const {
    std::string whole = formatCodeObjectUri(path_, 0, 0);
    return whole.substr(0, whole.find('#')) + range;
  }
  std::filesystem::path folder_;
  std::string path_;
};

TEST_F(UriInputTest, OpensTheRange) {
  auto input = openInput(uri("#offset=2&size=5"));
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_EQ((*input)->contents(), "23456");
  EXPECT_EQ((*input)->fileOffset(), 2u);
  EXPECT_EQ((*input)->path(), uri("#offset=2&size=5"));
  auto rest = openInput(uri("#offset=7"));
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ((*rest)->contents(), "789");
  auto whole = openInput(uri(""));
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ((*whole)->contents(), "0123456789");
  auto empty = openInput(uri("#offset=10&size=0"));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->size(), 0u);
}

TEST_F(UriInputTest, RangesOutsideTheFileAreRefused) {
  auto past = openInput(uri("#offset=11"));
  ASSERT_FALSE(past.ok());
  EXPECT_NE(past.error().message.find("past the end"), std::string::npos);
  EXPECT_FALSE(openInput(uri("#offset=5&size=6")).ok());
  EXPECT_FALSE(openInput(uri("#offset=1&size=18446744073709551615")).ok());
  EXPECT_FALSE(openInput("file:///no/such/file#offset=0").ok());
}

TEST_F(UriInputTest, UriPathsAreAbsoluteWithLinksResolved) {
  // Named relative to the current folder, the path comes back absolute.
  std::string relative =
      std::filesystem::relative(path_, std::filesystem::current_path())
          .string();
  ASSERT_NE(relative.front(), '/');
  std::string real = std::filesystem::canonical(path_).string();
  auto fromRelative = uriFilePath(relative);
  ASSERT_TRUE(fromRelative.ok()) << fromRelative.error().message;
  EXPECT_EQ(*fromRelative, real);
  // Through a link, it names the file the link leads to, as ROCm does.
  std::string link = (folder_ / "link").string();
  std::filesystem::create_symlink(path_, link);
  auto fromLink = uriFilePath(link);
  ASSERT_TRUE(fromLink.ok());
  EXPECT_EQ(*fromLink, real);
  EXPECT_FALSE(uriFilePath((folder_ / "missing").string()).ok());
}

TEST_F(UriInputTest, RelativeAndAbsoluteFormsOpenTheSameBytes) {
  std::string relative =
      std::filesystem::relative(path_, std::filesystem::current_path())
          .string();
  auto fromRelative =
      openInput("file://" + percentEncodeUriPath(relative) + "#offset=3");
  ASSERT_TRUE(fromRelative.ok()) << fromRelative.error().message;
  EXPECT_EQ((*fromRelative)->contents(), "3456789");
  auto absolute = uriFilePath(relative);
  ASSERT_TRUE(absolute.ok());
  auto fromAbsolute = openInput(formatCodeObjectUri(*absolute, 3, 7));
  ASSERT_TRUE(fromAbsolute.ok()) << fromAbsolute.error().message;
  EXPECT_EQ((*fromAbsolute)->contents(), "3456789");
}

TEST_F(UriInputTest, AnExistingFileIsNeverAUri) {
  EXPECT_EQ(inputFilePath(path_), path_);
  EXPECT_EQ(inputFilePath(uri("#offset=1")), path_);
  EXPECT_EQ(inputFilePath("plain/name"), "plain/name");
}

// --- Splitting offload data
// ----------------------------------------------------

TEST(OffloadData, PaddedBinaryBundlesAsALinkerLeavesThem) {
  std::string first =
      binaryBundle({{"host-x86_64-unknown-linux-gnu-", ""},
                    {"hipv4-amdgcn-amd-amdhsa--gfx906", "AAAA"}},
                   64);
  std::string second =
      binaryBundle({{"hipv4-amdgcn-amd-amdhsa--gfx906", "BB"}});
  std::string section = padTo(first, 256) + padTo(second, 256);
  auto elements = splitOffloadData(section);
  ASSERT_TRUE(elements.ok()) << elements.error().message;
  ASSERT_EQ(elements->size(), 2u);
  EXPECT_EQ((*elements)[0].kind, FileMagic::BinaryBundle);
  EXPECT_EQ((*elements)[0].offset, 0u);
  EXPECT_EQ((*elements)[0].bytes, first);
  EXPECT_EQ((*elements)[1].offset, 256u);
  EXPECT_EQ((*elements)[1].bytes, second);
}

TEST(OffloadData, ExtentIsTheFurthestPayload) {
  // Entries need not be in offset order.
  std::string bundle = binaryBundle({{"a-b-c-d-e", "xyz"}, {"f-g-h-i-j", ""}});
  auto extent = binaryBundleExtent(bundle + "\0\0\0"s);
  ASSERT_TRUE(extent.ok());
  EXPECT_EQ(*extent, bundle.size());
  // A bundle of header only.
  std::string empty = binaryBundle({});
  EXPECT_EQ(*binaryBundleExtent(empty + "junk"), empty.size());
}

TEST(OffloadData, CompressedBundlesMixedWithOthers) {
  std::string inner =
      binaryBundle({{"hipv4-amdgcn-amd-amdhsa--gfx906", "CODE"}});
  auto compressed = compressBundle(inner, {CompressionMethod::Zlib, 6, 3});
  ASSERT_TRUE(compressed.ok());
  std::string plain = binaryBundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", "X"}});
  std::string offload =
      offloadBinary(2, 4, {{"triple", "amdgcn-amd-amdhsa"}}, "IMG");
  std::string section =
      padTo(*compressed, 4096) + padTo(plain, 4096) + padTo(offload, 8);
  auto elements = splitOffloadData(section);
  ASSERT_TRUE(elements.ok()) << elements.error().message;
  ASSERT_EQ(elements->size(), 3u);
  EXPECT_EQ((*elements)[0].kind, FileMagic::CompressedBundle);
  EXPECT_EQ((*elements)[0].bytes, *compressed);
  EXPECT_EQ((*elements)[1].kind, FileMagic::BinaryBundle);
  EXPECT_EQ((*elements)[1].offset, 4096u);
  EXPECT_EQ((*elements)[2].kind, FileMagic::OffloadBinary);
  EXPECT_EQ((*elements)[2].offset, 8192u);
  EXPECT_EQ((*elements)[2].bytes, offload);
}

TEST(OffloadData, AllZerosIsEmpty) {
  auto elements = splitOffloadData(std::string(10000, '\0'));
  ASSERT_TRUE(elements.ok());
  EXPECT_TRUE(elements->empty());
}

TEST(OffloadData, OtherDataIsRefusedWithItsOffset) {
  std::string bundle = binaryBundle({{"a-b-c-d-e", "p"}});
  auto junk = splitOffloadData(padTo(bundle, 128) + "junk");
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.error().message.find("at offset 128"), std::string::npos)
      << junk.error().message;
}

TEST(OffloadData, DamagedElementsAreRefused) {
  std::string bundle = binaryBundle({{"a-b-c-d-e", "payload"}});
  // A payload past the end of the data.
  EXPECT_FALSE(splitOffloadData(bundle.substr(0, bundle.size() - 1)).ok());
  // A compressed bundle whose total size runs past the data.
  std::string inner = binaryBundle({{"a-b-c-d-e", "x"}});
  auto compressed = compressBundle(inner, {CompressionMethod::Zlib, 6, 3});
  ASSERT_TRUE(compressed.ok());
  EXPECT_FALSE(
      splitOffloadData(compressed->substr(0, compressed->size() - 1)).ok());
  // An offload binary claiming more bytes than there are.
  std::string offload = offloadBinary(1, 1, {}, "I");
  EXPECT_FALSE(splitOffloadData(offload.substr(0, offload.size() - 1)).ok());
}

TEST(OffloadData, PaddingAfterConcatenatedCompressedBundles) {
  std::string inner = binaryBundle({{"a-b-c-d-e", "x"}});
  auto compressed = compressBundle(inner, {CompressionMethod::Zlib, 6, 3});
  ASSERT_TRUE(compressed.ok());
  auto spans = splitConcatenatedCompressedBundles(padTo(*compressed, 4096) +
                                                  padTo(*compressed, 4096));
  ASSERT_TRUE(spans.ok()) << spans.error().message;
  ASSERT_EQ(spans->size(), 2u);
  EXPECT_EQ((*spans)[1].offset, 4096u);
}

// --- Offload binaries
// ----------------------------------------------------------

TEST(OffloadBinary, ReadsTheImageAndStrings) {
  std::string binary = offloadBinary(
      2, 4, {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx90a:xnack+"}},
      "BC\xc0\xde-image");
  // Strings view the bytes, which must outlive the result.
  const std::string followed = binary + "after";
  auto image = readOffloadBinary(followed, "");
  ASSERT_TRUE(image.ok()) << image.error().message;
  EXPECT_EQ(image->version, 1u);
  EXPECT_EQ(image->bytes.size(), binary.size());
  EXPECT_EQ(imageKindDescription(image->imageKind), "bitcode");
  EXPECT_EQ(offloadKindDescription(image->offloadKind), "hip");
  EXPECT_EQ(image->image, "BC\xc0\xde-image");
  EXPECT_EQ(image->arch(), "gfx90a:xnack+");
  EXPECT_EQ(offloadImageEntryId(*image),
            "hip-amdgcn-amd-amdhsa--gfx90a:xnack+");
}

TEST(OffloadBinary, EntryIdsFollowTheBundlersTripleSpelling) {
  auto idOf = [](uint16_t kind, const std::string &triple,
                 const std::string &arch) {
    const std::string binary =
        offloadBinary(1, kind, {{"triple", triple}, {"arch", arch}}, "x");
    auto image = readOffloadBinary(binary, "");
    return image.ok() ? offloadImageEntryId(*image) : "error";
  };
  EXPECT_EQ(idOf(1, "amdgcn-amd-amdhsa", "gfx906"),
            "openmp-amdgcn-amd-amdhsa--gfx906");
  EXPECT_EQ(idOf(2, "nvptx64-nvidia-cuda", "sm_70"),
            "cuda-nvptx64-nvidia-cuda-unknown-sm_70");
  EXPECT_EQ(idOf(8, "spirv64-intel", ""),
            "sycl-spirv64-intel-unknown-unknown-");
  EXPECT_EQ(idOf(3, "x86_64-unknown-linux-gnu", ""),
            "unknown-x86_64-unknown-linux-gnu-");
  EXPECT_EQ(imageKindDescription(0), "none");
  EXPECT_EQ(imageKindDescription(6), "spirv");
  EXPECT_EQ(imageKindDescription(7), "unknown");
  EXPECT_EQ(offloadKindDescription(0), "none");
  EXPECT_EQ(offloadKindDescription(3), "unknown");
}

TEST(OffloadBinary, RefusesWhatDoesNotFit) {
  std::string good = offloadBinary(2, 4, {{"triple", "t"}}, "IMAGE");
  auto damaged = [&](size_t at, uint64_t value, int width) {
    std::string copy = good;
    for (int i = 0; i < width; ++i)
      copy[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
    return readOffloadBinary(copy, "").ok();
  };
  EXPECT_TRUE(damaged(8, good.size(), 8));
  EXPECT_FALSE(damaged(4, 2, 4));                    // version
  EXPECT_FALSE(damaged(8, good.size() + 1, 8));      // size
  EXPECT_FALSE(damaged(8, 16, 8));                   // size below the header
  EXPECT_FALSE(damaged(16, good.size() - 39, 8));    // entry table offset
  EXPECT_FALSE(damaged(24, good.size() - 31, 8));    // entry table size
  EXPECT_FALSE(damaged(32 + 8, good.size(), 8));     // string table offset
  EXPECT_FALSE(damaged(32 + 16, UINT64_MAX / 8, 8)); // string count
  EXPECT_FALSE(damaged(32 + 24, good.size(), 8));    // image offset
  EXPECT_FALSE(damaged(32 + 32, UINT64_MAX, 8));     // image size
  EXPECT_FALSE(damaged(72, good.size(), 8));         // a key offset
  EXPECT_FALSE(readOffloadBinary(good.substr(0, 31), "").ok());
}

TEST(OffloadBinary, UnterminatedStringsAreRefused) {
  std::string binary = offloadBinary(2, 4, {{"triple", "value"}}, "");
  // The image is empty: the value's NUL and the padding after it end the
  // binary. Without them the value runs off its end.
  size_t value = binary.find("value");
  ASSERT_NE(value, std::string::npos);
  ASSERT_TRUE(readOffloadBinary(binary, "").ok());
  for (size_t i = value + 5; i < binary.size(); ++i)
    binary[i] = 'x';
  auto image = readOffloadBinary(binary, "");
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.error().message.find("no terminating null byte"),
            std::string::npos)
      << image.error().message;
}

TEST(OffloadBinary, ManyStringsSharingBytesStayCheap) {
  // Every string entry names the same long string: resolved in one sweep.
  std::string binary = offloadBinary(2, 4, {}, "");
  const uint64_t count = 20000;
  std::string table;
  uint64_t textAt = 32 + 40 + 16 * count;
  for (uint64_t i = 0; i < count; ++i) {
    appendLittle(table, textAt + i % 1000, 8);
    appendLittle(table, textAt, 8);
  }
  std::string text(100000, 'k');
  // The terminator, then padding to LLVM's 8-byte size.
  text.append(8 - (textAt + text.size()) % 8, '\0');
  std::string out = binary.substr(0, 32 + 40);
  // Point the entry at the new table and image.
  uint64_t size = textAt + text.size();
  for (int i = 0; i < 8; ++i) {
    out[8 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
    out[32 + 16 + i] = static_cast<char>((count >> (8 * i)) & 0xff);
    out[32 + 24 + i] = static_cast<char>((size >> (8 * i)) & 0xff);
    out[32 + 32 + i] = 0;
  }
  out += table + text;
  auto image = readOffloadBinary(out, "");
  ASSERT_TRUE(image.ok()) << image.error().message;
  // A key keeps its first place: 1000 distinct keys.
  ASSERT_EQ(image->strings.size(), 1000u);
  EXPECT_EQ(image->strings[999].first.size(), 100000u - 999);
}

TEST(OffloadBinary, ReaderVisitsImagesAsEntries) {
  std::string binary = offloadBinary(
      2, 1, {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx906"}}, "PAYLOAD");
  auto reader = OffloadBinaryReader::open(binary);
  ASSERT_TRUE(reader.ok());
  auto first = (*reader)->nextEntry();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ(**first, "openmp-amdgcn-amd-amdhsa--gfx906");
  auto payload = (*reader)->readEntry();
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(binary.substr(payload->offset, payload->size), "PAYLOAD");
  auto end = (*reader)->nextEntry();
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

// --- JSON
// ------------------------------------------------------------------------

TEST(Json, StringsAreAlwaysValidJson) {
  EXPECT_EQ(jsonString("plain"), "\"plain\"");
  EXPECT_EQ(jsonString("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(jsonString("\n\t\r\x01\x7f"s), "\"\\n\\t\\r\\u0001\\u007f\"");
  EXPECT_EQ(jsonString("\0"s), "\"\\u0000\"");
  // Valid UTF-8 is kept; stray bytes become the Latin-1 character.
  EXPECT_EQ(jsonString("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
            "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
  EXPECT_EQ(jsonString("\xff\xc3"), "\"\\u00ff\\u00c3\"");
  EXPECT_EQ(jsonString("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");
  EXPECT_EQ(jsonString("\xc0\xaf"), "\"\\u00c0\\u00af\"");
}

TEST(Json, WriterKeepsKeyOrderAndIndents) {
  JsonWriter json;
  json.beginObject();
  json.field("b", "x");
  json.field("a", uint64_t{18446744073709551615u});
  json.key("empty");
  json.beginArray();
  json.endArray();
  json.key("list");
  json.beginArray();
  json.null();
  json.boolean(true);
  json.beginObject();
  json.endObject();
  json.endArray();
  json.field("none", std::optional<uint64_t>());
  json.endObject();
  EXPECT_EQ(json.finish(), "{\n"
                           "  \"b\": \"x\",\n"
                           "  \"a\": 18446744073709551615,\n"
                           "  \"empty\": [],\n"
                           "  \"list\": [\n"
                           "    null,\n"
                           "    true,\n"
                           "    {}\n"
                           "  ],\n"
                           "  \"none\": null\n"
                           "}\n");
}

// Fractions have four decimals, rounded half up, for any 64-bit operands.
TEST(Json, FractionsHaveFourDecimals) {
  JsonWriter json;
  json.beginArray();
  json.fraction(1, 4);
  json.fraction(2, 3);
  json.fraction(1, 20000); // 0.00005: half up
  json.fraction(1, 20001);
  json.fraction(7, 7);
  json.fraction(5, 0);
  json.fraction(UINT64_MAX, UINT64_MAX / 3);
  json.endArray();
  EXPECT_EQ(json.finish(), "[\n  0.2500,\n  0.6667,\n  0.0001,\n  0.0000,\n"
                           "  1.0000,\n  0.0000,\n  3.0000\n]\n");
}

} // namespace
} // namespace offbundle
