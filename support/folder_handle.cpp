// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Folders held by descriptor (see folder_handle.h).
#include "support/folder_handle.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "support/input_file.h"

namespace offbundle {
namespace {

constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;

// Why a folder opened from its resolved path cannot be used.
Error folderError(const std::string &path, int error) {
  if (error == ELOOP || error == ENOTDIR)
    return fileError(path, "a folder on its path is now a symbolic link or "
                           "no folder at all (something else was put "
                           "there); not followed, left as it is");
  return systemError(path, error);
}

// `resolved` opened one component at a time from the root, none followed
// if it is a symbolic link: what openat2 RESOLVE_NO_SYMLINKS does, for
// kernels that lack it.
int openComponentwise(const std::string &resolved) {
  int fd = ::open("/", kFolderFlags);
  size_t start = 1;
  while (fd >= 0 && start < resolved.size()) {
    size_t end = resolved.find('/', start);
    if (end == std::string::npos)
      end = resolved.size();
    const std::string component = resolved.substr(start, end - start);
    start = end + 1;
    if (component.empty())
      continue;
    const int next = ::openat(fd, component.c_str(), kFolderFlags | O_NOFOLLOW);
    const int error = errno;
    ::close(fd);
    fd = next;
    errno = error;
  }
  return fd;
}

int openWithoutSymlinks(const std::string &resolved) {
  struct open_how how = {};
  how.flags = kFolderFlags;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  const long fd =
      ::syscall(SYS_openat2, AT_FDCWD, resolved.c_str(), &how, sizeof how);
  if (fd < 0 && (errno == ENOSYS || errno == E2BIG || errno == EPERM))
    return openComponentwise(resolved);
  return static_cast<int>(fd);
}

// The path the kernel holds for an open descriptor (symbolic links
// resolved when it was opened); `fallback` resolved where /proc is absent.
std::string resolvedPathOf(int fd, const std::string &fallback) {
  char target[PATH_MAX];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t length = ::readlink(link.c_str(), target, sizeof target - 1);
  if (length > 0 && target[0] == '/') {
    target[length] = '\0';
    return target;
  }
  return ::realpath(fallback.c_str(), target) != nullptr ? target : fallback;
}

} // namespace

FolderHandle::FolderHandle(int fd, std::string path)
    : fd_(fd), path_(std::move(path)) {}

FolderHandle::~FolderHandle() {
  if (fd_ >= 0)
    ::close(fd_);
}

std::string FolderHandle::pathOf(const std::string &name) const {
  return path_ + (!path_.empty() && path_.back() == '/' ? "" : "/") + name;
}

Result<std::shared_ptr<const FolderHandle>>
FolderHandle::adopt(int fd, const std::string &path, std::string resolved) {
  std::shared_ptr<FolderHandle> folder(new FolderHandle(fd, path));
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return systemError(path, errno);
  folder->identity_ = {static_cast<uint64_t>(info.st_dev),
                       static_cast<uint64_t>(info.st_ino)};
  folder->resolved_ =
      resolved.empty() ? resolvedPathOf(fd, path) : std::move(resolved);
  return std::shared_ptr<const FolderHandle>(std::move(folder));
}

Result<std::shared_ptr<const FolderHandle>>
FolderHandle::openNamed(const std::string &path) {
  const int fd = ::open(path.c_str(), kFolderFlags);
  if (fd < 0)
    return systemError(path, errno);
  return adopt(fd, path, "");
}

Result<std::shared_ptr<const FolderHandle>>
FolderHandle::openForOutputs(const std::string &path, int &error) {
  const int fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  error = errno;
  if (fd < 0)
    return systemError(path, error);
  return adopt(fd, path, path);
}

Result<std::shared_ptr<const FolderHandle>>
FolderHandle::openResolved(const std::string &resolved,
                           const NodeIdentity &expected) {
  const int fd = openWithoutSymlinks(resolved);
  if (fd < 0)
    return folderError(resolved, errno);
  auto folder = adopt(fd, resolved, resolved);
  if (folder && (*folder)->identity() != expected)
    return fileError(resolved, "the folder changed while the tool ran "
                               "(another was put in its place); left as "
                               "it is");
  return folder;
}

Result<std::shared_ptr<const FolderHandle>>
FolderHandle::openChild(const std::string &name) const {
  const int fd = ::openat(fd_, name.c_str(), kFolderFlags | O_NOFOLLOW);
  if (fd < 0)
    return errno == ELOOP || errno == ENOTDIR
               ? Result<std::shared_ptr<const FolderHandle>>(
                     folderError(pathOf(name), errno))
               : Result<std::shared_ptr<const FolderHandle>>(
                     systemError(pathOf(name), errno));
  return adopt(fd, pathOf(name),
               resolved_ + (resolved_ == "/" ? "" : "/") + name);
}

} // namespace offbundle
