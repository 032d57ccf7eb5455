// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// support/leb128.h: LEB128 numbers read with LLVM's rules for padding,
// overflow and running past the end.
#include "support/leb128.h"

#include <gtest/gtest.h>

#include <string>

namespace offbundle {
namespace {

TEST(Leb128, UnsignedNumbersAndWherePositionEnds) {
  const std::string bytes("\xe5\x8e\x26\x7f", 4); // 624485, then 127
  size_t position = 0;
  EXPECT_EQ(readUleb128(bytes, position), std::optional<uint64_t>(624485));
  EXPECT_EQ(position, 3u);
  EXPECT_EQ(readUleb128(bytes, position), std::optional<uint64_t>(127));
  EXPECT_EQ(position, 4u);
  EXPECT_EQ(readUleb128(bytes, position), std::nullopt);
}

TEST(Leb128, PaddingIsAcceptedUntilItSetsBitsPastThe64th) {
  size_t position = 0;
  // 1, padded to twelve bytes with zero slices.
  const std::string padded = "\x81" + std::string(10, '\x80') + '\0';
  EXPECT_EQ(readUleb128(padded, position), std::optional<uint64_t>(1));
  EXPECT_EQ(position, padded.size());
  // The largest number: nine bytes of ones, then the 64th bit.
  const std::string largest = std::string(9, '\xff') + '\x01';
  position = 0;
  EXPECT_EQ(readUleb128(largest, position),
            std::optional<uint64_t>(UINT64_MAX));
  // One bit more is an overflow.
  const std::string over = std::string(9, '\xff') + '\x02';
  position = 0;
  EXPECT_EQ(readUleb128(over, position), std::nullopt);
}

TEST(Leb128, UnfinishedNumberRunsPastTheEnd) {
  size_t position = 0;
  EXPECT_EQ(readUleb128(std::string("\x80\x80", 2), position), std::nullopt);
  position = 0;
  EXPECT_EQ(readSleb128(std::string("\xff", 1), position), std::nullopt);
}

TEST(Leb128, SignedNumbersAndTheirPadding) {
  size_t position = 0;
  EXPECT_EQ(readSleb128(std::string("\xc0\xbb\x78", 3), position),
            std::optional<int64_t>(-123456));
  position = 0;
  EXPECT_EQ(readSleb128(std::string("\x7f", 1), position),
            std::optional<int64_t>(-1));
  // -1 padded with sign bits to eleven bytes, and 1 with zeros.
  position = 0;
  EXPECT_EQ(readSleb128(std::string(10, '\xff') + '\x7f', position),
            std::optional<int64_t>(-1));
  position = 0;
  EXPECT_EQ(readSleb128("\x81" + std::string(9, '\x80') + '\0', position),
            std::optional<int64_t>(1));
  // Padding that does not repeat the sign.
  position = 0;
  EXPECT_EQ(readSleb128(std::string(10, '\xff') + '\x01', position),
            std::nullopt);
  // INT64_MIN: nine zero slices, then the sign.
  position = 0;
  EXPECT_EQ(readSleb128(std::string(9, '\x80') + '\x7f', position),
            std::optional<int64_t>(INT64_MIN));
}

} // namespace
} // namespace offbundle
