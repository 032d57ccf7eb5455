// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// JSON text (see json_writer.h): strings escaped so that any bytes give
// valid JSON, and a writer that keeps keys in the order they are written.
#include "support/json_writer.h"

#include <cstdio>

namespace offbundle {

namespace {

// Length of the valid UTF-8 sequence starting at bytes[at], or 0.
size_t utf8SequenceLength(std::string_view bytes, size_t at) {
  auto byte = [&](size_t i) -> unsigned {
    return at + i < bytes.size() ? static_cast<unsigned char>(bytes[at + i])
                                 : 0x100;
  };
  auto continuation = [&](size_t i, unsigned low = 0x80, unsigned high = 0xbf) {
    return byte(i) >= low && byte(i) <= high;
  };
  unsigned lead = byte(0);
  if (lead >= 0xc2 && lead <= 0xdf)
    return continuation(1) ? 2 : 0;
  if (lead == 0xe0)
    return continuation(1, 0xa0) && continuation(2) ? 3 : 0;
  if ((lead >= 0xe1 && lead <= 0xec) || lead == 0xee || lead == 0xef)
    return continuation(1) && continuation(2) ? 3 : 0;
  if (lead == 0xed)
    return continuation(1, 0x80, 0x9f) && continuation(2) ? 3 : 0;
  if (lead == 0xf0)
    return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3)
    return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead == 0xf4)
    return continuation(1, 0x80, 0x8f) && continuation(2) && continuation(3)
               ? 4
               : 0;
  return 0;
}

} // namespace

std::string jsonString(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size();) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x80) {
      size_t length = utf8SequenceLength(bytes, i);
      if (length != 0) {
        out.append(bytes.substr(i, length));
        i += length;
        continue;
      }
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  out += '"';
  return out;
}

void JsonWriter::newline() {
  text_ += '\n';
  text_.append(2 * hasMembers_.size(), ' ');
}

void JsonWriter::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (hasMembers_.empty())
    return;
  if (hasMembers_.back())
    text_ += ',';
  hasMembers_.back() = true;
  newline();
}

void JsonWriter::open(char bracket) {
  beforeValue();
  text_ += bracket;
  hasMembers_.push_back(false);
}

void JsonWriter::close(char bracket) {
  bool hadMembers = hasMembers_.back();
  hasMembers_.pop_back();
  if (hadMembers)
    newline();
  text_ += bracket;
}

void JsonWriter::beginObject() { open('{'); }
void JsonWriter::endObject() { close('}'); }
void JsonWriter::beginArray() { open('['); }
void JsonWriter::endArray() { close(']'); }

void JsonWriter::key(std::string_view name) {
  beforeValue();
  text_ += jsonString(name);
  text_ += ": ";
  afterKey_ = true;
}

void JsonWriter::string(std::string_view value) {
  beforeValue();
  text_ += jsonString(value);
}

void JsonWriter::number(uint64_t value) {
  beforeValue();
  text_ += std::to_string(value);
}

void JsonWriter::fraction(uint64_t numerator, uint64_t denominator) {
  beforeValue();
  // Four decimals, rounded half up, in integer arithmetic so that the text
  // is the same on every machine: "0.2500", "1.0000", "0.0000" for 0/0.
  const unsigned __int128 scaled =
      denominator == 0
          ? 0
          : (static_cast<unsigned __int128>(numerator) * 20000 + denominator) /
                (2 * static_cast<unsigned __int128>(denominator));
  const uint64_t whole = static_cast<uint64_t>(scaled / 10000);
  std::string decimals = std::to_string(static_cast<uint64_t>(scaled % 10000));
  text_ += std::to_string(whole) + "." + std::string(4 - decimals.size(), '0') +
           decimals;
}

void JsonWriter::boolean(bool value) {
  beforeValue();
  text_ += value ? "true" : "false";
}

void JsonWriter::null() {
  beforeValue();
  text_ += "null";
}

std::string JsonWriter::finish() { return text_ + "\n"; }

} // namespace offbundle
