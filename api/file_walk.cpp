// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// walkFiles() of the public API (include/offbundle/offbundle.h): folders
// walked without following symlinks, files in them sorted out by their
// first bytes.
#include <offbundle/offbundle.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <set>
#include <sys/stat.h>
#include <system_error>
#include <tuple>
#include <unistd.h>

#include "support/error.h"
#include "support/folder_handle.h"
#include "support/input_file.h"
#include "support/replaced_files.h"

namespace offbundle::api {
namespace {

namespace fs = std::filesystem;

using FolderPointer = std::shared_ptr<const FolderHandle>;

// A file met at `path`, with why it could not be read ("" when it could).
WalkedFile walked(const std::string &path, bool inFolder,
                  std::string failure = "") {
  WalkedFile file;
  file.path = path;
  file.inFolder = inFolder;
  file.failure = std::move(failure);
  return file;
}

// Why `path` could not be read, as the other commands say it.
std::string readFailure(const std::string &path, int error) {
  return systemError(path, error).message;
}

void noteIdentity(const struct stat &info, WalkedFile &file) {
  file.device = static_cast<uint64_t>(info.st_dev);
  file.inode = static_cast<uint64_t>(info.st_ino);
  file.links = static_cast<uint64_t>(info.st_nlink);
  file.size = static_cast<uint64_t>(info.st_size);
  file.regular = S_ISREG(info.st_mode);
}

void noteFolder(const FolderHandle &folder, const std::string &name,
                WalkedFile &file) {
  file.folder = folder.resolvedPath();
  file.folderDevice = folder.identity().device;
  file.folderInode = folder.identity().inode;
  file.name = name;
}

// Whether a regular file found in a folder may hold GPU code, from its
// first bytes, with its identity noted in `file`; "" or why it could not
// be read. The file is opened in its folder without following a symlink
// (one may have replaced it since the folder was read) and without
// blocking (nor may a FIFO).
std::string probe(const FolderHandle &folder, const std::string &name,
                  bool &mayHoldCode, WalkedFile &file) {
  const int fd = ::openat(folder.fd(), name.c_str(),
                          O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return readFailure(file.path, errno);
  struct stat info;
  size_t wanted = kOffloadProbeBytes;
  if (::fstat(fd, &info) == 0) {
    noteIdentity(info, file);
    // A file shorter than that is read in one call, not two.
    if (info.st_size >= 0)
      wanted = std::min(wanted, static_cast<size_t>(info.st_size));
  }
  if (!file.regular) {
    // Swapped for something else since the folder was read.
    ::close(fd);
    mayHoldCode = false;
    return "";
  }
  std::string bytes(wanted, '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t count = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0) {
      const int error = errno;
      ::close(fd);
      return readFailure(file.path, error);
    }
    if (count == 0)
      break;
    got += static_cast<size_t>(count);
  }
  ::close(fd);
  bytes.resize(got);
  mayHoldCode = mayHoldOffloadCode(bytes);
  noteFolder(folder, name, file);
  return "";
}

// What a folder's entry is, as readdir tells it (DT_UNKNOWN where the file
// system does not, and then fstatat does).
enum class EntryKind { File, Folder, Symlink, Special, Unknown };

EntryKind kindOf(unsigned char type) {
  switch (type) {
  case DT_REG:
    return EntryKind::File;
  case DT_DIR:
    return EntryKind::Folder;
  case DT_LNK:
    return EntryKind::Symlink;
  case DT_UNKNOWN:
    return EntryKind::Unknown;
  default:
    return EntryKind::Special;
  }
}

// A folder being walked: its descriptor, its entries, sorted by name, and
// the next one.
struct OpenFolder {
  FolderPointer handle;
  std::vector<std::pair<std::string, EntryKind>> entries;
  size_t next = 0;
};

// Reads the entries of the folder open as `handle` into `opened`, sorted;
// the failure or "".
std::string readFolder(FolderPointer handle, OpenFolder &opened) {
  opened.handle = std::move(handle);
  const std::string &path = opened.handle->path();
  const int fd = ::dup(opened.handle->fd());
  DIR *folder = fd < 0 ? nullptr : ::fdopendir(fd);
  if (folder == nullptr) {
    const int error = errno;
    if (fd >= 0)
      ::close(fd);
    return readFailure(path, error);
  }
  for (;;) {
    errno = 0;
    const struct dirent *entry = ::readdir(folder);
    if (entry == nullptr)
      break;
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..")
      opened.entries.emplace_back(std::string(name), kindOf(entry->d_type));
  }
  const int error = errno;
  ::closedir(folder);
  if (error != 0)
    return readFailure(path, error);
  std::sort(opened.entries.begin(), opened.entries.end());
  return "";
}

// What `kind` is when readdir could not tell.
EntryKind kindAt(const FolderHandle &folder, const std::string &name,
                 EntryKind kind, int &error) {
  error = 0;
  if (kind != EntryKind::Unknown)
    return kind;
  struct stat info;
  if (::fstatat(folder.fd(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
    error = errno;
    return EntryKind::Unknown;
  }
  return S_ISREG(info.st_mode)   ? EntryKind::File
         : S_ISDIR(info.st_mode) ? EntryKind::Folder
         : S_ISLNK(info.st_mode) ? EntryKind::Symlink
                                 : EntryKind::Special;
}

// What the walk has reached so far, so that nothing is taken twice: the
// folders walked, and the files, by folder and name (two names of one file
// are two files here; the same name reached twice is one).
struct Reached {
  std::set<std::pair<uint64_t, uint64_t>> folders;
  std::set<std::tuple<uint64_t, uint64_t, std::string>> files;

  bool firstFolder(const FolderHandle &folder) {
    return folders.insert({folder.identity().device, folder.identity().inode})
        .second;
  }
  bool firstFile(const WalkedFile &file) {
    if (file.name.empty())
      return true; // not placed: taken as it comes
    return files.insert({file.folderDevice, file.folderInode, file.name})
        .second;
  }
};

// Sorts one entry of a folder into `walk`; a folder is returned, to walk
// next, in `subfolder`.
void sortEntry(const FolderHandle &folder, const std::string &name,
               EntryKind listed, FileWalk &walk, Reached &reached,
               std::optional<OpenFolder> &subfolder) {
  const std::string path = folder.pathOf(name);
  int error = 0;
  const EntryKind kind = kindAt(folder, name, listed, error);
  if (error != 0) {
    walk.files.push_back(walked(path, true, readFailure(path, error)));
  } else if (kind == EntryKind::Symlink) {
    ++walk.skipped.symlinks;
  } else if (kind == EntryKind::Folder) {
    auto child = folder.openChild(name);
    OpenFolder opened;
    if (!child)
      walk.files.push_back(walked(path, true, child.error().message));
    else if (!reached.firstFolder(**child))
      return;
    else if (std::string failure = readFolder(std::move(*child), opened);
             !failure.empty())
      walk.files.push_back(walked(path, true, std::move(failure)));
    else
      subfolder = std::move(opened);
  } else if (kind == EntryKind::Special) {
    ++walk.skipped.special;
  } else if (isTemporaryName(name)) {
    WalkedFile temporary = walked(path, true);
    noteFolder(folder, name, temporary);
    walk.temporaries.push_back(std::move(temporary));
  } else {
    WalkedFile file = walked(path, true);
    bool mayHoldCode = false;
    file.failure = probe(folder, name, mayHoldCode, file);
    if (!reached.firstFile(file))
      return;
    if (!file.failure.empty() || mayHoldCode)
      walk.files.push_back(std::move(file));
    else if (file.regular)
      ++walk.skipped.noGpuCode;
    else
      ++walk.skipped.special;
  }
}

// Walks one folder operand into `walk`, in the order `find` lists it with
// sorted names: each entry in turn, a folder's contents as it is reached.
// Open folders wait on a stack rather than in recursion, so that no depth
// of nesting can exhaust the call stack.
void walkFolder(FolderPointer root, FileWalk &walk, Reached &reached) {
  if (!reached.firstFolder(*root))
    return;
  std::vector<OpenFolder> open(1);
  const std::string path = root->path();
  if (std::string failure = readFolder(std::move(root), open.back());
      !failure.empty()) {
    walk.files.push_back(walked(path, true, std::move(failure)));
    return;
  }
  while (!open.empty()) {
    OpenFolder &folder = open.back();
    if (folder.next == folder.entries.size()) {
      open.pop_back();
      continue;
    }
    const auto &[name, kind] = folder.entries[folder.next++];
    std::optional<OpenFolder> subfolder;
    sortEntry(*folder.handle, name, kind, walk, reached, subfolder);
    if (subfolder)
      open.push_back(std::move(*subfolder));
  }
}

// A file named in the list: a symlink naming it is followed, once, here;
// from then on the file is reached through its folder. Opening it later
// says what is wrong, if anything is.
WalkedFile namedFile(const std::string &operand) {
  WalkedFile file = walked(operand, false);
  struct stat info;
  if (::stat(operand.c_str(), &info) != 0)
    return file;
  noteIdentity(info, file);
  char resolved[PATH_MAX];
  if (!file.regular || ::realpath(operand.c_str(), resolved) == nullptr)
    return file;
  const std::string real = resolved;
  struct stat folderInfo;
  if (::stat(folderOf(real).c_str(), &folderInfo) != 0)
    return file;
  file.folder = folderOf(real);
  file.folderDevice = static_cast<uint64_t>(folderInfo.st_dev);
  file.folderInode = static_cast<uint64_t>(folderInfo.st_ino);
  file.name = baseNameOf(real);
  return file;
}

} // namespace

FileWalk walkFiles(const std::vector<std::string> &paths) {
  FileWalk walk;
  Reached reached;
  for (const std::string &operand : paths) {
    std::error_code error;
    if (fs::is_directory(operand, error)) {
      walk.walkedFolder = true;
      auto root = FolderHandle::openNamed(operand);
      if (!root)
        walk.files.push_back(walked(operand, true, root.error().message));
      else
        walkFolder(std::move(*root), walk, reached);
    } else {
      WalkedFile file = namedFile(operand);
      if (reached.firstFile(file))
        walk.files.push_back(std::move(file));
    }
  }
  return walk;
}

} // namespace offbundle::api
