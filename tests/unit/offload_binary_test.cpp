// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Offload binaries: layout, parsing and its errors, the hash and map order
// llvm-offload-binary writes strings in, and the containers binaries are
// found in (COFF objects, bitcode). Stored inputs come from LLVM 22's tools
// (tests/data/offload_binary/make_data.sh).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "bitcode/embedded_objects.h"
#include "formats/coff/coff_object.h"
#include "formats/compressed_offload_binary.h"
#include "formats/file_magic.h"
#include "formats/offload_binary.h"
#include "in_memory.h"
#include "packager/image_arguments.h"
#include "packager/llvm_hash.h"
#include "test_files.h"

namespace offbundle {
namespace {

using in_memory::writeOffloadBinary;

std::string stored(const std::string &name) {
  return test_files::readFile(test_files::dataDirectory("offload_binary") /
                              name);
}

void putLe64(std::string &bytes, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[at + i] = static_cast<char>(value >> (8 * i) & 0xff);
}

void putLe32(std::string &bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = static_cast<char>(value >> (8 * i) & 0xff);
}

std::string errorOf(std::string_view buffer) {
  auto result = splitOffloadBinaries(buffer, "'x'");
  return result ? std::string("(no error)") : result.error().message;
}

// The first binary of two-images.bin, on its own.
std::string firstBinary() { return stored("two-images.bin").substr(0, 0x98); }

TEST(LlvmHash, MatchesLlvmHashValueForEveryLengthClass) {
  // llvm::hash_value(StringRef) from LLVM 22, for lengths in each of the
  // hash's cases (0, 1-3, 4-8, 9-16, 17-32, 33-64 and the long form).
  struct Case {
    std::string text;
    uint64_t hash;
  };
  std::string mixed;
  for (int i = 0; i < 100; ++i)
    mixed.push_back(static_cast<char>('0' + i % 75));
  const std::vector<Case> cases = {
      {"", 0x65b0c5ecc2c5cc82ull},
      {"a", 0xaeb6f9d5517c61f8ull},
      {"ab", 0x7ab1edb96be496b4ull},
      {"abc", 0xe38e60bf19c71a3full},
      {"arch", 0x1499ea7cf386c709ull},
      {"triple", 0x45f9d3270819b0d8ull},
      {"nvptx64-nvidia-cuda", 0x65d83b06b84fb123ull},
      {"amdgcn-amd-amdhsa--gfx90a:xnack+", 0x7329fe5f0159be45ull},
      {std::string(64, 'x'), 0xd951f31b7ad43243ull},
      {std::string(65, 'x'), 0x1692b92ff9933bdeull},
      {std::string(128, 'y'), 0x98561c058d503c76ull},
      {std::string(200, 'z'), 0x1f523b6605938713ull},
      {mixed, 0x0b4abddfd1aaa41dull},
  };
  for (const Case &c : cases)
    EXPECT_EQ(llvmHashValue(c.text), c.hash) << "length " << c.text.size();
}

TEST(ImageArguments, KeysComeInLlvmDenseMapOrder) {
  ImageArguments arguments = ImageArguments::parse(
      "file=a.o,triple=t,arch=sm_70,foo=bar,foo=baz,novalue,x=y=z");
  std::vector<std::string> keys;
  for (const auto &[key, value] : arguments.entries())
    keys.push_back(key);
  // Bucket order of LLVM 22's DenseMap<StringRef, StringRef>.
  EXPECT_EQ(keys, (std::vector<std::string>{"arch", "file", "triple", "x",
                                            "foo", "novalue"}));
  EXPECT_EQ(arguments.find("foo"), "bar,baz");
  EXPECT_EQ(arguments.find("novalue"), "");
  EXPECT_EQ(arguments.find("x"), "y=z");
  EXPECT_FALSE(arguments.find("missing").has_value());
}

TEST(ImageArguments, OrderSurvivesTheMapGrowing) {
  // Past 48 keys LLVM's map doubles to 128 buckets and rehashes.
  std::string text;
  for (int i = 0; i < 60; ++i)
    text += (i ? ",key" : "key") + std::to_string(i);
  const ImageArguments arguments = ImageArguments::parse(text);
  std::vector<std::string> keys;
  for (const auto &[key, value] : arguments.entries())
    keys.push_back(key);
  const std::string expected =
      "key4 key23 key9 key36 key18 key6 key46 key37 key21 key48 key19 key41 "
      "key55 key26 key52 key33 key57 key38 key47 key16 key40 key59 key39 "
      "key24 key8 key45 key12 key32 key17 key50 key5 key1 key58 key3 key49 "
      "key22 key29 key34 key13 key43 key51 key20 key31 key0 key28 key54 "
      "key53 key7 key10 key30 key25 key35 key42 key14 key27 key15 key11 "
      "key44 key56 key2";
  std::string joined;
  for (const std::string &key : keys)
    joined += (joined.empty() ? "" : " ") + key;
  EXPECT_EQ(joined, expected);
}

TEST(ImageArguments, SplitsLikeLlvmSplit) {
  EXPECT_EQ(splitAll("", ','), std::vector<std::string_view>{""});
  EXPECT_EQ(splitAll("a,", ','), (std::vector<std::string_view>{"a", ""}));
  EXPECT_EQ(splitAll("a,,b", ','),
            (std::vector<std::string_view>{"a", "", "b"}));
}

TEST(OffloadBinaryWriter, WritesWhatLlvmWrites) {
  OffloadImageToWrite first;
  first.imageKind = image_kind::kObject;
  first.offloadKind = offload_kind::kOpenMP;
  first.strings = {{"arch", "sm_70"}, {"triple", "nvptx64-nvidia-cuda"}};
  first.image = "hello";
  OffloadImageToWrite second;
  second.imageKind = image_kind::kCubin;
  second.offloadKind = offload_kind::kHip;
  second.strings = {
      {"arch", "gfx906"}, {"triple", "amdgcn-amd-amdhsa"}, {"foo", "bar,baz"}};
  second.image = "worldxyz1";
  EXPECT_EQ(writeOffloadBinary(first) + writeOffloadBinary(second),
            stored("two-images.bin"));
}

TEST(OffloadBinaryWriter, SharesTailsAndPointsEmptyStringsAtTheNullByte) {
  OffloadImageToWrite image;
  image.imageKind = image_kind::kObject;
  image.strings = {{"triple", "x86_64-unknown-linux-gnu"},
                   {"arch", "sm_70"},
                   {"m", "m_70"},
                   {"n", "70"},
                   {"e", ""},
                   {"novalue", ""}};
  image.image = "hello";
  // The order llvm-offload-binary gives these keys.
  ImageArguments arguments = ImageArguments::parse(
      "file=a.o,triple=x86_64-unknown-linux-gnu,arch=sm_70,m=m_70,n=70,e=,"
      "novalue");
  image.strings.clear();
  for (const auto &[key, value] : arguments.entries())
    if (key != "file")
      image.strings.emplace_back(key, value);
  EXPECT_EQ(writeOffloadBinary(image), stored("tails.bin"));

  const OffloadBinaryPieces pieces = planOffloadBinary(image);
  EXPECT_EQ(pieces.image, "hello");
  EXPECT_EQ(pieces.size() % 8, 0u);
  EXPECT_EQ(pieces.head.size() % 8, 0u);
}

TEST(OffloadBinaryReader, ReadsConcatenatedBinaries) {
  const std::string bytes = stored("two-images.bin");
  auto binaries = splitOffloadBinaries(bytes, "");
  ASSERT_TRUE(binaries) << binaries.error().message;
  ASSERT_EQ(binaries->size(), 2u);
  const OffloadBinaryView &first = (*binaries)[0];
  EXPECT_EQ(first.offset, 0u);
  EXPECT_EQ(first.bytes.size(), 0x98u);
  EXPECT_EQ(first.version, 1u);
  EXPECT_EQ(first.imageKind, image_kind::kObject);
  EXPECT_EQ(first.offloadKind, offload_kind::kOpenMP);
  EXPECT_EQ(first.triple(), "nvptx64-nvidia-cuda");
  EXPECT_EQ(first.arch(), "sm_70");
  EXPECT_EQ(first.image, "hello");
  const OffloadBinaryView &second = (*binaries)[1];
  EXPECT_EQ(second.offset, 0x98u);
  EXPECT_EQ(second.offloadKind, offload_kind::kHip);
  EXPECT_EQ(second.string("foo"), "bar,baz");
  EXPECT_EQ(second.string("missing"), "");
  EXPECT_EQ(second.image, "worldxyz1");
}

TEST(OffloadBinaryReader, RepeatedKeyKeepsFirstPlaceAndLastValue) {
  std::string bytes = stored("tails.bin");
  auto parsed = splitOffloadBinaries(bytes, "");
  ASSERT_TRUE(parsed);
  const auto strings = (*parsed)[0].strings;
  ASSERT_GE(strings.size(), 3u);
  // Point the third entry's key at the first entry's key.
  const size_t stringEntries = 72;
  std::memcpy(&bytes[stringEntries + 32], &bytes[stringEntries], 8);
  auto reparsed = splitOffloadBinaries(bytes, "");
  ASSERT_TRUE(reparsed);
  const auto &merged = (*reparsed)[0].strings;
  ASSERT_EQ(merged.size(), strings.size() - 1);
  EXPECT_EQ(merged[0].first, strings[0].first);
  EXPECT_EQ(merged[0].second, strings[2].second);
}

TEST(OffloadBinaryReader, SkipsZeroPaddingBetweenBinaries) {
  const std::string bytes = stored("two-images.bin");
  std::string padded = bytes.substr(0, 0x98) + std::string(16, '\0') +
                       bytes.substr(0x98) + std::string(8, '\0');
  auto binaries = splitOffloadBinaries(padded, "");
  ASSERT_TRUE(binaries) << binaries.error().message;
  ASSERT_EQ(binaries->size(), 2u);
  EXPECT_EQ((*binaries)[1].offset, 0x98u + 16);
  // Zeros at the start are no padding, and neither is a partial word.
  EXPECT_EQ(errorOf(std::string(8, '\0') + bytes), kOffloadParseFailedMessage);
  EXPECT_EQ(errorOf(bytes + std::string(4, '\0')), kOffloadParseFailedMessage);
  EXPECT_TRUE(splitOffloadBinaries("", ""));
  // LLVM's own message comes bare, or after the context when asked.
  auto inContext = splitOffloadBinaries(std::string(8, '\0') + bytes, "'x.o'",
                                        LlvmMessages::InContext);
  ASSERT_FALSE(inContext);
  EXPECT_EQ(inContext.error().message,
            "'x.o': " + std::string(kOffloadParseFailedMessage));
}

TEST(OffloadBinaryReader, RefusesWhatLlvmRefusesWithItsMessages) {
  const std::string good = firstBinary();
  auto with64 = [&](size_t at, uint64_t value) {
    std::string bytes = good;
    putLe64(bytes, at, value);
    return bytes;
  };
  auto with32 = [&](size_t at, uint32_t value) {
    std::string bytes = good;
    putLe32(bytes, at, value);
    return bytes;
  };
  const std::string parseFailed(kOffloadParseFailedMessage);
  const std::string eof(kOffloadUnexpectedEofMessage);
  EXPECT_EQ(errorOf(good.substr(0, 71)), parseFailed);
  EXPECT_EQ(errorOf("\x10\xff\x10\xae" + good.substr(4)), parseFailed);
  EXPECT_EQ(errorOf(with32(4, 0)), parseFailed);
  EXPECT_EQ(errorOf(with32(4, 4)), parseFailed);
  EXPECT_EQ(errorOf(with64(8, good.size() + 8)), eof);
  EXPECT_EQ(errorOf(with64(8, 39)), eof);
  EXPECT_EQ(errorOf(with64(16, good.size() - 39)), eof);
  EXPECT_EQ(errorOf(with64(24, good.size() - 31)), eof);
  EXPECT_EQ(errorOf(with64(40, good.size() + 1)), eof);
  EXPECT_EQ(errorOf(with64(48, 100)), eof);
  EXPECT_EQ(errorOf(with64(56, good.size() + 1)), eof);
  // A size LLVM accepts at first (the entry then overlaps the header), then
  // refuses once the binary is cut to that size.
  std::string small = with64(8, 64);
  putLe64(small, 16, 0);
  putLe64(small, 24, 0);
  EXPECT_EQ(errorOf(small), parseFailed);
}

TEST(OffloadBinaryReader, RefusesWhatLlvmTrusts) {
  const std::string good = firstBinary();
  auto with64 = [&](size_t at, uint64_t value) {
    std::string bytes = good;
    putLe64(bytes, at, value);
    return bytes;
  };
  const std::string where = "'x': offload binary at offset 0: ";
  EXPECT_EQ(errorOf(with64(64, good.size())),
            where + "image at offset 144 of 152 bytes runs past the end of "
                    "the binary (size 152)");
  EXPECT_EQ(errorOf(with64(48, uint64_t(1) << 60)),
            where + "1152921504606846976 string entries at offset 72 run "
                    "past the end of the binary (size 152)");
  // An entry LLVM would read, at an odd place: a copy inside a larger
  // image.
  OffloadImageToWrite roomy;
  roomy.strings = {{"triple", "t"}};
  const std::string filler(64, '.');
  roomy.image = filler;
  std::string misaligned = writeOffloadBinary(roomy);
  const size_t imageAt = misaligned.find(filler);
  misaligned.replace(imageAt + 4, 40, misaligned.substr(32, 40));
  putLe64(misaligned, 16, imageAt + 4);
  EXPECT_EQ(errorOf(misaligned), where + "entry at offset " +
                                     std::to_string(imageAt + 4) +
                                     " is not 8-byte aligned");
  EXPECT_EQ(errorOf(with64(40, 76)),
            where + "string entries at offset 76 are not 8-byte aligned");
  EXPECT_EQ(errorOf(with64(72, good.size())),
            where + "string entry 0: key offset 152 is past the end of the "
                    "binary (size 152)");
  EXPECT_EQ(errorOf(with64(80, uint64_t(1) << 63)),
            where + "string entry 0: value offset 9223372036854775808 is "
                    "past the end of the binary (size 152)");
  // A key in the image's padding, made non-zero: no terminator is left.
  std::string unterminated = with64(72, 149);
  unterminated.replace(149, 3, "xyz");
  EXPECT_EQ(errorOf(unterminated),
            where + "string entry 0: key at offset 149 has no terminating "
                    "null byte within the binary");
  // A binary whose size breaks the 8-byte alignment.
  std::string odd = with64(8, good.size() - 3).substr(0, good.size() - 3);
  EXPECT_EQ(errorOf(odd), where + "size 149 is not a multiple of 8");
  // The offset of a later binary is named.
  const std::string twice = good + with64(64, good.size());
  EXPECT_EQ(errorOf(twice).substr(0, 35),
            "'x': offload binary at offset 152: ");
}

// A version 2 binary laid out by hand from the format's definition: two
// entries, one string entry each, the first value read by its size from the
// start of a longer string.
//   0   header (32)         version 2, size 160, entries at 32, 2 entries
//   32  entries (2 x 40)
//   112 string entries (2 x 24)
//   160 string table        "\0arch\0gfx90a:xnack+\0sm_70\0"
//   186 images "AAAA" and "BBBBBBBB" back to back, zero padding to 200
std::string handMadeVersion2() {
  std::string bytes(200, '\0');
  std::memcpy(bytes.data(), "\x10\xFF\x10\xAD", 4);
  putLe32(bytes, 4, 2);
  putLe64(bytes, 8, 200);
  putLe64(bytes, 16, 32);
  putLe64(bytes, 24, 2);
  // Entry 0: object, HIP; entry 1: cubin, CUDA.
  const std::string table("\0arch\0gfx90a:xnack+\0sm_70\0", 26);
  bytes.replace(160, table.size(), table);
  for (int index = 0; index < 2; ++index) {
    const size_t entry = 32 + 40 * index;
    bytes[entry] = index == 0 ? 1 : 3;
    bytes[entry + 2] = index == 0 ? 4 : 2;
    putLe64(bytes, entry + 8, 112 + 24 * index);
    putLe64(bytes, entry + 16, 1);
    putLe64(bytes, entry + 24, index == 0 ? 186 : 190);
    putLe64(bytes, entry + 32, index == 0 ? 4 : 8);
    const size_t strings = 112 + 24 * index;
    putLe64(bytes, strings, 161);                        // "arch"
    putLe64(bytes, strings + 8, index == 0 ? 166 : 180); // value
    putLe64(bytes, strings + 16, index == 0 ? 6 : 5);    // "gfx90a", "sm_70"
  }
  bytes.replace(186, 4, "AAAA");
  bytes.replace(190, 8, "BBBBBBBB");
  return bytes;
}

TEST(OffloadBinaryVersion2, ReadsEveryEntryAndSizedValues) {
  const std::string bytes = handMadeVersion2();
  auto entries = splitOffloadBinaries(bytes, "");
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].image, "AAAA");
  EXPECT_EQ((*entries)[0].arch(), "gfx90a");
  EXPECT_EQ((*entries)[0].imageKind, image_kind::kObject);
  EXPECT_EQ((*entries)[0].offloadKind, offload_kind::kHip);
  EXPECT_EQ((*entries)[1].image, "BBBBBBBB");
  EXPECT_EQ((*entries)[1].arch(), "sm_70");
  EXPECT_EQ((*entries)[1].offloadKind, offload_kind::kCuda);
  EXPECT_EQ((*entries)[1].entryIndex, 1u);

