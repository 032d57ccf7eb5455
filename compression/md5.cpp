// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MD5 for compressed bundle hashes (see md5.h): llvm::MD5 behind a small
// class, this being the only file that includes LLVM's headers, and
// BackgroundMd5, which hashes a filling buffer on a worker thread.

#include "compression/md5.h"

#include <system_error>

#include "compression/compressed_bundle.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/MD5.h"

namespace offbundle {

struct TruncatedMd5Hasher::State {
  llvm::MD5 md5;
};

TruncatedMd5Hasher::TruncatedMd5Hasher() : state_(std::make_unique<State>()) {}

TruncatedMd5Hasher::~TruncatedMd5Hasher() = default;

void TruncatedMd5Hasher::update(std::string_view data) {
  state_->md5.update(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(data.data()), data.size()));
}

uint64_t TruncatedMd5Hasher::finish() {
  llvm::MD5::MD5Result digest;
  state_->md5.final(digest);
  // low() reads digest bytes 0..7 little-endian, the value LLVM 22 stores
  // (checked against its -compress output).
  return digest.low();
}

BackgroundMd5::BackgroundMd5(bool useThread) {
  if (!useThread)
    return;
  try {
    worker_ = std::thread([this] { hashPublishedBytes(); });
  } catch (const std::system_error &) {
    // No thread to be had: publish() hashes on the caller's thread.
  }
}

BackgroundMd5::~BackgroundMd5() {
  if (!worker_.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    discardRemaining_ = true;
  }
  workAvailable_.notify_one();
  worker_.join();
}

void BackgroundMd5::publish(const char *data, size_t end) {
  if (!worker_.joinable()) {
    hasher_.update(std::string_view(data + hashedEnd_, end - hashedEnd_));
    hashedEnd_ = publishedEnd_ = end;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    data_ = data;
    publishedEnd_ = end;
  }
  workAvailable_.notify_one();
}

void BackgroundMd5::waitUntilCaughtUp() {
  if (!worker_.joinable())
    return;
  std::unique_lock<std::mutex> lock(mutex_);
  caughtUp_.wait(lock, [this] { return hashedEnd_ == publishedEnd_; });
}

uint64_t BackgroundMd5::finish() {
  if (worker_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closing_ = true;
    }
    workAvailable_.notify_one();
    worker_.join();
  }
  return hasher_.finish();
}

void BackgroundMd5::hashPublishedBytes() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    workAvailable_.wait(
        lock, [this] { return hashedEnd_ < publishedEnd_ || closing_; });
    if (discardRemaining_ || hashedEnd_ == publishedEnd_)
      return;
    const char *data = data_;
    size_t from = hashedEnd_;
    size_t to = publishedEnd_;
    // The producer keeps data[from, to) in place until hashedEnd_ reaches
    // `to`, so it can be read without the lock.
    lock.unlock();
    hasher_.update(std::string_view(data + from, to - from));
    lock.lock();
    hashedEnd_ = to;
    caughtUp_.notify_all();
  }
}

} // namespace offbundle
