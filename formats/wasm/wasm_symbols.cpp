// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WebAssembly modules for archive symbol tables (see the header): the
// custom sections that give a module its symbols or that LLVM checks on
// reading it (dylink, name, linking with its symbol table and COMDATs,
// relocations, producers, target features), and the archive symbols they
// make. The module's binary and standard sections are decoded in
// wasm_module.cpp.
#include "formats/wasm/wasm_symbols.h"

#include "formats/wasm/wasm_module.h"

namespace offbundle::wasm {
namespace {

// Walks the subsections of a linking or dylink.0 section (type, size,
// payload), each of which must be read to its end.
Status forEachSubsection(
    Cursor &cursor, const std::string &what,
    const std::function<Status(uint8_t type, Cursor &subsection)> &parse) {
  while (!cursor.atEnd() && !cursor.failed()) {
    const uint8_t type = cursor.byte();
    const uint32_t size = cursor.u32();
    // LLVM would read on past the section's end.
    if (cursor.failed() || size > cursor.remaining())
      return unsupported("a " + what + " subsection runs past its section");
    Cursor subsection(cursor.take(size));
    if (Status status = parse(type, subsection); !status.ok())
      return status;
    if (Status end = requireEnd(subsection, what + " sub-section"); !end.ok())
      return end;
  }
  return requireEnd(cursor, what + " section");
}

// LLVM's message for a relocation whose index does not fit its type.
const char *relocationMismatch(RelocationTarget target) {
  switch (target) {
  case RelocationTarget::Function:
    return "invalid function relocation";
  case RelocationTarget::Table:
    return "invalid table relocation";
  case RelocationTarget::Type:
    return "invalid relocation type index";
  case RelocationTarget::GotEntry:
  case RelocationTarget::Global:
    return "invalid global relocation";
  case RelocationTarget::Tag:
    return "invalid tag relocation";
  case RelocationTarget::Data:
    return "invalid data relocation";
  case RelocationTarget::Section:
    return "invalid section relocation";
  }
  return "";
}

// Per relocation type: the width of the field it patches (LLVM's, which
// counts 5 bytes for some 64-bit LEB fields), the width of the signed
// addend that follows (0 for none), and what its index refers to.
struct RelocationRule {
  uint8_t width;
  uint8_t addendBits;
  RelocationTarget target;
};

using Target = RelocationTarget;
constexpr std::array<RelocationRule, 27> kRelocationRules = {{
    {5, 0, Target::Function},  // function index LEB
    {5, 0, Target::Function},  // table index SLEB
    {4, 0, Target::Function},  // table index I32
    {5, 32, Target::Data},     // memory address LEB
    {5, 32, Target::Data},     // memory address SLEB
    {4, 32, Target::Data},     // memory address I32
    {5, 0, Target::Type},      // type index LEB
    {5, 0, Target::GotEntry},  // global index LEB
    {4, 32, Target::Function}, // function offset I32
    {4, 32, Target::Section},  // section offset I32
    {5, 0, Target::Tag},       // tag index LEB
    {5, 32, Target::Data},     // memory address relative SLEB
    {5, 0, Target::Function},  // table index relative SLEB
    {4, 0, Target::Global},    // global index I32
    {10, 64, Target::Data},    // memory address LEB64
    {10, 64, Target::Data},    // memory address SLEB64
    {8, 64, Target::Data},     // memory address I64
    {10, 64, Target::Data},    // memory address relative SLEB64
    {5, 0, Target::Function},  // table index SLEB64
    {8, 0, Target::Function},  // table index I64
    {5, 0, Target::Table},     // table number LEB
    {5, 32, Target::Data},     // memory address TLS SLEB
    {8, 64, Target::Function}, // function offset I64
    {4, 32, Target::Data},     // memory address LOCREL I32
    {5, 0, Target::Function},  // table index relative SLEB64
    {5, 64, Target::Data},     // memory address TLS SLEB64
    {4, 0, Target::Function},  // function index I32
}};

} // namespace

Status WasmModuleReader::parseCustom(std::string_view name, Cursor &cursor) {
  if (name == "dylink")
    return parseDylink(cursor);
  if (name == "dylink.0")
    return parseDylink0(cursor);
  if (name == "name")
    return parseNames(cursor);
  if (name == "linking")
    return parseLinking(cursor);
  if (name == "producers")
    return parseProducers(cursor);
  if (name == "target_features")
    return parseTargetFeatures(cursor);
  if (name.substr(0, 6) == "reloc.")
    return parseRelocations(cursor);
  // Debug information, source maps, build ids and the like: not read.
  return Status::success();
}

Status WasmModuleReader::parseDylink(Cursor &cursor) {
  hasDylink_ = true;
  for (int field = 0; field < 4; ++field) // memory and table size, alignment
    cursor.u32();
  return forEachEntryToEnd(cursor, "dylink section", [&](uint32_t) -> Status {
    cursor.string();
    return Status::success();
  });
}

Status WasmModuleReader::parseDylink0(Cursor &cursor) {
  hasDylink_ = true;
  return forEachSubsection(
      cursor, "dylink.0", [&](uint8_t type, Cursor &subsection) -> Status {
        switch (type) {
        case 1: // memory and table size and alignment
          for (int field = 0; field < 4; ++field)
            subsection.u32();
          return Status::success();
        case 2: // needed libraries
          return forEachEntry(subsection, [&](uint32_t) -> Status {
            subsection.string();
            return Status::success();
          });
        case 3: // export flags
        case 4: // import module, field and flags
          return forEachEntry(subsection, [&](uint32_t) -> Status {
            subsection.string();
            if (type == 4)
              subsection.string();
            subsection.u32();
            return Status::success();
          });
        default:
          subsection.take(subsection.remaining());
          return Status::success();
        }
      });
}

// The names of functions, globals and data segments. A module without
// linking or dylink metadata takes its symbols from here, in place of
// those its exports gave: defined functions global when exported and local
// otherwise, globals global, data segments local, imports undefined.
Status WasmModuleReader::parseNames(Cursor &cursor) {
  const bool populate = !hasLinking_ && !hasDylink_;
  if (populate)
    symbols_.clear();
  std::set<uint32_t> seenFunctions, seenGlobals, seenSegments;
  while (!cursor.atEnd() && !cursor.failed()) {
    const uint8_t type = cursor.byte();
    const uint32_t size = cursor.u32();
    if (cursor.failed())
      break;
    const uint64_t end = uint64_t(cursor.position()) + size;
    if (type != 1 && type != 7 && type != 9) {
      // Skipped, local names among them; past the section's end LLVM finds
      // the section cut short.
      if (size > cursor.remaining())
        return makeError("name section ended prematurely");
      cursor.take(size);
      continue;
    }
    Status status = forEachEntry(cursor, [&](uint32_t) -> Status {
      const uint32_t index = cursor.u32();
      Symbol symbol;
      symbol.name = cursor.string();
      if (cursor.failed())
        return cutShort();
      if (type == 1) {
        if (!seenFunctions.insert(index).second)
          return makeError("function named more than once");
        if (!validFunction(index) || symbol.name.empty())
          return makeError("invalid function name entry");
        symbol.kind = kSymbolFunction;
        if (!definedFunction(index))
          symbol.flags = kFlagUndefined;
        else if (!functionExported_[index - importedFunctions_])
          symbol.flags = kBindingLocal;
      } else if (type == 7) {
        if (!seenGlobals.insert(index).second)
          return makeError("global named more than once");
        if (!validGlobal(index) || symbol.name.empty())
          return makeError("invalid global name entry");
        symbol.kind = kSymbolGlobal;
        if (index < importedGlobals_)
          symbol.flags = kFlagUndefined;
      } else {
        if (!seenSegments.insert(index).second)
          return makeError("segment named more than once");
        if (index > segmentSizes_.size())
          return makeError("invalid data segment name entry");
        // One past the last segment passes LLVM's check and is then read.
        if (index == segmentSizes_.size())
          return unsupported("it names a data segment it does not have");
        symbol.kind = kSymbolData;
        symbol.flags = kBindingLocal;
      }
      if (populate)
        symbols_.push_back(symbol);
      return Status::success();
    });
    if (!status.ok())
      return status;
    if (cursor.failed())
      break;
    if (cursor.position() != end)
      return makeError("name sub-section ended prematurely");
  }
  return requireEnd(cursor, "name section");
}

Status WasmModuleReader::parseLinking(Cursor &cursor) {
  hasLinking_ = true;
  const uint32_t version = cursor.u32();
  if (cursor.failed())
    return cutShort();
  if (version != 2)
    return makeError("unexpected metadata version: " + std::to_string(version) +
                     " (Expected: 2)");
  return forEachSubsection(
      cursor, "linking", [&](uint8_t type, Cursor &subsection) -> Status {
        switch (type) {
        case 8:
          return parseSymbolTable(subsection);
        case 5: { // segment names, alignments and flags
          const uint32_t count = subsection.u32();
          if (!subsection.failed() && count > segmentSizes_.size())
            return makeError("too many segment names");
          for (uint32_t index = 0; index < count && !subsection.failed();
               ++index) {
            subsection.string();
            subsection.u32();
            subsection.u32();
          }
          return Status::success();
        }
        case 6: // init functions: priority and function symbol
          return forEachEntry(subsection, [&](uint32_t) -> Status {
            subsection.u32();
            const uint32_t symbol = subsection.u32();
            if (!subsection.failed() && !symbolOfKind(symbol, kSymbolFunction))
              return makeError("invalid function symbol: " +
                               std::to_string(symbol));
            return Status::success();
          });
        case 7:
          return parseComdats(subsection);
        default:
          subsection.take(subsection.remaining());
          return Status::success();
        }
      });
}

Status WasmModuleReader::parseSymbolTable(Cursor &cursor) {
  // The table replaces the symbols the exports gave.
  symbols_.clear();
  std::set<std::string_view> globalNames;
  return forEachEntry(cursor, [&](uint32_t) -> Status {
    return parseSymbol(cursor, globalNames);
  });
}

Status WasmModuleReader::parseSymbol(Cursor &cursor,
                                     std::set<std::string_view> &names) {
  Symbol symbol;
  symbol.kind = cursor.byte();
  symbol.flags = cursor.u32();
  if (cursor.failed())
    return cutShort();
  const bool defined = !(symbol.flags & kFlagUndefined);
  const bool weak = (symbol.flags & kBindingMask) == kBindingWeak;
  const bool local = (symbol.flags & kBindingMask) == kBindingLocal;
  switch (symbol.kind) {
  case kSymbolFunction:
  case kSymbolGlobal:
  case kSymbolTable:
  case kSymbolTag: {
    const uint32_t index = cursor.u32();
    if (cursor.failed())
      return cutShort();
    const char *kindName = symbol.kind == kSymbolFunction ? "function"
                           : symbol.kind == kSymbolGlobal ? "global"
                           : symbol.kind == kSymbolTable  ? "table"
                                                          : "tag";
    uint32_t imported = importedTags_;
    bool valid = validTag(index);
    const std::vector<std::string_view> *importNames = &importedTagNames_;
    if (symbol.kind == kSymbolFunction) {
      imported = importedFunctions_;
      valid = validFunction(index);
      importNames = &importedFunctionNames_;
    } else if (symbol.kind == kSymbolGlobal) {
      imported = importedGlobals_;
      valid = validGlobal(index);
      importNames = &importedGlobalNames_;
    } else if (symbol.kind == kSymbolTable) {
      imported = importedTables_;
      valid = validTable(index);
      importNames = &importedTableNames_;
    }
    if (!valid || defined != (index >= imported))
      return makeError(std::string("invalid ") + kindName + " symbol index");
    if (!defined && weak && symbol.kind != kSymbolFunction)
      return makeError(symbol.kind == kSymbolTable
                           ? "undefined weak table symbol"
                           : "undefined weak global symbol");
    if (defined || (symbol.flags & kFlagExplicitName))
      symbol.name = cursor.string();
    else
      symbol.name = (*importNames)[index];
    break;
  }
  case kSymbolData:
    symbol.name = cursor.string();
    if (defined) {
      const uint32_t segment = cursor.u32();
      const uint64_t offset = cursor.u64();
      cursor.u64();
      if (cursor.failed())
        return cutShort();
      if (!(symbol.flags & kFlagAbsolute)) {
        if (segment >= segmentSizes_.size())
          return makeError("invalid data segment index: " +
                           std::to_string(segment));
        if (offset > segmentSizes_[segment])
          return makeError(
              "invalid data symbol offset: `" + std::string(symbol.name) +
              "` (offset: " + std::to_string(offset) +
              " segment size: " + std::to_string(segmentSizes_[segment]) + ")");
      }
    }
    break;
  case kSymbolSection: {
    if (!local)
      return makeError("section symbols must have local binding");
    const uint32_t index = cursor.u32();
    // LLVM looks the section up without checking the index.
    if (!cursor.failed() && index >= sections_.size())
      return unsupported("a section symbol's index is out of range");
    if (!cursor.failed())
      symbol.name = sections_[index].name;
    break;
  }
  default:
    return makeError("invalid symbol type: " + std::to_string(symbol.kind));
  }
  if (cursor.failed())
    return cutShort();
  if (!local && !names.insert(symbol.name).second)
    return makeError("duplicate symbol name " + std::string(symbol.name));
  symbols_.push_back(symbol);
  return Status::success();
}

Status WasmModuleReader::parseComdats(Cursor &cursor) {
  std::set<std::string_view> comdatNames;
  return forEachEntry(cursor, [&](uint32_t) -> Status {
    const std::string_view name = cursor.string();
    if (!cursor.failed() && (name.empty() || !comdatNames.insert(name).second))
      return makeError("bad/duplicate COMDAT name " + std::string(name));
    const uint32_t flags = cursor.u32();
    if (!cursor.failed() && flags != 0)
      return makeError("unsupported COMDAT flags");
    return forEachEntry(cursor, [&](uint32_t) -> Status {
      const uint32_t kind = cursor.u32();
      const uint32_t index = cursor.u32();
      if (cursor.failed())
        return cutShort();
      switch (kind) {
      case 0: // a data segment
        if (index >= segmentSizes_.size())
          return makeError("COMDAT data index out of range");
        if (segmentInComdat_[index])
          return makeError("data segment in two COMDATs");
        segmentInComdat_[index] = true;
        return Status::success();
      case 1: // a function
        if (!definedFunction(index))
          return makeError("COMDAT function index out of range");
        if (functionInComdat_[index - importedFunctions_])
          return makeError("function in two COMDATs");
        functionInComdat_[index - importedFunctions_] = true;
        return Status::success();
      case 5: // a custom section
        if (index >= sections_.size())
          return makeError("COMDAT section index out of range");
        if (sections_[index].id != kCustom)
          return makeError("non-custom section in a COMDAT");
        // LLVM lets a section join several; only the last one counts.
        return Status::success();
      default:
        return makeError("invalid COMDAT entry type");
      }
    });
  });
}

Status WasmModuleReader::parseRelocations(Cursor &cursor) {
  const uint32_t target = cursor.u32();
  if (cursor.failed())
    return cutShort();
  if (target >= sections_.size())
    return makeError("invalid section index");
  const uint64_t targetSize = sections_[target].size;
  uint32_t previousOffset = 0;
  return forEachEntryToEnd(cursor, "reloc section", [&](uint32_t) -> Status {
    const uint32_t type = cursor.u32();
    const uint32_t offset = cursor.u32();
    if (cursor.failed())
      return cutShort();
    if (offset < previousOffset)
      return makeError("relocations not in offset order");
    previousOffset = offset;
    const uint32_t index = cursor.u32();
    if (cursor.failed())
      return cutShort();
    if (type >= kRelocationRules.size())
      return makeError("invalid relocation type: " + std::to_string(type));
    const RelocationRule &rule = kRelocationRules[type];
    // LLVM's message names the symbol at the index, which it looks up
    // without checking the index.
    if (!relocationTargetFits(rule.target, index)) {
      if (index >= symbols_.size())
        return unsupported("a relocation's index is past the symbols");
      return makeError(std::string(relocationMismatch(rule.target)) + ": " +
                       std::string(symbols_[index].name));
    }
    if (rule.addendBits)
      cursor.skipSignedLeb(rule.addendBits);
    if (cursor.failed())
      return cutShort();
    if (offset + uint64_t(rule.width) > targetSize)
      return makeError("invalid relocation offset");
    return Status::success();
  });
}

bool WasmModuleReader::relocationTargetFits(RelocationTarget target,
                                            uint32_t index) const {
  switch (target) {
  case RelocationTarget::Function:
    return symbolOfKind(index, kSymbolFunction);
  case RelocationTarget::Table:
    return symbolOfKind(index, kSymbolTable);
  case RelocationTarget::Type:
    return index < typeCount_;
  case RelocationTarget::GotEntry:
    return symbolOfKind(index, kSymbolGlobal) ||
           symbolOfKind(index, kSymbolData) ||
           symbolOfKind(index, kSymbolFunction);
  case RelocationTarget::Global:
    return symbolOfKind(index, kSymbolGlobal);
  case RelocationTarget::Tag:
    return symbolOfKind(index, kSymbolTag);
  case RelocationTarget::Data:
    return symbolOfKind(index, kSymbolData);
  case RelocationTarget::Section:
    return symbolOfKind(index, kSymbolSection);
  }
  return false;
}

Status WasmModuleReader::parseProducers(Cursor &cursor) {
  std::set<std::string_view> fieldNames;
  return forEachEntryToEnd(
      cursor, "producers section", [&](uint32_t) -> Status {
        const std::string_view field = cursor.string();
        if (cursor.failed())
          return cutShort();
        if (!fieldNames.insert(field).second)
          return makeError("producers section does not have unique fields");
        if (field != "language" && field != "processed-by" && field != "sdk")
          return makeError("producers section field is not named one of "
                           "language, processed-by, or sdk");
        std::set<std::string_view> valueNames;
        return forEachEntry(cursor, [&](uint32_t) -> Status {
          const std::string_view name = cursor.string();
          cursor.string();
          if (!cursor.failed() && !valueNames.insert(name).second)
            return makeError("producers section contains repeated producer");
          return Status::success();
        });
      });
}

Status WasmModuleReader::parseTargetFeatures(Cursor &cursor) {
  std::set<std::string_view> features;
  return forEachEntryToEnd(
      cursor, "target features section", [&](uint32_t) -> Status {
        const uint8_t prefix = cursor.byte();
        if (cursor.failed())
          return cutShort();
        if (prefix != '+' && prefix != '-' && prefix != '=')
          return makeError("unknown feature policy prefix");
        const std::string_view feature = cursor.string();
        if (!cursor.failed() && !features.insert(feature).second)
          return makeError(
              "target features section contains repeated feature \"" +
              std::string(feature) + "\"");
        return Status::success();
      });
}

} // namespace offbundle::wasm

namespace offbundle {

Result<std::vector<std::string>> wasmArchiveSymbols(std::string_view bytes) {
  wasm::WasmModuleReader reader;
  return reader.read(bytes);
}

} // namespace offbundle
