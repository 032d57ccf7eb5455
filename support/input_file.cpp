// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Inputs mapped or read whole (input_file.h).
#include "support/input_file.h"

#include "support/folder_handle.h"
#include "support/memory_limit.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <linux/fs.h>
#include <new>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace offbundle {

std::string errnoMessage(int error) { return std::strerror(error); }

Status refuseDevice(const std::string &path) {
  struct stat info;
  if (::stat(path.c_str(), &info) == 0 &&
      (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)))
    return fileError(path, "a device, not a file", ErrorCode::Unsupported);
  return Status::success();
}

Status InputFile::checkUnchanged() const {
  if (!openedVersion_ || fd_ < 0)
    return Status::success();
  struct stat now;
  if (::fstat(fd_, &now) != 0)
    return systemError(path_, errno);
  auto same = [](const struct timespec &a, const struct timespec &b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
  };
  if (now.st_size != openedVersion_->size ||
      !same(now.st_mtim, openedVersion_->modified) ||
      !same(now.st_ctim, openedVersion_->changed))
    return fileError(path_,
                     "the file changed while it was being read; nothing was "
                     "written",
                     ErrorCode::Io);
  return Status::success();
}

Result<std::unique_ptr<InputFile>> InputFile::open(const std::string &path,
                                                   Devices devices) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->path_ = path;
  int fd = path == "-" ? ::dup(STDIN_FILENO) : ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return systemError(path, errno);
  input->fd_ = fd;
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return systemError(path, errno);
  if (S_ISDIR(info.st_mode))
    return systemError(path, EISDIR);
  if (devices == Devices::Refuse)
    if (Status status = refuseDevice(path); !status.ok())
      return status.takeError();

  if (S_ISREG(info.st_mode)) {
    // Standard input is read from where it stands to its end, and left at
    // its end, as reading it would: a second "-" then reads nothing.
    uint64_t start = 0;
    if (path == "-") {
      const off_t position = ::lseek(fd, 0, SEEK_CUR);
      if (position > 0)
        start = std::min(static_cast<uint64_t>(position),
                         static_cast<uint64_t>(info.st_size));
      ::lseek(fd, 0, SEEK_END);
    }
    if (Status mapped = input->mapRegularFile(info); !mapped.ok())
      return mapped.takeError();
    if (start != 0)
      input->narrow(start, input->size_ - start, path);
    return input;
  }

  // Pipes, terminals and devices: read what they give us into memory. Such
  // inputs have no usable file offsets, so the descriptor is not offered.
  // A stream that never ends (/dev/zero) must not exhaust memory: refuse
  // what could not be held alongside its own output.
  const uint64_t limit = inMemoryInputLimit();
  std::string buffer;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return systemError(path, errno);
    }
    if (n == 0)
      break;
    if (buffer.size() + static_cast<uint64_t>(n) > limit)
      return fileError(path, "input does not end within " +
                                 std::to_string(limit) +
                                 " bytes; give a regular file instead");
    try {
      buffer.append(chunk, static_cast<size_t>(n));
    } catch (const std::bad_alloc &) {
      return fileError(path, "not enough memory to read the input");
    }
  }
  input->buffer_ = std::move(buffer);
  input->data_ = input->buffer_.data();
  input->size_ = input->buffer_.size();
  ::close(fd);
  input->fd_ = -1;
  return input;
}

Status InputFile::mapRegularFile(const struct stat &info) {
  openedVersion_ = Version{info.st_size, info.st_mtim, info.st_ctim};
  size_ = static_cast<uint64_t>(info.st_size);
  if (size_ == 0)
    return Status::success();
  void *map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (map == MAP_FAILED)
    return systemError(path_, errno);
  data_ = map;
  mapBase_ = map;
  mapSize_ = size_;
  mappingRegistration_ = registerMapping(map, size_, path_);
  return Status::success();
}

Result<std::unique_ptr<InputFile>> InputFile::openIn(const FolderHandle &folder,
                                                     const std::string &name,
                                                     const std::string &path) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->path_ = path;
  // Not through a symbolic link, and not waiting for a writer to a FIFO.
  const int fd = ::openat(folder.fd(), name.c_str(),
                          O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return fileError(path, errno == ELOOP
                               ? "is now a symbolic link (something else "
                                 "was put there); not followed"
                               : errnoMessage(errno));
  input->fd_ = fd;
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return systemError(path, errno);
  if (!S_ISREG(info.st_mode))
    return fileError(path, "not a regular file");
  if (Status mapped = input->mapRegularFile(info); !mapped.ok())
    return mapped.takeError();
  return input;
}

std::unique_ptr<InputFile> InputFile::fromMemory(const std::string &path,
                                                 std::string bytes) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->buffer_ = std::move(bytes);
  input->viewOwnBytes(path, input->buffer_.data(), input->buffer_.size());
  return input;
}

std::unique_ptr<InputFile> InputFile::fromMemory(const std::string &path,
                                                 ByteBuffer bytes) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->decoded_ = std::move(bytes);
  input->viewOwnBytes(path, input->decoded_.data(), input->decoded_.size());
  return input;
}

void InputFile::viewOwnBytes(const std::string &path, const char *data,
                             size_t size) {
  path_ = path;
  data_ = data;
  size_ = size;
}

std::unique_ptr<InputFile> InputFile::slice(const InputFile &parent,
                                            uint64_t offset, uint64_t size) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->path_ = parent.path_;
  input->data_ = parent.contents().data() + offset;
  input->size_ = size;
  input->fd_ = parent.fd_;
  input->ownsFd_ = false;
  input->fileOffset_ = parent.fileOffset_ + offset;
  return input;
}

void InputFile::narrow(uint64_t offset, uint64_t size,
                       std::string displayPath) {
  data_ = static_cast<const char *>(data_) + offset;
  size_ = size;
  fileOffset_ += offset;
  path_ = std::move(displayPath);
}

void InputFile::advisePages(uint64_t offset, uint64_t length,
                            int advice) const {
  if (mapBase_ == nullptr || offset > size_)
    return;
  length = std::min(length, size_ - offset);
  // Whole pages around the range: a page shared with bytes still to be
  // read is read again from the page cache if released, never lost (the
  // mapping is private and never written).
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t base = reinterpret_cast<uintptr_t>(mapBase_);
  const uintptr_t start = reinterpret_cast<uintptr_t>(data_) + offset;
  const uintptr_t first = std::max(base, start / page * page);
  const uintptr_t last =
      std::min(base + mapSize_, (start + length + page - 1) / page * page);
  // Advice only: a kernel without it, or a range it declines, changes
  // nothing but speed.
  if (last > first)
    ::madvise(reinterpret_cast<void *>(first), last - first, advice);
}

void InputFile::releasePages(uint64_t offset, uint64_t length) const {
  advisePages(offset, length, MADV_DONTNEED);
}

void InputFile::prefetchPages(uint64_t offset, uint64_t length) const {
#ifdef MADV_POPULATE_READ
  advisePages(offset, length, MADV_POPULATE_READ);
#else
  (void)offset;
  (void)length;
#endif
}

InputFile::~InputFile() {
  mappingRegistration_.release();
  if (mapBase_ != nullptr)
    ::munmap(const_cast<void *>(mapBase_), mapSize_);
  if (fd_ >= 0 && ownsFd_)
    ::close(fd_);
}

} // namespace offbundle
