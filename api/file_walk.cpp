// walkFiles() of the public API (include/offbundle/offbundle.h): folders
// walked without following symlinks, files in them sorted out by their
// first bytes.
#include <offbundle/offbundle.h>

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

#include "support/error.h"
#include "support/file_io.h"
#include "support/replaced_files.h"

namespace offbundle::api {
namespace {

namespace fs = std::filesystem;

// Why `path` could not be read, as the other commands say it.
std::string readFailure(const std::string &path, int error) {
  return fileError(path, errnoMessage(error)).message;
}

void noteIdentity(const struct stat &info, WalkedFile &file) {
  file.device = static_cast<uint64_t>(info.st_dev);
  file.inode = static_cast<uint64_t>(info.st_ino);
  file.links = static_cast<uint64_t>(info.st_nlink);
  file.size = static_cast<uint64_t>(info.st_size);
}

// Whether a regular file found in a folder may hold GPU code, from its
// first bytes, with its identity noted in `file`; "" or why it could not
// be read. The file is opened without following a symlink (one may have
// replaced it since the folder was read) and without blocking (nor may a
// FIFO).
std::string probe(const std::string &path, bool &mayHoldCode,
                  WalkedFile &file) {
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return readFailure(path, errno);
  struct stat info;
  size_t wanted = kOffloadProbeBytes;
  if (::fstat(fd, &info) == 0) {
    noteIdentity(info, file);
    // A file shorter than that is read in one call, not two.
    if (info.st_size >= 0)
      wanted = std::min(wanted, static_cast<size_t>(info.st_size));
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
      return readFailure(path, error);
    }
    if (count == 0)
      break;
    got += static_cast<size_t>(count);
  }
  ::close(fd);
  bytes.resize(got);
  mayHoldCode = mayHoldOffloadCode(bytes);
  return "";
}

// What a folder's entry is, as readdir tells it (DT_UNKNOWN where the file
// system does not, and then lstat does).
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

// A folder being walked: its entries, sorted by name, and the next one.
struct OpenFolder {
  std::string path;
  std::vector<std::pair<std::string, EntryKind>> entries;
  size_t next = 0;
};

// Reads a folder's entries into `opened`, sorted; the failure or "".
std::string readFolder(const std::string &path, OpenFolder &opened) {
  opened.path = path;
  DIR *folder = ::opendir(path.c_str());
  if (folder == nullptr)
    return readFailure(path, errno);
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
EntryKind kindAt(const std::string &path, EntryKind kind, int &error) {
  error = 0;
  if (kind != EntryKind::Unknown)
    return kind;
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    error = errno;
    return EntryKind::Unknown;
  }
  return S_ISREG(info.st_mode)   ? EntryKind::File
         : S_ISDIR(info.st_mode) ? EntryKind::Folder
         : S_ISLNK(info.st_mode) ? EntryKind::Symlink
                                 : EntryKind::Special;
}

// Sorts one entry of a folder into `walk`; a folder is returned, to walk
// next, in `subfolder`.
void sortEntry(const std::string &path, EntryKind listed, FileWalk &walk,
               std::optional<OpenFolder> &subfolder) {
  int error = 0;
  const EntryKind kind = kindAt(path, listed, error);
  if (error != 0) {
    walk.files.push_back({path, true, readFailure(path, error)});
  } else if (kind == EntryKind::Symlink) {
    ++walk.skipped.symlinks;
  } else if (kind == EntryKind::Folder) {
    OpenFolder opened;
    if (std::string failure = readFolder(path, opened); !failure.empty())
      walk.files.push_back({path, true, std::move(failure)});
    else
      subfolder = std::move(opened);
  } else if (kind == EntryKind::Special) {
    ++walk.skipped.special;
  } else if (isTemporaryName(baseNameOf(path))) {
    walk.temporaries.push_back(path);
  } else {
    WalkedFile file{path, true, "", 0, 0, 0};
    bool mayHoldCode = false;
    file.failure = probe(path, mayHoldCode, file);
    if (!file.failure.empty() || mayHoldCode)
      walk.files.push_back(std::move(file));
    else
      ++walk.skipped.noGpuCode;
  }
}

// Walks one folder operand into `walk`, in the order `find` lists it with
// sorted names: each entry in turn, a folder's contents as it is reached.
// Open folders wait on a stack rather than in recursion, so that no depth
// of nesting can exhaust the call stack.
void walkFolder(const std::string &root, FileWalk &walk) {
  std::vector<OpenFolder> open(1);
  if (std::string failure = readFolder(root, open.back()); !failure.empty()) {
    walk.files.push_back({root, true, std::move(failure)});
    return;
  }
  while (!open.empty()) {
    OpenFolder &folder = open.back();
    if (folder.next == folder.entries.size()) {
      open.pop_back();
      continue;
    }
    const auto &[name, kind] = folder.entries[folder.next++];
    const std::string path =
        folder.path + (folder.path.back() == '/' ? "" : "/") + name;
    std::optional<OpenFolder> subfolder;
    sortEntry(path, kind, walk, subfolder);
    if (subfolder)
      open.push_back(std::move(*subfolder));
  }
}

} // namespace

FileWalk walkFiles(const std::vector<std::string> &paths) {
  FileWalk walk;
  for (const std::string &operand : paths) {
    std::error_code error;
    if (fs::is_directory(operand, error)) {
      walk.walkedFolder = true;
      walkFolder(operand, walk);
    } else {
      // Opening it says what is wrong, if anything is.
      WalkedFile file{operand, false, "", 0, 0, 0};
      struct stat info;
      if (::stat(operand.c_str(), &info) == 0)
        noteIdentity(info, file);
      walk.files.push_back(std::move(file));
    }
  }
  return walk;
}

} // namespace offbundle::api
