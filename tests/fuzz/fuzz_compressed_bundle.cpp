// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compressed bundles (CCOB): headers, whole and partial decompression, and
// splitting concatenations. Decompression must never believe a size claim
// more than the data supports, so libFuzzer's memory limit (-rss_limit_mb,
// -malloc_limit_mb) turns any over-allocation into a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "../unit/in_memory.h"
#include "compression/compressed_bundle.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes = offbundle::fuzz::asView(data, size);
  if (!offbundle::hasCompressedBundleMagic(bytes))
    return 0;

  auto header = offbundle::parseCompressedBundleHeader(bytes);
  if (header.ok() && header->headerSize > bytes.size())
    std::abort();

  if (auto whole = offbundle::decompressBundle(bytes); whole.ok()) {
    // A success is a promise: the size and hash match the header.
    if (whole->bytes.size() != whole->header.uncompressedSize ||
        whole->compressedExtent > bytes.size() ||
        offbundle::in_memory::truncatedMd5(whole->bytes.view()) !=
            whole->header.hash)
      std::abort();
  }

  // -list reads prefixes of growing length; any of them must stay within
  // what was asked for.
  for (uint64_t wanted : {uint64_t{0}, uint64_t{24}, uint64_t{1} << 16}) {
    auto prefix = offbundle::decompressBundlePrefix(bytes, wanted);
    if (prefix.ok() && prefix->size() > wanted)
      std::abort();
  }

  if (auto spans = offbundle::splitConcatenatedCompressedBundles(bytes);
      spans.ok()) {
    for (const auto &span : *spans) {
      if (span.offset > bytes.size() ||
          span.bytes.size() > bytes.size() - span.offset)
        std::abort();
    }
  }
  return 0;
}
