// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Splitting the way llvm::StringRef::split does: on '-' for triples and
// bundle entry IDs, on other characters for data layouts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace offbundle {

// Splits at every `separator`, keeping empty pieces; with maxPieces the
// last piece keeps the remaining separators (StringRef::split with
// MaxSplit = maxPieces-1).
inline std::vector<std::string_view> splitOn(std::string_view text,
                                             char separator,
                                             std::size_t maxPieces = SIZE_MAX) {
  std::vector<std::string_view> pieces;
  while (pieces.size() + 1 < maxPieces) {
    std::size_t at = text.find(separator);
    if (at == std::string_view::npos)
      break;
    pieces.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  pieces.push_back(text);
  return pieces;
}

inline std::vector<std::string_view>
splitOnDash(std::string_view text, std::size_t maxPieces = SIZE_MAX) {
  return splitOn(text, '-', maxPieces);
}

} // namespace offbundle
