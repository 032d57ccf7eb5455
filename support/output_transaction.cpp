// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Output transactions: temporaries beside the outputs, renamed into place
// on commit (output_transaction.h).
#include "support/output_transaction.h"

#include "support/folder_handle.h"
#include "support/memory_limit.h"
#include "support/replaced_files.h"

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

std::optional<FileIdentity> identityOf(const struct stat &info) {
  return FileIdentity{static_cast<uint64_t>(info.st_dev),
                      static_cast<uint64_t>(info.st_ino),
                      static_cast<unsigned>(info.st_mode & S_IFMT)};
}

// What is at `path` now (not following a final symbolic link).
std::optional<FileIdentity> identityAt(const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0)
    return std::nullopt;
  return identityOf(info);
}

// The file that opening `path` to write would create: the end of a chain
// of symbolic links that leads nowhere yet, or `path` itself.
std::string fileCreatedThrough(const std::string &path) {
  std::string current = path;
  // As many links as the kernel follows (MAXSYMLINKS); a longer chain or a
  // loop fails later, when the temporary cannot be created beside it.
  for (int followed = 0; followed < 40; ++followed) {
    char target[PATH_MAX];
    const ssize_t length =
        ::readlink(current.c_str(), target, sizeof target - 1);
    if (length <= 0)
      break;
    target[length] = '\0';
    current = target[0] == '/' ? std::string(target)
                               : folderOf(current) + "/" + target;
  }
  return current;
}

// One spelling for each file name, so that two outputs naming one file
// are known to: its folder resolved, its own name kept. Unchanged when the
// folder cannot be resolved, which creating the temporary then reports.
std::string resolvedFolderOf(const std::string &path) {
  char folder[PATH_MAX];
  if (::realpath(folderOf(path).c_str(), folder) == nullptr)
    return path;
  const std::string resolved = folder;
  return (resolved == "/" ? resolved : resolved + "/") + baseNameOf(path);
}

// Whether files in the folder can be created but not renamed or removed
// (chattr +a). False where the file system keeps no such flag.
bool isAppendOnlyFolder(const std::string &folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return false;
  int flags = 0;
  const bool appendOnly =
      ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_APPEND_FL) != 0;
  ::close(fd);
  return appendOnly;
}

// Copies the first `size` bytes of one file into another, both at offset 0.
Status copyFileBytes(int from, int to, uint64_t size, const std::string &path) {
  loff_t fromOffset = 0;
  loff_t toOffset = 0;
  while (static_cast<uint64_t>(fromOffset) < size) {
    const size_t step = static_cast<size_t>(
        std::min<uint64_t>(size - static_cast<uint64_t>(fromOffset), 1 << 30));
    ssize_t n = ::copy_file_range(from, &fromOffset, to, &toOffset, step, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n > 0)
      continue;
    if (n == 0)
      return fileError(path, "the output's temporary shrank");
    if (errno != EXDEV && errno != EINVAL && errno != ENOSYS &&
        errno != EOPNOTSUPP)
      return systemError(path, errno);
    // No copy in the kernel for this pair of files: through memory.
    std::string block(std::min<uint64_t>(size, kGatherCapacity), '\0');
    while (static_cast<uint64_t>(fromOffset) < size) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(
          size - static_cast<uint64_t>(fromOffset), block.size()));
      ssize_t got = ::pread(from, block.data(), want, fromOffset);
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return fileError(path, got < 0 ? errnoMessage(errno)
                                       : "the output's temporary shrank");
      for (ssize_t done = 0; done < got;) {
        ssize_t put = ::pwrite(to, block.data() + done,
                               static_cast<size_t>(got - done), toOffset);
        if (put < 0 && errno == EINTR)
          continue;
        if (put < 0)
          return systemError(path, errno);
        done += put;
        toOffset += put;
      }
      fromOffset += got;
    }
  }
  return Status::success();
}

int systemRename(int folder, const char *from, const char *to, unsigned flags) {
  return ::renameat2(folder, from, folder, to, flags);
}

