// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Numbers in hexadecimal for messages: lowercase digits, no leading zeros,
// with or without the "0x" LLVM's messages put before offsets and sizes.
#pragma once

#include <cstdint>
#include <string>

namespace offbundle {

inline std::string hexDigits(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), kDigits[value & 0xf]);
    value >>= 4;
  } while (value != 0);
  return digits;
}

inline std::string hexNumber(uint64_t value) { return "0x" + hexDigits(value); }

} // namespace offbundle
