// The most memory one run may fill with bytes whose size the input decides
// without holding them itself: a stream read into memory (standard input,
// a device, a thin archive's member that is not a regular file), or the
// bundles a compressed input decompresses into. Half the machine's memory,
// so that what is read and the output made from it fit together; beyond
// that a hostile or endless input would only end in the out-of-memory
// killer.
#pragma once

#include <cstdint>

#include <unistd.h>

namespace offbundle {

inline uint64_t inMemoryInputLimit() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t{1} << 32;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) / 2;
}

} // namespace offbundle
