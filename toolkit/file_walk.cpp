// Operands to files (see file_walk.h): folders walked without following
// symlinks, files in them sorted out by their first bytes.
#include "toolkit/file_walk.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <system_error>
#include <unistd.h>

#include <offbundle/offbundle.h>

#include "support/error.h"
#include "toolkit/reports.h"

namespace offbundle {
namespace {

namespace fs = std::filesystem;

// Why `path` could not be read, as the other commands say it.
std::string readFailure(const std::string &path, int error) {
  return fileError(path, std::strerror(error)).message;
}

// Whether a regular file found in a folder may hold GPU code, from its
// first bytes; "" or why it could not be read. The file is opened without
// following a symlink (one may have replaced it since the folder was read)
// and without blocking (nor may a FIFO).
std::string probe(const std::string &path, bool &mayHoldCode) {
  const int fd =
      ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return readFailure(path, errno);
  std::string bytes(api::kOffloadProbeBytes, '\0');
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
  mayHoldCode = api::mayHoldOffloadCode(bytes);
  return "";
}

// A folder being walked: its entries' names, sorted, and the next one.
struct OpenFolder {
  std::string path;
  std::vector<std::string> names;
  size_t next = 0;
};

// Reads a folder's entry names into `opened`, sorted; the failure or "".
std::string readFolder(const std::string &path, OpenFolder &opened) {
  opened.path = path;
  std::error_code error;
  fs::directory_iterator entries(path, error);
  for (; !error && entries != fs::directory_iterator();
       entries.increment(error))
    opened.names.push_back(entries->path().filename().string());
  if (error)
    return readFailure(path, error.value());
  std::sort(opened.names.begin(), opened.names.end());
  return "";
}

// Sorts one entry of a folder into `walk`; a folder is returned, to walk
// next, in `subfolder`.
void sortEntry(const std::string &path, OperandWalk &walk,
               std::optional<OpenFolder> &subfolder) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (error) {
    walk.files.push_back({path, true, readFailure(path, error.value())});
  } else if (fs::is_symlink(status)) {
    ++walk.skipped.symlinks;
  } else if (fs::is_directory(status)) {
    OpenFolder opened;
    if (std::string failure = readFolder(path, opened); !failure.empty())
      walk.files.push_back({path, true, std::move(failure)});
    else
      subfolder = std::move(opened);
  } else if (!fs::is_regular_file(status)) {
    ++walk.skipped.special;
  } else {
    bool mayHoldCode = false;
    std::string failure = probe(path, mayHoldCode);
    if (!failure.empty())
      walk.files.push_back({path, true, std::move(failure)});
    else if (mayHoldCode)
      walk.files.push_back({path, true, ""});
    else
      ++walk.skipped.noGpuCode;
  }
}

// Walks one folder operand into `walk`, in the order `find` lists it with
// sorted names: each entry in turn, a folder's contents as it is reached.
// Open folders wait on a stack rather than in recursion, so that no depth
// of nesting can exhaust the call stack.
void walkFolder(const std::string &root, OperandWalk &walk) {
  std::vector<OpenFolder> open(1);
  if (std::string failure = readFolder(root, open.back()); !failure.empty()) {
    walk.files.push_back({root, true, std::move(failure)});
    return;
  }
  while (!open.empty()) {
    OpenFolder &folder = open.back();
    if (folder.next == folder.names.size()) {
      open.pop_back();
      continue;
    }
    const std::string path =
        (fs::path(folder.path) / folder.names[folder.next++]).string();
    std::optional<OpenFolder> subfolder;
    sortEntry(path, walk, subfolder);
    if (subfolder)
      open.push_back(std::move(*subfolder));
  }
}

} // namespace

OperandWalk walkOperands(const std::vector<std::string> &operands) {
  OperandWalk walk;
  for (const std::string &operand : operands) {
    std::error_code error;
    if (fs::is_directory(operand, error)) {
      walk.walkedFolder = true;
      walkFolder(operand, walk);
    } else {
      // Opening it says what is wrong, if anything is.
      walk.files.push_back({operand, false, ""});
    }
  }
  return walk;
}

std::string skippedText(const SkippedFiles &skipped) {
  std::vector<std::string> parts;
  if (skipped.noGpuCode != 0)
    parts.push_back(counted(skipped.noGpuCode, "file", "files") +
                    " holding no GPU code");
  if (skipped.symlinks != 0)
    parts.push_back(counted(skipped.symlinks, "symlink", "symlinks") +
                    " (not followed)");
  if (skipped.special != 0)
    parts.push_back(counted(skipped.special, "special file", "special files"));
  if (parts.empty())
    return "";
  std::string text = "skipped";
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i == 0 ? " " : ", ") + parts[i];
  return text + "\n";
}

} // namespace offbundle
