// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading inputs without copying them. Inputs are memory-mapped read-only
// (or read into memory when they are not regular files, like "-" for
// standard input), so a bundle's header can be read without touching its
// payload.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>
#include <vector>

#include "support/byte_buffer.h"
#include "support/error.h"
#include "support/interrupt_cleanup.h"

namespace offbundle {

class FolderHandle;

class InputFile {
public:
  // "-" reads standard input. Devices are read as streams, as LLVM's tools
  // read them (up to inMemoryInputLimit()), unless refused: /dev/zero would
  // otherwise fill half the machine's memory before the run failed.
  enum class Devices { Read, Refuse };
  static Result<std::unique_ptr<InputFile>>
  open(const std::string &path, Devices devices = Devices::Read);
  // The file `name` in `folder`, opened without following a symbolic link
  // or waiting on a FIFO, and named `path` in messages: for a file to be
  // rewritten where it is. Anything but a regular file is refused.
  static Result<std::unique_ptr<InputFile>> openIn(const FolderHandle &folder,
                                                   const std::string &name,
                                                   const std::string &path);
  // Bytes produced in memory (a decompressed bundle), named after the file
  // they came from.
  static std::unique_ptr<InputFile> fromMemory(const std::string &path,
                                               std::string bytes);
  static std::unique_ptr<InputFile> fromMemory(const std::string &path,
                                               ByteBuffer bytes);
  // A view of bytes [offset, offset + size) of `parent` (which must outlive
  // it) as a file of its own: a bundle found inside an executable, say.
  // Copies from it still go straight from the parent's file. Requires the
  // range to lie within the parent.
  static std::unique_ptr<InputFile> slice(const InputFile &parent,
                                          uint64_t offset, uint64_t size);
  ~InputFile();
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;

  const std::string &path() const { return path_; }
  uint64_t size() const { return size_; }
  // The whole contents; mapped lazily, so pages are read only when touched.
  std::string_view contents() const {
    return {static_cast<const char *>(data_), static_cast<size_t>(size_)};
  }
  // A descriptor positioned anywhere, usable with pread; -1
  // when the contents live only in memory.
  int fd() const { return fd_; }
  // Where contents() starts in the file fd() reads: 0 unless this input is
  // a range of a larger file (a code object URI, a slice).
  uint64_t fileOffset() const { return fileOffset_; }
  // Says that contents() bytes [offset, offset + length) will not be read
  // again soon: their pages leave this process's memory (they stay in the
  // page cache, and a later read brings them back), so that one pass over
  // a large mapped input keeps the memory it holds flat. Does nothing for
  // inputs held in memory, whose bytes would be lost, or for slices.
  void releasePages(uint64_t offset, uint64_t length) const;
  // Says that contents() bytes [offset, offset + length) are about to be
  // read: their pages are mapped in one call rather than fault by fault
  // (MADV_POPULATE_READ, where the kernel has it). Nothing for inputs held
  // in memory.
  void prefetchPages(uint64_t offset, uint64_t length) const;
  // Narrows the input to bytes [offset, offset + size) of what it holds now,
  // under a new name for messages. Requires the range to lie within it.
  void narrow(uint64_t offset, uint64_t size, std::string displayPath);
  // An error when the file was written to since it was opened (its size,
  // or the times of its last change, differ): what was read of it may mix
  // old bytes and new, so nothing made from it may be kept. Success for
  // inputs that are no regular file.
  Status checkUnchanged() const;

private:
  InputFile() = default;
  void advisePages(uint64_t offset, uint64_t length, int advice) const;
  // Maps the regular file open at fd_, whose status is `info`.
  Status mapRegularFile(const struct stat &info);
  // An input in memory: named `path`, its contents the bytes it holds.
  void viewOwnBytes(const std::string &path, const char *data, size_t size);
  std::string path_;
  int fd_ = -1;
  // Slices share their parent's descriptor: an archive of thousands of
  // members must not need a descriptor per member.
  bool ownsFd_ = true;
  const void *data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t fileOffset_ = 0;
  // The whole mapping, which narrowing leaves in place until destruction.
  const void *mapBase_ = nullptr;
  uint64_t mapSize_ = 0;
  // Lets a SIGBUS in the mapping (the file truncated under us) name the
  // file instead of crashing; see interrupt_cleanup.h.
  SignalRegistration mappingRegistration_;
  // A regular file's size and times of its last changes, when opened.
  struct Version {
    off_t size;
    struct timespec modified;
    struct timespec changed;
  };
  std::optional<Version> openedVersion_;
  std::string buffer_; // contents of non-regular inputs
  ByteBuffer decoded_; // contents made in memory by a decoder
};

// An error when the path names a device (see InputFile::Devices).
Status refuseDevice(const std::string &path);

std::string errnoMessage(int error);

} // namespace offbundle
