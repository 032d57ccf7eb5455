// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The helpers of the single-bundle rewriter (see bundle_rewriter.h).
#include "rewrite/bundle_rewriter.h"

namespace offbundle::rewriting {

// A binary bundle's entries in file order, repeats included.
Result<std::vector<PlainEntry>> readPlainEntries(std::string_view bundle) {
  auto reader = BinaryBundleReader::openInFileOrder(bundle);
  if (!reader)
    return reader.takeError();
  std::vector<PlainEntry> entries;
  BundleReader &records = **reader;
  Status walked =
      forEachEntry(records, [&](std::string_view id) -> Result<EntryWalk> {
        auto payload = records.readEntry();
        if (!payload)
          return payload.takeError();
        entries.push_back({std::string(id), *payload});
        return EntryWalk::Continue;
      });
  if (!walked.ok())
    return walked.takeError();
  return entries;
}

// Whether `bytes` are a whole binary bundle, every entry inside them.
Status checkPlainBundle(std::string_view bytes) {
  if (!hasBinaryBundleMagic(bytes))
    return makeError("it has no bundle magic");
  if (auto entries = readPlainEntries(bytes); !entries)
    return entries.takeError();
  return Status::success();
}

// The alignment the bundle was written with, as far as its offsets show:
// the largest power of two up to 4096 dividing every payload offset.
uint64_t inferredAlignment(const std::vector<PlainEntry> &entries) {
  uint64_t alignment = kLargestInferredAlignment;
  for (const PlainEntry &entry : entries)
    while (alignment > 1 && entry.payload.offset % alignment != 0)
      alignment /= 2;
  return alignment;
}

} // namespace offbundle::rewriting
