// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LEB128 numbers as LLVM's decodeULEB128 and decodeSLEB128 read them, for
// every reader that meets them (CREL relocations in ELF objects, Wasm
// modules). Seven bits a byte, least significant first, the top bit saying
// another byte follows. As in LLVM, any number of padding bytes may follow
// the value's own: an unsigned number may not set a bit past the 64th, a
// signed one must repeat its sign in every bit past it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace offbundle {

namespace leb128_detail {

// The bits of the number at `position` in `bytes`, how many of them its
// bytes held (7 each) and its last byte; `isSigned` picks the rule for bits
// past the 64th. `position` moves past each byte read.
struct Bits {
  uint64_t value = 0;
  unsigned shift = 0;
  uint8_t last = 0;
};
inline std::optional<Bits> read(std::string_view bytes, size_t &position,
                                bool isSigned) {
  Bits bits;
  do {
    if (position >= bytes.size())
      return std::nullopt;
    bits.last = static_cast<uint8_t>(bytes[position++]);
    const uint64_t slice = bits.last & 0x7f;
    const uint64_t fill = static_cast<int64_t>(bits.value) < 0 ? 0x7f : 0;
    const bool overflows =
        isSigned ? (bits.shift > 63 && slice != fill) ||
                       (bits.shift == 63 && slice != 0 && slice != 0x7f)
                 : (bits.shift == 63 && slice > 1) ||
                       (bits.shift > 63 && slice != 0);
    if (overflows)
      return std::nullopt;
    if (bits.shift < 64)
      bits.value |= slice << bits.shift;
    bits.shift += 7;
  } while (bits.last & 0x80);
  return bits;
}

} // namespace leb128_detail

// The unsigned number at `position` in `bytes`; `position` moves past each
// byte read. Nothing when the number runs past the end or does not fit 64
// bits (the byte that overflowed is then read).
inline std::optional<uint64_t> readUleb128(std::string_view bytes,
                                           size_t &position) {
  const auto bits = leb128_detail::read(bytes, position, false);
  if (!bits)
    return std::nullopt;
  return bits->value;
}

// The signed number at `position` in `bytes`, as readUleb128 reads the
// unsigned one; its last byte's sign bit fills the bits above it.
inline std::optional<int64_t> readSleb128(std::string_view bytes,
                                          size_t &position) {
  const auto bits = leb128_detail::read(bytes, position, true);
  if (!bits)
    return std::nullopt;
  uint64_t value = bits->value;
  if (bits->shift < 64 && (bits->last & 0x40))
    value |= ~uint64_t(0) << bits->shift;
  return static_cast<int64_t>(value);
}

} // namespace offbundle
