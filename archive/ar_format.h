// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The layout of a Unix ar archive's member headers, shared by the reader
// (ar_reading.h) and the writer (ar_writing.h):
//
//   "!<arch>\n", then per member a 60-byte header and its bytes, padded to
//   an even offset with "\n". The header's fields are space-padded text:
//   name (16), timestamp (12), owner (6), group (6), mode (8, octal),
//   size (10, decimal) and the terminator "`\n".
// Internal to archive/.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace offbundle::ar_format {

// The fixed part of a member header: name (16), timestamp (12), owner (6),
// group (6), mode (8), size (10) and the terminator "`\n".
constexpr uint64_t kMemberHeaderSize = 60;
constexpr uint64_t kNameFieldSize = 16;
constexpr uint64_t kSizeFieldOffset = 48;
constexpr uint64_t kSizeFieldSize = 10;
constexpr uint64_t kTerminatorOffset = 58;
constexpr std::string_view kBigArchiveMagic = "<bigaf>\n";
// The size field has ten decimal digits (Archive::MaxMemberSize).
constexpr uint64_t kMaxMemberSize = 9999999999;

// StringRef::getAsInteger(10, ...) into a 64-bit value: one or more decimal
// digits and nothing else, without overflow.
inline std::optional<uint64_t> parseDecimal(std::string_view text) {
  if (text.empty())
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
      return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

} // namespace offbundle::ar_format
