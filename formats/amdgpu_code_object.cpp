// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AMDGPU code object kernels (see amdgpu_code_object.h): the metadata note
// through msgpack-c, the symbol tables for code sizes and descriptors.

#include "formats/amdgpu_code_object.h"

#include <unordered_map>

#include "formats/elf/elf_object.h"
#include "formats/kpack/message_pack.h"
#include "support/byte_order.h"
#include "targets/amdgpu_elf_mach.h"

namespace offbundle {
namespace {

constexpr uint32_t kSectionTypeSymbolTable = 2;     // SHT_SYMTAB
constexpr uint32_t kSectionTypeNote = 7;            // SHT_NOTE
constexpr uint32_t kSectionTypeDynamicSymbols = 11; // SHT_DYNSYM
constexpr uint32_t kNoteAmdgpuMetadata = 32;        // NT_AMDGPU_METADATA
constexpr uint32_t kNoteAmdHsaMetadata = 10;        // NT_AMD_HSA_METADATA (v2)
constexpr uint64_t kSymbolSize = 24;                // Elf64_Sym
constexpr uint64_t kDescriptorSize = 64;
constexpr uint64_t kDescriptorRsrc1 = 48;
constexpr uint8_t kSymbolTypeFunction = 2;

uint64_t padTo4(uint64_t size) { return (size + 3) & ~uint64_t{3}; }

struct NoteSearch {
  std::string_view metadata; // the NT_AMDGPU_METADATA description
  bool sawVersion2 = false;
};

// Every note of every SHT_NOTE section, each checked to lie inside it.
Result<NoteSearch> findNotes(const ElfObject &object) {
  NoteSearch found;
  for (const ElfSection &section : object.sections()) {
    if (section.type != kSectionTypeNote)
      continue;
    const std::string_view notes = object.contents(section);
    uint64_t at = 0;
    while (notes.size() - at >= 12) {
      const uint64_t nameSize = loadLittle32(notes, at);
      const uint64_t descSize = loadLittle32(notes, at + 4);
      const uint32_t type = loadLittle32(notes, at + 8);
      const uint64_t name = at + 12;
      if (padTo4(nameSize) > notes.size() - name ||
          padTo4(descSize) > notes.size() - name - padTo4(nameSize))
        return makeError("a note in " + std::string(section.name) +
                         " runs past the end of the section");
      std::string_view owner = notes.substr(name, nameSize);
      if (!owner.empty() && owner.back() == '\0')
        owner.remove_suffix(1);
      const uint64_t desc = name + padTo4(nameSize);
      if (owner == "AMDGPU" && type == kNoteAmdgpuMetadata)
        found.metadata = notes.substr(desc, descSize);
      if (owner == "AMD" && type == kNoteAmdHsaMetadata)
        found.sawVersion2 = true;
      at = desc + padTo4(descSize);
    }
  }
  return found;
}

struct SymbolInfo {
  uint8_t type = 0;
  uint16_t sectionIndex = 0;
  uint64_t value = 0;
  uint64_t size = 0;
};

// The named symbols of .symtab and .dynsym (the first of a name wins).
std::unordered_map<std::string_view, SymbolInfo>
readSymbols(const ElfObject &object) {
  std::unordered_map<std::string_view, SymbolInfo> symbols;
  const std::vector<ElfSection> &sections = object.sections();
  for (const ElfSection &section : sections) {
    if (section.type != kSectionTypeSymbolTable &&
        section.type != kSectionTypeDynamicSymbols)
      continue;
    if (section.link >= sections.size())
      continue;
    const std::string_view table = object.contents(section);
    const std::string_view names = object.contents(sections[section.link]);
    for (uint64_t at = 0; table.size() - at >= kSymbolSize; at += kSymbolSize) {
      const uint32_t nameOffset = loadLittle32(table, at);
      if (nameOffset == 0 || nameOffset >= names.size())
        continue;
      const std::string_view rest = names.substr(nameOffset);
      const std::string_view name = rest.substr(0, rest.find('\0'));
      SymbolInfo info;
      info.type = static_cast<uint8_t>(table[at + 4]) & 0xf;
      info.sectionIndex = loadLittle16(table, at + 6);
      info.value = loadLittle64(table, at + 8);
      info.size = loadLittle64(table, at + 16);
      symbols.emplace(name, info);
    }
  }
  return symbols;
}

// The 64 bytes of a kernel descriptor, when they lie in a section with
// file contents.
std::optional<std::string_view> descriptorBytes(const ElfObject &object,
                                                const SymbolInfo &symbol) {
  const std::vector<ElfSection> &sections = object.sections();
  if (symbol.sectionIndex == 0 || symbol.sectionIndex >= sections.size())
    return std::nullopt;
  const ElfSection &section = sections[symbol.sectionIndex];
  const std::string_view contents = object.contents(section);
  if (symbol.value < section.address ||
      symbol.value - section.address > contents.size() ||
      contents.size() - (symbol.value - section.address) < kDescriptorSize)
    return std::nullopt;
  return contents.substr(symbol.value - section.address, kDescriptorSize);
}

// A count, which must be a non-negative integer when present.
Status readCount(const MessagePackValue &kernel, std::string_view key,
                 uint64_t &into, bool required, const std::string &which) {
  std::optional<MessagePackValue> value = kernel.find(key);
  if (!value) {
    if (required)
      return makeError(which + " has no " + std::string(key));
    return Status::success();
  }
  std::optional<uint64_t> number = value->asUnsigned();
  if (!number)
    return makeError(which + "'s " + std::string(key) + " is a " +
                     std::string(value->kindName()) +
                     ", not an unsigned integer");
  into = *number;
  return Status::success();
}

// A flag: MessagePack boolean or integer, as the metadata writes either.
std::optional<bool> readFlag(const MessagePackValue &kernel,
                             std::string_view key) {
  std::optional<MessagePackValue> value = kernel.find(key);
  if (!value)
    return std::nullopt;
  if (std::optional<bool> flag = value->asBoolean())
    return flag;
  if (std::optional<uint64_t> number = value->asUnsigned())
    return *number != 0;
  return std::nullopt;
}

Result<AmdgpuKernel> readKernel(const MessagePackValue &map, size_t index) {
  const std::string which = "kernel " + std::to_string(index);
  if (!map.isMap())
    return makeError(which + " is a " + std::string(map.kindName()) +
                     ", not a map");
  AmdgpuKernel kernel;
  std::optional<MessagePackValue> name = map.find(".name");
  if (!name || !name->asString())
    return makeError(which + " has no .name string");
  kernel.name = std::string(*name->asString());
  if (std::optional<MessagePackValue> symbol = map.find(".symbol"))
    if (std::optional<std::string_view> text = symbol->asString())
      kernel.symbol = std::string(*text);
  const std::string named = "kernel '" + kernel.name + "'";
  struct Count {
    std::string_view key;
    uint64_t *into;
    bool required;
  };
  uint64_t agprs = 0;
  const Count counts[] = {
      {".vgpr_count", &kernel.vgprCount, true},
      {".sgpr_count", &kernel.sgprCount, true},
      {".vgpr_spill_count", &kernel.vgprSpillCount, false},
      {".sgpr_spill_count", &kernel.sgprSpillCount, false},
      {".group_segment_fixed_size", &kernel.groupSegmentFixedSize, true},
      {".private_segment_fixed_size", &kernel.privateSegmentFixedSize, true},
      {".wavefront_size", &kernel.wavefrontSize, true},
      {".max_flat_workgroup_size", &kernel.maxFlatWorkgroupSize, true},
      {".kernarg_segment_size", &kernel.kernargSegmentSize, true},
      {".agpr_count", &agprs, false},
  };
  for (const Count &count : counts)
    if (Status read =
            readCount(map, count.key, *count.into, count.required, named);
        !read.ok())
      return read.takeError();
  if (map.find(".agpr_count"))
    kernel.agprCount = agprs;
  kernel.usesDynamicStack =
      readFlag(map, ".uses_dynamic_stack").value_or(false);
  kernel.workgroupProcessorMode = readFlag(map, ".workgroup_processor_mode");
  return kernel;
}

} // namespace

Result<AmdgpuKernels> readAmdgpuKernels(std::string_view codeObject) {
  if (!isElf(codeObject))
    return makeError("not an ELF file");
  auto object = parseElfObject(codeObject);
  if (!object)
    return object.takeError();
  if (!object->header().is64Bit || !object->header().isLittleEndian ||
      loadLittle16(codeObject, 18) != kElfMachineAmdgpu)
    return makeError("not a 64-bit AMDGPU code object");
  AmdgpuKernels kernels;
  kernels.mach = loadLittle32(codeObject, 48) & kElfAmdgpuMachMask;
  auto notes = findNotes(*object);
  if (!notes)
    return notes.takeError();
  if (notes->metadata.empty())
    return makeError(notes->sawVersion2
                         ? "code object version 2 (YAML metadata), which is "
                           "not read"
                         : "no AMDGPU metadata note");
  auto document = MessagePackDocument::parse(notes->metadata);
  if (!document)
    return makeError("malformed AMDGPU metadata: " + document.error().message);
  const MessagePackValue root = document->root();
  if (!root.isMap())
    return makeError("malformed AMDGPU metadata: not a map");
  if (std::optional<MessagePackValue> target = root.find("amdhsa.target"))
    if (std::optional<std::string_view> text = target->asString())
      kernels.target = std::string(*text);
  std::optional<MessagePackValue> list = root.find("amdhsa.kernels");
  if (!list)
    return kernels; // a code object without kernels
  if (!list->isArray())
    return makeError("malformed AMDGPU metadata: amdhsa.kernels is not an "
                     "array");
  const auto symbols = readSymbols(*object);
  for (uint32_t i = 0; i < list->size(); ++i) {
    auto kernel = readKernel(list->element(i), i);
    if (!kernel)
      return makeError("malformed AMDGPU metadata: " + kernel.error().message);
    if (auto code = symbols.find(kernel->name);
        code != symbols.end() && code->second.type == kSymbolTypeFunction)
      kernel->codeBytes = code->second.size;
    if (auto descriptor = symbols.find(kernel->symbol);
        descriptor != symbols.end())
      if (std::optional<std::string_view> bytes =
              descriptorBytes(*object, descriptor->second))
        kernel->descriptorVgprBlocks =
            loadLittle32(*bytes, kDescriptorRsrc1) & 0x3f;
    kernels.kernels.push_back(std::move(*kernel));
  }
  return kernels;
}

} // namespace offbundle
