// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The .hip_fatbin and .llvm.offloading sections of an ELF file, a COFF
// object or a PE image, and their
// contents split into bundles and offload binaries (see the header for how
// each element's extent is found).

#include "formats/embedded_sections.h"

#include <algorithm>

#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/embedded_offload.h"
#include "formats/file_magic.h"

namespace offbundle {

std::vector<OffloadDataSection> findOffloadDataSections(const ElfObject &elf) {
  std::vector<OffloadDataSection> found;
  for (const ElfSection &section : elf.sections()) {
    if (section.name != kHipFatbinSection &&
        section.name != kLlvmOffloadingSection)
      continue;
    if (!section.hasContents())
      continue;
    found.push_back({section.name, section.offset, elf.contents(section)});
  }
  return found;
}

std::vector<OffloadDataSection>
findOffloadDataSections(const std::vector<CoffSection> &sections) {
  std::vector<OffloadDataSection> found;
  for (const CoffSection &section : sections) {
    const std::string_view name = section.name;
    const bool carriesCode = name == kHipFatbinSection ||
                             name == kLlvmOffloadingSection ||
                             name == peImageSectionName(kHipFatbinSection) ||
                             name == peImageSectionName(kLlvmOffloadingSection);
    if (!carriesCode || section.contents.empty())
      continue;
    found.push_back({section.name, section.fileOffset, section.contents});
  }
  return found;
}

Result<uint64_t> offloadBundleExtent(std::string_view bytes) {
  if (identifyFile(bytes) == FileMagic::CompressedBundle) {
    auto header = parseCompressedBundleHeader(bytes);
    if (!header)
      return makeError("compressed bundle: " + header.error().message);
    auto extent = compressedBundleExtent(*header, bytes);
    if (!extent)
      return extent.takeError();
    return static_cast<uint64_t>(*extent);
  }
  if (!hasBinaryBundleMagic(bytes))
    return makeError("no offload bundle starts there");
  return binaryBundleExtent(bytes);
}

bool startsWithOffloadData(std::string_view bytes) {
  return isOffloadData(identifyFile(bytes));
}

Result<std::vector<OffloadDataElement>>
splitOffloadData(std::string_view bytes) {
  std::vector<OffloadDataElement> elements;
  uint64_t at = 0;
  while (at < bytes.size()) {
    if (bytes[at] == '\0') {
      at = std::min<uint64_t>(bytes.find_first_not_of('\0', at), bytes.size());
      continue;
    }
    std::string_view rest = bytes.substr(at);
    auto failed = [at](const std::string &what) {
      return makeError("at offset " + std::to_string(at) + ": " + what);
    };
    OffloadDataElement element;
    element.offset = at;
    element.kind = identifyFile(rest);
    uint64_t extent = 0;
    if (element.kind == FileMagic::BinaryBundle ||
        element.kind == FileMagic::CompressedBundle) {
      auto size = offloadBundleExtent(rest);
      if (!size)
        return failed(size.error().message);
      extent = *size;
    } else if (element.kind == FileMagic::OffloadBinary) {
      auto binary = readOffloadBinaryEntries(rest, "");
      if (!binary)
        return failed(binary.error().message);
      extent = binary->size;
    } else {
      return failed("data that is neither a bundle, a compressed bundle nor "
                    "an offload binary");
    }
    element.bytes = rest.substr(0, extent);
    elements.push_back(element);
    // Every element has a header of some bytes, so the walk advances.
    at += extent;
  }
  return elements;
}

} // namespace offbundle
