// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checks of a linked HIP file (see linked_file_check.h): each wrapper's
// magic and pointer, against the bundle starts found in .hip_fatbin, then
// the layout rules of rewrite/elf/linked_layout.h; in a PE image, against
// .hip_fat, and each pointer's base relocation.
#include "api/linked_file_check.h"

#include <set>

#include "formats/coff/pe_hip_wrappers.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "formats/host_kinds.h"
#include "formats/kpack/kpack_marker.h"
#include "rewrite/elf/linked_layout.h"
#include "support/hex.h"
#include "support/offload_sections.h"

namespace offbundle::api {
namespace {

// Where the bundles found in the file's own `section` start, as addresses:
// the section starts at `fileOffset` in the file and at `address`.
std::set<uint64_t> bundleStartsIn(const std::vector<Bundle> &bundles,
                                  std::string_view section, uint64_t fileOffset,
                                  uint64_t address) {
  std::set<uint64_t> starts;
  for (const Bundle &bundle : bundles)
    if (bundle.section == section && bundle.member.empty() &&
        bundle.fileOffset && *bundle.fileOffset >= fileOffset)
      starts.insert(address + (*bundle.fileOffset - fileOffset));
  return starts;
}

// How one wrapper is named in messages.
std::string wrapperName(const std::string &file, size_t index,
                        const HipWrapper &wrapper) {
  return quotedFileName(file) + ": HIP fat binary wrapper " +
         std::to_string(index) + " (at " + hexNumber(wrapper.address) + ")";
}

// The same judgement for ELF and PE: the magic, then the pointer inside
// the fat binary section [start, end) and at one of `bundleStarts`.
offbundle::Status checkWrapper(const std::string &which,
                               const HipWrapper &wrapper,
                               std::string_view section, uint64_t start,
                               uint64_t end,
                               const std::set<uint64_t> &bundleStarts) {
  if (wrapper.magic != kHipWrapperMagic)
    return makeError(which + " has magic " + hexNumber(wrapper.magic) +
                     ", not HIPF");
  if (wrapper.binary < start || wrapper.binary >= end)
    return makeError(which + " points to " + hexNumber(wrapper.binary) +
                     ", outside " + std::string(section) + " [" +
                     hexNumber(start) + ", " + hexNumber(end) + ")");
  if (bundleStarts.count(wrapper.binary) == 0)
    return makeError(which + " points to " + hexNumber(wrapper.binary) +
                     ", which is no bundle's start in " + std::string(section));
  return offbundle::Status::success();
}

// A HIPK wrapper must point at the start of the kpack marker.
offbundle::Status checkKpackWrapper(const std::string &which,
                                    const HipWrapper &wrapper,
                                    std::optional<uint64_t> marker,
                                    std::string_view markerSection) {
  if (!marker)
    return makeError(which + " has magic HIPK, but the file maps no " +
                     std::string(markerSection) + " marker");
  if (wrapper.binary != *marker)
    return makeError(which + " points to " + hexNumber(wrapper.binary) +
                     ", not to the kpack marker (" +
                     std::string(markerSection) + " at " + hexNumber(*marker) +
                     ")");
  return offbundle::Status::success();
}

offbundle::Status checkPeImage(const std::string &file, const PeHipImage &image,
                               const std::vector<Bundle> &bundles) {
  const HipWrappers &wrappers = image.hip;
  const std::string_view section = peImageSectionName(kHipFatbinSection);
  const std::set<uint64_t> bundleStarts = bundleStartsIn(
      bundles, section, wrappers.fatbinOffset, wrappers.fatbinStart);
  // ROCm's kpack tool points HIPK wrappers at its marker instead.
  std::optional<uint64_t> marker;
  for (const CoffSection &candidate : image.layout.sections)
    if (candidate.name == kKpackMarkerImageSection)
      marker = image.imageBase + candidate.virtualAddress;
  for (size_t index = 0; index < wrappers.wrappers.size(); ++index) {
    const HipWrapper &wrapper = wrappers.wrappers[index];
    const std::string which = wrapperName(file, index, wrapper);
    if (Status judged =
            wrapper.magic == kHipKpackWrapperMagic
                ? checkKpackWrapper(which, wrapper, marker,
                                    kKpackMarkerImageSection)
                : checkWrapper(which, wrapper, section, wrappers.fatbinStart,
                               wrappers.fatbinEnd, bundleStarts);
        !judged.ok())
      return judged;
    // Loaded elsewhere than ImageBase, a pointer without its fix-up would
    // point into the void.
    const uint64_t pointer =
        wrapper.address - image.imageBase + kHipWrapperBinaryOffset;
    if (image.relocatable && image.relocated.count(pointer) == 0)
      return makeError(which + " has no base relocation for its pointer (at " +
                       hexNumber(image.imageBase + pointer) + ")");
  }
  return offbundle::Status::success();
}

} // namespace

offbundle::Status checkLinkedHipFile(const std::string &file,
                                     std::string_view bytes,
                                     const std::vector<Bundle> &bundles) {
  // Only what a loader maps has a linked layout (formats/host_kinds.h).
  const HostKind kind = classifyHost(bytes);
  if (!hostKindRow(kind).mayBeLinked)
    return offbundle::Status::success();
  if (kind == HostKind::PeImage) {
    auto image = readPeHipWrappers(bytes);
    if (!image)
      return fileError(file, image.error());
    return *image ? checkPeImage(file, **image, bundles)
                  : offbundle::Status::success();
  }
  if (!isElf(bytes))
    return offbundle::Status::success();
  auto object = parseElfObject(bytes);
  if (!object)
    return fileError(file, object.error());
  auto found = readHipWrappers(*object);
  if (!found)
    return fileError(file, found.error());
  if (!*found)
    return offbundle::Status::success();
  const HipWrappers &wrappers = **found;
  const std::set<uint64_t> bundleStarts = bundleStartsIn(
      bundles, kHipFatbinSection, wrappers.fatbinOffset, wrappers.fatbinStart);
  // ROCm's kpack tool points HIPK wrappers at its marker instead.
  std::optional<uint64_t> marker;
  for (const ElfSection &section : object->sections())
    if (section.name == kKpackMarkerSection &&
        (section.flags & elf::kFlagAlloc) != 0)
      marker = section.address;
  for (size_t index = 0; index < wrappers.wrappers.size(); ++index) {
    const HipWrapper &wrapper = wrappers.wrappers[index];
    const std::string which = wrapperName(file, index, wrapper);
    if (wrapper.magic == kHipKpackWrapperMagic) {
      if (Status judged =
              checkKpackWrapper(which, wrapper, marker, kKpackMarkerSection);
          !judged.ok())
        return judged;
      continue;
    }
    if (Status judged = checkWrapper(which, wrapper, kHipFatbinSection,
                                     wrappers.fatbinStart, wrappers.fatbinEnd,
                                     bundleStarts);
        !judged.ok())
      return judged;
  }
  if (Status layout = checkLinkedLayout(bytes); !layout.ok())
    return fileError(file, layout.error());
  return offbundle::Status::success();
}

} // namespace offbundle::api
