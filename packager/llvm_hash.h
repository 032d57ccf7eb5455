// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm::hash_value(StringRef): the hash LLVM's DenseMap uses for string
// keys (DenseMapInfo<StringRef>), a CityHash-style function with the fixed
// seed of builds without ABI-breaking checks (such as Debian's LLVM 22).
// llvm-offload-binary keeps each --image's key=value pairs in such a
// DenseMap and writes them in its iteration order, so reproducing the
// string tables it writes needs this exact hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace offbundle {

uint64_t llvmHashValue(std::string_view bytes);

// What DenseMapInfo<StringRef>::getHashValue returns: the hash truncated
// to 32 bits.
inline uint32_t llvmDenseMapStringHash(std::string_view bytes) {
  return static_cast<uint32_t>(llvmHashValue(bytes));
}

} // namespace offbundle
