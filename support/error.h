// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Errors as values. Every failure is carried up to the command-line layer as
// an Error holding the one line the tool prints after "<argv0>: error: ".
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace offbundle {

struct Error {
  std::string message;
};

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

inline Error makeError(std::string message) {
  return Error{std::move(message)};
}

// "'<path>'", a file as messages name it.
inline std::string quotedFileName(const std::string &path) {
  return "'" + path + "'";
}

// "'<path>': <reason>", the shape LLVM gives file errors.
inline Error fileError(const std::string &path, const std::string &reason) {
  return Error{quotedFileName(path) + ": " + reason};
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
