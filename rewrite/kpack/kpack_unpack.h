// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle unpack-kpack: an ordinary HIP fat binary rebuilt from a kpack'd
// ELF program or library (formats/kpack/kpack_marker.h) and the archives its
// marker names, for runtimes and tools that do not read kpack.
//
// Each HIPK wrapper becomes a HIPF wrapper again (its last field back to 0)
// pointing at its own bundle, the code objects bundler/kpack_discovery.h
// gathers for its index, laid out one after another (each at a 4096-byte
// boundary, as clang aligns them) as the new contents of .hip_fatbin. The
// section changes size as rewrite/elf/linked_section_resize.h changes it:
// growing, it moves to a new segment at the end of the file, as it does
// when it has no file bytes at all (SHT_NOBITS, as ROCm's tool leaves a
// .hip_fatbin of whole pages, whose addresses stay zero-filled). The pointers
// are redirected the way that resize redirects pointers into the section:
// each wrapper's pointer (and its RELATIVE relocation's addend) is first
// set, in a copy of the input, to an address of the old section of its
// own, which the resize then moves to its bundle's start. The marker stays
// where it is, unread by the HIP runtime.
//
// Refused: files that are not kpack'd, whose .hip_fatbin spans fewer bytes
// than there are wrappers, and files mixing HIPF and HIPK wrappers.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "compression/compressed_bundle.h"
#include "support/error.h"
#include "support/input_file.h"
#include "support/output_plan.h"

namespace offbundle {

struct KpackUnpacking {
  // The input with its wrappers and relocations patched: what the plan's
  // input ranges are ranges of.
  std::unique_ptr<InputFile> patchedInput;
  OutputPlan plan;
  size_t bundles = 0;
  size_t codeObjects = 0;
};

struct KpackUnpackRequest {
  bool compress = false;
  int compressionLevel = kDefaultZstdLevel;
};

Result<KpackUnpacking> unpackKpack(const std::string &file,
                                   std::string_view bytes,
                                   const KpackUnpackRequest &request);

} // namespace offbundle
