// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// WebAssembly modules decoded for their archive symbols (see
// wasm_symbols.h for the layout): the bounds-checked walks every
// section shares, the order sections must come in, and the standard
// sections (types, imports, functions, tables, memories, tags, globals,
// exports, elements, code, data), read with LLVM 22's checks and messages.
// The custom sections are read in wasm_symbols.cpp.
#include "formats/wasm/wasm_module.h"

#include "support/byte_order.h"

namespace offbundle::wasm {
namespace {

// For each place, the places that must not already have been seen: itself
// (no repeats) and the next one, whose own successors follow transitively.
// Relocation sections may repeat and go anywhere.
constexpr std::array<std::array<SectionOrder, 3>, kOrderCount> kMustNotPrecede =
    {{
        {},
        {kOrderType, kOrderImport},
        {kOrderImport, kOrderFunction},
        {kOrderFunction, kOrderTable},
        {kOrderTable, kOrderMemory},
        {kOrderMemory, kOrderTag},
        {kOrderTag, kOrderGlobal},
        {kOrderGlobal, kOrderExport},
        {kOrderExport, kOrderStart},
        {kOrderStart, kOrderElem},
        {kOrderElem, kOrderDataCount},
        {kOrderDataCount, kOrderCode},
        {kOrderCode, kOrderData},
        {kOrderData, kOrderLinking},
        {kOrderDylink, kOrderType},
        {kOrderLinking, kOrderReloc, kOrderName},
        {},
        {kOrderName, kOrderProducers},
        {kOrderProducers, kOrderTargetFeatures},
        {kOrderTargetFeatures},
    }};

SectionOrder sectionOrder(uint8_t id, std::string_view name) {
  switch (id) {
  case kCustom:
    if (name == "dylink" || name == "dylink.0")
      return kOrderDylink;
    if (name == "linking")
      return kOrderLinking;
    if (name.substr(0, 6) == "reloc.")
      return kOrderReloc;
    if (name == "name")
      return kOrderName;
    if (name == "producers")
      return kOrderProducers;
    if (name == "target_features")
      return kOrderTargetFeatures;
    return kOrderNone;
  case kType:
    return kOrderType;
  case kImport:
    return kOrderImport;
  case kFunction:
    return kOrderFunction;
  case kTable:
    return kOrderTable;
  case kMemory:
    return kOrderMemory;
  case kGlobal:
    return kOrderGlobal;
  case kExport:
    return kOrderExport;
  case kStart:
    return kOrderStart;
  case kElem:
    return kOrderElem;
  case kCode:
    return kOrderCode;
  case kData:
    return kOrderData;
  case kDataCount:
    return kOrderDataCount;
  case kTag:
    return kOrderTag;
  default:
    return kOrderNone;
  }
}

} // namespace

bool SectionOrderChecker::accept(uint8_t id, std::string_view name) {
  const SectionOrder order = sectionOrder(id, name);
  if (order == kOrderNone)
    return true;
  std::array<bool, kOrderCount> queued{};
  std::vector<SectionOrder> pending{order};
  while (!pending.empty()) {
    const SectionOrder current = pending.back();
    pending.pop_back();
    for (SectionOrder next : kMustNotPrecede[current]) {
      if (next == kOrderNone || queued[next])
        continue;
      if (seen_[next])
        return false;
      queued[next] = true;
      pending.push_back(next);
    }
  }
  seen_[order] = true;
  return true;
}

Error unsupported(const std::string &reason) {
  return makeError(
      "archive symbol tables for this Wasm member are not supported: " +
      reason);
}

Status forEachEntry(Cursor &cursor,
                    const std::function<Status(uint32_t index)> &entry) {
  const uint32_t count = cursor.u32();
  for (uint32_t index = 0; index < count && !cursor.failed(); ++index)
    if (Status status = entry(index); !status.ok())
      return status;
  return Status::success();
}

Status cutShort() {
  return unsupported("a section ends inside a record or holds a malformed "
                     "number");
}

Status failWith(const Cursor &cursor, const std::string &message) {
  if (cursor.failed())
    return cutShort();
  return makeError(message);
}

Status requireEnd(const Cursor &cursor, const std::string &what) {
  if (cursor.failed())
    return cutShort();
  if (!cursor.atEnd())
    return makeError(what + " ended prematurely");
  return Status::success();
}

Status forEachEntryToEnd(Cursor &cursor, const std::string &what,
                         const std::function<Status(uint32_t index)> &entry) {
  if (Status status = forEachEntry(cursor, entry); !status.ok())
    return status;
  return requireEnd(cursor, what);
}

Result<std::vector<std::string>>
WasmModuleReader::read(std::string_view bytes) {
  if (bytes.size() < 8)
    return makeError("missing version number");
  const uint32_t version = loadLittle32(bytes, 4);
  if (version != 1)
    return makeError("invalid version number: " + std::to_string(version));
  Cursor file(bytes.substr(8));
  while (!file.atEnd()) {
    const uint8_t id = file.byte();
    const uint32_t size = file.u32();
    if (file.failed())
      return unsupported("a section header is malformed");
    if (size == 0)
      return makeError("zero length section");
    std::string_view payload = file.take(size);
    if (file.failed())
      return makeError("section too large");
    std::string_view name;
    if (id == kCustom) {
      Cursor custom(payload);
      name = custom.string();
      if (custom.failed())
        return unsupported("a custom section's name is malformed");
      payload = payload.substr(custom.position());
    }
    if (!order_.accept(id, name))
      return makeError("out of order section type: " + std::to_string(id));
    if (Status status = parseSection(id, name, payload); !status.ok())
      return status.takeError();
    sections_.push_back({id, name, payload.size()});
  }
  std::vector<std::string> names;
  for (const Symbol &symbol : symbols_)
    if ((symbol.flags & kBindingMask) != kBindingLocal &&
        !(symbol.flags & kFlagUndefined))
      names.emplace_back(symbol.name);
  return names;
}

Status WasmModuleReader::parseSection(uint8_t id, std::string_view name,
                                      std::string_view payload) {
  Cursor cursor(payload);
  switch (id) {
  case kCustom:
    return parseCustom(name, cursor);
  case kType:
    return parseType(cursor);
  case kImport:
    return parseImports(cursor);
  case kFunction:
    return parseFunctions(cursor);
  case kTable:
    return parseTables(cursor);
  case kMemory:
    return parseMemories(cursor);
  case kTag:
    return parseTags(cursor);
  case kGlobal:
    return parseGlobals(cursor);
  case kExport:
    return parseExports(cursor);
  case kStart: {
    // Anything after the index is not looked at.
    const uint32_t start = cursor.u32();
    if (!cursor.failed() && !validFunction(start))
      return makeError("invalid start function");
    return cursor.failed() ? cutShort() : Status::success();
  }
  case kElem:
    return parseElements(cursor);
  case kCode:
    return parseCode(cursor);
  case kData:
    return parseData(cursor);
  case kDataCount:
    dataCount_ = cursor.u32();
    return cursor.failed() ? cutShort() : Status::success();
  default:
    return makeError("invalid section type: " + std::to_string(id));
  }
}

// Function types, and GC types (recursion groups, subtypes, structs and
// arrays), which LLVM reads only to step over them; each counts as one
// type, and a recursion group's members follow it as further entries.
Status WasmModuleReader::parseType(Cursor &cursor) {
  uint64_t count = cursor.u32();
  for (uint64_t index = 0; index < count && !cursor.failed(); ++index) {
    uint32_t members = 0;
    if (Status status = readFunctionOrGcType(cursor, members); !status.ok())
      return status;
    count += members;
    ++typeCount_;
  }
  return requireEnd(cursor, "type section");
}

Status WasmModuleReader::readFunctionOrGcType(Cursor &cursor,
                                              uint32_t &members) {
  // A field: storage type (a value type's code), then mutability.
  auto skipField = [&cursor] {
    skipHeapType(cursor, cursor.u32());
    cursor.u32();
  };
  uint64_t form = cursor.byte();
  if (form == 0x4e) { // a recursion group
    members = cursor.u32();
    if (!cursor.failed() && members == 0)
      return makeError("Rec group size cannot be 0");
    return Status::success();
  }
  if (form == 0x60) { // a function: parameters, then results
    for (int list = 0; list < 2; ++list) {
      const uint32_t values = cursor.u32();
      for (uint32_t value = 0; value < values && !cursor.failed(); ++value)
        skipHeapType(cursor, cursor.byte());
    }
    return Status::success();
  }
  if (form == 0x50 || form == 0x4f) { // a subtype, open or final
    const uint32_t supertypes = cursor.u32();
    if (!cursor.failed() && supertypes > 1)
      return makeError("Invalid number of supertypes");
    if (supertypes == 1)
      cursor.u32();
    form = cursor.u32();
  }
  if (cursor.failed())
    return Status::success(); // the section's end reports it
  if (form == 0x5f) {         // a struct
    const uint32_t fields = cursor.u32();
    for (uint32_t field = 0; field < fields && !cursor.failed(); ++field)
      skipField();
  } else if (form == 0x5e) { // an array
    skipField();
  } else {
    return makeError("bad form");
  }
  return Status::success();
}

Status WasmModuleReader::parseImports(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "import section", [&](uint32_t) -> Status {
    cursor.string();
    const std::string_view field = cursor.string();
    switch (cursor.byte()) {
    case 0:
      ++importedFunctions_;
      importedFunctionNames_.push_back(field);
      if (cursor.u32() >= typeCount_)
        return failWith(cursor, "invalid function type");
      return Status::success();
    case 1:
      ++importedTables_;
      importedTableNames_.push_back(field);
      return readTableType(cursor);
    case 2:
      readLimits(cursor);
      return Status::success();
    case 3: // a value type's code, not looked at, then mutability
      ++importedGlobals_;
      importedGlobalNames_.push_back(field);
      cursor.byte();
      if (!cursor.mutability())
        return unsupported("a global's mutability is not 0 or 1");
      return Status::success();
    case 4:
      ++importedTags_;
      importedTagNames_.push_back(field);
      if (cursor.byte() != 0)
        return failWith(cursor, "invalid attribute");
      if (cursor.u32() >= typeCount_)
        return failWith(cursor, "invalid tag type");
      return Status::success();
    default:
      return failWith(cursor, "unexpected import kind");
    }
  });
}

