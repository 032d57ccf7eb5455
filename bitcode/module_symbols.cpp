// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Archive symbols from the module-level records of bitcode (see the header).
// Names are spelled as LLVM's Mangler spells them for the data layout's
// mangling mode: a "_" prefix for Mach-O, a leading "\1" meaning "as
// written", "__unnamed_<n>" for globals without a name.

#include "bitcode/module_symbols.h"

#include "bitcode/data_layout.h"
#include "bitcode/llvm_bitcodes.h"

#include <utility>

namespace offbundle {
namespace {

using bitcode::BitstreamCursor;
using bitcode::BitstreamEntry;
using bitcode::Record;

namespace module_code = bitcode::module_code;

// The smallest records LLVM's reader accepts, counted after the two string
// table fields.
constexpr size_t kMinGlobalVarOperands = 6;
constexpr size_t kMinFunctionOperands = 8;
constexpr size_t kMinAliasOldOperands = 3;
constexpr size_t kMinAliasOperands = 4;

// Encoded linkages (the bitcode's own numbering, old values included).
constexpr uint64_t kInternalLinkage = 3;
constexpr uint64_t kPrivateLinkage = 9;
constexpr uint64_t kAvailableExternallyLinkage = 12;
constexpr uint64_t kOldLinkerPrivateLinkage = 13;
constexpr uint64_t kOldLinkerPrivateWeakLinkage = 14;

// The calling convention whose functions the Mangler decorates on every
// target ("name@@<argument bytes>"), which needs their types.
constexpr uint64_t kX86VectorCallConv = 80;

bool isPrivateLinkage(uint64_t linkage) {
  return linkage == kPrivateLinkage || linkage == kOldLinkerPrivateLinkage ||
         linkage == kOldLinkerPrivateWeakLinkage;
}

bool isLocalLinkage(uint64_t linkage) {
  return linkage == kInternalLinkage || isPrivateLinkage(linkage);
}

std::string textOf(const std::vector<uint64_t> &operands) {
  std::string text;
  text.reserve(operands.size());
  for (uint64_t value : operands)
    text.push_back(static_cast<char>(value));
  return text;
}

// The mangling mode of a data layout string ("m:<mode>" among its
// dash-separated parts), or '\0' when it names none.
char manglingMode(std::string_view dataLayout) {
  while (!dataLayout.empty()) {
    size_t dash = dataLayout.find('-');
    std::string_view part = dataLayout.substr(0, dash);
    if (part.size() == 3 && part.substr(0, 2) == "m:")
      return part[2];
    if (dash == std::string_view::npos)
      break;
    dataLayout.remove_prefix(dash + 1);
  }
  return '\0';
}

Error cannotRebuild(const std::string &what) {
  return makeError("cannot list the symbols of bitcode " + what);
}

} // namespace

void ModuleSymbolCollector::readModule(BitstreamCursor cursor) {
  modules_.emplace_back();
  if (!failure_.empty())
    return;
  if (Status status = readModuleRecords(cursor, modules_.back()); !status.ok())
    failure_ = "malformed LLVM bitcode: " + status.error().message;
}

std::optional<std::string> ModuleSymbolCollector::dataLayoutError() const {
  for (const Module &module : modules_)
    if (std::optional<std::string> problem =
            offbundle::dataLayoutError(module.dataLayout))
      return problem;
  return std::nullopt;
}

void ModuleSymbolCollector::addStringTable(std::string_view strtab) {
  for (auto module = modules_.rbegin();
       module != modules_.rend() && !module->hasStrtab; ++module) {
    module->strtab = strtab;
    module->hasStrtab = true;
  }
}

Status ModuleSymbolCollector::readModuleRecords(BitstreamCursor &cursor,
                                                Module &module) {
  if (Status status = cursor.enterSubBlock(); !status.ok())
    return status;
  // Every iteration consumes input (an END_BLOCK leaves), so the loop ends.
  while (true) {
    Result<BitstreamEntry> entry = cursor.advance();
    if (!entry)
      return entry.takeError();
    if (entry->kind == BitstreamEntry::Kind::EndBlock)
      return Status::success();
    if (entry->kind == BitstreamEntry::Kind::SubBlock) {
      // Types, constants, metadata and function bodies say nothing about
      // which symbols exist; BLOCKINFO is read because later records may
      // use its abbreviations.
      Status status = entry->id == bitcode::kBlockInfoBlockId
                          ? cursor.readBlockInfoBlock()
                          : cursor.skipBlock();
      if (!status.ok())
        return status;
      continue;
    }
    Result<Record> record = cursor.readRecord(entry->id);
    if (!record)
      return record.takeError();
    if (Status status = addModuleRecord(*record, module); !status.ok())
      return status;
  }
}

Status ModuleSymbolCollector::addModuleRecord(const Record &record,
                                              Module &module) {
  const std::vector<uint64_t> &operands = record.operands;
  switch (record.code) {
  case module_code::kVersion:
    if (!operands.empty())
      module.version = operands[0];
    break;
  case module_code::kDataLayout:
    module.dataLayout = textOf(operands);
    break;
  case module_code::kInlineAsm:
    module.hasInlineAsm = module.hasInlineAsm || !operands.empty();
    break;
  case module_code::kSectionName:
    module.sectionNames.push_back(textOf(operands));
    break;
  case module_code::kGlobalVar:
  case module_code::kFunction:
  case module_code::kAliasOld:
  case module_code::kAlias:
  case module_code::kIfunc:
    return addGlobalValueRecord(record, module);
  default:
    break;
  }
  return Status::success();
}

Status ModuleSymbolCollector::addGlobalValueRecord(const Record &record,
                                                   Module &module) {
  const std::vector<uint64_t> &operands = record.operands;
  // From version 2 on, a global value's record starts with its name's
  // offset and size in the string table.
  const size_t base = module.version >= 2 ? 2 : 0;
  auto globalValue = [&](size_t minimum,
                         const char *what) -> Result<GlobalValueRecord> {
    if (operands.size() < base + minimum)
      return makeError(std::string(what) + " record too short");
    GlobalValueRecord value;
    if (base == 2) {
      value.nameOffset = operands[0];
      value.nameSize = operands[1];
    }
    return value;
  };
  switch (record.code) {
  case module_code::kGlobalVar: {
    // [type, constness, initializer ID + 1 (0: none), linkage, alignment,
    //  section ID + 1, ...]
    auto value = globalValue(kMinGlobalVarOperands, "global variable");
    if (!value)
      return value.takeError();
    value->isDefinition = operands[base + 2] != 0;
    value->linkage = operands[base + 3];
    value->section = operands[base + 5];
    module.variables.push_back(*value);
    break;
  }
  case module_code::kFunction: {
    // [type, calling convention, is declaration, linkage, ...]
    auto value = globalValue(kMinFunctionOperands, "function");
    if (!value)
      return value.takeError();
    value->callingConv = operands[base + 1];
    value->isDefinition = operands[base + 2] == 0;
    value->linkage = operands[base + 3];
    module.functions.push_back(*value);
    break;
  }
  case module_code::kAliasOld: {
    // [pointer type, aliasee, linkage, ...]
    auto value = globalValue(kMinAliasOldOperands, "alias");
    if (!value)
      return value.takeError();
    value->isDefinition = true;
    value->linkage = operands[base + 2];
    module.aliases.push_back(*value);
    break;
  }
  case module_code::kAlias:
  case module_code::kIfunc: {
    // [value type, address space, aliasee or resolver, linkage, ...]
    auto value =
        globalValue(kMinAliasOperands,
                    record.code == module_code::kAlias ? "alias" : "ifunc");
    if (!value)
      return value.takeError();
    value->isDefinition = true;
    value->linkage = operands[base + 3];
    (record.code == module_code::kAlias ? module.aliases : module.ifuncs)
        .push_back(*value);
    break;
  }
  default:
    break;
  }
  return Status::success();
}

Result<std::vector<std::string>>
ModuleSymbolCollector::names(uint64_t maxNameBytes) const {
  if (!failure_.empty())
    return makeError(failure_);
  uint64_t nameBytes = 0;
  // The Mangler numbers unnamed globals as the archive writer asks for
  // their names, and it asks only for the symbols it indexes.
  uint64_t unnamedCount = 0;
  std::vector<std::string> names;
  for (const Module &module : modules_) {
    if (module.version < 2)
      return cannotRebuild("from before LLVM 5, whose names are outside the "
                           "string table");
    if (!module.hasStrtab)
      return makeError("malformed LLVM bitcode: no string table");
    if (module.hasInlineAsm)
      return cannotRebuild("with module-level inline assembly");
    const char mangling = manglingMode(module.dataLayout);
    if (mangling == 'w' || mangling == 'x')
      return cannotRebuild("with Windows name decorations");
    const std::string_view prefix = mangling == 'o' ? "_" : "";

    auto add = [&](const GlobalValueRecord &value, bool isVariable,
                   bool isFunction) -> Status {
      // LLVM reads a name outside the string table as no name at all.
      std::string_view name;
      if (value.nameOffset <= module.strtab.size() &&
          value.nameSize <= module.strtab.size() - value.nameOffset)
        name = module.strtab.substr(value.nameOffset, value.nameSize);
      std::string_view section;
      if (isVariable && value.section != 0) {
        if (value.section > module.sectionNames.size())
          return makeError("malformed LLVM bitcode: section ID out of range");
        section = module.sectionNames[value.section - 1];
      }
      // What ModuleSymbolTable flags as undefined, local or format-specific
      // never enters the archive's index.
      if (!value.isDefinition || value.linkage == kAvailableExternallyLinkage ||
          isLocalLinkage(value.linkage) || name.substr(0, 5) == "llvm." ||
          section == "llvm.metadata")
        return Status::success();
      if (isFunction && value.callingConv == kX86VectorCallConv)
        return cannotRebuild("with vectorcall functions");
      std::string spelled;
      if (!name.empty() && name[0] == '\1')
        spelled = name.substr(1); // "\1" asks for the name as written
      else if (name.empty())
        spelled =
            std::string(prefix) + "__unnamed_" + std::to_string(++unnamedCount);
      else
        spelled = std::string(prefix) + std::string(name);
      nameBytes += spelled.size() + 1;
      if (nameBytes > maxNameBytes)
        return makeError("malformed LLVM bitcode: symbol names larger than "
                         "the file can hold");
      names.push_back(std::move(spelled));
      return Status::success();
    };
    for (const GlobalValueRecord &value : module.functions)
      if (Status status = add(value, false, true); !status.ok())
        return status.takeError();
    for (const GlobalValueRecord &value : module.variables)
      if (Status status = add(value, true, false); !status.ok())
        return status.takeError();
    for (const auto *list : {&module.aliases, &module.ifuncs})
      for (const GlobalValueRecord &value : *list)
        if (Status status = add(value, false, false); !status.ok())
          return status.takeError();
  }
  return names;
}

} // namespace offbundle
