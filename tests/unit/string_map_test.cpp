// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tests for the XXH3 hash and for LlvmOrderedStringMap's LLVM-compatible
// iteration order. Expected values come from independent references, never
// from this code: xxhsum for the hashes, and LLVM 22 itself for the orders.
#include "support/string_map.h"
#include "support/xxhash.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace offbundle {
namespace {

using Keys = std::vector<std::string>;

// Deterministic, non-repetitive input so every XXH3 code path (including the
// overlapping reads) sees distinct bytes: byte i is (i * 31 + 7) mod 251.
std::string patternBytes(std::size_t length) {
  std::string bytes(length, '\0');
  for (std::size_t index = 0; index < length; ++index)
    bytes[index] = static_cast<char>((index * 31 + 7) % 251);
  return bytes;
}

template <typename Value>
Keys keysInOrder(const LlvmOrderedStringMap<Value> &map) {
  Keys keys;
  for (const auto &[key, value] : map.entries())
    keys.emplace_back(key);
  return keys;
}

// Inserts like LLVM's binary bundle reader (operator[] then assignment, in
// header order) and returns the resulting iteration order.
Keys orderAfterInserting(const Keys &ids) {
  LlvmOrderedStringMap<int> map;
  int position = 0;
  for (const std::string &id : ids)
    map.insertOrAssign(id, position++);
  return keysInOrder(map);
}

LlvmOrderedStringMap<int> mapWithIds(int count) {
  LlvmOrderedStringMap<int> map;
  for (int index = 0; index < count; ++index)
    map.insertOrAssign("id" + std::to_string(index), index);
  return map;
}

// Expected values were produced by Debian's xxhsum 0.8.1 (`xxhsum -H3`, which
// is XXH3_64bits) on files holding patternBytes(length). The lengths hit every
// size class boundary: 0, 1-3, 4-8, 9-16, 17-128 (each 32-byte step),
// 129-240, and the long path with one, several and a partial block.
TEST(Xxh3Test, MatchesXxhsumOnPatternInputs) {
  struct Vector {
    std::size_t length;
    uint64_t hash;
  };
  const Vector vectors[] = {
      {0, 0x2d06800538d394c2ULL},    {1, 0x4c5cca45d0f4811fULL},
      {2, 0xa7e250c97710ff27ULL},    {3, 0x15f7093b173d005cULL},
      {4, 0xdca012f95811b6b9ULL},    {5, 0xb290cafc7b254345ULL},
      {8, 0xdec6a9a43575982eULL},    {9, 0x15e553b97e27735dULL},
      {16, 0xa7683b861e585aa6ULL},   {17, 0x637c1aa907698945ULL},
      {32, 0xfb0a38fb3af32306ULL},   {33, 0xdbd8ff66fdf7b97eULL},
      {64, 0xa1688ef0a48a39d4ULL},   {65, 0x67dc5b5cae64c652ULL},
      {96, 0xd1a35000054a80d5ULL},   {97, 0xd628cd723fed4570ULL},
      {128, 0x6d0f64c82ddaad27ULL},  {129, 0xeaf3fc97c05f44f3ULL},
      {200, 0xf4b54cdc82f20685ULL},  {240, 0x22f28cbbfaf0447fULL},
      {241, 0x07525dbc14902c7fULL},  {1024, 0xe2898655db7bc9eeULL},
      {1025, 0x134c652ba3d6fb9eULL}, {2048, 0x63a78a59658d80f4ULL},
      {5000, 0x82c9e6e5b7476dc8ULL},
  };
  for (const Vector &vector : vectors)
    EXPECT_EQ(xxh3_64bits(patternBytes(vector.length)), vector.hash)
        << "length " << vector.length;
}

// Same source (xxhsum -H3) for a few strings of the kind the bundler hashes.
TEST(Xxh3Test, MatchesXxhsumOnBundleIds) {
  EXPECT_EQ(xxh3_64bits("abc"), 0x78af5f94892f3950ULL);
  EXPECT_EQ(xxh3_64bits("host-x86_64-unknown-linux-gnu"),
            0x71f01c68fbc4f99fULL);
  EXPECT_EQ(xxh3_64bits("hip-amdgcn-amd-amdhsa--gfx906"),
            0x50546ca7d375ad52ULL);
}

TEST(Xxh3Test, HashesOnlyTheViewedBytes) {
  const std::string longer = "abcdef";
  EXPECT_EQ(xxh3_64bits(std::string_view(longer).substr(0, 3)),
            xxh3_64bits("abc"));
}

// The orders below were observed with LLVM 22's
// `clang-offload-bundler -type=bc -list -input=FILE`, where FILE is a binary
// bundle whose header lists the IDs in the given order (every entry pointing
// at one byte of data); the tool inserts the header entries into a StringMap
// and prints them in its iteration order.
TEST(LlvmOrderedStringMapTest, MatchesBundlerListOrderForTargetIds) {
  const Keys headerOrder = {
      "host-x86_64-unknown-linux-gnu",
      "hip-amdgcn-amd-amdhsa--gfx906",
      "hip-amdgcn-amd-amdhsa--gfx908:xnack+",
      "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
      "openmp-nvptx64-nvidia-cuda-sm_70",
      "openmp-amdgcn-amd-amdhsa-gfx1030",
      "cuda-nvptx64-nvidia-cuda-sm_80",
      "hipv4-amdgcn-amd-amdhsa--gfx1100",
  };
  const Keys listed = {
      "cuda-nvptx64-nvidia-cuda-sm_80",
      "hip-amdgcn-amd-amdhsa--gfx906",
      "hip-amdgcn-amd-amdhsa--gfx908:xnack+",
      "openmp-amdgcn-amd-amdhsa-gfx1030",
      "hip-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
      "openmp-nvptx64-nvidia-cuda-sm_70",
      "hipv4-amdgcn-amd-amdhsa--gfx1100",
      "host-x86_64-unknown-linux-gnu",
  };
  EXPECT_EQ(orderAfterInserting(headerOrder), listed);
}

// 30 entries force two growths (16 -> 32 -> 64 buckets).
TEST(LlvmOrderedStringMapTest, MatchesBundlerListOrderAcrossGrowth) {
  Keys headerOrder;
  for (int index = 0; index < 30; ++index)
    headerOrder.push_back("id" + std::to_string(index));
  const Keys listed = {"id22", "id6",  "id11", "id10", "id12", "id15",
                       "id9",  "id20", "id13", "id0",  "id1",  "id17",
                       "id19", "id2",  "id7",  "id8",  "id25", "id14",
                       "id5",  "id28", "id23", "id18", "id3",  "id16",
                       "id21", "id29", "id26", "id27", "id24", "id4"};
  EXPECT_EQ(orderAfterInserting(headerOrder), listed);
}

// A repeated ID keeps the position of its first insertion.
TEST(LlvmOrderedStringMapTest, MatchesBundlerListOrderWithDuplicates) {
  EXPECT_EQ(orderAfterInserting({"b", "a", "c", "a", "d", "b", "e"}),
            (Keys{"a", "e", "d", "c", "b"}));
}

// IDs from every XXH3 size class, including the empty ID and long ones.
TEST(LlvmOrderedStringMapTest, MatchesBundlerListOrderForLongIds) {
  const std::string x300(300, 'x'), y241(241, 'y'), z129(129, 'z'),
      w17(17, 'w'), q1000(1000, 'q'), p240(240, 'p');
  EXPECT_EQ(orderAfterInserting({x300, y241, z129, w17, "", q1000, p240}),
            (Keys{w17, "", x300, y241, q1000, p240, z129}));
}

TEST(LlvmOrderedStringMapTest, InsertOrAssignOverwritesAndIndexingDefaults) {
  LlvmOrderedStringMap<std::string> map;
  EXPECT_TRUE(map.insertOrAssign("key", "first"));
  EXPECT_FALSE(map.insertOrAssign("key", "second"));
  ASSERT_NE(map.find("key"), nullptr);
  EXPECT_EQ(*map.find("key"), "second");

  EXPECT_TRUE(map.insertOrAssign("other", "fourth"));
  EXPECT_EQ(map.size(), 2u);

  map["fresh"] += "appended";
  EXPECT_EQ(*map.find("fresh"), "appended");
  EXPECT_EQ(map.size(), 3u);
}

TEST(LlvmOrderedStringMapTest, EmptyMapHasNoTable) {
  LlvmOrderedStringMap<int> map;
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.bucketCount(), 0u);
  EXPECT_EQ(map.find("missing"), nullptr);
  EXPECT_FALSE(map.erase("missing"));
  EXPECT_TRUE(map.entries().empty());
}