// What `name` in `folder` is now (not following a final symbolic link).
std::optional<FileIdentity> identityIn(int folder, const std::string &name) {
  struct stat info;
  if (::fstatat(folder, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
    return std::nullopt;
  return identityOf(info);
}

// Why an output is not put in place when its destination is no longer what
// it was when the output was created.
Error changedUnderUs(const std::string &path) {
  return fileError(path,
                   "the output path changed while the tool ran (something "
                   "else was put there); it was left as it is");
}

} // namespace

OutputTransaction::OutputTransaction()
    : rename_(systemRename),
      chmod_([](int fd, unsigned mode) { return ::fchmod(fd, mode); }) {}

OutputTransaction::~OutputTransaction() {
  for (auto &output : outputs_) {
    if (output->fd_ >= 0)
      ::close(output->fd_);
    if (!committed_ && !output->tempPath_.empty())
      ::unlinkat(output->folderFd(), output->tempName_.c_str(), 0);
    output->temporaryRegistration_.release();
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

Result<OutputFile *> OutputTransaction::create(const std::string &path,
                                               unsigned newFileMode) {
  if (path == "-") {
    auto output = std::make_unique<OutputFile>();
    output->path_ = path;
    output->inMemory_ = true;
    outputs_.push_back(std::move(output));
    return outputs_.back().get();
  }
  return createFile(path, newFileMode);
}

Result<OutputFile *> OutputTransaction::createFile(const std::string &path,
                                                   unsigned newFileMode) {
  // An empty name names no file, as open("") says.
  if (path.empty())
    return systemError(path, ENOENT);
  auto output = std::make_unique<OutputFile>();
  output->path_ = path;
  std::string destination = path;
  struct stat info;
  bool exists = ::stat(path.c_str(), &info) == 0;
  // A symbolic link a rename replaces (see renameOverPaths).
  struct stat linkInfo;
  const bool replacesLink = renamesOverPaths_ &&
                            ::lstat(path.c_str(), &linkInfo) == 0 &&
                            S_ISLNK(linkInfo.st_mode) &&
                            (linksReplaced_ == LinksReplaced::All || !exists ||
                             S_ISREG(info.st_mode));
  if (exists && !replacesLink && S_ISDIR(info.st_mode))
    return systemError(path, EISDIR);
  if (exists && !replacesLink && !S_ISREG(info.st_mode))
    return createDirect(std::move(output));
  unsigned replacedMode = 0;
  if (replacesLink) {
    // The link itself is replaced, as a rename over it replaces it.
    destination = resolvedFolderOf(path);
    output->replaced_ = identityAt(destination);
    exists = true;
  } else if (exists) {
    // Write through symbolic links, as opening the path would.
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) != nullptr)
      destination = resolved;
    // A rename replaces a file it may not write to.
    if (!renamesOverPaths_ && ::access(path.c_str(), W_OK) != 0)
      return systemError(path, errno);
    replacedMode = info.st_mode & 07777;
    output->replaced_ = identityAt(destination);
    if (!output->replaced_)
      return systemError(path, errno);
  } else {
    destination = resolvedFolderOf(fileCreatedThrough(path));
    output->replaced_ = identityAt(destination);
  }
  if (auto earlier = byDestination_.find(destination);
      earlier != byDestination_.end())
    earlier->second->superseded_ = true;
  output->destination_ = destination;
  output->newFileMode_ = newFileMode;
  // Every later step happens in this folder, held by descriptor, whatever
  // is renamed on the way to it meanwhile.
  // One descriptor for all outputs in one folder: an -output-dir of
  // thousands of files must not need thousands.
  std::shared_ptr<const FolderHandle> &folder =
      foldersByPath_[folderOf(destination)];
  if (!folder) {
    int folderError = 0;
    auto opened =
        FolderHandle::openForOutputs(folderOf(destination), folderError);
    if (!opened) {
      foldersByPath_.erase(folderOf(destination));
      return systemError(path, folderError);
    }
    folder = std::move(*opened);
  }
  output->folder_ = folder;
  output->destinationName_ = baseNameOf(destination);
  if (isAppendOnlyFolder(folderOf(destination)))
    return createUnnamed(std::move(output), folderOf(destination));

  const bool keepsOldMode = exists && !replacedFilesTakeNewMode_;
  // The temporary is created and registered with termination signals
  // blocked, so that a signal either finds it registered or finds no file.
  TerminationSignalBlock block;
  int fd = -1;
  std::string temporary;
  for (int attempt = 0; fd < 0; ++attempt) {
    temporary = temporaryNameFor(output->destinationName_);
    // A new output gets the mode open(O_CREAT, newFileMode) would give it,
    // umask and default ACLs applied by the kernel.
    fd = ::openat(output->folderFd(), temporary.c_str(),
                  O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  keepsOldMode ? 0600 : newFileMode & 0777);
    // A file we may write in a folder we may not: LLVM's bundler opens it
    // and writes it in place, and so does commit here, from a temporary
    // kept elsewhere. A rename, or a file rewritten in place, needs the
    // folder.
    if (fd < 0 && errno == EACCES && exists && !renamesOverPaths_ &&
        ::access(path.c_str(), W_OK) == 0)
      return createUnnamed(std::move(output), P_tmpdir);
    // A folder we cannot create files in fails here with the same reason
    // opening the destination itself would give.
    if (fd < 0 && (errno != EEXIST || attempt == 100))
      return systemError(path, errno);
  }
  // Held while the temporary is written, so that a later run can tell a
  // temporary someone writes from one a killed run left.
  (void)::flock(fd, LOCK_EX | LOCK_NB);
  output->fd_ = fd;
  output->tempPath_ = folderOf(destination) + "/" + temporary;
  output->tempName_ = temporary;
  output->temporaryRegistration_ =
      registerTemporary(temporary, output->folderFd());
  outputs_.push_back(std::move(output));
  OutputFile *created = outputs_.back().get();
  byDestination_[destination] = created;
  struct stat temporaryInfo;
  if (::fstat(fd, &temporaryInfo) != 0)
    return systemError(path, errno);
  created->temporaryIdentity_ = identityOf(temporaryInfo);
  // A replaced output keeps the permissions of the file it replaces.
  if (keepsOldMode && chmod_(fd, replacedMode) != 0)
    return fileError(path, "cannot give the output the permissions of the "
                           "file it replaces: " +
                               errnoMessage(errno));
  return created;
}

// Devices and pipes (/dev/null, a FIFO) cannot be replaced by a rename:
// they are written directly, as they hold no bytes to protect.
Result<OutputFile *>
OutputTransaction::createDirect(std::unique_ptr<OutputFile> output) {
  int fd = ::open(output->path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return systemError(output->path_, errno);
  output->fd_ = fd;
  outputs_.push_back(std::move(output));
  return outputs_.back().get();
}

// An output copied over its destination at commit: a temporary without a
// name, which nothing needs to remove, in `folder` (the destination's own
// when it is append-only, so on its file system).
Result<OutputFile *>
OutputTransaction::createUnnamed(std::unique_ptr<OutputFile> output,
                                 const std::string &folder) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return systemError(output->path_, errno);
  output->fd_ = fd;
  output->copiedInAtCommit_ = true;
  OutputFile *created = output.get();
  outputs_.push_back(std::move(output));
  byDestination_[created->destination_] = created;
  return created;
}

// Copies an unnamed temporary over its destination, which is opened as it
// is, so that it keeps its owner, permissions and links, as the files LLVM's
// tools write do; it must still be the file found when the output was
// created.
Status OutputTransaction::copyIn(OutputFile &output) {
  const int folder = output.folderFd();
  const char *destination = output.destinationName_.c_str();
  int to = -1;
  if (output.replaced_ && output.replaced_->type == S_IFLNK) {
    // A link a rename would have replaced: as LLVM's copy when the rename
    // fails, through the link, creating what it names if need be.
    if (identityIn(folder, output.destinationName_) != output.replaced_)
      return changedUnderUs(output.path_);
    to = ::openat(folder, destination, O_WRONLY | O_CREAT | O_CLOEXEC,
                  output.newFileMode_ & 0777);
    if (to < 0)
      return systemError(output.path_, errno);
  } else if (output.replaced_) {
    to = ::openat(folder, destination, O_WRONLY | O_CLOEXEC);
    struct stat info;
    if (to >= 0 &&
        (::fstat(to, &info) != 0 || identityOf(info) != output.replaced_)) {
      ::close(to);
      return changedUnderUs(output.path_);
    }
  }
  // A new output, or one whose file was removed meanwhile.
  if (to < 0 && (!output.replaced_ || errno == ENOENT))
    to = ::openat(folder, destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  output.newFileMode_ & 0777);
  if (to < 0)
    return errno == EEXIST ? changedUnderUs(output.path_)
                           : systemError(output.path_, errno);
  Status status =
      ::ftruncate(to, 0) == 0
          ? copyFileBytes(output.fd_, to, output.written_, output.path_)
          : systemError(output.path_, errno);
  if (::close(to) != 0 && status.ok())
    status = systemError(output.path_, errno);
  return status;
}

Status OutputTransaction::finish(OutputFile &output) {
  if (output.inMemory_ || output.fd_ < 0)
    return Status::success();
  if (Status status = output.flush(); !status.ok())
    return status;
  // Padding may have been skipped over rather than written (see
  // writeZeros); setting the length materialises it as a hole.
  if (output.writesTemporary() &&
      ::ftruncate(output.fd_, static_cast<off_t>(output.written_)) != 0)
    return systemError(output.path_, errno);
  output.gather_.reset();
  // An unnamed temporary's descriptor is all that holds its bytes.
  if (output.copiedInAtCommit_)
    return Status::success();
  int fd = output.fd_;
  output.fd_ = -1;
  if (::close(fd) != 0)
    return systemError(output.path_, errno);
  return Status::success();
}

void OutputTransaction::undoPlacements(const std::vector<Placed> &placed) {
  for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
    const int folder = it->output->folderFd();
    const char *destination = it->output->destinationName_.c_str();
    const char *temporary = it->output->tempName_.c_str();
    if (it->how == Placement::Swapped)
      rename_(folder, temporary, destination, RENAME_EXCHANGE);
    else if (it->how == Placement::Created &&
             identityIn(folder, it->output->destinationName_) ==
                 it->output->temporaryIdentity_)
      ::unlinkat(folder, destination, 0);
  }
}

