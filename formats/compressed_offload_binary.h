// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Compressed offload binaries, as proposed upstream in llvm-project pull
// request 222774 (not merged; its spelling is followed until one is):
//
//   header (40 bytes)   "\x10\xFF\x10\xAD", version 3 (u32), size (u64),
//                        entries offset (u64), entry count (u64),
//                        inflated size (u64, not 0)
//   compressed data      everything of the uncompressed binary after its
//                        header, as one zstd frame or one zlib stream
//   zero padding to 8 (not counted in the size)
//
// The size counts the header and the compressed data; the entries offset is
// where the compressed data starts (the header's size); the inflated size is
// the size of the uncompressed binary. Which codec was used shows in the
// data: a zstd frame starts with 28 B5 2F FD, anything else is zlib.
// Inflating puts back the header with the inflated size as its size and 0 as
// its inflated size, followed by the inflated data: an uncompressed version 3
// binary, read as any other.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/error.h"

namespace offbundle {

enum class OffloadCompressionFormat { Zstd, Zlib };

// llvm::compression's default levels, which newer llvm-offload-binary uses
// when --compression-level is not given.
inline constexpr int kDefaultOffloadZstdLevel = 5;
inline constexpr int kDefaultOffloadZlibLevel = 6;

// Whether a header (at least 40 bytes of it) says the binary is compressed.
bool isCompressedOffloadBinary(std::string_view header);

// The uncompressed binary of a compressed one. `bytes` holds the binary
// (its size already checked against it). Errors use LLVM's messages where
// LLVM has one.
Result<std::string> inflateOffloadBinary(std::string_view bytes);

// Compresses an uncompressed version 3 binary (as writeMultiEntryOffloadBinary
// writes it) into the layout above, padded to 8.
Result<std::string> deflateOffloadBinary(std::string_view uncompressed,
                                         OffloadCompressionFormat format,
                                         int level);

// The levels each codec accepts: zlib 0 to 9, zstd its own range (negative
// levels are zstd's fast modes). An error names the range.
Status checkOffloadCompressionLevel(OffloadCompressionFormat format, int level);

} // namespace offbundle
