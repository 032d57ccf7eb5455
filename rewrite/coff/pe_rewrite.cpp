// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// prune, compress and decompress of PE images, DLLs and EXEs from lld-link
// (see rewrite.h): the bundles the HIP wrappers in .hipFatB point at are
// rewritten and laid out anew in .hip_fat (rewriteFatbin), and the file is
// laid out again around them without moving anything in memory:
//
// - .hip_fat keeps its RVA and its VirtualSize, so every other section, and
//   every RVA the image holds (code, base relocations, directories), stays
//   where it was; the loader fills what lies past the section's raw data
//   with zeros. Bundles may therefore shrink, and grow back, but not past
//   the section's VirtualSize.
// - Its raw data becomes the new contents rounded up to FileAlignment; the
//   raw data of the sections after it, and the file offsets that point
//   there (PointerToSymbolTable, the debug directory's PointerToRawData),
//   move by as much; SizeOfInitializedData changes with it.
// - Each wrapper's pointer is set to its bundle's new address; the base
//   relocation that fixes it up names the pointer's RVA, which does not
//   change.
// - A CheckSum that was set is computed again (the PE format's: 16-bit
//   words summed with end-around carry, the field itself as zero, plus the
//   file's length). A signed image (a certificate table) is refused: its
//   signature would no longer match.
#include "rewrite/bundle_rewriter.h"

#include "formats/coff/pe_hip_wrappers.h"
#include "support/byte_order.h"
#include "support/offload_sections.h"

namespace offbundle::rewriting {
namespace {

constexpr uint32_t kInitializedData = 0x40; // IMAGE_SCN_CNT_INITIALIZED_DATA
constexpr uint64_t kSizeOfRawDataField = 16;
constexpr uint64_t kPointerToRawDataField = 20;

// The PE checksum of `image`, whose CheckSum field is at `field`.
uint32_t peChecksum(std::string_view image, uint64_t field) {
  uint64_t sum = 0;
  for (uint64_t at = 0; at < image.size(); at += 2) {
    if (at >= field && at < field + 4)
      continue;
    uint64_t word = static_cast<uint8_t>(image[at]);
    if (at + 1 < image.size())
      word |= static_cast<uint64_t>(static_cast<uint8_t>(image[at + 1])) << 8;
    sum += word;
    sum = (sum & 0xffff) + (sum >> 16);
  }
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint32_t>(sum + image.size());
}

} // namespace

Status checkRewritablePeImage(const std::string &file, const PeLayout &layout) {
  if (layout.certificateTableSize != 0)
    return fileError(file, "a signed PE image cannot be rewritten: its "
                           "signature would no longer match");
  const uint64_t alignment = layout.fileAlignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return fileError(file, "malformed PE image: FileAlignment " +
                               std::to_string(alignment) +
                               " is no power of two");
  return Status::success();
}

Result<OutputPlan> rewritePeImage(const std::string &file,
                                  std::string_view bytes,
                                  BundleRewriter &rewriter) {
  auto found = readPeHipWrappers(bytes);
  if (!found)
    return fileError(file, found.error());
  if (!*found || (*found)->hip.wrappers.empty())
    return fileError(file, "no HIP fat binary wrappers (.hipFatB) point into "
                           ".hip_fat: no GPU code to rewrite");
  const PeHipImage &image = **found;
  if (Status rewritable = checkRewritablePeImage(file, image.layout);
      !rewritable.ok())
    return rewritable.takeError();

  const std::string_view section = peImageSectionName(kHipFatbinSection);
  auto rewritten = rewriteFatbin(file, bytes, image.hip, section, rewriter);
  if (!rewritten)
    return rewritten.takeError();
  if (!*rewritten)
    return OutputPlan::wholeInput(bytes.size());
  return layOutPeFatbin(file, bytes, image, std::move(**rewritten),
                        InputEdits(bytes));
}

Result<OutputPlan> layOutPeFatbin(const std::string &file,
                                  std::string_view bytes,
                                  const PeHipImage &image,
                                  FatbinRewrite fatbinRewrite,
                                  InputEdits patches) {
  const PeLayout &layout = image.layout;
  const uint64_t alignment = layout.fileAlignment;
  const CoffSection &fatbin = layout.sections[layout.fatbin];
  const uint64_t newSize = fatbinRewrite.contents.size();
  const uint64_t newRaw = (newSize + alignment - 1) / alignment * alignment;
  if (newSize > fatbin.virtualSize)
    return fileError(file, "the rewritten bundles take " +
                               std::to_string(newSize) +
                               " bytes, more than the " +
                               std::to_string(fatbin.virtualSize) +
                               " bytes .hip_fat has in memory: the sections "
                               "after it cannot move in a PE image");
  const uint64_t start = fatbin.fileOffset;
  const uint64_t end = start + fatbin.rawSize;
  // Where what followed the old raw data goes.
  auto moved = [&](uint64_t offset) { return offset - end + start + newRaw; };

  patches.setValue(fatbin.headerOffset + kSizeOfRawDataField, newRaw, 4);
  for (size_t index = 0; index < layout.sections.size(); ++index) {
    const CoffSection &other = layout.sections[index];
    if (index == layout.fatbin || other.rawSize == 0 || other.fileOffset == 0)
      continue;
    if (other.fileOffset >= end)
      patches.setValue(other.headerOffset + kPointerToRawDataField,
                       moved(other.fileOffset), 4);
    else if (other.fileOffset + other.rawSize > start)
      return fileError(file, "malformed PE image: section '" + other.name +
                                 "' overlaps .hip_fat in the file");
  }
  if (fatbin.characteristics & kInitializedData)
    patches.setValue(layout.initializedDataField,
                     loadLittleEndian(bytes, layout.initializedDataField, 4) -
                         fatbin.rawSize + newRaw,
                     4);
  if (layout.symbolTable >= end)
    patches.setValue(layout.symbolTableField, moved(layout.symbolTable), 4);
  for (const auto &[field, offset] : layout.debugDataFields) {
    if (offset >= end)
      patches.setValue(field, moved(offset), 4);
    else if (offset >= start && offset != 0)
      return fileError(file, "malformed PE image: debug data lies inside "
                             ".hip_fat");
  }
  const CoffSection &segment = layout.sections[layout.segment];
  for (size_t index = 0; index < image.hip.wrappers.size(); ++index) {
    const HipWrapper &wrapper = image.hip.wrappers[index];
    for (const AddressMove &move : fatbinRewrite.moves)
      if (move.from == wrapper.binary)
        patches.setValue(segment.fileOffset + index * kHipWrapperSize +
                             kHipWrapperBinaryOffset,
                         image.hip.fatbinStart + move.toOffset, 8);
  }

  OutputPlan plan;
  patches.emit(plan, 0, start);
  plan.append(std::move(fatbinRewrite.contents));
  plan.addZeros(newRaw - newSize);
  patches.emit(plan, end, bytes.size());
  if (layout.checksum == 0)
    return plan;
  // The checksum covers every byte, so the output is assembled first.
  auto rendered = plan.render(bytes);
  if (!rendered)
    return fileError(file, rendered.error());
  const uint32_t checksum = peChecksum(*rendered, layout.checksumField);
  for (unsigned i = 0; i < 4; ++i)
    (*rendered)[layout.checksumField + i] =
        static_cast<char>((checksum >> (8 * i)) & 0xff);
  OutputPlan whole;
  whole.addBytes(std::move(*rendered));
  return whole;
}

} // namespace offbundle::rewriting