// An output replacing a file swaps with it. False when that file was
// removed meanwhile: the output is then placed as a new one.
Result<bool> OutputTransaction::placeReplacing(OutputFile &output,
                                               std::vector<Placed> &placed) {
  const int folder = output.folderFd();
  const char *temporary = output.tempName_.c_str();
  const char *destination = output.destinationName_.c_str();
  if (rename_(folder, temporary, destination, RENAME_EXCHANGE) == 0) {
    // What was swapped out must be the file that was there when the
    // output was created: anything else (a folder made meanwhile, a
    // file put in its place) goes straight back.
    if (identityIn(folder, output.tempName_) != output.replaced_) {
      rename_(folder, temporary, destination, RENAME_EXCHANGE);
      return changedUnderUs(output.path_);
    }
    placed.push_back({&output, Placement::Swapped});
    return true;
  }
  if (errno == EINVAL || errno == ENOSYS) {
    // A file system that cannot swap: check, then rename over the old
    // file (which then cannot be undone).
    if (identityIn(folder, output.destinationName_) != output.replaced_)
      return changedUnderUs(output.path_);
    if (rename_(folder, temporary, destination, 0) != 0)
      return systemError(output.path_, errno);
    placed.push_back({&output, Placement::Overwritten});
    return true;
  }
  if (errno != ENOENT)
    return systemError(output.path_, errno);
  return false;
}

