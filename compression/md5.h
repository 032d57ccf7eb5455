// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MD5 for compressed bundle hashes, computed by LLVM's own implementation so
// that the stored value is exactly the one LLVM writes and checks. LLVM's
// headers stay inside md5.cpp.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

namespace offbundle {

// Incremental MD5 yielding the truncated hash of compressed bundle headers.
class TruncatedMd5Hasher {
public:
  TruncatedMd5Hasher();
  ~TruncatedMd5Hasher();
  TruncatedMd5Hasher(const TruncatedMd5Hasher &) = delete;
  TruncatedMd5Hasher &operator=(const TruncatedMd5Hasher &) = delete;

  void update(std::string_view data);
  // First 8 digest bytes read little-endian. Call once.
  uint64_t finish();

private:
  struct State;
  std::unique_ptr<State> state_;
};

// Hashes a buffer that fills up over time, on a second thread, so hashing
// overlaps the work that produces (or consumes) the bytes. The producer
// publishes how much of the buffer is ready; before it moves or frees the
// buffer it waits until the hasher has caught up. Without a thread (small
// inputs, or when none can be started) it hashes in publish() instead.
class BackgroundMd5 {
public:
  explicit BackgroundMd5(bool useThread);
  ~BackgroundMd5();
  BackgroundMd5(const BackgroundMd5 &) = delete;
  BackgroundMd5 &operator=(const BackgroundMd5 &) = delete;

  // data[0, end) is ready; `end` never decreases. `data` may differ from the
  // previous call only after waitUntilCaughtUp().
  void publish(const char *data, size_t end);
  // Returns once everything published has been hashed.
  void waitUntilCaughtUp();
  // Hash of everything published; stops the thread. Call once. Destroying
  // the object without finish() stops the thread without reading further, but
  // a chunk being hashed is finished first, so the buffer must outlive this
  // object.
  uint64_t finish();

private:
  void hashPublishedBytes();

  TruncatedMd5Hasher hasher_;
  std::mutex mutex_;
  std::condition_variable workAvailable_;
  std::condition_variable caughtUp_;
  const char *data_ = nullptr;
  size_t publishedEnd_ = 0;
  size_t hashedEnd_ = 0;
  bool closing_ = false;
  // Set when the owner goes away early: bytes not yet hashed may already be
  // gone.
  bool discardRemaining_ = false;
  std::thread worker_;
};

} // namespace offbundle