Status WasmModuleReader::parseFunctions(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "function section", [&](uint32_t) -> Status {
    if (cursor.u32() >= typeCount_)
      return failWith(cursor, "invalid function type");
    functionExported_.push_back(false);
    functionInComdat_.push_back(false);
    return Status::success();
  });
}

Status WasmModuleReader::parseTables(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "table section", [&](uint32_t) -> Status {
    ++definedTables_;
    return readTableType(cursor);
  });
}

Status WasmModuleReader::parseMemories(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "memory section", [&](uint32_t) -> Status {
    readLimits(cursor);
    return Status::success();
  });
}

Status WasmModuleReader::parseTags(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "tag section", [&](uint32_t) -> Status {
    if (cursor.byte() != 0)
      return failWith(cursor, "invalid attribute");
    if (cursor.u32() >= typeCount_)
      return failWith(cursor, "invalid tag type");
    ++definedTags_;
    return Status::success();
  });
}

Status WasmModuleReader::parseGlobals(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "global section", [&](uint32_t) -> Status {
    skipHeapType(cursor, cursor.u32());
    if (!cursor.mutability())
      return unsupported("a global's mutability is not 0 or 1");
    ++definedGlobals_;
    return readInitExpression(cursor);
  });
}

// A constant expression: first as a single instruction and end, else
// again from its start as a sequence of the instructions LLVM knows up to
// end (extended constants and GC allocations, whose immediates it reads as
// unsigned LEB128 numbers).
Status WasmModuleReader::readInitExpression(Cursor &cursor) {
  const size_t start = cursor.position();
  bool extended = false;
  const uint8_t first = cursor.byte();
  switch (first) {
  case 0x41: // i32.const
    cursor.skipSignedLeb(32);
    break;
  case 0x42: // i64.const
    cursor.skipSignedLeb(64);
    break;
  case 0x43: // f32.const and f64.const
  case 0x44:
    cursor.take(first == 0x43 ? 4 : 8);
    break;
  case 0x23: // global.get
    cursor.u64();
    break;
  case 0xd0: // ref.null and a heap type
    skipHeapType(cursor, cursor.u32());
    break;
  default:
    extended = true;
  }
  if (!extended && cursor.byte() != 0x0b)
    extended = true;
  if (cursor.failed())
    return unsupported("a constant expression is malformed");
  if (!extended)
    return Status::success();
  cursor.rewind(start);
  while (true) {
    const uint8_t opcode = cursor.byte();
    if (cursor.failed())
      return unsupported("a constant expression is malformed");
    switch (opcode) {
    case 0x41: // i32.const, i64.const, global.get, ref.null, ref.func
    case 0x42:
    case 0x23:
    case 0xd0:
    case 0xd2:
    case 0x00: // struct.new, struct.new_default, array.new(_default)
    case 0x01:
    case 0x06:
    case 0x07:
      cursor.u64();
      break;
    case 0x08: // array.new_fixed: a type and a length
      cursor.u64();
      cursor.u64();
      break;
    case 0x43: // f32.const and f64.const
    case 0x44:
      cursor.take(opcode == 0x43 ? 4 : 8);
      break;
    case 0x6a: // i32.add, sub, mul
    case 0x6b:
    case 0x6c:
    case 0x7c: // i64.add, sub, mul
    case 0x7d:
    case 0x7e:
    case 0xfb: // the GC prefix
    case 0x1c: // ref.i31
      break;
    case 0x0b:
      return Status::success();
    default:
      return makeError("invalid opcode in init_expr: " +
                       std::to_string(opcode));
    }
  }
}

