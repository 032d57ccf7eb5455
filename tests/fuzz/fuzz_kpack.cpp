// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kpack archives and markers (formats/kpack/kpack_archive.h, kpack_marker.h):
// the header, the MessagePack table through msgpack-c after the check that
// bounds what it allocates, the blob and frame index, and every code
// object read or decompressed and checked. Whatever is read must lie
// inside the input, and a decompressed code object must have its
// original_size.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "formats/kpack/kpack_archive.h"
#include "formats/kpack/kpack_marker.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view input = offbundle::fuzz::asView(data, size);
  if (auto marker = offbundle::readKpackMarker(input)) {
    if (marker->searchPaths.empty())
      std::abort();
  }
  auto archive = offbundle::KpackArchive::read(input);
  if (!archive)
    return 0;
  for (const offbundle::KpackBinary &binary : archive->binaries())
    for (const offbundle::KpackCodeObject &codeObject : binary.codeObjects) {
      if (archive->storedOffset(codeObject.ordinal) > size ||
          archive->storedSize(codeObject.ordinal) >
              size - archive->storedOffset(codeObject.ordinal))
        std::abort();
      auto bytes = archive->codeObject(codeObject);
      if (!bytes)
        continue;
      if (bytes->size() != codeObject.originalSize)
        std::abort();
      (void)offbundle::checkAmdgpuCodeObject(*bytes, codeObject.architecture);
    }
  return 0;
}
