// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Numbers as people read them, and as they type them.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace offbundle {

// Thousands separated by commas ("1,310,506,200"), as LLVM prints sizes.
inline std::string withThousandsSeparators(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string separated;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0)
      separated += ',';
    separated += digits[i];
  }
  return separated;
}

// Digits in the given radix (2 to 36; letters in either case stand for 10
// and up), no sign, no prefix: the value, or nothing when a character is
// not such a digit, the text is empty or the value overflows 64 bits. Each
// caller decides which prefixes pick the radix.
inline std::optional<uint64_t> parseDigits(std::string_view text,
                                           unsigned radix) {
  if (text.empty())
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'z')
      digit = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'Z')
      digit = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    if (digit >= radix)
      return std::nullopt;
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / radix)
      return std::nullopt;
    value = value * radix + digit;
  }
  return value;
}

} // namespace offbundle
