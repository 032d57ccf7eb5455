// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// "@file" response files (see response_file.h). Nested files are expanded in
// place; each file's name is made absolute against the current directory
// before it is read, and a file found again among the ones it is nested in
// (the same device and inode) is a recursion.

#include "cli/response_file.h"

#include "support/input_file.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace offbundle {
namespace {

bool isGnuWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// The current directory as llvm::sys::fs::current_path gives it: $PWD when
// that names the same directory as ".", so that a directory reached
// through a symbolic link keeps the link's name; getcwd() otherwise.
std::optional<std::string> currentDirectory() {
  const char *pwd = std::getenv("PWD");
  struct stat named;
  struct stat dot;
  if (pwd != nullptr && pwd[0] == '/' && ::stat(pwd, &named) == 0 &&
      ::stat(".", &dot) == 0 && named.st_dev == dot.st_dev &&
      named.st_ino == dot.st_ino)
    return std::string(pwd);
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr)
    return std::nullopt;
  return std::string(cwd);
}

// The name made absolute as sys::path::append(cwd, name) does: nothing is
// normalised, and an empty name names the current directory itself.
Result<std::string> absoluteName(const std::string &name) {
  if (!name.empty() && name[0] == '/')
    return name;
  std::optional<std::string> absolute = currentDirectory();
  if (!absolute)
    return makeError("cannot get absolute path for: " + name);
  if (!name.empty())
    *absolute += (absolute->back() == '/' ? "" : "/") + name;
  return *absolute;
}

Error cannotOpen(const std::string &name, int error) {
  return makeError("cannot not open file '" + name +
                   "': " + std::strerror(error));
}

void appendUtf8(std::string &out, uint32_t codePoint) {
  if (codePoint < 0x80) {
    out += static_cast<char>(codePoint);
  } else if (codePoint < 0x800) {
    out += static_cast<char>(0xC0 | (codePoint >> 6));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else if (codePoint < 0x10000) {
    out += static_cast<char>(0xE0 | (codePoint >> 12));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (codePoint >> 18));
    out += static_cast<char>(0x80 | ((codePoint >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((codePoint >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (codePoint & 0x3F));
  }
}

// UTF-16 with a byte order mark (FF FE little-endian, FE FF big-endian) as
// UTF-8, the mark left out; nothing for an odd length or an unpaired
// surrogate, as llvm::convertUTF16ToUTF8String refuses them.
std::optional<std::string> utf16ToUtf8(std::string_view bytes) {
  if (bytes.size() % 2 != 0)
    return std::nullopt;
  const bool bigEndian = static_cast<unsigned char>(bytes[0]) == 0xFE;
  auto unitAt = [&](size_t index) -> uint32_t {
    const auto first = static_cast<unsigned char>(bytes[2 * index]);
    const auto second = static_cast<unsigned char>(bytes[2 * index + 1]);
    return bigEndian ? (first << 8 | second) : (second << 8 | first);
  };
  const size_t units = bytes.size() / 2;
  std::string out;
  for (size_t i = 1; i < units; ++i) {
    uint32_t unit = unitAt(i);
    if (unit >= 0xDC00 && unit <= 0xDFFF)
      return std::nullopt;
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      if (i + 1 >= units)
        return std::nullopt;
      const uint32_t low = unitAt(++i);
      if (low < 0xDC00 || low > 0xDFFF)
        return std::nullopt;
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    appendUtf8(out, unit);
  }
  return out;
}

// The arguments a response file holds: UTF-16 converted, a UTF-8 byte order
// mark dropped.
Result<std::vector<std::string>>
responseFileArguments(const std::string &name) {
  // Read as any input is (pipes and /dev/stdin too); its error, "'<name>':
  // <reason>", is LLVM's after "cannot not open file ".
  auto file = InputFile::open(name);
  if (!file)
    return makeError("cannot not open file " + file.error().message);
  std::string_view text = (*file)->contents();
  if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF") {
    std::optional<std::string> converted = utf16ToUtf8(text);
    if (!converted)
      return makeError("Could not convert UTF16 to UTF8");
    return tokenizeGnuCommandLine(*converted);
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    text.remove_prefix(3);
  return tokenizeGnuCommandLine(text);
}

// A response file being expanded: its absolute name, its device and inode,
// and the index of the first argument after its own.
struct OpenResponseFile {
  std::string name;
  dev_t device;
  ino_t inode;
  size_t end;
};

} // namespace

std::vector<std::string> tokenizeGnuCommandLine(std::string_view text) {
  std::vector<std::string> tokens;
  std::string token;
  bool inToken = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      token.push_back(text[++i]);
      inToken = true;
      continue;
    }
    if (c == '"' || c == '\'') {
      const char quote = c;
      ++i;
      while (i < text.size() && text[i] != quote) {
        if (text[i] == '\\' && i + 1 < text.size())
          ++i;
        token.push_back(text[i]);
        ++i;
      }
      // An empty quoted string makes no argument, as in LLVM.
      inToken = !token.empty();
      if (i >= text.size())
        break;
      continue;
    }
    if (isGnuWhitespace(c)) {
      if (inToken)
        tokens.push_back(token);
      token.clear();
      inToken = false;
      continue;
    }
    token.push_back(c);
    inToken = true;
  }
  if (!token.empty())
    tokens.push_back(token);
  // LLVM hands each argument on as a C string, which ends at a NUL.
  for (std::string &each : tokens)
    if (size_t nul = each.find('\0'); nul != std::string::npos)
      each.resize(nul);
  return tokens;
}

Result<std::vector<std::string>>
expandResponseFiles(std::vector<std::string> arguments) {
  std::vector<OpenResponseFile> open;
  for (size_t i = 1; i < arguments.size();) {
    while (!open.empty() && i == open.back().end)
      open.pop_back();
    if (arguments[i].empty() || arguments[i][0] != '@') {
      ++i;
      continue;
    }
    auto absolute = absoluteName(arguments[i].substr(1));
    if (!absolute)
      return absolute.takeError();
    const std::string &name = *absolute;
    struct stat info;
    if (::stat(name.c_str(), &info) != 0) {
      // "@name" with no such file stays an argument, as with GCC.
      if (errno == ENOENT) {
        ++i;
        continue;
      }
      return cannotOpen(name, errno);
    }
    for (const OpenResponseFile &outer : open)
      if (outer.device == info.st_dev && outer.inode == info.st_ino)
        return makeError("recursive expansion of: '" + outer.name + "'");
    auto expanded = responseFileArguments(name);
    if (!expanded)
      return expanded.takeError();
    // The files being expanded now end that many arguments later.
    for (OpenResponseFile &outer : open)
      outer.end = outer.end + expanded->size() - 1;
    open.push_back({name, info.st_dev, info.st_ino, i + expanded->size()});
    arguments.erase(arguments.begin() + static_cast<std::ptrdiff_t>(i));
    arguments.insert(arguments.begin() + static_cast<std::ptrdiff_t>(i),
                     expanded->begin(), expanded->end());
  }
  return arguments;
}

} // namespace offbundle