TEST(LlvmOrderedStringMapTest, GrowsWhenMoreThanThreeQuartersFull) {
  LlvmOrderedStringMap<int> map = mapWithIds(12);
  EXPECT_EQ(map.bucketCount(), 16u); // 12 * 4 is not more than 16 * 3.
  map.insertOrAssign("id12", 12);
  EXPECT_EQ(map.bucketCount(), 32u);
}

TEST(LlvmOrderedStringMapTest, EraseThenIterateDropsOnlyThatKey) {
  LlvmOrderedStringMap<int> map = mapWithIds(12);
  Keys expected = keysInOrder(map);
  EXPECT_TRUE(map.erase("id7"));
  EXPECT_FALSE(map.erase("id7"));
  std::erase(expected, "id7");
  EXPECT_EQ(keysInOrder(map), expected);
  EXPECT_EQ(map.find("id7"), nullptr);
  EXPECT_EQ(map.size(), 11u);
  // Keys probed past the tombstone are still found.
  for (const std::string &key : expected)
    EXPECT_NE(map.find(key), nullptr) << key;
}

TEST(LlvmOrderedStringMapTest, ReinsertReusesTheTombstone) {
  LlvmOrderedStringMap<int> map = mapWithIds(10);
  const Keys before = keysInOrder(map);
  map.erase("id3");
  EXPECT_TRUE(map.insertOrAssign("id3", 33));
  EXPECT_EQ(keysInOrder(map), before);
  EXPECT_EQ(*map.find("id3"), 33);
}

