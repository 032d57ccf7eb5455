// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The interface every bundle container implements (the containers
// themselves are listed in formats/container_format.h).
//
// Readers walk a container the way LLVM's bundler does, one entry at a time,
// because the order of that walk and what it skips are observable (which
// compatible entry an unbundle picks, what -list prints). They never copy
// payloads: they report byte ranges, which the caller copies straight from
// the mapped input to the output.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

// The magic that starts binary bundles and the names of bundle sections.
inline constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";

struct ByteRange {
  uint64_t offset = 0;
  uint64_t size = 0;
};

class ElfWritePlan;

// Where an entry's bytes are: a range of the container, or, for the host
// entry of a fat object, the container rewritten without its bundle
// sections.
struct EntryPayload : ByteRange {
  std::shared_ptr<const ElfWritePlan> rewrittenObject;
};

class BundleReader {
public:
  virtual ~BundleReader() = default;
  // Moves to the next entry and returns its ID, or nullopt when there are no
  // more entries.
  virtual Result<std::optional<std::string_view>> nextEntry() = 0;
  // The payload of the current entry, and moves past its end.
  virtual Result<EntryPayload> readEntry() = 0;
  // Moves past the end of the current entry without reading it (the walk
  // that -list makes).
  virtual Status skipEntry() = 0;
};

// What a visitor of forEachEntry wants next.
enum class EntryWalk { Continue, Stop };

// Walks the entries of `reader` in order: for each, `visit` gets its ID
// and may read or skip the entry through `reader`. The walk stops after the
// last entry, when `visit` says Stop, or at the first error (the reader's or
// the visitor's), which it returns. It neither reads nor skips an entry
// itself: whether the walk moves over an entry's contents is observable (a
// damaged entry the walk only passes fails in some containers and not in
// others), so that choice stays with the visitor, as in LLVM's loops.
Status forEachEntry(
    BundleReader &reader,
    const std::function<Result<EntryWalk>(std::string_view id)> &visit);

class InputFile;

// One entry to write: its ID and the file holding its payload.
struct EntryToWrite {
  std::string_view id;
  const InputFile *payload;
};

} // namespace offbundle
