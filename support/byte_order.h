// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Little-endian integers inside byte strings.
//
// Most containers offbundle reads or writes (offload binaries of each
// version, binary bundles, COFF objects, compressed bundle headers) store
// their integers little-endian, whatever the host, and xxhash reads its
// input as little-endian words. These helpers read and write them byte by byte,
// so they need no alignment and behave the same on every host. Callers check
// that `at + width` lies inside `bytes` before reading or storing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace offbundle {

// The `width`-byte (1 to 8) little-endian integer at `at`.
inline uint64_t loadLittleEndian(const uint8_t *at, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = width; i-- > 0;)
    value = value << 8 | at[i];
  return value;
}

inline uint32_t loadLittle32(const uint8_t *at) {
  return static_cast<uint32_t>(loadLittleEndian(at, 4));
}

inline uint64_t loadLittle64(const uint8_t *at) {
  return loadLittleEndian(at, 8);
}

// The same, `at` bytes into `bytes`.
inline uint64_t loadLittleEndian(std::string_view bytes, uint64_t at,
                                 unsigned width) {
  return loadLittleEndian(reinterpret_cast<const uint8_t *>(bytes.data()) + at,
                          width);
}

inline uint16_t loadLittle16(std::string_view bytes, uint64_t at) {
  return static_cast<uint16_t>(loadLittleEndian(bytes, at, 2));
}

inline uint32_t loadLittle32(std::string_view bytes, uint64_t at) {
  return static_cast<uint32_t>(loadLittleEndian(bytes, at, 4));
}

inline uint64_t loadLittle64(std::string_view bytes, uint64_t at) {
  return loadLittleEndian(bytes, at, 8);
}

// The `width`-byte (1 to 8) big-endian integer at `at`.
inline uint64_t loadBigEndian(std::string_view bytes, uint64_t at,
                              unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i)
    value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

// The `width`-byte integer at `at` in the order a file declares.
inline uint64_t loadInByteOrder(std::string_view bytes, uint64_t at,
                                unsigned width, bool bigEndian) {
  return bigEndian ? loadBigEndian(bytes, at, width)
                   : loadLittleEndian(bytes, at, width);
}

// Appends the low `width` (1 to 8) bytes of `value`, least significant first.
inline void appendLittleEndian(std::string &out, uint64_t value,
                               unsigned width) {
  for (unsigned i = 0; i < width; ++i)
    out.push_back(static_cast<char>(value >> (8 * i) & 0xff));
}

// Overwrites the `width` bytes at `at` with `value`, least significant first.
inline void storeLittleEndian(std::string &bytes, uint64_t at, uint64_t value,
                              unsigned width) {
  for (unsigned i = 0; i < width; ++i)
    bytes[at + i] = static_cast<char>(value >> (8 * i) & 0xff);
}

} // namespace offbundle