Status WasmModuleReader::parseExports(Cursor &cursor) {
  return forEachEntryToEnd(cursor, "export section", [&](uint32_t) -> Status {
    Symbol symbol;
    symbol.name = cursor.string();
    const uint8_t kind = cursor.byte();
    const uint32_t index = cursor.u32();
    if (cursor.failed())
      return cutShort();
    switch (kind) {
    case 0:
      if (!definedFunction(index))
        return makeError("invalid function export");
      functionExported_[index - importedFunctions_] = true;
      symbol.kind = kSymbolFunction;
      break;
    case 3:
      if (!validGlobal(index))
        return makeError("invalid global export");
      symbol.kind = kSymbolData;
      break;
    case 4:
      if (!validTag(index))
        return makeError("invalid tag export");
      symbol.kind = kSymbolTag;
      break;
    case 2: // memories have no symbol
      return Status::success();
    case 1:
      symbol.kind = kSymbolTable;
      break;
    default:
      return makeError("unexpected export kind");
    }
    symbols_.push_back(symbol);
    return Status::success();
  });
}

Status WasmModuleReader::parseElements(Cursor &cursor) {
  constexpr uint32_t kPassive = 0x1, kTableNumber = 0x2, kExpressions = 0x4;
  return forEachEntryToEnd(cursor, "elem section", [&](uint32_t) -> Status {
    const uint32_t flags = cursor.u32();
    if (cursor.failed())
      return cutShort();
    if (flags & ~(kPassive | kTableNumber | kExpressions))
      return makeError("Unsupported flags for element segment");
    const bool passive = flags & kPassive;
    const bool expressions = flags & kExpressions;
    // Flag 2 names a table for an active segment and marks a passive one
    // declarative.
    const uint32_t table =
        (!passive && (flags & kTableNumber)) ? cursor.u32() : 0;
    if (!validTable(table))
      return failWith(cursor, "invalid TableNumber");
    if (!passive)
      if (Status offset = readInitExpression(cursor); !offset.ok())
        return offset;
    if ((flags & (kPassive | kTableNumber)) && !expressions) {
      if (cursor.u32() != 0) // an element kind: functions only
        return failWith(cursor, "invalid elem type");
    } else if (expressions) {
      skipHeapType(cursor, cursor.u32()); // the elements' reference type
    }
    const uint32_t count = cursor.u32();
    for (uint32_t entry = 0; entry < count && !cursor.failed(); ++entry) {
      if (!expressions)
        cursor.u32();
      else if (Status element = readInitExpression(cursor); !element.ok())
        return element;
    }
    return Status::success();
  });
}

