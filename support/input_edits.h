// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Byte edits to an input file, kept apart from it: a rewrite patches
// header fields and tables of a file of any size, and writes the patched
// file as an OutputPlan that copies the unpatched ranges from the input.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <string_view>

#include "support/byte_order.h"
#include "support/output_plan.h"

namespace offbundle {

// Byte edits to the input, by input offset. Edits may overlap; a later one
// wins where they do.
class InputEdits {
public:
  explicit InputEdits(std::string_view input) : input_(input) {}

  void set(uint64_t offset, std::string bytes) {
    uint64_t start = offset;
    uint64_t end = offset + bytes.size();
    // Merge with every edit this one touches, so edits never overlap.
    auto first = edits_.lower_bound(start);
    if (first != edits_.begin() &&
        std::prev(first)->first + std::prev(first)->second.size() > start)
      --first;
    auto last = first;
    while (last != edits_.end() && last->first < end)
      ++last;
    if (first == last) {
      edits_[offset] = std::move(bytes);
      return;
    }
    start = std::min(start, first->first);
    end =
        std::max(end, std::prev(last)->first + std::prev(last)->second.size());
    std::string merged(input_.substr(start, end - start));
    for (auto at = first; at != last; ++at)
      merged.replace(at->first - start, at->second.size(), at->second);
    merged.replace(offset - start, bytes.size(), bytes);
    edits_.erase(first, last);
    edits_[start] = std::move(merged);
  }

  // A little-endian field of `width` bytes.
  void setValue(uint64_t offset, uint64_t value, unsigned width) {
    std::string bytes;
    appendLittleEndian(bytes, value, width);
    set(offset, std::move(bytes));
  }
  void setWord(uint64_t offset, uint64_t value) { setValue(offset, value, 8); }

  // Whether any edit touches [start, end).
  bool touches(uint64_t start, uint64_t end) const {
    auto after = edits_.lower_bound(end);
    return after != edits_.begin() &&
           std::prev(after)->first + std::prev(after)->second.size() > start;
  }

  // Input bytes [start, end) with the edits, into `plan`.
  void emit(OutputPlan &plan, uint64_t start, uint64_t end) const {
    uint64_t at = start;
    for (auto edit = edits_.lower_bound(start);
         edit != edits_.end() && edit->first < end; ++edit) {
      plan.addInput(at, edit->first - at);
      plan.addBytes(edit->second);
      at = edit->first + edit->second.size();
    }
    plan.addInput(at, end - at);
  }

  // Input bytes [start, end) with the edits, in memory. Edits must not
  // cross the range's ends.
  std::string render(uint64_t start, uint64_t end) const {
    std::string bytes(input_.substr(start, end - start));
    for (auto edit = edits_.lower_bound(start);
         edit != edits_.end() && edit->first < end; ++edit)
      bytes.replace(edit->first - start, edit->second.size(), edit->second);
    return bytes;
  }

private:
  std::string_view input_;
  std::map<uint64_t, std::string> edits_;
};

} // namespace offbundle
