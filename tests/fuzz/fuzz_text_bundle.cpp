// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Text bundle reader: any bytes, in each of the three comment styles, walked
// by -list (skipping) and -unbundle (reading) alike.
#include <cstddef>
#include <cstdint>

#include "formats/text_bundle.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  // The first byte picks the comment style and which entries are read, so
  // the rest of the input is the bundle exactly as the tool would see it.
  constexpr std::string_view kComments[] = {"//", "#", ";"};
  const std::string_view comment = kComments[data[0] % 3];
  const uint32_t readMask = data[0] & 0x80 ? 0xffffffffu : 0x55555555u;
  std::string_view contents = offbundle::fuzz::asView(data + 1, size - 1);
  offbundle::TextBundleReader reader(contents, comment);
  offbundle::fuzz::walkReader(reader, contents.size(), readMask);
  return 0;
}