  // After a version 1 binary, and followed by zero padding.
  const std::string mixed = firstBinary() + bytes + std::string(16, '\0');
  auto all = splitOffloadBinaries(mixed, "");
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].image, "BBBBBBBB");
  EXPECT_EQ((*all)[2].offset, firstBinary().size());
}

TEST(OffloadBinaryVersion2, WriterLaysOutWhatTheReaderReads) {
  std::vector<OffloadImageToWrite> images(3);
  images[0] = {image_kind::kObject,
               offload_kind::kHip,
               0,
               {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx90a"}},
               "one"};
  images[1] = {image_kind::kCubin,
               offload_kind::kCuda,
               7,
               {{"arch", "sm_70"}},
               "second image"};
  images[2] = {image_kind::kNone, offload_kind::kNone, 0, {}, ""};
  for (uint32_t version : {2u, 3u}) {
    const std::string bytes = writeMultiEntryOffloadBinary(images, version);
    EXPECT_EQ(bytes.size() % 8, 0u);
    EXPECT_EQ(bytes[4], static_cast<char>(version));
    auto read = splitOffloadBinaries(bytes, "");
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_EQ(read->size(), 3u);
    for (size_t i = 0; i < images.size(); ++i) {
      EXPECT_EQ((*read)[i].image, images[i].image);
      EXPECT_EQ((*read)[i].flags, images[i].flags);
      ASSERT_EQ((*read)[i].strings.size(), images[i].strings.size());
      for (size_t j = 0; j < images[i].strings.size(); ++j) {
        EXPECT_EQ((*read)[i].strings[j].first, images[i].strings[j].first);
        EXPECT_EQ((*read)[i].strings[j].second, images[i].strings[j].second);
      }
    }
    // Images lie back to back.
    EXPECT_EQ((*read)[0].image.data() + 3, (*read)[1].image.data());
  }
}

TEST(OffloadBinaryVersion2, RefusesDamagedBinaries) {
  const std::string good = handMadeVersion2();
  auto damaged = [&](size_t at, uint64_t value) {
    std::string bytes = good;
    putLe64(bytes, at, value);
    return errorOf(bytes);
  };
  EXPECT_EQ(damaged(24, uint64_t{1} << 61), kOffloadUnexpectedEofMessage);
  EXPECT_EQ(damaged(24, 5), kOffloadUnexpectedEofMessage);
  EXPECT_EQ(damaged(16, 200), kOffloadUnexpectedEofMessage);
  EXPECT_EQ(damaged(32 + 24, 400), kOffloadUnexpectedEofMessage);
  EXPECT_NE(damaged(32 + 32, 100)
                .find("image at offset 186 of 100 bytes runs "
                      "past the end"),
            std::string::npos);
  EXPECT_NE(damaged(112 + 16, 40)
                .find("entry 0: string entry 0: value at "
                      "offset 166 of 40 bytes runs past"),
            std::string::npos);
  EXPECT_NE(damaged(112 + 16, ~uint64_t{0}).find("runs past"),
            std::string::npos);
  EXPECT_NE(damaged(112, 200).find("key offset 200 is past the end"),
            std::string::npos);
  std::string version4 = good;
  putLe32(version4, 4, 4);
  EXPECT_EQ(errorOf(version4), kOffloadParseFailedMessage);
}

// A version 2 binary of `entryCount` entries that all name one table of
// `stringCount` string entries, whose keys all start in one run of 'k's.
std::string entriesSharingOneTable(uint64_t entryCount, uint64_t stringCount) {
  const uint64_t entriesOffset = 32;
  const uint64_t tableOffset = entriesOffset + entryCount * 40;
  const uint64_t keysOffset = tableOffset + stringCount * 24;
  const uint64_t size = (keysOffset + stringCount + 1 + 7) / 8 * 8;
  std::string bytes(size, '\0');
  bytes.replace(0, 4, kOffloadBinaryMagic);
  putLe32(bytes, 4, 2);
  putLe64(bytes, 8, size);
  putLe64(bytes, 16, entriesOffset);
  putLe64(bytes, 24, entryCount);
  for (uint64_t entry = 0; entry < entryCount; ++entry) {
    putLe64(bytes, entriesOffset + entry * 40 + 8, tableOffset);
    putLe64(bytes, entriesOffset + entry * 40 + 16, stringCount);
  }
  for (uint64_t index = 0; index < stringCount; ++index)
    putLe64(bytes, tableOffset + index * 24, keysOffset + index);
  bytes.replace(keysOffset, stringCount, std::string(stringCount, 'k'));
  return bytes;
}

TEST(OffloadBinaryVersion2, EntriesMaySharePartOfOneTable) {
  const std::string bytes = entriesSharingOneTable(4, 100);
  auto read = splitOffloadBinaries(bytes, "");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->size(), 4u);
  for (const OffloadBinaryView &entry : *read) {
    ASSERT_EQ(entry.strings.size(), 100u);
    EXPECT_EQ(entry.strings.front().first, std::string(100, 'k'));
    EXPECT_EQ(entry.strings.back().first, "k");
  }
}

