// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON text for machine-readable listings: string escaping that always
// yields valid JSON, and a small writer that keeps keys in the order they are
// written and indents by two spaces, so the output is stable and diffable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace offbundle {

// A JSON string literal for bytes that may be anything: quotes, backslashes
// and control characters are escaped, valid UTF-8 is kept, and each byte
// that is not part of valid UTF-8 becomes \u00XX (the Latin-1 character of
// that value), so the result is always valid JSON.
std::string jsonString(std::string_view bytes);

class JsonWriter {
public:
  void beginObject();
  void endObject();
  void beginArray();
  void endArray();
  // The key of the next value, inside an object.
  void key(std::string_view name);
  void string(std::string_view value);
  void number(uint64_t value);
  // numerator / denominator as a decimal number with four decimals.
  void fraction(uint64_t numerator, uint64_t denominator);
  void boolean(bool value);
  void null();
  // Shorthands for "key": value.
  void field(std::string_view name, std::string_view value) {
    key(name);
    string(value);
  }
  void field(std::string_view name, uint64_t value) {
    key(name);
    number(value);
  }
  void field(std::string_view name, const std::optional<uint64_t> &value) {
    key(name);
    value ? number(*value) : null();
  }
  void nullField(std::string_view name) {
    key(name);
    null();
  }

  // The document, ending with a newline.
  std::string finish();

private:
  void beforeValue();
  void open(char bracket);
  void close(char bracket);
  void newline();

  std::string text_;
  // Per open container: whether it has a member yet.
  std::vector<bool> hasMembers_;
  bool afterKey_ = false;
};

} // namespace offbundle
