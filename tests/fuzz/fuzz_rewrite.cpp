// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle prune, compress and decompress on any bytes: a standalone
// bundle or an object whose .hip_fatbin holds one. What they write anew
// must read back: a bundle compress or prune wrote decompresses (with its
// hash checked) without error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_support.h"
#include "rewrite/rewrite.h"

namespace {

constexpr uint64_t kLargestReadBack = uint64_t{64} << 20;

offbundle::RewriteRequest request(offbundle::RewriteKind kind) {
  offbundle::RewriteRequest made;
  made.kind = kind;
  // Level 1 keeps each run fast; the bytes written do not depend on it
  // being the default.
  made.compressionLevel = 1;
  if (kind == offbundle::RewriteKind::Prune) {
    auto keep = offbundle::parseTargetSelectors({"gfx906,gfx90a:xnack+"});
    if (!keep)
      std::abort();
    made.keep = std::move(*keep);
  }
  return made;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view contents = offbundle::fuzz::asView(data, size);
  for (offbundle::RewriteKind kind :
       {offbundle::RewriteKind::Prune, offbundle::RewriteKind::Compress,
        offbundle::RewriteKind::Decompress}) {
    auto result = offbundle::rewriteFile("input", contents, request(kind));
    if (!result)
      continue;
    // Unchanged files (a compressed bundle given to compress) are copies of
    // the input, as damaged as it was.
    if (kind == offbundle::RewriteKind::Decompress || !result->changed)
      continue;
    // An object whose section alignment is hundreds of megabytes is
    // written that large, as llvm-objcopy writes it; reading it back here
    // would only measure memory.
    if (result->plan.size() > kLargestReadBack)
      continue;
    // What was written decompresses (or is already plain) without error.
    // A bundle that fails to decompress fails the write.
    auto rendered = result->plan.render(contents);
    if (!rendered)
      continue;
    const std::string &written = *rendered;
    auto plain = offbundle::rewriteFile(
        "output", written, request(offbundle::RewriteKind::Decompress));
    if (!plain)
      std::abort();
  }
  return 0;
}