// Expected orders in the next two tests were printed by a small program
// linked against LLVM 22's libLLVM performing the same operations on an
// llvm::StringMap<int> and iterating it.
TEST(LlvmOrderedStringMapTest, MatchesLlvmAfterEraseAndInsert) {
  LlvmOrderedStringMap<int> map = mapWithIds(12);
  EXPECT_EQ(keysInOrder(map),
            (Keys{"id8", "id9", "id5", "id6", "id11", "id0", "id1", "id10",
                  "id2", "id7", "id4", "id3"}));
  map.erase("id2");
  map.erase("id7");
  map.erase("id9");
  EXPECT_EQ(keysInOrder(map), (Keys{"id8", "id5", "id6", "id11", "id0", "id1",
                                    "id10", "id4", "id3"}));
  map.insertOrAssign("id12", 12);
  map.insertOrAssign("id13", 13);
  EXPECT_EQ(keysInOrder(map), (Keys{"id8", "id5", "id6", "id11", "id0", "id1",
                                    "id12", "id10", "id13", "id4", "id3"}));
  EXPECT_EQ(map.bucketCount(), 16u);
}

// Tombstones plus items reach 15 of 16 buckets, which leaves at most 1/8
// empty and forces a rebuild at the same size; that reorders existing keys.
TEST(LlvmOrderedStringMapTest, MatchesLlvmWhenTombstonesForceSameSizeRehash) {
  LlvmOrderedStringMap<int> map = mapWithIds(12);
  for (int index = 0; index < 4; ++index)
    map.erase("id" + std::to_string(index));
  EXPECT_EQ(keysInOrder(map),
            (Keys{"id8", "id9", "id5", "id6", "id11", "id10", "id7", "id4"}));
  map.insertOrAssign("new0", 0);
  map.insertOrAssign("new1", 1);
  EXPECT_EQ(keysInOrder(map), (Keys{"id8", "id9", "id5", "id6", "id11", "new0",
                                    "new1", "id10", "id7", "id4"}));
  map.insertOrAssign("new2", 2);
  EXPECT_EQ(map.bucketCount(), 16u);
  EXPECT_EQ(keysInOrder(map), (Keys{"id9", "id5", "id6", "id11", "id10", "new0",
                                    "new1", "id7", "id8", "id4", "new2"}));
  map.insertOrAssign("new3", 3);
  EXPECT_EQ(keysInOrder(map),
            (Keys{"id9", "id5", "id6", "new3", "id11", "id10", "new0", "new1",
                  "id7", "id8", "id4", "new2"}));
}

TEST(LlvmOrderedStringMapTest, ClearKeepsTheTableSize) {
  LlvmOrderedStringMap<int> map = mapWithIds(20);
  const std::size_t buckets = map.bucketCount();
  map.clear();
  EXPECT_TRUE(map.empty());
  EXPECT_TRUE(map.entries().empty());
  EXPECT_EQ(map.bucketCount(), buckets);
  EXPECT_EQ(map.find("id1"), nullptr);
}

TEST(LlvmOrderedStringMapTest, CopyKeepsLayoutAndIsIndependent) {
  LlvmOrderedStringMap<int> original = mapWithIds(12);
  original.erase("id5");
  LlvmOrderedStringMap<int> copy(original);
  EXPECT_EQ(keysInOrder(copy), keysInOrder(original));
  // Both reuse the copied tombstone identically.
  original.insertOrAssign("id5", 5);
  copy.insertOrAssign("id5", 50);
  EXPECT_EQ(keysInOrder(copy), keysInOrder(original));
  EXPECT_EQ(*original.find("id5"), 5);
  EXPECT_EQ(*copy.find("id5"), 50);
}

TEST(LlvmOrderedStringMapTest, CopyOfMapWithoutEntriesHasNoTable) {
  LlvmOrderedStringMap<int> original = mapWithIds(3);
  for (int index = 0; index < 3; ++index)
    original.erase("id" + std::to_string(index));
  const LlvmOrderedStringMap<int> copy(original);
  EXPECT_EQ(copy.bucketCount(), 0u);
  EXPECT_EQ(original.bucketCount(), 16u);
}

TEST(LlvmOrderedStringMapTest, MovedFromMapIsEmpty) {
  LlvmOrderedStringMap<int> original = mapWithIds(5);
  const Keys order = keysInOrder(original);
  LlvmOrderedStringMap<int> moved(std::move(original));
  EXPECT_EQ(keysInOrder(moved), order);
  EXPECT_TRUE(original.empty()); // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(original.bucketCount(), 0u);
}

TEST(LlvmOrderedStringMapTest, ValuePointersSurviveGrowth) {
  LlvmOrderedStringMap<int> map;
  map.insertOrAssign("anchor", 42);
  int *anchor = map.find("anchor");
  for (int index = 0; index < 100; ++index)
    map.insertOrAssign("filler" + std::to_string(index), index);
  EXPECT_EQ(map.find("anchor"), anchor);
  EXPECT_EQ(*anchor, 42);
}

} // namespace
} // namespace offbundle
