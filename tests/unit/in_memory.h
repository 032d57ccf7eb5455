// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-string forms of what the product streams. The tools write archives
// and offload binaries piece by piece into their outputs and hash as the
// bytes go by; the unit tests compare whole results with
// stored references, so they build them in memory through the same plans,
// sinks and hashers.
#pragma once

#include "archive/ar_reading.h"
#include "archive/ar_writing.h"
#include "compression/compressed_bundle.h"
#include "compression/md5.h"
#include "formats/elf/elf_object.h"
#include "formats/objcopy/objcopy.h"
#include "formats/offload_binary.h"

#include <string>
#include <string_view>
#include <vector>

namespace offbundle::in_memory {

// The hash a compressed bundle header stores for `data`.
inline uint64_t truncatedMd5(std::string_view data) {
  TruncatedMd5Hasher hasher;
  hasher.update(data);
  return hasher.finish();
}

// The pieces of an archive plan, one after another.
inline std::string render(const ArchiveWritePlan &plan) {
  std::string bytes;
  bytes.reserve(static_cast<size_t>(plan.size()));
  (void)plan.stream([&](std::string_view piece) {
    bytes += piece;
    return Status::success();
  });
  return bytes;
}

// The archive planGnuArchive lays out, rendered.
inline Result<std::string>
writeGnuArchive(const std::vector<NewArchiveMember> &members,
                const ArchiveWriteOptions &options = {}) {
  Result<ArchiveWritePlan> plan = planGnuArchive(members, options);
  if (!plan)
    return plan.takeError();
  return render(*plan);
}

// The object llvm-objcopy writes when the bundler adds `sections`.
inline Result<std::string>
addOffloadBundleSections(std::string_view object,
                         const std::vector<OffloadBundleSection> &sections) {
  Result<ElfWritePlan> plan = planOffloadBundleSections(object, sections);
  if (!plan)
    return plan.takeError();
  return plan->render();
}

// The host object llvm-objcopy writes when the bundler extracts it.
inline Result<std::string>
removeOffloadBundleSections(std::string_view object) {
  Result<ElfWritePlan> plan = planHostObjectExtraction(object);
  if (!plan)
    return plan.takeError();
  return plan->render();
}

// The version 1 binary planOffloadBinary lays out, in one string.
inline std::string writeOffloadBinary(const OffloadImageToWrite &image) {
  OffloadBinaryPieces pieces = planOffloadBinary(image);
  std::string bytes = std::move(pieces.head);
  bytes.append(pieces.image);
  bytes.append(pieces.trailingZeros, '\0');
  return bytes;
}

// The first entry of the binary at the start of `bytes`.
inline Result<OffloadBinaryView> readOffloadBinary(std::string_view bytes,
                                                   std::string_view context) {
  Result<OffloadBinaryEntries> binary =
      readOffloadBinaryEntries(bytes, context);
  if (!binary)
    return binary.takeError();
  if (binary->entries.empty())
    return makeError("the binary holds no image");
  return std::move(binary->entries.front());
}

} // namespace offbundle::in_memory
