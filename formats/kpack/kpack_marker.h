// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The marker a kpack'd host binary carries in place of its device code
// (ROCm/rocm-systems shared/kpack: python/rocm_kpack/elf/kpack_transform.py
// and coff/kpack_transform.py; runtime/src/loader.cpp).
//
// ROCm's kpack tool moves a HIP binary's code objects into .kpack archives
// (kpack_archive.h) and rewrites the binary:
// - every HIP fat binary wrapper (.hipFatBinSegment; .hipFatB in PE images)
//   gets the magic "HIPK" (0x4B504948 as a little-endian u32) instead of
//   "HIPF", its pointer aims at the marker, and its last 8 bytes hold its own
//   index, the translation unit's "co_index";
// - the marker is a new section, .rocm_kpack_ref (.kpackrf in PE images),
//   mapped read-only, holding one MessagePack map:
//     kernel_name         the binary's name in the archives' tables
//     kpack_search_paths  archive paths, relative to the binary's folder
//                         unless absolute; "@GFXARCH@" stands for an
//                         architecture ("../.kpack/blas_@GFXARCH@.kpack")
// - .hip_fatbin is emptied (its whole pages taken out of the file).
//
// The runtime loads the code object of wrapper i for an architecture from
// the first archive listing the architecture that has the table entry
// "<kernel_name>#<i>".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/elf/hip_wrappers.h"
#include "support/error.h"

namespace offbundle {

inline constexpr uint32_t kHipKpackWrapperMagic = 0x4B504948;
inline constexpr std::string_view kKpackMarkerSection = ".rocm_kpack_ref";
inline constexpr std::string_view kKpackMarkerImageSection = ".kpackrf";
inline constexpr std::string_view kKpackArchitecturePlaceholder = "@GFXARCH@";

struct KpackMarker {
  std::string kernelName;
  std::vector<std::string> searchPaths;
};

// Reads the marker's map from the start of `bytes` (a section may be
// padded after it). The Error says what is missing or malformed.
Result<KpackMarker> readKpackMarker(std::string_view bytes);

// The translation-unit index of each HIPK wrapper, in wrapper order (the
// low 32 bits of its last field, which ROCm's tool writes); ordinary
// wrappers are passed over.
inline std::vector<uint64_t>
kpackWrapperIndices(const std::vector<HipWrapper> &wrappers) {
  std::vector<uint64_t> indices;
  for (const HipWrapper &wrapper : wrappers)
    if (wrapper.magic == kHipKpackWrapperMagic)
      indices.push_back(wrapper.reserved & 0xffffffff);
  return indices;
}

// The table key of wrapper `index`'s code objects.
inline std::string kpackBinaryKey(const KpackMarker &marker, uint64_t index) {
  return marker.kernelName + "#" + std::to_string(index);
}

} // namespace offbundle
