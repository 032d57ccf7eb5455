// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Binary bundle reader: the whole-file reader, and the header-only reader
// -list uses on the first bytes of a decompressed bundle.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "formats/binary_bundle.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view contents = offbundle::fuzz::asView(data, size);

  if (auto reader = offbundle::BinaryBundleReader::open(contents);
      reader.ok()) {
    (void)(*reader)->entryIds();
    offbundle::fuzz::walkReader(**reader, contents.size(), 0x33333333u);
  }

  // The header size judged from a prefix must never exceed the prefix, and
  // a header that fits must be readable from that prefix alone against any
  // total size at least as large.
  std::optional<uint64_t> headerSize =
      offbundle::binaryBundleHeaderSize(contents);
  if (headerSize && *headerSize > contents.size())
    std::abort();
  if (headerSize && *headerSize > 0) {
    std::string_view prefix = contents.substr(0, *headerSize);
    auto reader =
        offbundle::BinaryBundleReader::openHeader(prefix, contents.size());
    if (reader.ok())
      (void)(*reader)->entryIds();
  }
  return 0;
}
