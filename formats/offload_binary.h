// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Offload binaries: the 0x10FF10AD container clang's new offloading driver
// wraps every device image in before embedding it in a host object's
// `.llvm.offloading` section (llvm::object::OffloadBinary). Version 1 is what
// LLVM 22 writes and reads; versions 2 and 3 are what newer LLVM reads.
//
// A version 1 binary holds one image and a string map describing it:
//
//   header (32 bytes)   "\x10\xFF\x10\xAD", version (u32), size (u64),
//                        entry offset (u64), entry size (u64)
//   entry (40 bytes)     image kind (u16), offload kind (u16), flags (u32),
//                        string entries offset (u64), string count (u64),
//                        image offset (u64), image size (u64)
//   string entries       (key offset, value offset) pairs of u64
//   string table         null-terminated strings, tail-merged
//   zero padding to 8, the image, zero padding to 8
//
// All fields are little-endian and all offsets count from the start of the
// binary. Binaries are concatenated as they are (their sizes are multiples
// of 8), which is how a linker merges the sections of several objects.
//
// Version 2 (LLVM 23) holds several images in one binary. The header's last
// field counts the entries instead of giving the size of the one entry;
// entries are the same 40 bytes, laid one after the other; string entries
// grow to 24 bytes, (key offset, value offset, value size): a key is still
// null-terminated, a value is the given number of bytes. Newer LLVM writes
// the entries, then every entry's string entries in entry order, the string
// table, zero padding to 8, the images back to back, zero padding to 8.
//
// Version 3 (proposed upstream in llvm-project pull request 222774, not
// merged) appends an "inflated size" (u64) to the header, making it 40
// bytes. When it is not 0 the binary is compressed: see
// formats/compressed_offload_binary.h. Otherwise it reads as version 2.
//
// Parsing is bounds-checked and returns errors as values. Where LLVM 22
// refuses a binary, the message is LLVM's own (it names no field); where
// LLVM accepts a binary that points outside itself (and then reads memory
// it does not own, or crashes), the binary is refused here with a message
// saying what is wrong.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/error.h"

