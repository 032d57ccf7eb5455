// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The most memory one run may fill with bytes whose size the input decides
// without holding them itself: a stream read into memory (standard input,
// a device, a thin archive's members), the bundles a compressed input
// decompresses into, or an uncompressed bundle assembled for compression.
// Half of what the process can have, so that what is read and the output
// made from it fit together; beyond that a hostile or endless input would
// only end in the out-of-memory killer, or in an allocation failure.
//
// What the process can have is the machine's memory, or less when an
// address-space limit (ulimit -v) says so.
#pragma once

#include <cstdint>

#include <sys/resource.h>
#include <unistd.h>

namespace offbundle {

// The address-space limit (ulimit -v) when it is below the machine's
// memory, or 0.
inline uint64_t addressSpaceLimitBelowMemory(uint64_t memory) {
  struct rlimit addressSpace {};
  if (::getrlimit(RLIMIT_AS, &addressSpace) == 0 &&
      addressSpace.rlim_cur != RLIM_INFINITY &&
      static_cast<uint64_t>(addressSpace.rlim_cur) < memory)
    return static_cast<uint64_t>(addressSpace.rlim_cur);
  return 0;
}

inline uint64_t machineMemory() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t{1} << 33;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

inline uint64_t inMemoryInputLimit() {
  const uint64_t memory = machineMemory();
  const uint64_t addressSpace = addressSpaceLimitBelowMemory(memory);
  return (addressSpace != 0 ? addressSpace : memory) / 2;
}

// How messages name the limit, after its number of bytes.
inline const char *inMemoryLimitDescription() {
  return addressSpaceLimitBelowMemory(machineMemory()) != 0
             ? "half of this process's address-space limit"
             : "half of this machine's memory";
}

} // namespace offbundle
