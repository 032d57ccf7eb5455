// Numbers as people read them.
#pragma once

#include <cstdint>
#include <string>

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

} // namespace offbundle
