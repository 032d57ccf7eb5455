// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// --image values (see image_arguments.h). Their pairs are ordered by replaying
// the bucket layout of LLVM's DenseMap with llvm_hash.h's hash, since that
// order decides how an image's string table is written.

#include "packager/image_arguments.h"

#include "packager/llvm_hash.h"

namespace offbundle {
namespace {

// The bucket layout of an llvm::DenseMap with string keys that is only ever
// inserted into: 64 buckets on the first insertion, doubled before an
// insertion would make it three quarters full, quadratic probing from the
// key's hash, and a rehash that moves entries in old bucket order.
class DenseMapLayout {
public:
  // The entry index stored for key, or -1.
  long
  find(std::string_view key,
       const std::vector<std::pair<std::string, std::string>> &entries) const {
    if (buckets_.empty())
      return -1;
    const size_t mask = buckets_.size() - 1;
    size_t bucket = llvmDenseMapStringHash(key) & mask;
    for (size_t step = 1;; ++step) {
      if (buckets_[bucket] < 0)
        return -1;
      if (entries[static_cast<size_t>(buckets_[bucket])].first == key)
        return buckets_[bucket];
      bucket = (bucket + step) & mask;
    }
  }

  void insert(std::string_view key, long entryIndex) {
    const size_t count = used_ + 1;
    if (count * 4 >= buckets_.size() * 3)
      grow(buckets_.empty() ? 64 : buckets_.size() * 2);
    place(key, entryIndex);
    ++used_;
  }

  // Entry indices in bucket order.
  std::vector<size_t> order() const {
    std::vector<size_t> indices;
    for (long slot : buckets_)
      if (slot >= 0)
        indices.push_back(static_cast<size_t>(slot));
    return indices;
  }

  void rememberKey(std::string key) { keys_.push_back(std::move(key)); }

private:
  void place(std::string_view key, long entryIndex) {
    const size_t mask = buckets_.size() - 1;
    size_t bucket = llvmDenseMapStringHash(key) & mask;
    for (size_t step = 1; buckets_[bucket] >= 0; ++step)
      bucket = (bucket + step) & mask;
    buckets_[bucket] = entryIndex;
  }

  void grow(size_t bucketCount) {
    std::vector<long> old = std::move(buckets_);
    buckets_.assign(bucketCount, -1);
    for (long slot : old)
      if (slot >= 0)
        place(keys_[static_cast<size_t>(slot)], slot);
  }

  std::vector<long> buckets_;
  std::vector<std::string> keys_; // by entry index, for rehashing
  size_t used_ = 0;
};

} // namespace

std::vector<std::string_view> splitAll(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (;;) {
    const size_t at = text.find(separator);
    pieces.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return pieces;
    text.remove_prefix(at + 1);
  }
}

ImageArguments ImageArguments::parse(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> inserted;
  DenseMapLayout layout;
  for (std::string_view piece : splitAll(text, ',')) {
    const size_t equals = piece.find('=');
    std::string key(piece.substr(0, equals));
    std::string value(equals == std::string_view::npos
                          ? std::string_view()
                          : piece.substr(equals + 1));
    const long existing = layout.find(key, inserted);
    if (existing >= 0) {
      inserted[static_cast<size_t>(existing)].second += "," + value;
      continue;
    }
    const long index = static_cast<long>(inserted.size());
    layout.rememberKey(key);
    inserted.emplace_back(std::move(key), std::move(value));
    layout.insert(inserted.back().first, index);
  }
  ImageArguments arguments;
  for (size_t index : layout.order())
    arguments.entries_.push_back(std::move(inserted[index]));
  return arguments;
}

std::optional<std::string_view>
ImageArguments::find(std::string_view key) const {
  for (const auto &[name, value] : entries_)
    if (name == key)
      return std::string_view(value);
  return std::nullopt;
}

} // namespace offbundle
