// Offload binaries (magic 0x10FF10AD), as clang's new offloading driver
// embeds them in ".llvm.offloading" sections, read just far enough for the
// bundler to list and extract their images. All integers little-endian:
//
//   header   magic "\x10\xFF\x10\xAD"              4 bytes
//            version (1)                           u32
//            size of this binary                   u64
//            entry table offset, entry table size  u64, u64
//   entry    image kind, offload kind              u16, u16
//            flags                                 u32
//            string table offset, string count     u64, u64
//            image offset, image size              u64, u64   (40 bytes)
//   strings  key offset, value offset              u64, u64 per string,
//            each naming a NUL-terminated string
//
// Offsets count from the start of the binary. Several binaries are laid end
// to end in a section (8-byte aligned), each starting with its own magic.
// Every offset and size is checked against the binary before use.
//
// The bundler names an image by an entry ID in its own style,
// "<offload kind>-<triple>-<arch>", with the triple written four-part as
// bundle entry IDs are ("hip-amdgcn-amd-amdhsa--gfx906"), so that -targets
// can select images as it selects bundle entries.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bundler/error.h"
#include "formats/bundle_format.h"

namespace offbundle {

inline constexpr std::string_view kOffloadBinaryMagic = "\x10\xFF\x10\xAD";
inline constexpr uint64_t kOffloadBinaryHeaderSize = 32;

bool hasOffloadBinaryMagic(std::string_view bytes);

struct OffloadImage {
  uint16_t imageKind = 0;
  uint16_t offloadKind = 0;
  uint32_t flags = 0;
  // Key and value pairs in table order; views into the binary.
  std::vector<std::pair<std::string_view, std::string_view>> strings;
  // The image, counted from the start of the binary.
  ByteRange image;

  // The value of a string key, "" when absent.
  std::string_view string(std::string_view key) const;
  // The entry ID the bundler gives this image (see above).
  std::string entryId() const;
};

struct OffloadBinaryInfo {
  uint32_t version = 0;
  // Bytes the binary spans, from its header.
  uint64_t size = 0;
  std::vector<OffloadImage> images;
};

// Reads the offload binary at the start of `bytes` (which may continue
// past it). Refuses anything that does not fit.
Result<OffloadBinaryInfo> parseOffloadBinary(std::string_view bytes);

// "openmp", "cuda", "hip", "sycl"; "none" for 0, "unknown" otherwise.
std::string_view offloadKindName(uint16_t kind);
// "object", "bitcode", "cubin", "fatbinary", "ptx", "spirv"; "none" for 0,
// "unknown" otherwise.
std::string_view imageKindName(uint16_t kind);

// The images of one offload binary, as bundle entries.
class OffloadBinaryReader final : public BundleReader {
public:
  // `bytes` is exactly one binary (see parseOffloadBinary for its size).
  static Result<std::unique_ptr<OffloadBinaryReader>>
  open(std::string_view bytes);

  Result<std::optional<std::string_view>> nextEntry() override;
  Result<EntryPayload> readEntry() override;
  Status skipEntry() override { return Status::success(); }

  const OffloadBinaryInfo &info() const { return info_; }
  // The image the last nextEntry() moved to.
  const OffloadImage &currentImage() const {
    return info_.images.at(next_ - 1);
  }

private:
  OffloadBinaryReader() = default;
  OffloadBinaryInfo info_;
  std::vector<std::string> ids_;
  size_t next_ = 0;
};

} // namespace offbundle
