// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// MessagePack through msgpack-c (see message_pack.h), after a walk over the
// element headers that bounds what msgpack-c will allocate.
//
// The headers (MessagePack specification, "Formats"): the first byte gives
// the kind, and for some kinds a length or count, which otherwise follows
// big-endian in 1, 2 or 4 bytes:
//
//   0x00-0x7f positive fixint     0x80-0x8f fixmap (count in low 4 bits)
//   0x90-0x9f fixarray            0xa0-0xbf fixstr (length in low 5 bits)
//   0xc0 nil, 0xc2/0xc3 booleans  0xc4-0xc6 bin 8/16/32 (length)
//   0xc7-0xc9 ext 8/16/32 (length, then a type byte)
//   0xca/0xcb float 32/64         0xcc-0xcf uint 8/16/32/64
//   0xd0-0xd3 int 8/16/32/64      0xd4-0xd8 fixext 1/2/4/8/16 (type byte)
//   0xd9-0xdb str 8/16/32         0xdc/0xdd array 16/32 (count)
//   0xde/0xdf map 16/32 (count of pairs)   0xe0-0xff negative fixint
//   0xc1 is never used.

#include "formats/kpack/message_pack.h"

#include <msgpack.h>
#include <vector>

#include "support/byte_order.h"

namespace offbundle {
namespace {

// msgpack-c's unpacker holds at most this many open containers
// (MSGPACK_EMBED_STACK_SIZE).
constexpr size_t kMaxNesting = 32;

// Checks that every container's count and every string's, binary's and
// extension's length fits in what follows it, for the first value of
// `bytes`. Each element takes at least one byte, so a count larger than
// the bytes left is a lie.
Status checkDeclaredSizes(std::string_view bytes) {
  std::vector<uint64_t> pending{1}; // values still to read, per open level
  uint64_t at = 0;
  auto need = [&](uint64_t count) -> Status {
    if (count > bytes.size() - at)
      return makeError("a length or count at offset " + std::to_string(at) +
                       " runs past the end of the data");
    return Status::success();
  };
  auto bigEndian = [&](uint64_t width) {
    uint64_t value = 0;
    for (uint64_t i = 0; i < width; ++i)
      value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
    at += width;
    return value;
  };
  while (!pending.empty()) {
    if (pending.back() == 0) {
      pending.pop_back();
      continue;
    }
    --pending.back();
    if (at >= bytes.size())
      return makeError("the data ends inside a value");
    const unsigned char kind = static_cast<unsigned char>(bytes[at++]);
    uint64_t skip = 0;     // bytes of payload after the header
    uint64_t elements = 0; // values of an opened container
    bool container = false;
    if (kind <= 0x7f || kind >= 0xe0 || kind == 0xc0 || kind == 0xc2 ||
        kind == 0xc3) {
      // a value in its header byte
    } else if (kind <= 0x8f) {
      container = true;
      elements = 2 * static_cast<uint64_t>(kind & 0x0f);
    } else if (kind <= 0x9f) {
      container = true;
      elements = kind & 0x0f;
    } else if (kind <= 0xbf) {
      skip = kind & 0x1f;
    } else if (kind == 0xc1) {
      return makeError("byte 0xc1 at offset " + std::to_string(at - 1) +
                       " is not a MessagePack value");
    } else {
      static constexpr uint8_t kLengthWidth[] = {1, 2, 4,       // c4-c6 bin
                                                 1, 2, 4,       // c7-c9 ext
                                                 0, 0,          // ca, cb float
                                                 0, 0, 0, 0,    // cc-cf uint
                                                 0, 0, 0, 0,    // d0-d3 int
                                                 0, 0, 0, 0, 0, // d4-d8 fixext
                                                 1, 2, 4,       // d9-db str
                                                 2, 4,          // dc, dd array
                                                 2, 4};         // de, df map
      static constexpr uint8_t kFixedSize[] = {
          0, 0, 0, 1, 1,  1, // bin; ext's type byte
          4, 8, 1, 2, 4,  8, // float, uint
          1, 2, 4, 8,        // int
          2, 3, 5, 9, 17,    // fixext: type byte and data
          0, 0, 0, 0, 0,  0, 0};
      const size_t index = kind - 0xc4;
      const uint64_t width = kLengthWidth[index];
      if (Status status = need(width); !status.ok())
        return status;
      const uint64_t length = bigEndian(width);
      skip = kFixedSize[index];
      if (kind >= 0xdc) {
        container = true;
        elements = kind >= 0xde ? 2 * length : length;
      } else {
        skip += length;
      }
    }
    if (Status status = need(container ? elements : skip); !status.ok())
      return status;
    at += skip;
    if (container && elements > 0) {
      if (pending.size() > kMaxNesting)
        return makeError("values nest more than " +
                         std::to_string(kMaxNesting) + " levels deep");
      pending.push_back(elements);
    }
  }
  return Status::success();
}

} // namespace

struct MessagePackDocument::Unpacked {
  msgpack_unpacked result;
  Unpacked() { msgpack_unpacked_init(&result); }
  ~Unpacked() { msgpack_unpacked_destroy(&result); }
  Unpacked(const Unpacked &) = delete;
  Unpacked &operator=(const Unpacked &) = delete;
};

MessagePackDocument::MessagePackDocument(std::unique_ptr<Unpacked> unpacked,
                                         uint64_t consumed)
    : unpacked_(std::move(unpacked)), consumed_(consumed) {}
MessagePackDocument::MessagePackDocument(MessagePackDocument &&) noexcept =
    default;
MessagePackDocument &
MessagePackDocument::operator=(MessagePackDocument &&) noexcept = default;
MessagePackDocument::~MessagePackDocument() = default;

Result<MessagePackDocument> MessagePackDocument::parse(std::string_view bytes) {
  if (Status sizes = checkDeclaredSizes(bytes); !sizes.ok())
    return makeError("malformed MessagePack: " + sizes.error().message);
  auto unpacked = std::make_unique<Unpacked>();
  size_t offset = 0;
  const msgpack_unpack_return status = msgpack_unpack_next(
      &unpacked->result, bytes.data(), bytes.size(), &offset);
  switch (status) {
  case MSGPACK_UNPACK_SUCCESS:
  case MSGPACK_UNPACK_EXTRA_BYTES:
    return MessagePackDocument(std::move(unpacked), offset);
  case MSGPACK_UNPACK_NOMEM_ERROR:
    return makeError("malformed MessagePack: msgpack-c ran out of memory");
  default:
    return makeError("malformed MessagePack: msgpack-c could not read it");
  }
}

MessagePackValue MessagePackDocument::root() const {
  return MessagePackValue(&unpacked_->result.data);
}

bool MessagePackValue::isMap() const {
  return object_->type == MSGPACK_OBJECT_MAP;
}

bool MessagePackValue::isArray() const {
  return object_->type == MSGPACK_OBJECT_ARRAY;
}

std::optional<std::string_view> MessagePackValue::asString() const {
  if (object_->type != MSGPACK_OBJECT_STR)
    return std::nullopt;
  return std::string_view(object_->via.str.ptr, object_->via.str.size);
}

std::optional<uint64_t> MessagePackValue::asUnsigned() const {
  if (object_->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
    return std::nullopt;
  return object_->via.u64;
}

std::optional<bool> MessagePackValue::asBoolean() const {
  if (object_->type != MSGPACK_OBJECT_BOOLEAN)
    return std::nullopt;
  return object_->via.boolean;
}

uint32_t MessagePackValue::size() const {
  if (isArray())
    return object_->via.array.size;
  if (isMap())
    return object_->via.map.size;
  return 0;
}

MessagePackValue MessagePackValue::element(uint32_t index) const {
  return MessagePackValue(&object_->via.array.ptr[index]);
}

MessagePackValue MessagePackValue::key(uint32_t index) const {
  return MessagePackValue(&object_->via.map.ptr[index].key);
}

MessagePackValue MessagePackValue::value(uint32_t index) const {
  return MessagePackValue(&object_->via.map.ptr[index].val);
}

std::optional<MessagePackValue>
MessagePackValue::find(std::string_view name) const {
  if (!isMap())
    return std::nullopt;
  for (uint32_t i = 0; i < size(); ++i)
    if (key(i).asString() == name)
      return value(i);
  return std::nullopt;
}

std::string_view MessagePackValue::kindName() const {
  switch (object_->type) {
  case MSGPACK_OBJECT_NIL:
    return "nil";
  case MSGPACK_OBJECT_BOOLEAN:
    return "boolean";
  case MSGPACK_OBJECT_POSITIVE_INTEGER:
    return "unsigned integer";
  case MSGPACK_OBJECT_NEGATIVE_INTEGER:
    return "negative integer";
  case MSGPACK_OBJECT_FLOAT32:
  case MSGPACK_OBJECT_FLOAT64:
    return "float";
  case MSGPACK_OBJECT_STR:
    return "string";
  case MSGPACK_OBJECT_ARRAY:
    return "array";
  case MSGPACK_OBJECT_MAP:
    return "map";
  case MSGPACK_OBJECT_BIN:
    return "binary";
  case MSGPACK_OBJECT_EXT:
    return "extension";
  }
  return "value";
}

} // namespace offbundle
