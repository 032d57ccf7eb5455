// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A string-keyed map whose iteration order is exactly that of LLVM 22's
// llvm::StringMap for the same sequence of insertions and erasures. LLVM's
// bundler keeps bundle entries and requested targets in StringMaps, so the
// order in which `-list` prints entries, and which compatible entry an
// unbundle picks first, is the StringMap's bucket order; we reproduce it by
// reproducing the bucket layout (hash, table size, quadratic probing,
// tombstones and rehashing), not by storing anything the way LLVM does.
#pragma once

#include "support/xxhash.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace offbundle {

template <typename Value> class LlvmOrderedStringMap {
public:
  LlvmOrderedStringMap() = default;
  // Copies keep the exact bucket layout (tombstones included), as copying a
  // non-empty llvm::StringMap does, so a copy iterates and evolves like the
  // original.
  LlvmOrderedStringMap(const LlvmOrderedStringMap &other) { copyFrom(other); }
  LlvmOrderedStringMap &operator=(const LlvmOrderedStringMap &other) {
    if (this != &other)
      copyFrom(other);
    return *this;
  }
  // A moved-from map is left empty (no table), like a moved-from StringMap.
  LlvmOrderedStringMap(LlvmOrderedStringMap &&other) noexcept
      : buckets_(std::exchange(other.buckets_, {})),
        itemCount_(std::exchange(other.itemCount_, 0)),
        tombstoneCount_(std::exchange(other.tombstoneCount_, 0)) {}
  LlvmOrderedStringMap &operator=(LlvmOrderedStringMap &&other) noexcept {
    if (this != &other) {
      buckets_ = std::exchange(other.buckets_, {});
      itemCount_ = std::exchange(other.itemCount_, 0);
      tombstoneCount_ = std::exchange(other.tombstoneCount_, 0);
    }
    return *this;
  }

  // Inserts key with value, or replaces the value of an existing key
  // (StringMap::operator[] followed by assignment). Returns true if inserted.
  bool insertOrAssign(std::string_view key, Value value) {
    auto [bucketIndex, inserted] = lookupOrInsert(key, value);
    if (!inserted)
      buckets_[bucketIndex].entry->value = std::move(value);
    return inserted;
  }

  // StringMap::operator[]: the value of key, default-constructing it first if
  // the key is absent (which counts as an insertion for the layout).
  Value &operator[](std::string_view key) {
    Value defaultValue{};
    const std::size_t bucketIndex = lookupOrInsert(key, defaultValue).first;
    return buckets_[bucketIndex].entry->value;
  }

  Value *find(std::string_view key) {
    const std::optional<std::size_t> bucketIndex = findBucket(key);
    return bucketIndex ? &buckets_[*bucketIndex].entry->value : nullptr;
  }
  const Value *find(std::string_view key) const {
    const std::optional<std::size_t> bucketIndex = findBucket(key);
    return bucketIndex ? &buckets_[*bucketIndex].entry->value : nullptr;
  }
  bool contains(std::string_view key) const {
    return findBucket(key).has_value();
  }

  // Removes key, leaving a tombstone in its bucket as StringMap::erase does.
  // The table never shrinks or rehashes here; tombstones are only cleared by
  // the rehash that a later insertion may trigger.
  bool erase(std::string_view key) {
    const std::optional<std::size_t> bucketIndex = findBucket(key);
    if (!bucketIndex)
      return false;
    Bucket &bucket = buckets_[*bucketIndex];
    bucket.entry.reset();
    bucket.isTombstone = true;
    --itemCount_;
    ++tombstoneCount_;
    return true;
  }

  // StringMap::clear: drops every entry and tombstone but keeps the table
  // size, which influences where later insertions land. Like LLVM it does
  // nothing when there are no entries, so tombstones of a map whose entries
  // were all erased survive a clear().
  void clear() {
    if (empty())
      return;
    for (Bucket &bucket : buckets_)
      bucket = Bucket{};
    itemCount_ = 0;
    tombstoneCount_ = 0;
  }

  std::size_t size() const { return itemCount_; }
  bool empty() const { return size() == 0; }

  // Entries in StringMap iteration (bucket) order. The value pointers stay
  // valid until that entry is erased, even across rehashes, like StringMap's.
  std::vector<std::pair<std::string_view, Value *>> entries() {
    std::vector<std::pair<std::string_view, Value *>> ordered;
    ordered.reserve(itemCount_);
    for (Bucket &bucket : buckets_)
      if (bucket.entry)
        ordered.emplace_back(bucket.entry->key, &bucket.entry->value);
    return ordered;
  }
  std::vector<std::pair<std::string_view, const Value *>> entries() const {
    std::vector<std::pair<std::string_view, const Value *>> ordered;
    ordered.reserve(itemCount_);
    for (const Bucket &bucket : buckets_)
      if (bucket.entry)
        ordered.emplace_back(bucket.entry->key, &bucket.entry->value);
    return ordered;
  }

  // Number of buckets, exposed so tests can check growth decisions.
  std::size_t bucketCount() const { return buckets_.size(); }

private:
  // LLVM allocates 16 buckets on the first insertion into a default map.
  static constexpr std::size_t kInitialBucketCount = 16;

  struct Entry {
    std::string key;
    Value value;
  };

  // A bucket is empty (no entry, not a tombstone), a tombstone, or occupied.
  // Entries live on the heap so moving them between buckets during a rehash
  // keeps the addresses handed out by find() and entries().
  struct Bucket {
    std::unique_ptr<Entry> entry;
    bool isTombstone = false;
    // Low 32 bits of the key's XXH3 hash; LLVM keeps only these, and both the
    // bucket choice and the rehash placement are derived from them.
    uint32_t fullHash = 0;
  };

  static uint32_t hashKey(std::string_view key) {
    return static_cast<uint32_t>(xxh3_64bits(key));
  }

  bool isEmpty(const Bucket &bucket) const {
    return !bucket.entry && !bucket.isTombstone;
  }

  // The bucket holding key, or else the bucket an insertion of key would
  // use: the first tombstone on the probe path if any, otherwise the empty
  // bucket that ended the probe. Mirrors StringMapImpl::LookupBucketFor.
  std::size_t lookupBucketFor(std::string_view key, uint32_t fullHash) {
    if (buckets_.empty())
      buckets_.resize(kInitialBucketCount);
    const std::size_t mask = buckets_.size() - 1;
    std::size_t bucketIndex = fullHash & mask;
    std::size_t probeStep = 1;
    std::optional<std::size_t> firstTombstone;
    while (true) {
      const Bucket &bucket = buckets_[bucketIndex];
      if (isEmpty(bucket))
        return firstTombstone.value_or(bucketIndex);
      if (bucket.isTombstone) {
        if (!firstTombstone)
          firstTombstone = bucketIndex;
      } else if (bucket.fullHash == fullHash && bucket.entry->key == key) {
        return bucketIndex;
      }
      // Quadratic (triangular-number) probing; with a power-of-two table it
      // visits every bucket, and a free one always exists.
      bucketIndex = (bucketIndex + probeStep++) & mask;
    }
  }

  // Read-only lookup that skips tombstones (StringMapImpl::FindKey).
  std::optional<std::size_t> findBucket(std::string_view key) const {
    if (buckets_.empty())
      return std::nullopt;
    const uint32_t fullHash = hashKey(key);
    const std::size_t mask = buckets_.size() - 1;
    std::size_t bucketIndex = fullHash & mask;
    std::size_t probeStep = 1;
    while (true) {
      const Bucket &bucket = buckets_[bucketIndex];
      if (isEmpty(bucket))
        return std::nullopt;
      if (bucket.entry && bucket.fullHash == fullHash &&
          bucket.entry->key == key)
        return bucketIndex;
      bucketIndex = (bucketIndex + probeStep++) & mask;
    }
  }

  // try_emplace: returns the bucket of key after the operation and whether
  // it was inserted. The value is moved from only when inserting.
  std::pair<std::size_t, bool> lookupOrInsert(std::string_view key,
                                              Value &value) {
    const uint32_t fullHash = hashKey(key);
    const std::size_t bucketIndex = lookupBucketFor(key, fullHash);
    Bucket &bucket = buckets_[bucketIndex];
    if (bucket.entry)
      return {bucketIndex, false};
    if (bucket.isTombstone)
      --tombstoneCount_;
    bucket.entry =
        std::make_unique<Entry>(Entry{std::string(key), std::move(value)});
    bucket.isTombstone = false;
    bucket.fullHash = fullHash;
    ++itemCount_;
    return {rehashIfNeeded(bucketIndex), true};
  }

  // StringMapImpl::RehashTable, run after every insertion: grow to twice the
  // size when more than 3/4 full, or rebuild at the same size when at most
  // 1/8 of the buckets are still empty (too many tombstones). Returns where
  // the bucket at trackedIndex ended up.
  std::size_t rehashIfNeeded(std::size_t trackedIndex) {
    const std::size_t oldCount = buckets_.size();
    std::size_t newCount;
    if (itemCount_ * 4 > oldCount * 3)
      newCount = oldCount * 2;
    else if (oldCount - (itemCount_ + tombstoneCount_) <= oldCount / 8)
      newCount = oldCount;
    else
      return trackedIndex;

    std::vector<Bucket> rebuilt(newCount);
    const std::size_t mask = newCount - 1;
    std::size_t trackedNewIndex = trackedIndex;
    // Old buckets are visited in index order; this order decides who wins a
    // contested slot and so is part of the observable iteration order.
    for (std::size_t oldIndex = 0; oldIndex < oldCount; ++oldIndex) {
      Bucket &old = buckets_[oldIndex];
      if (!old.entry)
        continue;
      std::size_t newIndex = old.fullHash & mask;
      std::size_t probeStep = 1;
      while (rebuilt[newIndex].entry)
        newIndex = (newIndex + probeStep++) & mask;
      rebuilt[newIndex] = std::move(old);
      if (oldIndex == trackedIndex)
        trackedNewIndex = newIndex;
    }
    buckets_ = std::move(rebuilt);
    tombstoneCount_ = 0;
    return trackedNewIndex;
  }

  void copyFrom(const LlvmOrderedStringMap &other) {
    // LLVM's copy of a map without entries has no table at all, even if the
    // source still has buckets and tombstones.
    if (other.empty()) {
      buckets_.clear();
      itemCount_ = 0;
      tombstoneCount_ = 0;
      return;
    }
    std::vector<Bucket> copied(other.buckets_.size());
    for (std::size_t index = 0; index < copied.size(); ++index) {
      const Bucket &source = other.buckets_[index];
      copied[index].isTombstone = source.isTombstone;
      copied[index].fullHash = source.fullHash;
      if (source.entry)
        copied[index].entry = std::make_unique<Entry>(*source.entry);
    }
    buckets_ = std::move(copied);
    itemCount_ = other.itemCount_;
    tombstoneCount_ = other.tombstoneCount_;
  }

  std::vector<Bucket> buckets_;
  std::size_t itemCount_ = 0;
  std::size_t tombstoneCount_ = 0;
};

} // namespace offbundle
