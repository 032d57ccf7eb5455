// A growable run of bytes on the heap, for output about to be written over
// anyway (a decompressor's). Unlike std::string, sizing it does not zero it:
// for a bundle of hundreds of MiB that saves a whole pass over memory before
// the first byte is decoded, while nothing else can run. And moving it keeps
// the bytes where they are, so another thread may go on reading them (a hash
// still being computed) while the buffer changes hands.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
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
  std::string_view view() const { return {bytes_.get(), size_}; }

  // Makes the buffer `size` bytes long, keeping the bytes it holds up to
  // there; bytes past them hold whatever the memory held until written.
  // Growing past what was ever allocated moves the bytes (and throws
  // std::bad_alloc when memory runs out).
  void resize(size_t size) {
    if (size > capacity_) {
      std::unique_ptr<char[]> grown =
          std::make_unique_for_overwrite<char[]>(size);
      if (size_ != 0)
        std::memcpy(grown.get(), bytes_.get(), size_);
      bytes_ = std::move(grown);
      capacity_ = size;
    }
    size_ = size;
  }

private:
  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

} // namespace offbundle