// An output with no file to replace is placed without replacing anything.
Status OutputTransaction::placeNew(OutputFile &output,
                                   std::vector<Placed> &placed) {
  const int folder = output.folderFd();
  const char *temporary = output.tempName_.c_str();
  const char *destination = output.destinationName_.c_str();
  if (rename_(folder, temporary, destination, RENAME_NOREPLACE) == 0) {
    placed.push_back({&output, Placement::Created});
    return Status::success();
  }
  if (errno == EEXIST)
    return changedUnderUs(output.path_);
  if (errno != EINVAL && errno != ENOSYS)
    return systemError(output.path_, errno);
  // A file system without RENAME_NOREPLACE: a hard link is just as
  // careful not to replace anything.
  if (::linkat(folder, temporary, folder, destination, 0) != 0)
    return errno == EEXIST ? changedUnderUs(output.path_)
                           : systemError(output.path_, errno);
  placed.push_back({&output, Placement::Created});
  if (::unlinkat(folder, temporary, 0) != 0)
    return systemError(output.path_, errno);
  return Status::success();
}

Status OutputTransaction::place(OutputFile &output,
                                std::vector<Placed> &placed) {
  if (output.replaced_) {
    Result<bool> replaced = placeReplacing(output, placed);
    if (!replaced)
      return replaced.takeError();
    if (*replaced)
      return Status::success();
    // The old file was removed meanwhile: create the output as new.
  }
  return placeNew(output, placed);
}

