// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Output files written in blocks and copied into (output_file.h).
#include "support/output_file.h"

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
namespace {

// Copies shorter than this come from the input's mapping, in memory; longer
// ones are read with pread (no page faults on the mapping).
constexpr size_t kSmallCopy = 1 << 16;
// Pieces up to this size, copied into an output that has written no block
// yet, are copied by the kernel (see OutputFile::copyFrom).
constexpr uint64_t kInKernelCopyLimit = uint64_t{4} << 20;

// Bytes below which copies run on one thread (see runCopies).
constexpr uint64_t kParallelCopyThreshold = uint64_t{32} << 20;

} // namespace

Status writeAll(int fd, const char *data, size_t size,
                const std::string &path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return systemError(path, errno);
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::success();
}

Error outOfMemory(const std::string &path) {
  return fileError(path, "not enough memory to write the output");
}

Status OutputFile::flush() {
  if (gathered_ == 0)
    return Status::success();
  Status status = writeAll(fd_, gather_.get(), gathered_, path_);
  gathered_ = 0;
  return status;
}

Status OutputFile::gather(std::string_view bytes) {
  if (!gather_)
    gather_.reset(new (std::nothrow) char[kGatherCapacity]);
  if (!gather_)
    return outOfMemory(path_);
  if (bytes.size() > kGatherCapacity - gathered_) {
    if (Status status = flush(); !status.ok())
      return status;
    if (bytes.size() >= kGatherCapacity)
      return writeAll(fd_, bytes.data(), bytes.size(), path_);
  }
  std::memcpy(gather_.get() + gathered_, bytes.data(), bytes.size());
  gathered_ += bytes.size();
  return Status::success();
}

Status OutputFile::skip(uint64_t count) {
  if (Status status = flush(); !status.ok())
    return status;
  if (::lseek(fd_, static_cast<off_t>(count), SEEK_CUR) < 0)
    return systemError(path_, errno);
  written_ += count;
  return Status::success();
}

