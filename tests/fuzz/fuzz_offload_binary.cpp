// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Offload binaries (llvm-offload-binary's format, versions 1 to 3, compressed
// ones included): one binary, binaries laid end to end, and writing back
// what was read, which must read the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "../unit/in_memory.h"
#include "formats/offload_binary.h"
#include "fuzz_support.h"

namespace {

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() &&
          part.data() + part.size() <= whole.data() + whole.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes = offbundle::fuzz::asView(data, size);
  (void)offbundle::in_memory::readOffloadBinary(bytes, "fuzz");

  auto binaries = offbundle::splitOffloadBinaries(bytes, "fuzz");
  if (!binaries.ok())
    return 0;
  for (const offbundle::OffloadBinaryView &binary : *binaries) {
    // Every view lies inside the input, or inside the binary inflated.
    const std::string_view owner =
        binary.inflated ? std::string_view(*binary.inflated) : bytes;
    if (!inside(binary.bytes, owner) || !inside(binary.image, owner))
      std::abort();
    for (const auto &[key, value] : binary.strings)
      if (!inside(key, owner) || !inside(value, owner))
        std::abort();

    // What was read, written again, reads back the same.
    offbundle::OffloadImageToWrite image;
    image.imageKind = binary.imageKind;
    image.offloadKind = binary.offloadKind;
    image.flags = binary.flags;
    for (const auto &[key, value] : binary.strings)
      image.strings.emplace_back(key, value);
    image.image = binary.image;
    // Values of version 2 and later are sized and may hold null bytes,
    // which version 1 cannot keep.
    const std::string written =
        binary.version == 1
            ? offbundle::in_memory::writeOffloadBinary(image)
            : offbundle::writeMultiEntryOffloadBinary({image}, binary.version);
    auto reread = offbundle::in_memory::readOffloadBinary(written, "rewritten");
    if (!reread.ok() || reread->image != binary.image ||
        reread->strings != binary.strings ||
        reread->imageKind != binary.imageKind ||
        reread->offloadKind != binary.offloadKind)
      std::abort();
  }
  return 0;
}
