// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Offload binaries read as bundles (see embedded_offload.h): the entry ID the
// bundler gives each image, the words listings use for kinds, and a
// BundleReader over one binary's images.

#include "formats/embedded_offload.h"

#include "formats/compressed_offload_binary.h"

#include "targets/triple.h"

namespace offbundle {

std::string offloadImageEntryId(const OffloadBinaryView &binary) {
  Triple triple(binary.triple());
  // Written as the bundler writes triples in entry IDs: AMDHSA ones in
  // three-part form and an empty environment, others in four parts.
  std::string normalized = triple.isOSAMDHSA()
                               ? triple.normalize(TripleForm::ThreeIdent) + "-"
                               : triple.normalize(TripleForm::FourIdent);
  return std::string(offloadKindDescription(binary.offloadKind)) + "-" +
         normalized + "-" + std::string(binary.arch());
}

std::string_view offloadKindDescription(uint16_t kind) {
  if (kind == offload_kind::kNone)
    return "none";
  std::string_view name = offloadKindName(kind);
  // offloadKindName says "none" for every value it does not know.
  return name == "none" ? "unknown" : name;
}

std::string_view imageKindDescription(uint16_t kind) {
  static constexpr std::string_view kNames[] = {
      "none", "object", "bitcode", "cubin", "fatbinary", "ptx", "spirv"};
  return kind < std::size(kNames) ? kNames[kind] : "unknown";
}

Result<std::unique_ptr<OffloadBinaryReader>>
OffloadBinaryReader::open(std::string_view bytes) {
  if (isCompressedOffloadBinary(bytes))
    return makeError("a compressed offload binary cannot be read in place");
  auto binary = readOffloadBinaryEntries(bytes, "");
  if (!binary)
    return binary.takeError();
  std::unique_ptr<OffloadBinaryReader> reader(new OffloadBinaryReader());
  reader->entries_ = std::move(binary->entries);
  return reader;
}

Result<std::optional<std::string_view>> OffloadBinaryReader::nextEntry() {
  if (next_ == entries_.size())
    return std::optional<std::string_view>();
  id_ = offloadImageEntryId(entries_[next_++]);
  return std::optional<std::string_view>(id_);
}

Result<EntryPayload> OffloadBinaryReader::readEntry() {
  const OffloadBinaryView &entry = binary();
  EntryPayload payload;
  payload.offset =
      static_cast<uint64_t>(entry.image.data() - entry.bytes.data());
  payload.size = entry.image.size();
  return payload;
}

} // namespace offbundle
