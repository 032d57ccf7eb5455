// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// kpack archives (see kpack_archive.h): the header, the table of contents
// through msgpack-c (message_pack.h), the blob index, and code objects
// read or decompressed on request.

#include "formats/kpack/kpack_archive.h"

#include <algorithm>

#include "compression/codecs.h"
#include "formats/elf/elf_object.h"
#include "formats/kpack/message_pack.h"
#include "support/byte_order.h"
#include "targets/amdgpu_elf_mach.h"

namespace offbundle {
namespace {

constexpr uint32_t kKpackVersion = 1;
constexpr uint64_t kKpackHeaderSize = 16;

// A zstd block yields at most 128 KiB from at least 4 bytes (an RLE block's
// header and byte), so no frame decompresses to more than this; a larger
// original_size is a lie, refused before memory is set aside for it.
uint64_t largestZstdOutput(uint64_t frameSize) {
  return (frameSize / 4 + 1) * (uint64_t{128} << 10);
}

Error tableError(const std::string &what) {
  return makeError("malformed kpack table of contents: " + what,
                   ErrorCode::DamagedInput);
}

Result<uint64_t> unsignedField(const MessagePackValue &map,
                               std::string_view name, const std::string &in) {
  std::optional<MessagePackValue> value = map.find(name);
  if (!value)
    return tableError(in + " has no " + std::string(name));
  std::optional<uint64_t> number = value->asUnsigned();
  if (!number)
    return tableError(in + "'s " + std::string(name) + " is a " +
                      std::string(value->kindName()) +
                      ", not an unsigned integer");
  return *number;
}

// The blob index of the "none" scheme: each ordinal's bytes in the file.
Status readPlainBlobs(const MessagePackValue &table, uint64_t fileSize,
                      std::vector<std::pair<uint64_t, uint64_t>> &stored) {
  std::optional<MessagePackValue> blobs = table.find("blobs");
  if (!blobs || !blobs->isArray())
    return tableError("\"none\" compression needs an array of blobs");
  for (uint32_t i = 0; i < blobs->size(); ++i) {
    const std::string name = "blob " + std::to_string(i);
    MessagePackValue blob = blobs->element(i);
    if (!blob.isMap())
      return tableError(name + " is not a map");
    auto offset = unsignedField(blob, "offset", name);
    if (!offset)
      return offset.takeError();
    auto size = unsignedField(blob, "size", name);
    if (!size)
      return size.takeError();
    if (*offset > fileSize || *size > fileSize - *offset)
      return tableError(name + " (offset " + std::to_string(*offset) + ", " +
                        std::to_string(*size) +
                        " bytes) runs past the end of the archive (" +
                        std::to_string(fileSize) + " bytes)");
    stored.emplace_back(*offset, *size);
  }
  return Status::success();
}

// The frame index of "zstd-per-kernel": u32 count, then u32 size and frame.
Status readZstdFrames(const MessagePackValue &table, std::string_view bytes,
                      std::vector<std::pair<uint64_t, uint64_t>> &stored) {
  auto offset = unsignedField(table, "zstd_offset", "the table");
  if (!offset)
    return offset.takeError();
  auto size = unsignedField(table, "zstd_size", "the table");
  if (!size)
    return size.takeError();
  if (*offset > bytes.size() || *size > bytes.size() - *offset)
    return tableError("the zstd region (offset " + std::to_string(*offset) +
                      ", " + std::to_string(*size) +
                      " bytes) runs past the end of the archive (" +
                      std::to_string(bytes.size()) + " bytes)");
  const uint64_t end = *offset + *size;
  if (*size < 4)
    return tableError("the zstd region is too small to hold its count");
  const uint32_t count = loadLittle32(bytes, *offset);
  uint64_t at = *offset + 4;
  for (uint32_t i = 0; i < count; ++i) {
    if (end - at < 4)
      return tableError("the zstd region ends before frame " +
                        std::to_string(i) + " of " + std::to_string(count));
    const uint32_t frameSize = loadLittle32(bytes, at);
    at += 4;
    if (frameSize > end - at)
      return tableError("zstd frame " + std::to_string(i) + " (" +
                        std::to_string(frameSize) +
                        " bytes) runs past the end of the zstd region");
    stored.emplace_back(at, frameSize);
    at += frameSize;
  }
  return Status::success();
}

} // namespace

bool hasKpackMagic(std::string_view bytes) {
  return bytes.substr(0, kKpackMagic.size()) == kKpackMagic;
}

Result<KpackArchive> KpackArchive::read(std::string_view bytes) {
  if (!hasKpackMagic(bytes))
    return makeError("not a kpack archive (no KPAK magic)");
  if (bytes.size() < kKpackHeaderSize)
    return makeError("the kpack header is cut short (" +
                     std::to_string(bytes.size()) + " of 16 bytes)");
  const uint32_t version = loadLittle32(bytes, 4);
  if (version != kKpackVersion)
    return makeError("kpack version " + std::to_string(version) +
                         " is not supported (only version 1 is)",
                     ErrorCode::Unsupported);
  const uint64_t tocOffset = loadLittle64(bytes, 8);
  if (tocOffset < kKpackHeaderSize || tocOffset >= bytes.size())
    return makeError("the table of contents offset " +
                     std::to_string(tocOffset) + " lies outside the archive (" +
                     std::to_string(bytes.size()) + " bytes)");
  auto document = MessagePackDocument::parse(bytes.substr(tocOffset));
  if (!document)
    return tableError(document.error().message);
  const MessagePackValue table = document->root();
  if (!table.isMap())
    return tableError("it is a " + std::string(table.kindName()) +
                      ", not a map");

  KpackArchive archive;
  archive.bytes_ = bytes;
  // As ROCm's loader reads it: no scheme means "none".
  if (std::optional<MessagePackValue> scheme =
          table.find("compression_scheme")) {
    std::optional<std::string_view> name = scheme->asString();
    if (name == "zstd-per-kernel")
      archive.compression_ = KpackCompression::ZstdPerKernel;
    else if (name != "none")
      return tableError(
          "unknown compression scheme " +
          (name ? "'" + std::string(*name) + "'"
                : std::string("of kind ") + std::string(scheme->kindName())));
  }
  if (std::optional<MessagePackValue> arches = table.find("gfx_arches")) {
    if (!arches->isArray())
      return tableError("gfx_arches is not an array");
    for (uint32_t i = 0; i < arches->size(); ++i)
      if (std::optional<std::string_view> arch = arches->element(i).asString())
        archive.architectures_.emplace_back(*arch);
  }

  std::vector<std::pair<uint64_t, uint64_t>> stored;
  Status blobs = archive.compression_ == KpackCompression::None
                     ? readPlainBlobs(table, bytes.size(), stored)
                     : readZstdFrames(table, bytes, stored);
  if (!blobs.ok())
    return blobs.takeError();
  for (const auto &[offset, size] : stored)
    archive.stored_.push_back({offset, size});

  std::optional<MessagePackValue> toc = table.find("toc");
  if (!toc || !toc->isMap())
    return tableError("it has no toc map");
  for (uint32_t b = 0; b < toc->size(); ++b) {
    std::optional<std::string_view> key = toc->key(b).asString();
    if (!key)
      return tableError("a toc key is a " +
                        std::string(toc->key(b).kindName()) + ", not a string");
    MessagePackValue arches = toc->value(b);
    if (!arches.isMap())
      return tableError("toc entry '" + std::string(*key) + "' is not a map");
    KpackBinary binary;
    binary.key = std::string(*key);
    for (uint32_t a = 0; a < arches.size(); ++a) {
      std::optional<std::string_view> arch = arches.key(a).asString();
      MessagePackValue entry = arches.value(a);
      if (!arch || !entry.isMap())
        return tableError("toc entry '" + binary.key +
                          "' has an architecture that is not a string "
                          "naming a map");
      const std::string name = "'" + binary.key + "' for " + std::string(*arch);
      auto ordinal = unsignedField(entry, "ordinal", name);
      if (!ordinal)
        return ordinal.takeError();
      auto originalSize = unsignedField(entry, "original_size", name);
      if (!originalSize)
        return originalSize.takeError();
      if (*ordinal >= archive.stored_.size())
        return tableError(name + " has ordinal " + std::to_string(*ordinal) +
                          ", but the archive stores " +
                          std::to_string(archive.stored_.size()) +
                          " code objects");
      binary.codeObjects.push_back(
          {std::string(*arch), static_cast<uint32_t>(*ordinal), *originalSize});
    }
    archive.binaries_.push_back(std::move(binary));
  }
  return archive;
}

const KpackBinary *KpackArchive::find(std::string_view key) const {
  for (const KpackBinary &binary : binaries_)
    if (binary.key == key)
      return &binary;
  return nullptr;
}

Result<std::string>
KpackArchive::codeObject(const KpackCodeObject &codeObject) const {
  const Stored &stored = stored_[codeObject.ordinal];
  const std::string_view data = bytes_.substr(stored.offset, stored.size);
  const std::string what = "code object " + std::to_string(codeObject.ordinal) +
                           " (" + codeObject.architecture + ")";
  if (compression_ == KpackCompression::None) {
    if (data.size() != codeObject.originalSize)
      return makeError(what + " holds " + std::to_string(data.size()) +
                       " bytes, but its original_size is " +
                       std::to_string(codeObject.originalSize));
    return std::string(data);
  }
  if (codeObject.originalSize > largestZstdOutput(data.size()))
    return makeError(what + ": its original_size, " +
                     std::to_string(codeObject.originalSize) +
                     " bytes, is more than a zstd frame of " +
                     std::to_string(data.size()) + " bytes can decompress to");
  std::string output(codeObject.originalSize, '\0');
  auto decoder = makeZstdDecoder(data, codeObject.originalSize,
                                 /*fixedOutput=*/true);
  if (!decoder)
    return makeError(what + ": " + decoder.error().message);
  DecodeOutput room{output.data(), output.size(), 0};
  while (!(*decoder)->finished()) {
    if (Status status = (*decoder)->decode(room); !status.ok())
      return makeError(what + " does not decompress to its original_size, " +
                       std::to_string(codeObject.originalSize) +
                       " bytes: " + status.error().message);
  }
  if (room.position != codeObject.originalSize)
    return makeError(what + " decompresses to " +
                     std::to_string(room.position) +
                     " bytes, not its original_size, " +
                     std::to_string(codeObject.originalSize) + " bytes");
  return output;
}

Status checkAmdgpuCodeObject(std::string_view codeObject,
                             std::string_view architecture) {
  const std::string_view processor =
      architecture.substr(0, architecture.find(':'));
  if (!isElf(codeObject))
    return makeError("it is not an ELF file");
  if (codeObject.size() < 64 || codeObject[4] != 2 || codeObject[5] != 1)
    return makeError("it is not a 64-bit little-endian ELF file");
  const uint16_t machine = loadLittle16(codeObject, 18);
  if (machine != kElfMachineAmdgpu)
    return makeError("its ELF machine is " + std::to_string(machine) +
                     ", not AMDGPU (224)");
  const uint32_t mach = loadLittle32(codeObject, 48) & kElfAmdgpuMachMask;
  std::optional<std::string_view> builtFor = processorOfAmdgpuMach(mach);
  if (builtFor != processor)
    return makeError("it is built for " +
                     (builtFor ? std::string(*builtFor)
                               : "unknown processor " + std::to_string(mach)) +
                     ", not " + std::string(processor));
  return Status::success();
}

} // namespace offbundle
