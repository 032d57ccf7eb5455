// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The value of one --image option ("file=a.o,triple=...,arch=...") as
// llvm-offload-binary reads it: split at every ',', each piece at its first
// '=' into a key and a value ("" when there is no '='), a repeated key's
// values joined with ','. LLVM keeps the pairs in a DenseMap<StringRef,
// StringRef> and writes an image's string table in that map's iteration
// order, which is its bucket order; the pairs here come in that same order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace offbundle {

class ImageArguments {
public:
  static ImageArguments parse(std::string_view text);

  // Every key with its value, in LLVM's DenseMap iteration order.
  const std::vector<std::pair<std::string, std::string>> &entries() const {
    return entries_;
  }
  std::optional<std::string_view> find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key).has_value(); }

private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// Splits at every separator, as llvm::split does: "" gives one empty piece,
// a trailing separator one empty piece at the end.
std::vector<std::string_view> splitAll(std::string_view text, char separator);

} // namespace offbundle
