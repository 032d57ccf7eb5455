// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// XXH3 64-bit hash (seed 0, default secret), the hash LLVM's StringMap uses to
// place keys in buckets. Reproducing it exactly is what lets us list and pick
// bundle entries in the same order as LLVM's tools.
#pragma once

#include <cstdint>
#include <string_view>

namespace offbundle {

uint64_t xxh3_64bits(std::string_view data);

} // namespace offbundle
