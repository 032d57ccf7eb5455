#include "bundler/file_io.h"
#include "bundler/memory_limit.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace offbundle {
namespace {

// Copies shorter than this come from the input's mapping, in memory; longer
// ones are read with pread (no page faults on the mapping).
constexpr size_t kSmallCopy = 1 << 16;
// The size of the blocks outputs are written in (see OutputFile::gather_).
// Measured on ext4: 2 MiB blocks were as fast as 8 or 32 MiB ones, and
// several outputs being written at once stay within a few MiB each.
constexpr size_t kGatherCapacity = 2 << 20;

Status writeAll(int fd, const char *data, size_t size,
                const std::string &path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fileError(path, errnoMessage(errno));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::success();
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string baseNameOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string errnoMessage(int error) { return std::strerror(error); }

Result<std::unique_ptr<InputFile>> InputFile::open(const std::string &path) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->path_ = path;
  int fd = path == "-" ? ::dup(STDIN_FILENO) : ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return fileError(path, errnoMessage(errno));
  input->fd_ = fd;
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return fileError(path, errnoMessage(errno));
  if (S_ISDIR(info.st_mode))
    return fileError(path, errnoMessage(EISDIR));

  if (S_ISREG(info.st_mode)) {
    input->size_ = static_cast<uint64_t>(info.st_size);
    if (input->size_ > 0) {
      void *map = ::mmap(nullptr, input->size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED)
        return fileError(path, errnoMessage(errno));
      input->data_ = map;
      input->mapBase_ = map;
      input->mapSize_ = input->size_;
    }
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
      return fileError(path, errnoMessage(errno));
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

std::unique_ptr<InputFile> InputFile::fromMemory(const std::string &path,
                                                 std::string bytes) {
  std::unique_ptr<InputFile> input(new InputFile());
  input->path_ = path;
  input->buffer_ = std::move(bytes);
  input->data_ = input->buffer_.data();
  input->size_ = input->buffer_.size();
  return input;
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

InputFile::~InputFile() {
  if (mapBase_ != nullptr)
    ::munmap(const_cast<void *>(mapBase_), mapSize_);
  if (fd_ >= 0 && ownsFd_)
    ::close(fd_);
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
    gather_.reset(new char[kGatherCapacity]);
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

Status OutputFile::write(std::string_view bytes) {
  written_ += bytes.size();
  if (inMemory_) {
    memoryBytes_.append(bytes);
    return Status::success();
  }
  return gather(bytes);
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
  while (!bytes.empty()) {
    ssize_t n =
        ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fileError(path_, errnoMessage(errno));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return Status::success();
}

Status OutputFile::writeZeros(uint64_t count) {
  // Into a fresh temporary file, long runs of zeros are skipped over: the
  // gap reads back as zeros and costs neither time nor disk (a large
  // -bundle-align would otherwise write gigabytes).
  constexpr uint64_t kSkipThreshold = 1 << 16;
  if (!inMemory_ && !tempPath_.empty() && count >= kSkipThreshold) {
    if (Status status = flush(); !status.ok())
      return status;
    if (::lseek(fd_, static_cast<off_t>(count), SEEK_CUR) < 0)
      return fileError(path_, errnoMessage(errno));
    written_ += count;
    return Status::success();
  }
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
    memoryBytes_.resize(start + length);
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
  if (!gather_)
    gather_.reset(new char[kGatherCapacity]);
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

OutputTransaction::OutputTransaction() {
  // The mode a plain open(O_CREAT, 0666) would give a new file.
  creationMask_ = ::umask(022);
  ::umask(creationMask_);
}

OutputTransaction::~OutputTransaction() {
  for (auto &output : outputs_) {
    if (output->fd_ >= 0)
      ::close(output->fd_);
    if (!committed_ && !output->tempPath_.empty())
      ::unlink(output->tempPath_.c_str());
  }
}

OutputFile *OutputTransaction::createInMemory() {
  auto output = std::make_unique<OutputFile>();
  output->path_ = "<memory>";
  output->inMemory_ = true;
  output->memoryOnly_ = true;
  outputs_.push_back(std::move(output));
  return outputs_.back().get();
}

Result<OutputFile *> OutputTransaction::create(const std::string &path) {
  if (path == "-") {
    auto output = std::make_unique<OutputFile>();
    output->path_ = path;
    output->inMemory_ = true;
    outputs_.push_back(std::move(output));
    return outputs_.back().get();
  }
  return createFile(path);
}

Result<OutputFile *> OutputTransaction::createFile(const std::string &path) {
  auto output = std::make_unique<OutputFile>();
  output->path_ = path;
  std::string destination = path;
  struct stat info;
  bool exists = ::stat(path.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode))
    return fileError(path, errnoMessage(EISDIR));
  if (exists && !S_ISREG(info.st_mode)) {
    // Devices and pipes (/dev/null, a FIFO) cannot be replaced by a rename;
    // write to them directly, as they hold no bytes to protect.
    int fd = ::open(path.c_str(), O_WRONLY);
    if (fd < 0)
      return fileError(path, errnoMessage(errno));
    output->fd_ = fd;
    outputs_.push_back(std::move(output));
    return outputs_.back().get();
  }
  if (exists) {
    // Write through symbolic links, as opening the path would.
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) != nullptr)
      destination = resolved;
    output->mode_ = info.st_mode & 07777;
    if (::access(path.c_str(), W_OK) != 0)
      return fileError(path, errnoMessage(errno));
  } else {
    output->mode_ = 0666 & ~creationMask_;
  }

  std::string pattern =
      directoryOf(destination) + "/." + baseNameOf(destination) + ".XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  // A folder we cannot create files in fails here with the same reason
  // opening the destination itself would give.
  if (fd < 0)
    return fileError(path, errnoMessage(errno));
  output->fd_ = fd;
  output->tempPath_ = name.data();
  ::fchmod(fd, output->mode_);
  output->destination_ = destination;
  outputs_.push_back(std::move(output));
  return outputs_.back().get();
}

Status runCopies(const InputFile &input,
                 const std::vector<PendingCopy> &copies) {
  std::vector<Status> results(copies.size());
  std::atomic<size_t> nextCopy{0};
  auto worker = [&] {
    for (size_t index = nextCopy++; index < copies.size(); index = nextCopy++) {
      const PendingCopy &copy = copies[index];
      results[index] = copy.output->copyFrom(input, copy.offset, copy.size);
    }
  };
  // Two workers: the machines we target have two cores, and copies between
  // page-cached files are limited by one core's memory copying speed.
  unsigned workers = std::min<size_t>(copies.size(), 2);
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < workers; ++i)
    threads.emplace_back(worker);
  worker();
  for (std::thread &thread : threads)
    thread.join();
  for (Status &result : results)
    if (!result.ok())
      return result;
  return Status::success();
}

Status OutputTransaction::finish(OutputFile &output) {
  if (output.inMemory_ || output.fd_ < 0)
    return Status::success();
  if (Status status = output.flush(); !status.ok())
    return status;
  // Padding may have been skipped over rather than written (see
  // writeZeros); setting the length materialises it as a hole.
  if (!output.tempPath_.empty() &&
      ::ftruncate(output.fd_, static_cast<off_t>(output.written_)) != 0)
    return fileError(output.path_, errnoMessage(errno));
  output.gather_.reset();
  int fd = output.fd_;
  output.fd_ = -1;
  if (::close(fd) != 0)
    return fileError(output.path_, errnoMessage(errno));
  return Status::success();
}

Status OutputTransaction::commit() {
  for (auto &output : outputs_)
    if (Status status = finish(*output); !status.ok())
      return status;

  // Renames cannot happen all at once. An existing destination is therefore
  // swapped with its temporary (RENAME_EXCHANGE), which keeps the old bytes
  // under the temporary's name until every output is in place; if a later
  // step fails, the earlier ones are swapped back and every output is as it
  // was.
  struct Placed {
    OutputFile *output;
    bool swapped; // the temporary now holds the old contents
  };
  std::vector<Placed> placed;
  auto undo = [&placed] {
    for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
      const std::string &destination = it->output->destination_;
      const std::string &temporary = it->output->tempPath_;
      if (it->swapped)
        ::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, destination.c_str(),
                    RENAME_EXCHANGE);
      else
        ::unlink(destination.c_str());
    }
  };
  for (auto &output : outputs_) {
    if (output->inMemory_ || output->tempPath_.empty())
      continue;
    const char *temporary = output->tempPath_.c_str();
    const char *destination = output->destination_.c_str();
    if (::renameat2(AT_FDCWD, temporary, AT_FDCWD, destination,
                    RENAME_EXCHANGE) == 0) {
      placed.push_back({output.get(), true});
      continue;
    }
    // No destination yet, or a file system that cannot swap: a plain rename
    // (which, over an existing file, cannot be undone).
    if ((errno == ENOENT || errno == EINVAL || errno == ENOSYS) &&
        ::rename(temporary, destination) == 0) {
      placed.push_back({output.get(), false});
      continue;
    }
    int error = errno;
    undo();
    return fileError(output->path_, errnoMessage(error));
  }
  for (const Placed &entry : placed) {
    // What remains under a swapped temporary's name is the old contents.
    if (entry.swapped)
      ::unlink(entry.output->tempPath_.c_str());
    entry.output->tempPath_.clear();
  }
  committed_ = true;

  // Standard output cannot be taken back, so it comes last.
  for (auto &output : outputs_) {
    if (!output->inMemory_ || output->memoryOnly_)
      continue;
    if (Status status = writeAll(STDOUT_FILENO, output->memoryBytes_.data(),
                                 output->memoryBytes_.size(), "-");
        !status.ok())
      return status;
  }
  return Status::success();
}

} // namespace offbundle
