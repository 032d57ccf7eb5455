// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checking that a range of bytes lies inside a buffer, the first thing every
// reader of a binary format does with an offset and a size it has read.
#pragma once

#include <cstdint>

namespace offbundle {

// Whether [offset, offset + size) lies inside `total` bytes. Written so that
// no sum can overflow, whatever the file claims.
constexpr bool rangeFits(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}

} // namespace offbundle