TEST(OffloadBinaryVersion2, RefusesTablesOverlappingBeyondWhatTheSizeHolds) {
  // 3,000 entries naming one table of 3,000 string entries would mean nine
  // million string entries read from 190 KB.
  const std::string bytes = entriesSharingOneTable(3000, 3000);
  const std::string error = errorOf(bytes);
  EXPECT_NE(error.find("the string tables of its entries overlap: they name "
                       "more than " +
                       std::to_string(bytes.size() / 24 + 65536) +
                       " string entries in " + std::to_string(bytes.size()) +
                       " bytes"),
            std::string::npos)
      << error;
}

TEST(CompressedOffloadBinary, RoundTripsWithEitherCodec) {
  std::vector<OffloadImageToWrite> images(2);
  const std::string big(5000, 'x');
  images[0] = {image_kind::kObject,
               offload_kind::kHip,
               0,
               {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx90a"}},
               big};
  images[1] = {image_kind::kObject,
               offload_kind::kHip,
               0,
               {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx942"}},
               "abc"};
  const std::string plain = writeMultiEntryOffloadBinary(images, 3);
  for (auto format :
       {OffloadCompressionFormat::Zstd, OffloadCompressionFormat::Zlib}) {
    auto packed = deflateOffloadBinary(plain, format, 3);
    ASSERT_TRUE(packed.ok()) << packed.error().message;
    EXPECT_LT(packed->size(), plain.size());
    EXPECT_EQ(packed->size() % 8, 0u);
    EXPECT_TRUE(isCompressedOffloadBinary(*packed));
    EXPECT_FALSE(isCompressedOffloadBinary(plain));
    auto inflated = inflateOffloadBinary(*packed);
    ASSERT_TRUE(inflated.ok()) << inflated.error().message;
    EXPECT_EQ(*inflated, plain);
    const std::string packedThenPlain = *packed + firstBinary();
    auto read = splitOffloadBinaries(packedThenPlain, "");
    ASSERT_TRUE(read.ok()) << read.error().message;
    ASSERT_EQ(read->size(), 3u);
    EXPECT_EQ((*read)[0].image, big);
    EXPECT_EQ((*read)[1].arch(), "gfx942");
    EXPECT_NE((*read)[0].inflated, nullptr);

    // The inflated size must be exact.
    for (uint64_t wrong :
         {plain.size() - 8, plain.size() + 8, uint64_t{1} << 62}) {
      std::string bad = *packed;
      putLe64(bad, 32, wrong);
      EXPECT_NE(errorOf(bad), "(no error)") << wrong;
    }
  }
}

TEST(CompressedOffloadBinary, HugeClaimsReserveNoHugeWindow) {
  // A header claiming a terabyte, then a zstd frame of unknown content size
  // whose window descriptor asks for 2 GiB, holding one RLE block. Eleven
  // bytes of data cannot inflate past a few megabytes, so no window larger
  // than zstd's default is allowed, whatever the header claims.
  std::string bytes(40, '\0');
  bytes.replace(0, 4, kOffloadBinaryMagic);
  putLe32(bytes, 4, 3);
  putLe64(bytes, 16, 40);
  putLe64(bytes, 32, uint64_t{1} << 40);
  bytes += std::string("\x28\xB5\x2F\xFD\x00\xA8\x0B\x00\x00x", 10);
  bytes.resize(56, '\0');
  putLe64(bytes, 8, bytes.size());
  auto inflated = inflateOffloadBinary(bytes);
  ASSERT_FALSE(inflated.ok());
  EXPECT_NE(inflated.error().message.find(
                "Frame requires too much memory for decoding"),
            std::string::npos)
      << inflated.error().message;
}

TEST(CompressedOffloadBinary, ChecksLevels) {
  EXPECT_TRUE(
      checkOffloadCompressionLevel(OffloadCompressionFormat::Zlib, 9).ok());
  EXPECT_TRUE(
      checkOffloadCompressionLevel(OffloadCompressionFormat::Zlib, 0).ok());
  Status tooHigh =
      checkOffloadCompressionLevel(OffloadCompressionFormat::Zlib, 12);
  ASSERT_FALSE(tooHigh.ok());
  EXPECT_EQ(tooHigh.error().message,
            "invalid zlib compression level 12; expected a value in [0, 9]");
  EXPECT_TRUE(
      checkOffloadCompressionLevel(OffloadCompressionFormat::Zstd, -5).ok());
  EXPECT_TRUE(
      checkOffloadCompressionLevel(OffloadCompressionFormat::Zstd, 22).ok());
  EXPECT_FALSE(
      checkOffloadCompressionLevel(OffloadCompressionFormat::Zstd, 23).ok());
}

TEST(OffloadKinds, NamesAsLlvm22) {
  EXPECT_EQ(imageKindFromExtension("o"), image_kind::kObject);
  EXPECT_EQ(imageKindFromExtension("bc"), image_kind::kBitcode);
  EXPECT_EQ(imageKindFromExtension("cubin"), image_kind::kCubin);
  EXPECT_EQ(imageKindFromExtension("fatbin"), image_kind::kFatbinary);
  EXPECT_EQ(imageKindFromExtension("s"), image_kind::kPtx);
  EXPECT_EQ(imageKindFromExtension("spv"), image_kind::kNone);
  EXPECT_EQ(imageKindFromExtension("O"), image_kind::kNone);
  EXPECT_EQ(imageKindName(image_kind::kPtx), "s");
  EXPECT_EQ(imageKindName(image_kind::kSpirv), "");
  EXPECT_EQ(imageKindName(image_kind::kNone), "");
  EXPECT_EQ(offloadKindFromName("hip"), offload_kind::kHip);
  EXPECT_EQ(offloadKindFromName("sycl"), 8);
  EXPECT_EQ(offloadKindFromName("HIP"), offload_kind::kNone);
  EXPECT_EQ(offloadKindName(offload_kind::kCuda), "cuda");
  EXPECT_EQ(offloadKindName(3), "none");
}

TEST(CoffObject, FindsTheOffloadingSectionByItsLongName) {
  const std::string object = stored("coff.obj");
  ASSERT_EQ(identifyFile(object), FileMagic::Coff);
  auto sections = readCoffSections(object);
  ASSERT_TRUE(sections) << sections.error().message;
  const CoffSection *offloading = nullptr;
  for (const CoffSection &section : *sections)
    if (section.name == ".llvm.offloading")
      offloading = &section;
  ASSERT_NE(offloading, nullptr);
  EXPECT_EQ(offloading->contents, stored("two-images.bin"));
}

TEST(CoffObject, RefusesTruncatedObjects) {
  const std::string object = stored("coff.obj");
  for (size_t length :
       {size_t(0), size_t(10), size_t(30), size_t(100), object.size() - 1})
    EXPECT_FALSE(readCoffSections(object.substr(0, length)))
        << "length " << length;
}

TEST(BitcodeEmbeddedObjects, ReadsWhatLlvmReads) {
  const std::string bitcode = stored("embedded.bc");
  auto objects = findEmbeddedOffloadingObjects(bitcode);
  ASSERT_TRUE(objects) << objects.error().message;
  // The i8 array in ".llvm.offloading" and the i32 array; neither the other
  // section, nor the function, nor the one-operand node.
  ASSERT_EQ(objects->size(), 2u);
  const std::string binaries = stored("two-images.bin");
  EXPECT_EQ((*objects)[0].globalName, "llvm.embedded.object");
  EXPECT_EQ(*(*objects)[0].contents, binaries.substr(0, 0x98));
  EXPECT_EQ((*objects)[1].globalName, "words");
  EXPECT_EQ(*(*objects)[1].contents, binaries.substr(0x98));
}

TEST(BitcodeEmbeddedObjects, RefusesDamagedBitcodeCleanly) {
  const std::string bitcode = stored("embedded.bc");
  for (size_t length = 0; length < bitcode.size(); length += 13) {
    auto objects = findEmbeddedOffloadingObjects(bitcode.substr(0, length));
    // Truncated bitcode is refused; either way nothing is read outside it.
    EXPECT_FALSE(objects) << "length " << length;
  }
  EXPECT_FALSE(findEmbeddedOffloadingObjects("BC\xC0\xDE"));
  EXPECT_FALSE(findEmbeddedOffloadingObjects(std::string("\xDE\xC0\x17\x0B") +
                                             std::string(16, '\xff')));
}

} // namespace
} // namespace offbundle