Status OutputFile::writeAt(uint64_t offset, std::string_view bytes) const {
  while (!bytes.empty()) {
    ssize_t n =
        ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return systemError(path_, errno);
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return Status::success();
}

Status OutputFile::write(std::string_view bytes) {
  if (inMemory_) {
    try {
      memoryBytes_.append(bytes);
    } catch (const std::exception &) {
      return outOfMemory(path_);
    }
    written_ += bytes.size();
    return Status::success();
  }
  written_ += bytes.size();
  return gather(bytes);
}

Status OutputFile::reserveMemory(uint64_t bytes) {
  if (!inMemory_)
    return Status::success();
  const uint64_t limit = inMemoryInputLimit();
  if (bytes > limit)
    return makeError("the bundle to assemble in memory, up to " +
                     std::to_string(bytes) + " bytes, exceeds the limit of " +
                     std::to_string(limit) + " bytes (" +
                     inMemoryLimitDescription() + ")");
  try {
    memoryBytes_.reserve(static_cast<size_t>(bytes));
  } catch (const std::exception &) {
    return outOfMemory(path_);
  }
  return Status::success();
}

Status OutputFile::overwrite(uint64_t offset, std::string_view bytes) {
  if (offset > written_ || bytes.size() > written_ - offset)
    return fileError(path_, "internal error: overwrite past the end");
  if (inMemory_) {
    memoryBytes_.replace(offset, bytes.size(), bytes);
    return Status::success();
  }
  if (Status status = flush(); !status.ok())
    return status;
  return writeAt(offset, bytes);
}

Status OutputFile::writeZeros(uint64_t count) {
  // Into a fresh temporary file, long runs of zeros are skipped over: the
  // gap reads back as zeros and costs neither time nor disk (a large
  // -bundle-align would otherwise write gigabytes).
  constexpr uint64_t kSkipThreshold = 1 << 16;
  if (!inMemory_ && writesTemporary() && count >= kSkipThreshold)
    return skip(count);
  static constexpr char kZeros[4096] = {};
  while (count > 0) {
    uint64_t step = count < sizeof kZeros ? count : sizeof kZeros;
    if (Status status = write(std::string_view(kZeros, step)); !status.ok())
      return status;
    count -= step;
  }
  return Status::success();
}

Status OutputFile::copyFrom(const InputFile &input, uint64_t offset,
                            uint64_t length) {
  if (length == 0)
    return Status::success();
  if (inMemory_ && input.fd() >= 0) {
    // Read straight into the buffer rather than through the input's
    // mapping, whose pages would otherwise count as a second copy.
    size_t start = memoryBytes_.size();
    try {
      memoryBytes_.resize(start + length);
    } catch (const std::exception &) {
      return outOfMemory(path_);
    }
    uint64_t done = 0;
    while (done < length) {
      ssize_t n =
          ::pread(input.fd(), &memoryBytes_[start + done], length - done,
                  static_cast<off_t>(input.fileOffset() + offset + done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        memoryBytes_.resize(start);
        return fileError(input.path(), n < 0 ? errnoMessage(errno)
                                             : "file shrank while reading");
      }
      done += static_cast<uint64_t>(n);
    }
    written_ += length;
    return Status::success();
  }
  // Small pieces and in-memory inputs go through the ordinary write path.
  if (inMemory_ || input.fd() < 0 || length < kSmallCopy)
    return write(input.contents().substr(offset, length));
  if (!gather_ && length <= kInKernelCopyLimit && gathered_ == 0) {
    // A few megabytes for an output that has no block yet (a HIP object's
    // entries): a fresh block would cost more in page faults than copying
    // in the kernel, page cache to page cache, costs in speed.
    while (length > 0) {
      loff_t from = static_cast<loff_t>(input.fileOffset() + offset);
      ssize_t n = ::copy_file_range(input.fd(), &from, fd_, nullptr,
                                    static_cast<size_t>(length), 0);
      if (n < 0 && errno == EINTR)
        continue;
      // Not for this pair of files (a device, another file system that
      // refuses): the rest goes through memory.
      if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
                    errno == EOPNOTSUPP || errno == EBADF))
        break;
      if (n < 0)
        return systemError(path_, errno);
      if (n == 0)
        return fileError(input.path(), "file shrank while reading");
      offset += static_cast<uint64_t>(n);
      length -= static_cast<uint64_t>(n);
      written_ += static_cast<uint64_t>(n);
    }
    if (length == 0)
      return Status::success();
  }
  if (!gather_)
    gather_.reset(new (std::nothrow) char[kGatherCapacity]);
  if (!gather_)
    return outOfMemory(path_);
  uint64_t done = 0;
  while (done < length) {
    if (gathered_ == kGatherCapacity)
      if (Status status = flush(); !status.ok())
        return status;
    size_t room = kGatherCapacity - gathered_;
    size_t step =
        length - done < room ? static_cast<size_t>(length - done) : room;
    ssize_t n = ::pread(input.fd(), gather_.get() + gathered_, step,
                        static_cast<off_t>(input.fileOffset() + offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fileError(input.path(), n < 0 ? errnoMessage(errno)
                                           : "file shrank while reading");
    gathered_ += static_cast<size_t>(n);
    done += static_cast<uint64_t>(n);
  }
  written_ += length;
  return Status::success();
}

Status runCopies(const InputFile &input,
                 const std::vector<PendingCopy> &copies) {
  std::vector<Status> results(copies.size());
  std::atomic<size_t> nextCopy{0};
  auto worker = [&] {
    for (size_t index = nextCopy++; index < copies.size(); index = nextCopy++) {
      const PendingCopy &copy = copies[index];
      try {
        results[index] = copy.output->copyFrom(input, copy.offset, copy.size);
      } catch (const std::exception &) {
        results[index] = outOfMemory(copy.output->path());
      }
    }
  };
  // Termination signals are handled on the main thread only (see
  // interrupt_cleanup.h).
  auto helper = [&worker] {
    TerminationSignalBlock block;
    worker();
  };
  // Two workers: the machines we target have two cores, and copies between
  // page-cached files are limited by one core's memory copying speed. Only
  // for large totals: starting a thread and sharing the page cache's locks
  // cost more than they save on a HIP object's few megabytes.
  uint64_t totalBytes = 0;
  for (const PendingCopy &copy : copies)
    totalBytes += copy.size;
  unsigned workers = totalBytes < kParallelCopyThreshold
                         ? 1
                         : std::min<size_t>(copies.size(), 2);
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < workers; ++i)
    threads.emplace_back(helper);
  worker();
  for (std::thread &thread : threads)
    thread.join();
  for (Status &result : results)
    if (!result.ok())
      return result;
  return Status::success();
}
int OutputFile::folderFd() const { return folder_ ? folder_->fd() : AT_FDCWD; }

} // namespace offbundle