Status WasmModuleReader::parseCode(Cursor &cursor) {
  const uint32_t count = cursor.u32();
  if (cursor.failed())
    return cutShort();
  if (count != functionExported_.size())
    return makeError("invalid function count");
  for (uint32_t index = 0; index < count; ++index) {
    const uint32_t size = cursor.u32();
    const uint64_t end = uint64_t(cursor.position()) + size;
    // The locals: groups of a count and a value type's code, read on past
    // the body's end if they say so.
    const uint32_t groups = cursor.u32();
    for (uint32_t group = 0; group < groups && !cursor.failed(); ++group) {
      cursor.u32();
      cursor.byte();
    }
    if (cursor.failed())
      return cutShort();
    if (cursor.position() > end ||
        end > uint64_t(cursor.position()) + cursor.remaining())
      return makeError("Function extends beyond buffer");
    cursor.take(end - cursor.position());
  }
  return requireEnd(cursor, "code section");
}

Status WasmModuleReader::parseData(Cursor &cursor) {
  const size_t start = cursor.position();
  const uint32_t count = cursor.u32();
  if (!cursor.failed() && dataCount_ && *dataCount_ != count)
    return makeError(
        "number of data segments does not match DataCount section");
  cursor.rewind(start);
  return forEachEntryToEnd(cursor, "data section", [&](uint32_t) -> Status {
    const uint32_t flags = cursor.u32();
    if (flags & 0x2) // a memory index
      cursor.u32();
    if (!(flags & 0x1))
      if (Status offset = readInitExpression(cursor); !offset.ok())
        return offset;
    const uint32_t size = cursor.u32();
    if (!cursor.failed() && size > cursor.remaining())
      return makeError("invalid segment size");
    cursor.take(size);
    segmentSizes_.push_back(size);
    segmentInComdat_.push_back(false);
    return Status::success();
  });
}

} // namespace offbundle::wasm
