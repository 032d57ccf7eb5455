// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a replaced file keeps, and leftover temporaries (see
// replaced_files.h).
#include "support/replaced_files.h"

#include <cctype>
#include <cerrno>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <sys/random.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "support/input_file.h"

namespace offbundle {
namespace {

constexpr size_t kRandomLength = 6;

std::string randomSuffix() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[kRandomLength] = {};
  if (::getrandom(bytes, sizeof bytes, GRND_NONBLOCK) !=
      static_cast<ssize_t>(sizeof bytes)) {
    // No entropy yet (early boot): the clock and the process ID still make
    // names that O_EXCL keeps from clashing.
    uint64_t seed = static_cast<uint64_t>(::getpid()) * 0x9E3779B97F4A7C15ull ^
                    static_cast<uint64_t>(::time(nullptr)) ^
                    reinterpret_cast<uintptr_t>(&seed);
    for (unsigned char &byte : bytes) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      byte = static_cast<unsigned char>(seed >> 56);
    }
  }
  std::string suffix;
  for (unsigned char byte : bytes)
    suffix += kAlphabet[byte % (sizeof kAlphabet - 1)];
  return suffix;
}

// The names of the extended attributes of the file open at `fd`,
// NUL-separated; "" when the file system keeps none. `path` names it in
// messages.
Result<std::string> attributeNames(int fd, const std::string &path) {
  for (;;) {
    const ssize_t size = ::flistxattr(fd, nullptr, 0);
    if (size < 0)
      return errno == ENOTSUP ? Result<std::string>(std::string())
                              : Result<std::string>(systemError(path, errno));
    std::string names(static_cast<size_t>(size), '\0');
    const ssize_t got = ::flistxattr(fd, names.data(), names.size());
    if (got >= 0) {
      names.resize(static_cast<size_t>(got));
      return names;
    }
    if (errno != ERANGE) // grew meanwhile: ask again
      return systemError(path, errno);
  }
}

// The value of one extended attribute; nullopt when it is gone.
Result<std::optional<std::string>>
attributeValue(int fd, const std::string &path, const std::string &name) {
  for (;;) {
    const ssize_t size = ::fgetxattr(fd, name.c_str(), nullptr, 0);
    if (size < 0 && errno == ENODATA)
      return std::optional<std::string>();
    if (size < 0)
      return systemError(path, errno);
    std::string value(static_cast<size_t>(size), '\0');
    const ssize_t got =
        ::fgetxattr(fd, name.c_str(), value.data(), value.size());
    if (got >= 0) {
      value.resize(static_cast<size_t>(got));
      return std::optional(std::move(value));
    }
    if (errno != ERANGE)
      return systemError(path, errno);
  }
}

Error notKept(const std::string &path, const std::string &what, int error) {
  return fileError(path,
                   "cannot give the output " + what +
                       " of the file it replaces: " + errnoMessage(error));
}

} // namespace

std::string folderOf(const std::string &path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseNameOf(const std::string &path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool isTemporaryName(std::string_view name) {
  // ".", a name, ".", the marker, six letters or digits.
  const size_t tail = 1 + kTemporaryMarker.size() + kRandomLength;
  if (name.size() < 2 + tail || name.front() != '.')
    return false;
  const std::string_view end = name.substr(name.size() - tail);
  if (end.front() != '.' ||
      end.substr(1, kTemporaryMarker.size()) != kTemporaryMarker)
    return false;
  for (char c : end.substr(1 + kTemporaryMarker.size()))
    if (!std::isalnum(static_cast<unsigned char>(c)))
      return false;
  return true;
}

std::string_view temporaryOwnerName(std::string_view name) {
  if (!isTemporaryName(name))
    return {};
  const size_t tail = 1 + kTemporaryMarker.size() + kRandomLength;
  return name.substr(1, name.size() - 1 - tail);
}

std::string temporaryNameFor(const std::string &name) {
  return "." + name + "." + std::string(kTemporaryMarker) + randomSuffix();
}

std::string temporaryPathFor(const std::string &path) {
  return folderOf(path) + "/" + temporaryNameFor(baseNameOf(path));
}

Status takeMetadataOf(int original, const struct stat &info, int fd,
                      const std::string &path) {
  // Owner first: a change of owner drops set-user-ID bits and capabilities,
  // which come after it.
  if (::fchown(fd, info.st_uid, info.st_gid) != 0) {
    const int error = errno;
    struct stat mine;
    if (::fstat(fd, &mine) != 0 || mine.st_uid != info.st_uid ||
        mine.st_gid != info.st_gid)
      return notKept(path, "the owner and group", error);
  }
  auto names = attributeNames(original, path);
  if (!names)
    return names.takeError();
  for (size_t at = 0; at < names->size();) {
    const std::string name(names->c_str() + at);
    at += name.size() + 1;
    auto value = attributeValue(original, path, name);
    if (!value)
      return value.takeError();
    if (!*value) // removed meanwhile
      continue;
    const std::string &bytes = **value;
    if (::fsetxattr(fd, name.c_str(), bytes.data(), bytes.size(), 0) != 0)
      return notKept(path, "the extended attribute " + name, errno);
  }
  // The permissions last, so that they are exactly the old ones whatever
  // an ACL set before them implied.
  if (::fchmod(fd, info.st_mode & 07777) != 0)
    return notKept(path, "the permissions", errno);
  return Status::success();
}

} // namespace offbundle
