// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The ELF string table LLVM's StringTableBuilder makes (llvm-objcopy for
// section and symbol names, the offload binary writer for its keys and
// values): a leading null byte, then the distinct strings sorted by their
// reversed bytes in decreasing order, so that a string which ends the one
// before it is not stored again but points into its tail. The empty string
// is the leading null byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace offbundle {

class TailMergedStringTable {
public:
  // The views must outlive the table.
  void add(std::string_view text) { offsets_.try_emplace(text, 0); }
  // Lays the strings out; call once, after the last add().
  void finalize();

  uint64_t size() const { return size_; }
  // Where a string added before finalize() starts; 0 for any other.
  uint64_t offsetOf(std::string_view text) const;
  // Writes the table's bytes at `destination` (size() bytes, zeroed).
  void writeTo(char *destination) const;
  // Appends the table's bytes to `out`.
  void appendTo(std::string &out) const;

private:
  std::unordered_map<std::string_view, uint64_t> offsets_;
  uint64_t size_ = 1;
};

} // namespace offbundle