namespace offbundle {

inline constexpr std::string_view kOffloadBinaryMagic = "\x10\xFF\x10\xAD";
// The version written by default (LLVM 22's).
inline constexpr uint32_t kOffloadBinaryVersion = 1;
// The newest version read.
inline constexpr uint32_t kOffloadBinaryNewestVersion = 3;
// The version a compressed binary carries.
inline constexpr uint32_t kCompressedOffloadBinaryVersion = 3;
inline constexpr uint64_t kOffloadBinaryAlignment = 8;
inline constexpr uint64_t kOffloadBinaryHeaderSize = 32;
inline constexpr uint64_t kOffloadBinaryEntrySize = 40;
inline constexpr uint64_t kOffloadBinaryStringEntrySize = 16;
inline constexpr uint64_t kOffloadBinaryV3HeaderSize = 40;
inline constexpr uint64_t kOffloadBinaryV2StringEntrySize = 24;

// LLVM's two messages for a binary it refuses (object_error::parse_failed
// and object_error::unexpected_eof).
inline constexpr std::string_view kOffloadParseFailedMessage =
    "Invalid data was encountered while parsing the file";
inline constexpr std::string_view kOffloadUnexpectedEofMessage =
    "The end of the file was unexpectedly encountered";

// Image kinds (llvm::object::ImageKind).
namespace image_kind {
inline constexpr uint16_t kNone = 0;
inline constexpr uint16_t kObject = 1;
inline constexpr uint16_t kBitcode = 2;
inline constexpr uint16_t kCubin = 3;
inline constexpr uint16_t kFatbinary = 4;
inline constexpr uint16_t kPtx = 5;
inline constexpr uint16_t kSpirv = 6;
} // namespace image_kind

// Offload kinds (llvm::object::OffloadKind). LLVM 22 made them bit flags;
// the manual's table still shows the older 1, 2, 3, 4 numbering.
namespace offload_kind {
inline constexpr uint16_t kNone = 0;
inline constexpr uint16_t kOpenMP = 1;
inline constexpr uint16_t kCuda = 2;
inline constexpr uint16_t kHip = 4;
inline constexpr uint16_t kSycl = 8;
} // namespace offload_kind

// The image kind LLVM 22 gives a file extension (without its dot): o, bc,
// cubin, fatbin and s; anything else (spv included: LLVM 22.1 has the
// SPIR-V kind but does not map the extension) is kNone.
uint16_t imageKindFromExtension(std::string_view extension);
// The extension LLVM 22 names an image kind with; "" for kNone and for
// kinds it does not know (SPIR-V included).
std::string_view imageKindName(uint16_t kind);
// "openmp", "cuda", "hip", "sycl"; anything else is kNone.
uint16_t offloadKindFromName(std::string_view name);
// The name of a single offload kind, "none" otherwise.
std::string_view offloadKindName(uint16_t kind);

// Whether the bytes start with the offload binary magic.
bool hasOffloadBinaryMagic(std::string_view bytes);

// An image to package, with its string map in the order it is written.
struct OffloadImageToWrite {
  uint16_t imageKind = image_kind::kNone;
  uint16_t offloadKind = offload_kind::kNone;
  uint32_t flags = 0;
  std::vector<std::pair<std::string, std::string>> strings;
  std::string_view image;
};

// A binary as the pieces to write one after the other, so that a large
// image is streamed from where it is instead of copied: `head` (header,
// entry, string entries, string table and padding), the image, then
// `trailingZeros` zero bytes.
struct OffloadBinaryPieces {
  std::string head;
  std::string_view image;
  uint64_t trailingZeros = 0;
  uint64_t size() const { return head.size() + image.size() + trailingZeros; }
};

// Lays out one binary exactly as LLVM 22's OffloadBinary::write does: the
// strings in one ELF-style string table (a leading null byte, strings
// sorted by their reversed bytes so that a string that ends another shares
// its bytes, the empty string at offset 0).
OffloadBinaryPieces planOffloadBinary(const OffloadImageToWrite &image);

// One binary of version 2 or 3 holding every image as an entry, laid out as
// newer LLVM's OffloadBinary::write lays it out (version 3 with an inflated
// size of 0: uncompressed).
std::string
writeMultiEntryOffloadBinary(const std::vector<OffloadImageToWrite> &images,
                             uint32_t version);

// One binary read from a buffer; the views point into that buffer.
struct OffloadBinaryView {
  // Where the binary starts in the buffer it was split from.
  uint64_t offset = 0;
  // All of it (the header's size); for a compressed binary, all of it once
  // inflated.
  std::string_view bytes;
  // Keeps an inflated binary alive; bytes, image and strings then point into
  // it instead of the buffer. Null for an uncompressed binary.
  std::shared_ptr<const std::string> inflated;
  uint32_t version = 0;
  // The entry's place in its binary (0 in a version 1 binary).
  uint64_t entryIndex = 0;
  uint16_t imageKind = image_kind::kNone;
  uint16_t offloadKind = offload_kind::kNone;
  uint32_t flags = 0;
  // The string map as LLVM reads it: keys in the order of their first
  // entry, each with the value of its last entry.
  std::vector<std::pair<std::string_view, std::string_view>> strings;
  std::string_view image;

  // The value of a key, "" when absent (as LLVM's getString).
  std::string_view string(std::string_view key) const;
  std::string_view triple() const { return string("triple"); }
  std::string_view arch() const { return string("arch"); }
};

// Every entry of one binary (one for version 1, any number for version 2 and
// 3), with the binary's size as the header gives it (for a compressed one,
// its compressed size).
struct OffloadBinaryEntries {
  uint64_t size = 0;
  std::vector<OffloadBinaryView> entries;
};

// Reads every entry of every binary of a buffer holding binaries laid end to
// end, as LLVM's extractOffloadBinaries reads a file or a section's
// contents: the first binary at offset 0, each next one right after the
// previous one's size. Zero bytes between binaries (whole 8-byte words at
// 8-byte aligned offsets, the padding a linker inserts for an alignment larger
// than 8) and at the end are skipped, where LLVM refuses them. An empty buffer
// holds no binary. `context` starts the messages of errors LLVM does not report
// itself (e.g. "'file.o': section '.llvm.offloading'").
//
// LLVM's own two messages (above) come bare, as LLVM's tools print them, or,
// for a tool of its own that names every fault's place, after `context` too.
enum class LlvmMessages { Bare, InContext };
Result<std::vector<OffloadBinaryView>>
splitOffloadBinaries(std::string_view buffer, std::string_view context,
                     LlvmMessages llvmMessages = LlvmMessages::Bare);

// The entries of the one binary at the start of `bytes` (which may run on
// past it), with the same checks and messages.
Result<OffloadBinaryEntries> readOffloadBinaryEntries(std::string_view bytes,
                                                      std::string_view context);

} // namespace offbundle
