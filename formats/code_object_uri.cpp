// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ROCm code object URIs (see code_object_uri.h for the grammar): parsing and
// writing file:// URIs, percent-encoding their paths, and opening the byte
// range a URI names as an input.

#include "formats/code_object_uri.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <sys/stat.h>

#include "support/number_text.h"

namespace offbundle {
namespace {

bool startsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size())
    return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i])
      return false;
  }
  return true;
}

constexpr std::string_view kFileScheme = "file://";
constexpr std::string_view kMemoryScheme = "memory://";

int hexDigitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// A C integer literal as ROCm writes offsets and sizes: 0x/0X hexadecimal,
// a leading 0 for octal, else decimal. No sign, no suffix.
std::optional<uint64_t> parseCInteger(std::string_view text) {
  unsigned radix = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    radix = 16;
    text.remove_prefix(2);
  } else if (text.size() > 1 && text[0] == '0') {
    radix = 8;
    text.remove_prefix(1);
  }
  return parseDigits(text, radix);
}

Error uriError(std::string_view uri, const std::string &reason) {
  return fileError(std::string(uri), "invalid code object URI: " + reason);
}

} // namespace

bool looksLikeCodeObjectUri(std::string_view text) {
  return startsWithIgnoringCase(text, kFileScheme) ||
         startsWithIgnoringCase(text, kMemoryScheme);
}

Result<CodeObjectUri> parseCodeObjectUri(std::string_view text) {
  if (startsWithIgnoringCase(text, kMemoryScheme))
    return fileError(std::string(text),
                     "memory:// code object URIs name the memory of a running "
                     "process, which this tool does not read; save the code "
                     "object to a file and name it with file://");
  if (!startsWithIgnoringCase(text, kFileScheme))
    return uriError(text, "it does not start with file://");
  std::string_view rest = text.substr(kFileScheme.size());
  size_t rangeAt = rest.find_first_of("#?");
  std::string_view encodedPath = rest.substr(0, rangeAt);

  auto path = percentDecodeUriPath(encodedPath);
  if (!path)
    return uriError(text, path.error().message);
  CodeObjectUri uri;
  uri.path = std::move(*path);

  if (rangeAt == std::string_view::npos)
    return uri;
  std::string_view parameters = rest.substr(rangeAt + 1);
  bool sawOffset = false;
  bool sawSize = false;
  for (;;) {
    size_t ampersand = parameters.find('&');
    std::string_view parameter = parameters.substr(0, ampersand);
    size_t equals = parameter.find('=');
    if (equals == std::string_view::npos)
      return uriError(text, "expected offset=<number> or size=<number>, got '" +
                                std::string(parameter) + "'");
    std::string_view key = parameter.substr(0, equals);
    std::string_view value = parameter.substr(equals + 1);
    bool isOffset = key == "offset";
    if (!isOffset && key != "size")
      return uriError(text, "unknown parameter '" + std::string(key) +
                                "' (expected offset or size)");
    bool &seen = isOffset ? sawOffset : sawSize;
    if (seen)
      return uriError(text, std::string(key) + " is given twice");
    seen = true;
    std::optional<uint64_t> number = parseCInteger(value);
    if (!number)
      return uriError(text, std::string(key) + " '" + std::string(value) +
                                "' is not a decimal, 0x hexadecimal or 0 "
                                "octal number");
    if (isOffset)
      uri.offset = *number;
    else
      uri.size = *number;
    if (ampersand == std::string_view::npos)
      break;
    parameters.remove_prefix(ampersand + 1);
  }
  return uri;
}

std::string percentEncodeUriPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(path.size());
  for (unsigned char c : path) {
    // Spelled out rather than isalnum: the locale must not change the rule.
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '/' || c == '_' || c == '.' ||
                 c == '~' || c == '-';
    if (plain) {
      encoded += static_cast<char>(c);
    } else {
      encoded += '%';
      encoded += kHex[c >> 4];
      encoded += kHex[c & 15];
    }
  }
  return encoded;
}

Result<std::string> percentDecodeUriPath(std::string_view encoded) {
  std::string path;
  path.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      path += encoded[i];
      continue;
    }
    int high = i + 1 < encoded.size() ? hexDigitValue(encoded[i + 1]) : -1;
    int low = i + 2 < encoded.size() ? hexDigitValue(encoded[i + 2]) : -1;
    if (high < 0 || low < 0)
      return makeError("'%' must be followed by two hexadecimal digits");
    path += static_cast<char>(high * 16 + low);
    i += 2;
  }
  if (path.empty())
    return makeError("the file path is empty");
  if (path.find('\0') != std::string::npos)
    return makeError("the file path contains a NUL byte");
  return path;
}

Result<std::string> uriFilePath(const std::string &path) {
  // realpath makes the path absolute from the current folder and resolves
  // links in one step; see the header for why links are resolved.
  std::unique_ptr<char, decltype(&std::free)> resolved(
      ::realpath(path.c_str(), nullptr), &std::free);
  if (!resolved)
    return systemError(path, errno);
  return std::string(resolved.get());
}

std::string formatCodeObjectUri(std::string_view absolutePath, uint64_t offset,
                                uint64_t size) {
  return std::string(kFileScheme) + percentEncodeUriPath(absolutePath) +
         "#offset=" + std::to_string(offset) + "&size=" + std::to_string(size);
}

namespace {

bool existsAsFile(const std::string &name) {
  struct stat info;
  return ::stat(name.c_str(), &info) == 0;
}

} // namespace

std::string inputFilePath(const std::string &name) {
  if (!looksLikeCodeObjectUri(name) || existsAsFile(name))
    return name;
  auto uri = parseCodeObjectUri(name);
  return uri ? uri->path : name;
}

Result<std::unique_ptr<InputFile>> openInput(const std::string &name) {
  // The name is read as a URI before anything is opened, so that the file
  // is opened in one place. A file of that name, however unlikely, is what
  // LLVM's tool would read.
  std::optional<CodeObjectUri> uri;
  if (looksLikeCodeObjectUri(name) && !existsAsFile(name)) {
    auto parsed = parseCodeObjectUri(name);
    if (!parsed)
      return parsed.takeError();
    uri = std::move(*parsed);
  }
  if (!uri)
    return InputFile::open(name);
  // "-" means standard input to InputFile; in a URI it is a file's name.
  auto input = InputFile::open(uri->path == "-" ? "./-" : uri->path);
  if (!input)
    return input.takeError();
  const uint64_t fileSize = (*input)->size();
  if (uri->offset > fileSize)
    return fileError(name, "offset " + std::to_string(uri->offset) +
                               " lies past the end of '" + uri->path + "' (" +
                               std::to_string(fileSize) + " bytes)");
  uint64_t size = uri->size.value_or(fileSize - uri->offset);
  if (size > fileSize - uri->offset)
    return fileError(name, "offset " + std::to_string(uri->offset) +
                               " and size " + std::to_string(size) +
                               " run past the end of '" + uri->path + "' (" +
                               std::to_string(fileSize) + " bytes)");
  (*input)->narrow(uri->offset, size, name);
  return input;
}

} // namespace offbundle
