// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// prune, compress and decompress of COFF objects (see rewrite.h): the bundle
// in .hip_fatbin rewritten (or, in an OpenMP object, the offload binaries in
// .llvm.offloading pruned), and the object laid out again around it. A COFF
// object has no addresses, only file offsets, so the section may shrink or
// grow: its SizeOfRawData becomes the new contents' size, and every file
// offset past its old raw data (each section's PointerToRawData,
// PointerToRelocations and PointerToLinenumbers, and PointerToSymbolTable)
// moves by the difference. The section's definition in the symbol table
// (the auxiliary record after its section symbol: Length u32,
// NumberOfRelocations u16, NumberOfLinenumbers u16, CheckSum u32, ...)
// takes the new length and, when it had one, the JamCRC of the new bytes,
// as LLVM's COFF writer sets it. The wrapper's relocation points at the
// bundle's first byte, which stays at offset 0.
#include "rewrite/bundle_rewriter.h"

#include "compression/codecs.h"
#include "formats/coff/coff_object.h"
#include "formats/embedded_sections.h"
#include "support/byte_order.h"
#include "support/offload_sections.h"

namespace offbundle::rewriting {
namespace {

constexpr uint64_t kSizeOfRawDataField = 16;
// PointerToRawData, PointerToRelocations, PointerToLinenumbers.
constexpr uint64_t kFileOffsetFields[] = {20, 24, 28};
constexpr uint64_t kPointerToSymbolTableField = 8;
constexpr uint64_t kSymbolCountField = 12;
constexpr uint64_t kSymbolSize = 18;
constexpr uint8_t kStaticStorage = 3;

// The auxiliary section definition of section `number` (1-based), if the
// symbol table has one: the offset of its record in the file.
std::optional<uint64_t> sectionDefinition(std::string_view bytes,
                                          uint64_t number) {
  const uint64_t table = loadLittleEndian(bytes, kPointerToSymbolTableField, 4);
  const uint64_t count = loadLittleEndian(bytes, kSymbolCountField, 4);
  if (table == 0 || table > bytes.size() ||
      count > (bytes.size() - table) / kSymbolSize)
    return std::nullopt;
  for (uint64_t index = 0; index < count; ++index) {
    const uint64_t record = table + index * kSymbolSize;
    const uint64_t section = loadLittleEndian(bytes, record + 12, 2);
    const uint8_t storage = static_cast<uint8_t>(bytes[record + 16]);
    const uint8_t auxiliaries = static_cast<uint8_t>(bytes[record + 17]);
    if (section == number && storage == kStaticStorage && auxiliaries >= 1 &&
        loadLittleEndian(bytes, record + 8, 4) == 0 && index + 1 < count)
      return record + kSymbolSize;
    index += auxiliaries;
  }
  return std::nullopt;
}

// The object laid out again with the raw data of section `index` replaced
// by `contents` (see the top of this file).
Result<OutputPlan> replaceSectionData(const std::string &file,
                                      std::string_view bytes,
                                      const std::vector<CoffSection> &sections,
                                      size_t index, std::string contents) {
  const CoffSection &replaced = sections[index];
  const uint64_t start = replaced.fileOffset;
  const uint64_t end = start + replaced.rawSize;
  auto moved = [&](uint64_t offset) {
    return offset - end + start + contents.size();
  };
  InputEdits patches(bytes);
  patches.setValue(replaced.headerOffset + kSizeOfRawDataField, contents.size(),
                   4);
  for (const CoffSection &section : sections)
    for (uint64_t field : kFileOffsetFields) {
      const uint64_t offset =
          loadLittleEndian(bytes, section.headerOffset + field, 4);
      if (offset >= end)
        patches.setValue(section.headerOffset + field, moved(offset), 4);
      else if (offset > start && offset != 0)
        return fileError(file, "malformed COFF object: section '" +
                                   section.name + "' has data inside " +
                                   replaced.name);
    }
  const uint64_t symbols =
      loadLittleEndian(bytes, kPointerToSymbolTableField, 4);
  if (symbols >= end)
    patches.setValue(kPointerToSymbolTableField, moved(symbols), 4);
  if (std::optional<uint64_t> definition =
          sectionDefinition(bytes, index + 1)) {
    patches.setValue(*definition, contents.size(), 4);
    if (loadLittleEndian(bytes, *definition + 8, 4) != 0)
      patches.setValue(*definition + 8, jamCrc32(contents), 4);
  }

  OutputPlan plan;
  patches.emit(plan, 0, start);
  plan.addBytes(std::move(contents));
  patches.emit(plan, end, bytes.size());
  return plan;
}

// The index of the section of that name holding something, if any.
std::optional<size_t> sectionNamed(const std::vector<CoffSection> &sections,
                                   std::string_view name) {
  for (size_t index = 0; index < sections.size(); ++index)
    if (sections[index].name == name && !sections[index].contents.empty())
      return index;
  return std::nullopt;
}

} // namespace

Result<OutputPlan> rewriteCoffObject(const std::string &file,
                                     std::string_view bytes,
                                     BundleRewriter &rewriter) {
  auto sections = readCoffSections(bytes);
  if (!sections)
    return fileError(file, sections.error());
  const std::optional<size_t> fatbinIndex =
      sectionNamed(*sections, kHipFatbinSection);
  if (!fatbinIndex) {
    // An OpenMP object of clang's new offloading driver.
    const std::optional<size_t> offloading =
        sectionNamed(*sections, kLlvmOffloadingSection);
    if (!offloading)
      return fileError(file, "no .hip_fatbin or .llvm.offloading section: no "
                             "GPU code to rewrite");
    auto kept = rewriteOffloadBinaries(file, (*sections)[*offloading].contents,
                                       rewriter, true);
    if (!kept)
      return kept.takeError();
    if (!*kept)
      return OutputPlan::wholeInput(bytes.size());
    return replaceSectionData(file, bytes, *sections, *offloading,
                              std::move(**kept));
  }
  const CoffSection &fatbin = (*sections)[*fatbinIndex];
  auto elements = splitOffloadData(fatbin.contents);
  if (!elements)
    return fileError(file, ".hip_fatbin: " + elements.error().message);
  if (elements->size() != 1 || elements->front().offset != 0 ||
      elements->front().kind == FileMagic::OffloadBinary)
    return fileError(file, ".hip_fatbin holds " +
                               std::to_string(elements->size()) +
                               " elements; an object's is one bundle");
  auto rewritten = rewriter.rewrite(
      elements->front().bytes, file + ":" + std::string(kHipFatbinSection));
  if (!rewritten)
    return rewritten.takeError();
  if (!rewriter.result().changed)
    return OutputPlan::wholeInput(bytes.size());
  // The section's new bytes are needed whole for its checksum, and objects
  // hold one translation unit's code: they are assembled here.
  auto contents = rewritten->render(bytes);
  if (!contents)
    return fileError(file, contents.error());
  return replaceSectionData(file, bytes, *sections, *fatbinIndex,
                            std::move(*contents));
}

} // namespace offbundle::rewriting
