// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// unpack-kpack (see kpack_unpack.h): the kpack'd file checked, its code
// objects gathered into bundles, the wrappers patched in a copy, and
// .hip_fatbin resized around the bundles.

#include "rewrite/kpack/kpack_unpack.h"

#include <algorithm>

#include "bundler/kpack_discovery.h"
#include "compression/compressed_bundle.h"
#include "formats/coff/pe_hip_wrappers.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "formats/file_magic.h"
#include "formats/kpack/kpack_marker.h"
#include "rewrite/bundle_rewriter.h"
#include "rewrite/elf/linked_section_resize.h"
#include "support/byte_order.h"
#include "support/offload_sections.h"

namespace offbundle {
namespace {

// clang's -bundle-align for HIP: each bundle starts at such a boundary.
constexpr uint64_t kBundleAlignment = 4096;

// Elf64_Rela: r_offset, r_info, r_addend.
constexpr uint64_t kRelaSize = 24;
constexpr uint64_t kRelaAddend = 16;

const ElfSection *sectionNamed(const ElfObject &object, std::string_view name) {
  for (const ElfSection &section : object.sections())
    if (section.name == name)
      return &section;
  return nullptr;
}

// The copy of the input whose wrapper `i` is HIPF, 0 in its last field, and
// points (field and RELATIVE addend alike) at `fatbinStart + i`.
std::string patchWrappers(const ElfObject &object, const ElfSection &segment,
                          const HipWrappers &wrappers) {
  std::string patched(object.bytes());
  for (size_t i = 0; i < wrappers.wrappers.size(); ++i) {
    const uint64_t at = segment.offset + i * kHipWrapperSize;
    const uint64_t target = wrappers.fatbinStart + i;
    storeLittleEndian(patched, at, kHipWrapperMagic, 4);
    storeLittleEndian(patched, at + kHipWrapperBinaryOffset, target, 8);
    storeLittleEndian(patched, at + kHipWrapperReservedOffset, 0, 8);
    const uint64_t pointer =
        wrappers.wrappers[i].address + kHipWrapperBinaryOffset;
    for (const ElfSection &section : object.sections()) {
      if (section.type != elf::kTypeRela)
        continue;
      const std::string_view table = object.contents(section);
      for (uint64_t entry = 0; entry + kRelaSize <= table.size();
           entry += kRelaSize) {
        const uint32_t type =
            static_cast<uint32_t>(loadLittle64(table, entry + 8));
        if (loadLittle64(table, entry) == pointer &&
            (type == elf::kRelocationRelativeX86_64 ||
             type == elf::kRelocationRelativeAArch64))
          storeLittleEndian(patched, section.offset + entry + kRelaAddend,
                            target, 8);
      }
    }
  }
  return patched;
}

// Each wrapper's index, which names its code objects in the archives; every
// wrapper must be kpack'd.
Result<std::vector<uint64_t>>
kpackIndices(const std::string &file, const std::vector<HipWrapper> &wrappers) {
  // Wrappers that are all ordinary (HIPF): the marker is left over, from
  // an unpacking or a tool that left it, and nothing is kpack'd.
  if (std::none_of(wrappers.begin(), wrappers.end(),
                   [](const HipWrapper &wrapper) {
                     return wrapper.magic == kHipKpackWrapperMagic;
                   }))
    return fileError(file, "not a kpack'd program or library: its HIP "
                           "wrappers are ordinary ones (HIPF), whatever its "
                           "kpack marker says");
  for (const HipWrapper &wrapper : wrappers)
    if (wrapper.magic != kHipKpackWrapperMagic)
      return fileError(file, "the HIP wrapper at " +
                                 std::to_string(wrapper.address) +
                                 " is not a kpack wrapper (HIPK): files "
                                 "mixing kpack'd and ordinary wrappers are "
                                 "not unpacked");
  return kpackWrapperIndices(wrappers);
}

// The bundles, plain or compressed, one after another at 4096-byte
// boundaries; each wrapper's stand-in address `fatbinStart + i` moved to
// its bundle.
Result<rewriting::FatbinRewrite>
layOutBundles(const std::string &file,
              std::vector<AssembledKpackBundle> bundles, uint64_t fatbinStart,
              const KpackUnpackRequest &request, KpackUnpacking &unpacking) {
  rewriting::FatbinRewrite laid;
  for (size_t i = 0; i < bundles.size(); ++i) {
    AssembledKpackBundle &bundle = bundles[i];
    unpacking.codeObjects += bundle.storedSizes.size();
    laid.contents.addZeros(
        (kBundleAlignment - laid.contents.size() % kBundleAlignment) %
        kBundleAlignment);
    laid.moves.push_back({fatbinStart + i, laid.contents.size()});
    if (!request.compress) {
      laid.contents.addBytes(std::move(bundle.bundle));
      continue;
    }
    CompressionOptions options;
    options.level = request.compressionLevel;
    auto compressed = compressBundle(bundle.bundle, options);
    if (!compressed)
      return fileError(file, compressed.error());
    laid.contents.addBytes(std::move(*compressed));
  }
  unpacking.bundles = bundles.size();
  return laid;
}

// A kpack'd DLL or EXE: the wrappers in .hipFatB made HIPF in place, and the
// image laid out around the new .hip_fat as rewrites lay it out.
Result<KpackUnpacking> unpackKpackImage(const std::string &file,
                                        std::string_view bytes,
                                        const KpackUnpackRequest &request) {
  auto found = readPeHipWrappers(bytes);
  if (!found)
    return fileError(file, found.error());
  const CoffSection *marker = nullptr;
  if (*found)
    for (const CoffSection &section : (*found)->layout.sections)
      if (section.name == kKpackMarkerImageSection)
        marker = &section;
  if (!*found || !marker || (*found)->hip.wrappers.empty())
    return fileError(file, "not a kpack'd DLL or EXE (no " +
                               std::string(kKpackMarkerImageSection) +
                               " marker and .hipFatB wrappers)");
  PeHipImage image = **found;
  if (Status rewritable = rewriting::checkRewritablePeImage(file, image.layout);
      !rewritable.ok())
    return rewritable.takeError();
  auto indices = kpackIndices(file, image.hip.wrappers);
  if (!indices)
    return indices.takeError();
  auto bundles = assembleKpackReferences(file, marker->contents, *indices);
  if (!bundles)
    return bundles.takeError();
  KpackUnpacking unpacking;
  auto laid = layOutBundles(file, std::move(*bundles), image.hip.fatbinStart,
                            request, unpacking);
  if (!laid)
    return laid.takeError();

  InputEdits patches(bytes);
  const CoffSection &segment = image.layout.sections[image.layout.segment];
  for (size_t i = 0; i < image.hip.wrappers.size(); ++i) {
    const uint64_t at = segment.fileOffset + i * kHipWrapperSize;
    patches.setValue(at, kHipWrapperMagic, 4);
    patches.setValue(at + kHipWrapperReservedOffset, 0, 8);
    image.hip.wrappers[i].binary = image.hip.fatbinStart + i;
  }
  auto plan = rewriting::layOutPeFatbin(file, bytes, image, std::move(*laid),
                                        std::move(patches));
  if (!plan)
    return plan.takeError();
  unpacking.patchedInput = InputFile::fromMemory(file, std::string(bytes));
  unpacking.plan = std::move(*plan);
  return unpacking;
}

} // namespace

Result<KpackUnpacking> unpackKpack(const std::string &file,
                                   std::string_view bytes,
                                   const KpackUnpackRequest &request) {
  if (identifyFile(bytes) == FileMagic::PeImage)
    return unpackKpackImage(file, bytes, request);
  if (!isElf(bytes))
    return fileError(file, "not a kpack'd program or library (not an ELF "
                           "file)");
  auto object = parseElfObject(bytes);
  if (!object)
    return fileError(file, object.error());
  const ElfSection *marker = sectionNamed(*object, kKpackMarkerSection);
  const ElfSection *segment = sectionNamed(*object, kHipWrapperSection);
  const ElfSection *fatbin = sectionNamed(*object, kHipFatbinSection);
  if (!marker || !segment || !fatbin ||
      object->header().programHeaderCount == 0)
    return fileError(file, "not a kpack'd program or library (no " +
                               std::string(kKpackMarkerSection) +
                               " marker, wrappers and .hip_fatbin)");
  auto found = readHipWrappers(*object);
  if (!found)
    return fileError(file, found.error());
  if (!*found || (*found)->wrappers.empty())
    return fileError(file, "no HIP fat binary wrappers in " +
                               std::string(kHipWrapperSection));
  const HipWrappers &wrappers = **found;
  auto indices = kpackIndices(file, wrappers.wrappers);
  if (!indices)
    return indices.takeError();
  if (fatbin->size < wrappers.wrappers.size())
    return fileError(file, ".hip_fatbin (" + std::to_string(fatbin->size) +
                               " bytes) is smaller than the number of "
                               "wrappers (" +
                               std::to_string(wrappers.wrappers.size()) + ")");

  auto bundles =
      assembleKpackReferences(file, object->contents(*marker), *indices);
  if (!bundles)
    return bundles.takeError();

  KpackUnpacking unpacking;
  auto laid = layOutBundles(file, std::move(*bundles), wrappers.fatbinStart,
                            request, unpacking);
  if (!laid)
    return laid.takeError();

  unpacking.patchedInput =
      InputFile::fromMemory(file, patchWrappers(*object, *segment, wrappers));
  auto patched = parseElfObject(unpacking.patchedInput->contents());
  if (!patched)
    return fileError(file, patched.error());
  LinkedSectionResize resize;
  resize.sectionName = kHipFatbinSection;
  resize.moves = std::move(laid->moves);
  for (const HipWrapper &wrapper : wrappers.wrappers)
    resize.pointerFields.push_back(wrapper.address + kHipWrapperBinaryOffset);
  auto plan =
      planLinkedSectionResize(*patched, resize, std::move(laid->contents));
  if (!plan)
    return fileError(file, plan.error());
  unpacking.plan = std::move(*plan);
  return unpacking;
}

} // namespace offbundle
