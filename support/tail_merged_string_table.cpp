// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LLVM's tail-merged string table (see the header): strings sorted from their
// last byte backwards, each one that ends its predecessor stored as an offset
// into it.

#include "support/tail_merged_string_table.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace offbundle {
namespace {

// Compares from the last byte backwards, bytes unsigned; a string that runs
// out first is the smaller.
bool reversedGreater(std::string_view a, std::string_view b) {
  const size_t common = std::min(a.size(), b.size());
  for (size_t i = 1; i <= common; ++i) {
    const auto x = static_cast<unsigned char>(a[a.size() - i]);
    const auto y = static_cast<unsigned char>(b[b.size() - i]);
    if (x != y)
      return x > y;
  }
  return a.size() > b.size();
}

} // namespace

void TailMergedStringTable::finalize() {
  std::vector<std::pair<const std::string_view, uint64_t> *> ordered;
  ordered.reserve(offsets_.size());
  for (auto &entry : offsets_)
    ordered.push_back(&entry);
  std::sort(ordered.begin(), ordered.end(), [](auto *a, auto *b) {
    return reversedGreater(a->first, b->first);
  });
  size_ = 1; // the leading null byte
  std::string_view previous;
  for (auto *entry : ordered) {
    const std::string_view text = entry->first;
    if (previous.size() >= text.size() &&
        previous.substr(previous.size() - text.size()) == text) {
      entry->second = size_ - text.size() - 1;
      continue;
    }
    entry->second = size_;
    size_ += text.size() + 1;
    previous = text;
  }
  offsets_[std::string_view()] = 0;
}

uint64_t TailMergedStringTable::offsetOf(std::string_view text) const {
  auto found = offsets_.find(text);
  return found == offsets_.end() ? 0 : found->second;
}

void TailMergedStringTable::writeTo(char *destination) const {
  for (const auto &[text, offset] : offsets_)
    if (!text.empty())
      std::memcpy(destination + offset, text.data(), text.size());
}

void TailMergedStringTable::appendTo(std::string &out) const {
  const size_t start = out.size();
  out.append(size_, '\0');
  writeTo(out.data() + start);
}

} // namespace offbundle
