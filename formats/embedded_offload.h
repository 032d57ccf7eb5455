// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The bundler's view of offload binaries (magic 0x10FF10AD, read by
// formats/offload_binary.h), as clang's new offloading driver embeds them in
// ".llvm.offloading" sections: each binary holds one image (several from
// format version 2 on), which the bundler lists and extracts like bundle
// entries.
//
// The bundler names an image by an entry ID in its own style,
// "<offload kind>-<triple>-<arch>", with the triple written as bundle entry
// IDs write it ("hip-amdgcn-amd-amdhsa--gfx906"), so that -targets can
// select images as it selects bundle entries.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/bundle_format.h"
#include "formats/offload_binary.h"
#include "support/error.h"

namespace offbundle {

// The entry ID the bundler gives an image (see above); the offload kind is
// spelled by offloadKindDescription.
std::string offloadImageEntryId(const OffloadBinaryView &binary);

// Words for listings: the offload kind ("openmp", "cuda", "hip", "sycl",
// "none" for 0, "unknown" otherwise) and the image kind ("none", "object",
// "bitcode", "cubin", "fatbinary", "ptx", "spirv", else "unknown"). The
// packager's offloadKindName and imageKindName give LLVM's spellings
// instead (file extensions for images).
std::string_view offloadKindDescription(uint16_t kind);
std::string_view imageKindDescription(uint16_t kind);

// A bundle reader over the images of one offload binary. A compressed
// binary must be inflated first (formats/compressed_offload_binary.h): the
// payloads are ranges of the bytes given.
class OffloadBinaryReader final : public BundleReader {
public:
  // `bytes` starts with the binary; it may run on past it.
  static Result<std::unique_ptr<OffloadBinaryReader>>
  open(std::string_view bytes);
  Result<std::optional<std::string_view>> nextEntry() override;
  Result<EntryPayload> readEntry() override;
  Status skipEntry() override { return Status::success(); }

  // The image of the current entry.
  const OffloadBinaryView &binary() const { return entries_[next_ - 1]; }

private:
  OffloadBinaryReader() = default;
  std::vector<OffloadBinaryView> entries_;
  std::string id_;
  size_t next_ = 0;
};

} // namespace offbundle
