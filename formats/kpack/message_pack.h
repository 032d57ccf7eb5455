// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MessagePack documents (https://msgpack.org/, the format ROCm's kpack
// writes its tables of contents and markers in), read with msgpack-c
// (Debian's libmsgpack-dev) into a tree of values.
//
// msgpack-c allocates each array and map as its header declares, before
// reading the elements: a 9-byte input claiming 4 billion elements asks for
// about 100 GB. So before msgpack-c sees the bytes, a walk over the
// element headers (not their values) checks that every declared count and
// length fits in the bytes that remain, and that nesting stays within
// msgpack-c's own limit of 32 levels. What msgpack-c allocates is then at
// most a small multiple of the input's size.
//
// Values keep pointing into the input bytes (strings are not copied), which
// must outlive the document.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "support/error.h"

struct msgpack_object; // msgpack-c's value, behind msgpack.h

namespace offbundle {

// One value of a document.
class MessagePackValue {
public:
  explicit MessagePackValue(const msgpack_object *object) : object_(object) {}

  bool isMap() const;
  bool isArray() const;
  // The text of a string value; nothing for other kinds.
  std::optional<std::string_view> asString() const;
  // A non-negative integer's value; nothing for other kinds.
  std::optional<uint64_t> asUnsigned() const;
  // A boolean's value; nothing for other kinds.
  std::optional<bool> asBoolean() const;
  // The number of elements of an array, of pairs of a map; 0 otherwise.
  uint32_t size() const;
  // Element `index` of an array (index < size()).
  MessagePackValue element(uint32_t index) const;
  // The key and value of pair `index` of a map (index < size()).
  MessagePackValue key(uint32_t index) const;
  MessagePackValue value(uint32_t index) const;
  // The value of the first pair of a map whose key is the string `name`.
  std::optional<MessagePackValue> find(std::string_view name) const;
  // "map", "string", "unsigned integer", ...: for messages.
  std::string_view kindName() const;

private:
  const msgpack_object *object_;
};

class MessagePackDocument {
public:
  // Reads the first value of `bytes`; bytes after it are left unread and
  // counted in consumed(). An Error says what is malformed.
  static Result<MessagePackDocument> parse(std::string_view bytes);

  MessagePackDocument(MessagePackDocument &&) noexcept;
  MessagePackDocument &operator=(MessagePackDocument &&) noexcept;
  ~MessagePackDocument();

  MessagePackValue root() const;
  // How many bytes the value took.
  uint64_t consumed() const { return consumed_; }

private:
  struct Unpacked;
  MessagePackDocument(std::unique_ptr<Unpacked> unpacked, uint64_t consumed);
  std::unique_ptr<Unpacked> unpacked_;
  uint64_t consumed_ = 0;
};

} // namespace offbundle
