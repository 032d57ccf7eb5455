// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// DirectX containers for archive symbol tables (see the header).
#include "formats/dxcontainer/dxcontainer_symbols.h"
#include "support/byte_order.h"

#include <cstdint>
#include <string>

namespace offbundle {
namespace {

constexpr uint64_t kHeaderSize = 32;
constexpr uint64_t kPartHeaderSize = 8;
constexpr uint64_t kProgramHeaderSize = 24;
constexpr uint64_t kFeatureFlagsSize = 8;
constexpr uint64_t kShaderHashSize = 20;
constexpr uint64_t kSignatureHeaderSize = 8;
constexpr uint64_t kSignatureParameterSize = 32;

constexpr const char *kStructureOutOfBounds =
    "Reading structure out of file bounds";

// DirectX::Signature::initialize().
Status checkSignature(std::string_view part) {
  if (part.size() < kSignatureHeaderSize)
    return makeError(kStructureOutOfBounds);
  const uint64_t count = loadLittle32(part, 0);
  const uint64_t first = loadLittle32(part, 4);
  const uint64_t parametersSize = kSignatureParameterSize * count;
  if (part.size() < parametersSize + first)
    return makeError("Signature parameters extend beyond the part boundary");
  // The names' offsets count from the signature header; the string table
  // starts right after the parameters (LLVM keeps that offset in 32 bits).
  const uint32_t stringsOffset = static_cast<uint32_t>(first + parametersSize);
  const uint64_t stringsSize = part.size() - (first + parametersSize);
  for (uint64_t index = 0; index < count; ++index) {
    const uint32_t nameOffset =
        loadLittle32(part, first + index * kSignatureParameterSize + 4);
    if (nameOffset < stringsOffset)
      return makeError("Invalid parameter name offset: name starts before "
                       "the first name offset");
    if (nameOffset - stringsOffset > stringsSize)
      return makeError("Invalid parameter name offset: name starts after the "
                       "end of the part data");
  }
  return Status::success();
}

Error unsupportedPart(std::string_view name) {
  return makeError("archive symbol tables for DirectX containers with a " +
                   std::string(name) + " part are not supported");
}

} // namespace

Status checkDxContainerForArchive(std::string_view bytes) {
  if (bytes.size() < kHeaderSize)
    return makeError(kStructureOutOfBounds);
  const uint32_t partCount = loadLittle32(bytes, 28);
  // LLVM computes where the offset table ends in 32 bits.
  uint32_t lastOffset = static_cast<uint32_t>(kHeaderSize + partCount * 4u);
  bool seenProgram = false;
  bool seenFlags = false;
  bool seenHash = false;
  bool seenPipelineState = false;
  for (uint32_t part = 0; part < partCount; ++part) {
    const uint64_t entry = kHeaderSize + uint64_t{part} * 4;
    if (entry + 4 > bytes.size())
      return makeError(kStructureOutOfBounds);
    const uint32_t partOffset = loadLittle32(bytes, entry);
    if (partOffset < lastOffset)
      return makeError("Part offset for part " + std::to_string(part) +
                       " begins before the previous part ends");
    if (partOffset >= bytes.size())
      return makeError("Part offset points beyond boundary of the file");
    if (partOffset >= bytes.size() - 4)
      return makeError("File not large enough to read part name");
    const std::string_view name = bytes.substr(partOffset, 4);
    if (uint64_t{partOffset} + kPartHeaderSize > bytes.size())
      return makeError("Reading part size out of file bounds");
    const uint32_t partSize = loadLittle32(bytes, partOffset + 4);
    // Cut to the file, as StringRef::substr() does.
    const uint32_t dataStart =
        static_cast<uint32_t>(uint64_t{partOffset} + kPartHeaderSize);
    const std::string_view data = dataStart < bytes.size()
                                      ? bytes.substr(dataStart, partSize)
                                      : std::string_view();
    lastOffset = static_cast<uint32_t>(uint64_t{partOffset} + partSize);

    auto once = [&](bool &seen) -> Status {
      if (seen)
        return makeError("More than one " + std::string(name) +
                         " part is present in the file");
      seen = true;
      return Status::success();
    };
    auto atLeast = [&](uint64_t size) -> Status {
      if (data.size() < size)
        return makeError(kStructureOutOfBounds);
      return Status::success();
    };
    Status status = Status::success();
    if (name == "DXIL") {
      status = once(seenProgram);
      if (status.ok())
        status = atLeast(kProgramHeaderSize);
    } else if (name == "SFI0") {
      status = once(seenFlags);
      if (status.ok())
        status = atLeast(kFeatureFlagsSize);
    } else if (name == "HASH") {
      status = once(seenHash);
      if (status.ok())
        status = atLeast(kShaderHashSize);
    } else if (name == "PSV0") {
      status = once(seenPipelineState);
    } else if (name == "ISG1" || name == "OSG1" || name == "PSG1") {
      status = checkSignature(data);
    } else if (name == "RTS0") {
      return unsupportedPart(name);
    }
    if (!status.ok())
      return status;
  }
  if (seenPipelineState) {
    if (!seenProgram)
      return makeError("Cannot fully parse pipeline state validation "
                       "information without DXIL part.");
    return unsupportedPart("PSV0");
  }
  return Status::success();
}

} // namespace offbundle
