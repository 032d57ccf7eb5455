// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A growable run of bytes on the heap, for output about to be written over
// anyway (a decompressor's). Unlike std::string, sizing it does not zero it:
// for a bundle of hundreds of MiB that saves a whole pass over memory before
// the first byte is decoded, while nothing else can run. And moving it keeps
// the bytes where they are, so another thread may go on reading them (a hash
// still being computed) while the buffer changes hands.
//
// Large buffers are aligned to 2 MiB and offered to the kernel for
// transparent huge pages: a 256 MiB bundle then takes 128 page faults
// instead of 65,536, and is handed back as fast at exit.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <utility>

namespace offbundle {

class ByteBuffer {
public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer &&other) noexcept
      : bytes_(std::move(other.bytes_)), size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  ByteBuffer &operator=(ByteBuffer &&other) noexcept {
    bytes_ = std::move(other.bytes_);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }
  ByteBuffer(const ByteBuffer &) = delete;
  ByteBuffer &operator=(const ByteBuffer &) = delete;

  char *data() { return bytes_.get(); }
  const char *data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  // Bytes it can hold without allocating.
  size_t capacity() const { return capacity_; }
  std::string_view view() const { return {bytes_.get(), size_}; }

  // Makes the buffer `size` bytes long, keeping the bytes it holds up to
  // there; bytes past them hold whatever the memory held until written.
  // Growing past what was ever allocated moves the bytes (and throws
  // std::bad_alloc when memory runs out).
  void resize(size_t size) {
    if (size > capacity_) {
      Storage grown = allocate(size);
      if (size_ != 0)
        std::memcpy(grown.get(), bytes_.get(), size_);
      bytes_ = std::move(grown);
      capacity_ = size;
    }
    size_ = size;
  }

private:
  struct Release {
    void operator()(char *bytes) const { std::free(bytes); }
  };
  using Storage = std::unique_ptr<char, Release>;

  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kHugePagesFrom = size_t{16} << 20;

  static Storage allocate(size_t size) {
    if (size < kHugePagesFrom) {
      Storage bytes(static_cast<char *>(std::malloc(size == 0 ? 1 : size)));
      if (!bytes)
        throw std::bad_alloc();
      return bytes;
    }
    const size_t rounded = (size + kHugePage - 1) / kHugePage * kHugePage;
    Storage bytes(static_cast<char *>(std::aligned_alloc(kHugePage, rounded)));
    if (!bytes)
      throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    // Advice only: without huge pages the buffer works the same.
    (void)::madvise(bytes.get(), rounded, MADV_HUGEPAGE);
#endif
    return bytes;
  }

  Storage bytes_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

} // namespace offbundle
