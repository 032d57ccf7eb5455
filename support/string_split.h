// Splitting on '-' the way llvm::StringRef::split does, shared by triples
// and bundle entry IDs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace offbundle {

// Splits at every '-', keeping empty pieces; with maxPieces the last piece
// keeps the remaining dashes (StringRef::split with MaxSplit = maxPieces-1).
inline std::vector<std::string_view>
splitOnDash(std::string_view text, std::size_t maxPieces = SIZE_MAX) {
  std::vector<std::string_view> pieces;
  while (pieces.size() + 1 < maxPieces) {
    std::size_t dash = text.find('-');
    if (dash == std::string_view::npos)
      break;
    pieces.push_back(text.substr(0, dash));
    text.remove_prefix(dash + 1);
  }
  pieces.push_back(text);
  return pieces;
}

} // namespace offbundle