Status OutputTransaction::commit() {
  for (auto &output : outputs_)
    if (Status status = finish(*output); !status.ok())
      return status;

  // Renames cannot happen all at once. An existing destination is therefore
  // swapped with its temporary, which keeps the old bytes under the
  // temporary's name until every output is in place; if a later step fails,
  // the earlier ones are swapped back and every output is as it was. A
  // signal must not stop this half-way: termination signals wait until it
  // is over.
  TerminationSignalBlock block;
  std::vector<Placed> placed;
  for (auto &output : outputs_) {
    if (output->inMemory_ || output->tempPath_.empty())
      continue;
    if (output->superseded_) {
      ::unlinkat(output->folderFd(), output->tempName_.c_str(), 0);
      output->tempPath_.clear();
      output->temporaryRegistration_.release();
      continue;
    }
    // Tells why this output cannot be placed, after putting back the
    // others.
    if (Status status = place(*output, placed); !status.ok()) {
      undoPlacements(placed);
      return status;
    }
  }
  // Outputs in append-only folders are copied last, as they cannot be put
  // back: a failure before the first of them is written leaves every
  // destination as it was.
  for (auto &output : outputs_)
    if (output->copiedInAtCommit_ && !output->superseded_)
      if (Status status = copyIn(*output); !status.ok()) {
        undoPlacements(placed);
        return status;
      }
  // Every output is in place; what remains under a swapped temporary's name
  // is the old contents, checked above to be the file that was replaced.
  Status status = Status::success();
  for (const Placed &entry : placed) {
    if (entry.how == Placement::Swapped &&
        ::unlinkat(entry.output->folderFd(), entry.output->tempName_.c_str(),
                   0) != 0 &&
        status.ok())
      status = fileError(entry.output->tempPath_,
                         "cannot remove the replaced output's old contents: " +
                             errnoMessage(errno));
    entry.output->tempPath_.clear();
    entry.output->temporaryRegistration_.release();
  }
  committed_ = true;
  if (!status.ok())
    return status;

  // Standard output cannot be taken back, so it comes last.
  for (auto &output : outputs_) {
    if (!output->inMemory_ || output->memoryOnly_)
      continue;
    if (Status written = writeAll(STDOUT_FILENO, output->memoryBytes_.data(),
                                  output->memoryBytes_.size(), "-");
        !written.ok())
      return written;
  }
  return Status::success();
}

} // namespace offbundle
