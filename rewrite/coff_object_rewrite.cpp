// prune, compress and decompress of COFF objects (see rewrite.h): the bundle
// in .hip_fatbin rewritten, and the object laid out again around it. A COFF
// object has no addresses, only file offsets, so .hip_fatbin may shrink or
// grow: its SizeOfRawData becomes the new bundle's size, and every file
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
#include "formats/coff_object.h"
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

} // namespace

Result<OutputPlan> rewriteCoffObject(const std::string &file,
                                     std::string_view bytes,
                                     BundleRewriter &rewriter) {
  auto sections = readCoffSections(bytes);
  if (!sections)
    return fileError(file, sections.error().message);
  size_t fatbinIndex = sections->size();
  for (size_t index = 0; index < sections->size(); ++index)
    if ((*sections)[index].name == kHipFatbinSection)
      fatbinIndex = index;
  if (fatbinIndex == sections->size() ||
      (*sections)[fatbinIndex].contents.empty())
    return fileError(file, "no .hip_fatbin section: no GPU code to rewrite");
  const CoffSection &fatbin = (*sections)[fatbinIndex];
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
    return fileError(file, contents.error().message);

  const uint64_t start = fatbin.fileOffset;
  const uint64_t end = start + fatbin.rawSize;
  auto moved = [&](uint64_t offset) {
    return offset - end + start + contents->size();
  };
  Patches patches;
  patches.set(fatbin.headerOffset + kSizeOfRawDataField, contents->size(), 4);
  for (const CoffSection &section : *sections)
    for (uint64_t field : kFileOffsetFields) {
      const uint64_t offset =
          loadLittleEndian(bytes, section.headerOffset + field, 4);
      if (offset >= end)
        patches.set(section.headerOffset + field, moved(offset), 4);
      else if (offset > start && offset != 0)
        return fileError(file, "malformed COFF object: section '" +
                                   section.name +
                                   "' has data inside .hip_fatbin");
    }
  const uint64_t symbols =
      loadLittleEndian(bytes, kPointerToSymbolTableField, 4);
  if (symbols >= end)
    patches.set(kPointerToSymbolTableField, moved(symbols), 4);
  if (std::optional<uint64_t> definition =
          sectionDefinition(bytes, fatbinIndex + 1)) {
    patches.set(*definition, contents->size(), 4);
    if (loadLittleEndian(bytes, *definition + 8, 4) != 0)
      patches.set(*definition + 8, jamCrc32(*contents), 4);
  }

  OutputPlan plan;
  patches.copy(plan, 0, start);
  plan.addBytes(std::move(*contents));
  patches.copy(plan, end, bytes.size());
  return plan;
}

} // namespace offbundle::rewriting
