// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Errors as values. Every failure is carried up to the command-line layer as
// an Error holding the one line the tool prints after "<argv0>: error: ",
// and the kind of failure it is, which the public API hands on to programs
// (offbundle::api::ErrorCode, whose comments say what each kind covers).
#pragma once

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace offbundle {

// The tools print the message alone; the kind is for programs that act on
// a failure, so it is set where the failure arises: file operations from
// errno, readers where bytes are malformed, the checks of a request where it
// is refused.
enum class ErrorCode {
  Other,
  InvalidArgument,
  NotFound,
  Permission,
  OutOfSpace,
  Io,
  DamagedInput,
  Unsupported,
  NoSuchTarget,
};

struct Error {
  std::string message;
  ErrorCode code = ErrorCode::Other;
};

// The kind of a failed system call's errno.
inline ErrorCode errorCodeOfErrno(int error) {
  switch (error) {
  case ENOENT:
  case ENOTDIR:
    return ErrorCode::NotFound;
  case EACCES:
  case EPERM:
  case EROFS:
    return ErrorCode::Permission;
  case ENOSPC:
  case EDQUOT:
  case EFBIG:
    return ErrorCode::OutOfSpace;
  default:
    return ErrorCode::Io;
  }
}

// `error`, given the kind `code` when it has none yet: for a layer that
// knows what its callee's unclassified failures mean (whatever a reader of
// bytes refuses, say, is damaged input).
inline Error withCode(Error error, ErrorCode code) {
  if (error.code == ErrorCode::Other)
    error.code = code;
  return error;
}

// Either a value or an Error (std::expected is not in our C++20 toolchain).
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T &value() { return std::get<0>(state_); }
  const T &value() const { return std::get<0>(state_); }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  const Error &error() const { return std::get<1>(state_); }
  Error takeError() { return std::move(std::get<1>(state_)); }

private:
  std::variant<T, Error> state_;
};

// Success or an Error.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}
  static Status success() { return Status(); }

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return !ok(); }
  const Error &error() const { return *error_; }
  Error takeError() { return std::move(*error_); }

private:
  std::optional<Error> error_;
};

inline Error makeError(std::string message, ErrorCode code = ErrorCode::Other) {
  return Error{std::move(message), code};
}

// "'<path>'", a file as messages name it.
inline std::string quotedFileName(const std::string &path) {
  return "'" + path + "'";
}

// "'<path>': <reason>", the shape LLVM gives file errors.
inline Error fileError(const std::string &path, const std::string &reason,
                       ErrorCode code = ErrorCode::Other) {
  return Error{quotedFileName(path) + ": " + reason, code};
}

// "'<path>': <cause's message>", of the cause's kind: a failure in the file
// named.
inline Error fileError(const std::string &path, const Error &cause) {
  return fileError(path, cause.message, cause.code);
}

// "'<path>': <strerror>", of errno's kind: a file operation that failed.
inline Error systemError(const std::string &path, int error) {
  return fileError(path, std::strerror(error), errorCodeOfErrno(error));
}

// "\x" and two lowercase hexadecimal digits for a byte, the escape both
// tools write for control characters in what they print.
inline void appendHexEscape(std::string &out, unsigned char byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

// Messages quote paths, entry IDs and image strings, which may hold any
// byte; a newline there would split the one error line into several, so
// control characters are written as escapes.
inline std::string escapeControlCharacters(const std::string &text) {
  std::string escaped;
  for (unsigned char c : text) {
    if (c == '\n')
      escaped += "\\n";
    else if (c < 0x20 || c == 0x7f)
      appendHexEscape(escaped, c);
    else
      escaped += static_cast<char>(c);
  }
  return escaped;
}

} // namespace offbundle
