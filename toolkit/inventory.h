// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the offbundle tool tells about a file's GPU code, read through the
// public API (include/offbundle/offbundle.h): one record per bundle entry
// (`list`), and the entries grouped per target with the room each target
// takes in the file (`sizes`).
//
// A target is an entry ID without its offload kind: the triple, and the
// target ID when there is one ("amdgcn-amd-amdhsa--gfx90a:xnack-";
// "x86_64-unknown-linux-gnu" for host code). The kinds that wrote the same
// code (hip, hipv4, openmp) share one target, and so do the spellings of
// LLVM after version 22 ("amdgpu9.0a-amd-amdhsa-unknown-gfx90a" is
// "amdgcn-amd-amdhsa--gfx90a", see targets/amdgpu_spellings.h). IDs the
// bundler cannot parse are a target of their own, as stored.
//
// The room a target takes ("file bytes") is the sum of its payloads in
// plain bundles and, in compressed bundles, the bundle's size in the file
// shared among its entries in proportion to their uncompressed sizes (zstd
// and zlib compress a bundle as a whole, so no exact per-entry figure
// exists). Bundle headers and padding are left out, so the file bytes of
// all targets add up to a little less than the bundles' sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

namespace offbundle {

struct InventoryEntry {
  std::string id;     // as stored
  std::string target; // see the comment on top
  uint64_t size = 0;  // uncompressed payload bytes
  // The code object URI of the payload's bytes in the file; nullopt when
  // they exist only decompressed, or in a thin archive's member file.
  std::optional<std::string> uri;
  // Where the entry lives: the bundle's index in the file, the archive
  // member and ELF section holding the bundle ("" when none), and whether
  // the bundle is compressed.
  size_t bundle = 0;
  std::string member;
  std::string section;
  bool compressed = false;
};

struct TargetSize {
  std::string target;
  uint64_t entries = 0;
  uint64_t bytes = 0;     // uncompressed payload bytes
  uint64_t fileBytes = 0; // the room they take in the file
  bool host = false;      // host code, which pruning always keeps
};

// Bundles of one kind (compressed or plain) and what they hold.
struct BundleTotals {
  uint64_t bundles = 0;
  uint64_t fileBytes = 0; // the bundles' sizes in the file
  uint64_t bytes = 0;     // uncompressed payload bytes
};

struct SizeSummary {
  uint64_t fileSize = 0;
  // Largest file bytes first, then by name.
  std::vector<TargetSize> targets;
  BundleTotals compressed;
  BundleTotals plain;
  // Of kpack archives (formats/kpack/kpack_archive.h): in the file read alone,
  // elsewhere for a kpack'd binary.
  BundleTotals kpack;
};

// Every entry of every bundle in `input`, in file order.
std::vector<InventoryEntry> listEntries(const api::Input &input);

// The entries of `input` per target, and the bundle totals.
SizeSummary summarizeSizes(const api::Input &input, uint64_t fileSize);

// Whether the file at `path` opens and holds no bundle: a file a command
// could not work on that, found in a folder, is skipped like any file
// without GPU code.
bool holdsNoBundle(const std::string &path);

// The target an entry counts under (see the comment on top).
std::string targetOf(const api::Entry &entry);

} // namespace offbundle
