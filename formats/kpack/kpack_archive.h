// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ROCm kpack archives (.kpack): the device code that ROCm's kpack tool moves
// out of host binaries, one archive per GPU architecture (or family), read
// by the runtime's kpack loader. Layout (ROCm/rocm-systems shared/kpack:
// docs/multi_arch_packaging_with_kpack.md, python/rocm_kpack/kpack.py and
// compression.py, runtime/src/toc_parser.cpp and compression.cpp), all
// integers little-endian:
//
//   0   "KPAK"
//   4   u32 version, 1
//   8   u64 toc_offset: where the table of contents starts
//   16  zeros up to offset 64, then the blobs
//   toc_offset  the table of contents, one MessagePack map, to the end
//
// The table of contents:
//
//   format_version   1                 group_name, gfx_arch_family: labels
//   gfx_arches       [architecture...] what the loader matches requests to
//   toc              {binary key: {architecture: {type: "hsaco",
//                                  ordinal, original_size, [metadata]}}}
//   compression_scheme  "none" (the default) or "zstd-per-kernel"
//   blobs            "none": [{offset (in the file), size}...] by ordinal
//   zstd_offset, zstd_size  "zstd-per-kernel": where the blob region is;
//                    it holds u32 count, then per ordinal u32 size and one
//                    zstd frame that decompresses to original_size
//
// A binary key is "<kernel_name>#<index>": the kernel_name of a kpack'd
// binary's marker (kpack_marker.h) and the index of the HIP fat binary
// wrapper, one per translation unit, whose code objects these are. The
// code objects are AMDGPU ELF files, as clang's bundles hold them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

inline constexpr std::string_view kKpackMagic = "KPAK";

bool hasKpackMagic(std::string_view bytes);

enum class KpackCompression { None, ZstdPerKernel };

struct KpackCodeObject {
  std::string architecture; // as the table keys it: "gfx942:xnack-"
  uint32_t ordinal = 0;
  uint64_t originalSize = 0;
};

struct KpackBinary {
  std::string key;                          // "<kernel_name>#<index>"
  std::vector<KpackCodeObject> codeObjects; // in table order
};

class KpackArchive {
public:
  // Reads the header and the table of contents, and where each ordinal's
  // bytes lie; every ordinal the table names must have them. `bytes` must
  // outlive the archive. Errors say what is wrong, without the file name.
  static Result<KpackArchive> read(std::string_view bytes);

  KpackCompression compression() const { return compression_; }
  const std::vector<std::string> &architectures() const {
    return architectures_;
  }
  const std::vector<KpackBinary> &binaries() const { return binaries_; }
  // The binary of that key, or nullptr.
  const KpackBinary *find(std::string_view key) const;

  // The code object's bytes: read, or decompressed, checked to have its
  // original size.
  Result<std::string> codeObject(const KpackCodeObject &codeObject) const;
  // Where the stored (compressed, if it is) bytes of an ordinal lie in the
  // archive, and their size.
  uint64_t storedOffset(uint32_t ordinal) const {
    return stored_[ordinal].offset;
  }
  uint64_t storedSize(uint32_t ordinal) const { return stored_[ordinal].size; }

private:
  struct Stored {
    uint64_t offset = 0;
    uint64_t size = 0;
  };
  std::string_view bytes_;
  KpackCompression compression_ = KpackCompression::None;
  std::vector<std::string> architectures_;
  std::vector<KpackBinary> binaries_;
  std::vector<Stored> stored_; // by ordinal
};

// Whether `codeObject` is an AMDGPU ELF code object for `architecture` (a
// processor, with target features after ':'): 64-bit little-endian ELF,
// machine EM_AMDGPU, and the processor its e_flags name. The Error says
// what it is instead.
Status checkAmdgpuCodeObject(std::string_view codeObject,
                             std::string_view architecture);

} // namespace offbundle
