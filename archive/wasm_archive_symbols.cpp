// WebAssembly objects for archive symbol tables (see the header).
#include "archive/wasm_archive_symbols.h"

#include <cstdint>
#include <optional>
#include <set>

namespace offbundle {
namespace {

enum SectionId : uint8_t {
  kCustom = 0,
  kType = 1,
  kImport = 2,
  kFunction = 3,
  kTable = 4,
  kMemory = 5,
  kGlobal = 6,
  kExport = 7,
  kElem = 9,
  kCode = 10,
  kData = 11,
  kDataCount = 12,
};

// The order the standard sections must come in; a lower rank first.
int sectionRank(uint8_t id) {
  switch (id) {
  case kType:
    return 1;
  case kImport:
    return 2;
  case kFunction:
    return 3;
  case kTable:
    return 4;
  case kMemory:
    return 5;
  case kGlobal:
    return 6;
  case kExport:
    return 7;
  case kElem:
    return 8;
  case kDataCount:
    return 9;
  case kCode:
    return 10;
  case kData:
    return 11;
  default:
    return 0;
  }
}

enum SymbolKind : uint8_t {
  kSymbolFunction = 0,
  kSymbolData = 1,
  kSymbolGlobal = 2,
  kSymbolSection = 3,
  kSymbolTable = 5,
};

constexpr uint32_t kBindingMask = 0x3;
constexpr uint32_t kBindingLocal = 0x2;
constexpr uint32_t kFlagUndefined = 0x10;
constexpr uint32_t kFlagExplicitName = 0x40;
// Binding, hidden, undefined, exported, explicit name, no-strip and TLS.
constexpr uint32_t kKnownFlags = 0x1f7;

Error unsupported(const std::string &reason) {
  return makeError(
      "archive symbol tables for this Wasm member are not supported: " +
      reason);
}

// A bounds-checked reader over one payload. A failed read makes the cursor
// fail for good and returns 0, so callers check failed() once per record.
class Cursor {
public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}

  bool failed() const { return failed_; }
  bool atEnd() const { return position_ == bytes_.size(); }
  size_t position() const { return position_; }

  uint8_t byte() {
    if (failed_ || position_ >= bytes_.size())
      return fail();
    return static_cast<uint8_t>(bytes_[position_++]);
  }

  // An unsigned LEB128 of at most `bits` bits, in the fewest bytes that
  // the width allows (LLVM pads to 5 bytes for relocatable fields).
  uint64_t leb(unsigned bits) {
    uint64_t value = 0;
    const unsigned maxBytes = (bits + 6) / 7;
    for (unsigned index = 0; index < maxBytes; ++index) {
      const uint8_t next = byte();
      if (failed_)
        return 0;
      const unsigned shift = 7 * index;
      const uint64_t payload = next & 0x7f;
      if (shift + 7 > bits && (payload >> (bits - shift)) != 0)
        return fail();
      value |= payload << shift;
      if ((next & 0x80) == 0)
        return value;
    }
    return fail();
  }
  uint32_t u32() { return static_cast<uint32_t>(leb(32)); }
  uint64_t u64() { return leb(64); }

  // A signed LEB128 of at most `bits` bits; only the encoding is checked.
  void skipSignedLeb(unsigned bits) {
    const unsigned maxBytes = (bits + 6) / 7;
    for (unsigned index = 0; index < maxBytes; ++index) {
      const uint8_t next = byte();
      if (failed_ || (next & 0x80) == 0)
        return;
    }
    fail();
  }

  std::string_view string() {
    const uint32_t size = u32();
    return take(size);
  }

  std::string_view take(uint64_t size) {
    if (failed_ || size > bytes_.size() - position_) {
      fail();
      return {};
    }
    std::string_view taken = bytes_.substr(position_, size);
    position_ += size;
    return taken;
  }

private:
  uint8_t fail() {
    failed_ = true;
    return 0;
  }

  std::string_view bytes_;
  size_t position_ = 0;
  bool failed_ = false;
};

struct LinkingSymbol {
  uint8_t kind = 0;
  uint32_t flags = 0;
  std::string_view name;
};

// What the standard sections declare, as far as the linking and relocation
// sections refer to it.
class WasmObjectReader {
public:
  Result<std::vector<std::string>> read(std::string_view bytes);

private:
  Status parseSection(uint8_t id, std::string_view name,
                      std::string_view payload);
  Status parseStandard(uint8_t id, Cursor &cursor);
  Status parseImports(Cursor &cursor);
  Status parseCode(Cursor &cursor);
  Status parseData(Cursor &cursor);
  Status parseLinking(Cursor &cursor);
  Status parseSymbolTable(Cursor &cursor);
  Status parseRelocations(Cursor &cursor);
  Status parseProducers(Cursor &cursor);
  Status parseTargetFeatures(Cursor &cursor);

  bool readValueType(Cursor &cursor) {
    const uint8_t type = cursor.byte();
    return type == 0x7f || type == 0x7e || type == 0x7d || type == 0x7c ||
           type == 0x7b || type == 0x70 || type == 0x6f;
  }
  // Limits without the shared or custom page size flags.
  bool readLimits(Cursor &cursor) {
    const uint32_t flags = cursor.u32();
    if (flags & ~uint32_t(0x5))
      return false;
    cursor.u64();
    if (flags & 0x1)
      cursor.u64();
    return !cursor.failed();
  }
  // A constant or a global.get of an imported global, then end.
  bool readInitExpression(Cursor &cursor) {
    switch (cursor.byte()) {
    case 0x41: // i32.const
      cursor.skipSignedLeb(32);
      break;
    case 0x42: // i64.const
      cursor.skipSignedLeb(64);
      break;
    default:
      return false;
    }
    return cursor.byte() == 0x0b && !cursor.failed();
  }

  uint32_t typeCount_ = 0;
  uint32_t importedFunctions_ = 0;
  uint32_t importedGlobals_ = 0;
  uint32_t importedTables_ = 0;
  uint32_t definedFunctions_ = 0;
  uint32_t definedGlobals_ = 0;
  uint32_t definedTables_ = 0;
  std::optional<uint32_t> dataCount_;
  std::vector<uint64_t> segmentSizes_;
  bool seenCode_ = false;
  // Sizes of the sections read so far, by index, with their ids.
  std::vector<std::pair<uint8_t, uint64_t>> sections_;
  int lastRank_ = 0;
  bool seenCustom_ = false;
  bool seenLinking_ = false;
  bool seenProducers_ = false;
  bool seenTargetFeatures_ = false;
  std::vector<LinkingSymbol> symbols_;
};

Result<std::vector<std::string>>
WasmObjectReader::read(std::string_view bytes) {
  if (bytes.size() < 8)
    return makeError("missing version number");
  const uint32_t version = static_cast<uint8_t>(bytes[4]) |
                           static_cast<uint8_t>(bytes[5]) << 8 |
                           static_cast<uint8_t>(bytes[6]) << 16 |
                           uint32_t(static_cast<uint8_t>(bytes[7])) << 24;
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
    if (Status status = parseSection(id, name, payload); !status.ok())
      return status.takeError();
    sections_.emplace_back(id, payload.size());
  }
  if (!seenLinking_)
    return unsupported("it has no linking section");
  if (definedFunctions_ != 0 && !seenCode_)
    return unsupported("it has functions but no code section");
  std::vector<std::string> names;
  for (const LinkingSymbol &symbol : symbols_)
    if ((symbol.flags & kBindingMask) != kBindingLocal &&
        !(symbol.flags & kFlagUndefined))
      names.emplace_back(symbol.name);
  return names;
}

Status WasmObjectReader::parseSection(uint8_t id, std::string_view name,
                                      std::string_view payload) {
  Cursor cursor(payload);
  Status status = Status::success();
  if (id != kCustom) {
    const int rank = sectionRank(id);
    if (rank == 0)
      return unsupported("it has a section of type " + std::to_string(id));
    if (rank <= lastRank_ || seenCustom_)
      return unsupported("its sections are out of order");
    lastRank_ = rank;
    status = parseStandard(id, cursor);
  } else {
    seenCustom_ = true;
    if (name == "linking" && !seenLinking_) {
      status = parseLinking(cursor);
      seenLinking_ = true;
    } else if (name.substr(0, 6) == "reloc." && seenLinking_) {
      status = parseRelocations(cursor);
    } else if (name == "producers" && !seenProducers_) {
      status = parseProducers(cursor);
      seenProducers_ = true;
    } else if (name == "target_features" && !seenTargetFeatures_) {
      status = parseTargetFeatures(cursor);
      seenTargetFeatures_ = true;
    } else {
      return unsupported("it has a custom section \"" + std::string(name) +
                         "\" here");
    }
  }
  if (!status.ok())
    return status;
  if (cursor.failed() || !cursor.atEnd())
    return unsupported("a section's contents are malformed");
  return Status::success();
}

Status WasmObjectReader::parseStandard(uint8_t id, Cursor &cursor) {
  switch (id) {
  case kType: {
    typeCount_ = cursor.u32();
    for (uint32_t index = 0; index < typeCount_ && !cursor.failed(); ++index) {
      if (cursor.byte() != 0x60)
        return unsupported("a type is not a function type");
      for (int list = 0; list < 2; ++list) {
        const uint32_t count = cursor.u32();
        for (uint32_t value = 0; value < count && !cursor.failed(); ++value)
          if (!readValueType(cursor))
            return unsupported("a type has an unknown value type");
      }
    }
    return Status::success();
  }
  case kImport:
    return parseImports(cursor);
  case kFunction: {
    definedFunctions_ = cursor.u32();
    for (uint32_t index = 0; index < definedFunctions_ && !cursor.failed();
         ++index)
      if (cursor.u32() >= typeCount_)
        return unsupported("a function's type index is out of range");
    return Status::success();
  }
  case kTable: {
    definedTables_ = cursor.u32();
    for (uint32_t index = 0; index < definedTables_ && !cursor.failed();
         ++index)
      if (cursor.byte() != 0x70 || !readLimits(cursor))
        return unsupported("a table is malformed");
    return Status::success();
  }
  case kMemory: {
    const uint32_t count = cursor.u32();
    for (uint32_t index = 0; index < count && !cursor.failed(); ++index)
      if (!readLimits(cursor))
        return unsupported("a memory is malformed");
    return Status::success();
  }
  case kGlobal: {
    definedGlobals_ = cursor.u32();
    for (uint32_t index = 0; index < definedGlobals_ && !cursor.failed();
         ++index)
      if (!readValueType(cursor) || cursor.byte() > 1 ||
          !readInitExpression(cursor))
        return unsupported("a global is malformed");
    return Status::success();
  }
  case kExport: {
    const uint32_t count = cursor.u32();
    std::set<std::string_view> exportNames;
    for (uint32_t index = 0; index < count && !cursor.failed(); ++index) {
      const std::string_view name = cursor.string();
      const uint8_t kind = cursor.byte();
      const uint32_t item = cursor.u32();
      const bool inRange =
          (kind == 0 && item < importedFunctions_ + definedFunctions_) ||
          (kind == 3 && item < importedGlobals_ + definedGlobals_);
      if (cursor.failed() || !inRange || !exportNames.insert(name).second)
        return unsupported("an export is malformed");
    }
    return Status::success();
  }
  case kElem: {
    const uint32_t count = cursor.u32();
    for (uint32_t index = 0; index < count && !cursor.failed(); ++index) {
      if (cursor.u32() != 0 || !readInitExpression(cursor))
        return unsupported("an element segment is not an active one");
      const uint32_t functions = cursor.u32();
      for (uint32_t entry = 0; entry < functions && !cursor.failed(); ++entry)
        if (cursor.u32() >= importedFunctions_ + definedFunctions_)
          return unsupported("an element's function index is out of range");
    }
    if (importedTables_ + definedTables_ == 0 && count != 0)
      return unsupported("an element segment has no table");
    return Status::success();
  }
  case kDataCount:
    dataCount_ = cursor.u32();
    return Status::success();
  case kCode:
    return parseCode(cursor);
  default:
    return parseData(cursor);
  }
}

Status WasmObjectReader::parseImports(Cursor &cursor) {
  const uint32_t count = cursor.u32();
  for (uint32_t index = 0; index < count && !cursor.failed(); ++index) {
    cursor.string();
    cursor.string();
    bool valid = false;
    switch (cursor.byte()) {
    case 0:
      valid = cursor.u32() < typeCount_;
      ++importedFunctions_;
      break;
    case 1:
      valid = cursor.byte() == 0x70 && readLimits(cursor);
      ++importedTables_;
      break;
    case 2:
      valid = readLimits(cursor);
      break;
    case 3:
      valid = readValueType(cursor) && cursor.byte() <= 1;
      ++importedGlobals_;
      break;
    default:
      break;
    }
    if (!valid || cursor.failed())
      return unsupported("an import is malformed");
  }
  return Status::success();
}

Status WasmObjectReader::parseCode(Cursor &cursor) {
  const uint32_t count = cursor.u32();
  if (cursor.failed() || count != definedFunctions_)
    return unsupported("the code section does not match the functions");
  seenCode_ = true;
  for (uint32_t index = 0; index < count; ++index) {
    Cursor body(cursor.take(cursor.u32()));
    if (cursor.failed())
      return unsupported("a function body is malformed");
    const uint32_t groups = body.u32();
    for (uint32_t group = 0; group < groups && !body.failed(); ++group) {
      body.u32();
      if (!readValueType(body))
        return unsupported("a function's locals are malformed");
    }
    // The instructions need an end opcode at least.
    if (body.failed() || body.atEnd())
      return unsupported("a function body is malformed");
  }
  return Status::success();
}

Status WasmObjectReader::parseData(Cursor &cursor) {
  const uint32_t count = cursor.u32();
  if (cursor.failed() || (dataCount_ && *dataCount_ != count))
    return unsupported("the data section does not match the data count");
  for (uint32_t index = 0; index < count; ++index) {
    const uint32_t flags = cursor.u32();
    if (flags > 1 || (flags == 0 && !readInitExpression(cursor)))
      return unsupported("a data segment is not a plain one");
    segmentSizes_.push_back(cursor.string().size());
    if (cursor.failed())
      return unsupported("a data segment is malformed");
  }
  return Status::success();
}

Status WasmObjectReader::parseLinking(Cursor &cursor) {
  if (cursor.u32() != 2)
    return unsupported("the linking section's version is not 2");
  std::set<uint8_t> seenSubsections;
  while (!cursor.atEnd() && !cursor.failed()) {
    const uint8_t id = cursor.byte();
    Cursor subsection(cursor.take(cursor.u32()));
    if (cursor.failed() || !seenSubsections.insert(id).second)
      return unsupported("the linking section is malformed");
    Status status = Status::success();
    if (id == 8) {
      status = parseSymbolTable(subsection);
    } else if (id == 5) { // segment names, alignments and flags
      const uint32_t count = subsection.u32();
      if (count > segmentSizes_.size())
        return unsupported("it names more segments than it has");
      for (uint32_t index = 0; index < count && !subsection.failed(); ++index) {
        subsection.string();
        if (subsection.u32() > 31 || subsection.u32() > 0x3)
          return unsupported("a segment's alignment or flags are unknown");
      }
    } else if (id == 6) { // init functions, after the symbol table
      const uint32_t count = subsection.u32();
      for (uint32_t index = 0; index < count && !subsection.failed(); ++index) {
        subsection.u32();
        const uint32_t symbol = subsection.u32();
        if (symbol >= symbols_.size() ||
            symbols_[symbol].kind != kSymbolFunction)
          return unsupported("an init function is not a function symbol");
      }
    } else {
      return unsupported("the linking section has a subsection of type " +
                         std::to_string(id));
    }
    if (!status.ok())
      return status;
    if (subsection.failed() || !subsection.atEnd())
      return unsupported("a linking subsection is malformed");
  }
  return Status::success();
}

Status WasmObjectReader::parseSymbolTable(Cursor &cursor) {
  const uint32_t count = cursor.u32();
  std::set<std::string_view> globalNames;
  for (uint32_t index = 0; index < count && !cursor.failed(); ++index) {
    LinkingSymbol symbol;
    symbol.kind = cursor.byte();
    symbol.flags = cursor.u32();
    const bool undefined = symbol.flags & kFlagUndefined;
    const bool local = (symbol.flags & kBindingMask) == kBindingLocal;
    if ((symbol.flags & ~kKnownFlags) || (symbol.flags & kBindingMask) == 3)
      return unsupported("a symbol has unknown flags");
    bool valid = true;
    switch (symbol.kind) {
    case kSymbolFunction:
    case kSymbolGlobal:
    case kSymbolTable: {
      const uint32_t item = cursor.u32();
      const uint32_t imported =
          symbol.kind == kSymbolFunction ? importedFunctions_
          : symbol.kind == kSymbolGlobal ? importedGlobals_
                                         : importedTables_;
      const uint32_t defined = symbol.kind == kSymbolFunction
                                   ? definedFunctions_
                               : symbol.kind == kSymbolGlobal ? definedGlobals_
                                                              : definedTables_;
      valid = undefined ? item < imported
                        : item >= imported && item - imported < defined;
      if (!undefined || (symbol.flags & kFlagExplicitName))
        symbol.name = cursor.string();
      break;
    }
    case kSymbolData:
      symbol.name = cursor.string();
      if (!undefined) {
        const uint32_t segment = cursor.u32();
        const uint64_t offset = cursor.u64();
        const uint64_t size = cursor.u64();
        valid = segment < segmentSizes_.size() &&
                offset <= segmentSizes_[segment] &&
                size <= segmentSizes_[segment] - offset;
      }
      break;
    case kSymbolSection:
      valid = local && !undefined && cursor.u32() < sections_.size();
      break;
    default:
      return unsupported("a symbol has kind " + std::to_string(symbol.kind));
    }
    if (!valid || cursor.failed())
      return unsupported("a symbol is malformed");
    if (symbol.kind != kSymbolSection && symbol.name.empty() &&
        (!undefined || (symbol.flags & kFlagExplicitName)))
      return unsupported("a symbol has an empty name");
    if (!local && !symbol.name.empty() &&
        !globalNames.insert(symbol.name).second)
      return unsupported("two symbols share a name");
    symbols_.push_back(symbol);
  }
  return Status::success();
}

Status WasmObjectReader::parseRelocations(Cursor &cursor) {
  const uint32_t target = cursor.u32();
  if (cursor.failed() || target >= sections_.size() ||
      (sections_[target].first != kCode && sections_[target].first != kData))
    return unsupported("a relocation section has an unknown target");
  const uint64_t targetSize = sections_[target].second;
  const uint32_t count = cursor.u32();
  uint64_t previousEnd = 0;
  for (uint32_t index = 0; index < count && !cursor.failed(); ++index) {
    const uint8_t type = cursor.byte();
    const uint32_t offset = cursor.u32();
    const uint32_t symbolIndex = cursor.u32();
    // The kind of symbol each relocation type needs, its field's width and
    // whether an addend follows.
    int kind = -1;
    uint64_t width = 5;
    bool addend = false;
    switch (type) {
    case 0: // function index LEB
      kind = kSymbolFunction;
      break;
    case 1:  // table index SLEB
    case 12: // table index relative SLEB
      kind = kSymbolFunction;
      break;
    case 2:  // table index I32
    case 26: // function index I32
      kind = kSymbolFunction;
      width = 4;
      break;
    case 3: // memory address LEB, SLEB, relative SLEB, TLS SLEB
    case 4:
    case 11:
    case 21:
      kind = kSymbolData;
      addend = true;
      break;
    case 5: // memory address I32
      kind = kSymbolData;
      width = 4;
      addend = true;
      break;
    case 14: // the same for 64-bit memories
    case 15:
    case 17:
    case 25:
      kind = kSymbolData;
      width = 10;
      addend = true;
      break;
    case 16:
      kind = kSymbolData;
      width = 8;
      addend = true;
      break;
    case 18: // table index SLEB64 and relative SLEB64
    case 24:
      kind = kSymbolFunction;
      width = 10;
      break;
    case 19: // table index I64
      kind = kSymbolFunction;
      width = 8;
      break;
    case 7: // global index LEB
      kind = kSymbolGlobal;
      break;
    case 20: // table number LEB
      kind = kSymbolTable;
      break;
    case 6: // type index LEB: an index into the type section
      if (symbolIndex >= typeCount_)
        return unsupported("a relocation's type index is out of range");
      break;
    default:
      return unsupported("a relocation has type " + std::to_string(type));
    }
    if (addend)
      cursor.skipSignedLeb(addend && width >= 8 ? 64 : 32);
    if (cursor.failed())
      break;
    if (kind >= 0 &&
        (symbolIndex >= symbols_.size() || symbols_[symbolIndex].kind != kind))
      return unsupported("a relocation's symbol does not fit its type");
    if (offset < previousEnd || width > targetSize ||
        offset > targetSize - width)
      return unsupported("a relocation's offset is out of order or range");
    previousEnd = offset + width;
  }
  return Status::success();
}

Status WasmObjectReader::parseProducers(Cursor &cursor) {
  const uint32_t fields = cursor.u32();
  std::set<std::string_view> fieldNames;
  for (uint32_t index = 0; index < fields && !cursor.failed(); ++index) {
    const std::string_view field = cursor.string();
    if ((field != "language" && field != "processed-by" && field != "sdk") ||
        !fieldNames.insert(field).second)
      return unsupported("the producers section has an unknown field");
    const uint32_t values = cursor.u32();
    std::set<std::string_view> valueNames;
    for (uint32_t value = 0; value < values && !cursor.failed(); ++value) {
      const std::string_view name = cursor.string();
      cursor.string();
      if (!cursor.failed() && !valueNames.insert(name).second)
        return unsupported("the producers section repeats a value");
    }
  }
  return Status::success();
}

Status WasmObjectReader::parseTargetFeatures(Cursor &cursor) {
  const uint32_t count = cursor.u32();
  std::set<std::string_view> features;
  for (uint32_t index = 0; index < count && !cursor.failed(); ++index) {
    const uint8_t prefix = cursor.byte();
    const std::string_view feature = cursor.string();
    if (cursor.failed())
      break;
    if ((prefix != '+' && prefix != '-' && prefix != '=') ||
        !features.insert(feature).second)
      return unsupported("the target features section is malformed");
  }
  return Status::success();
}

} // namespace

Result<std::vector<std::string>> wasmArchiveSymbols(std::string_view bytes) {
  WasmObjectReader reader;
  return reader.read(bytes);
}

} // namespace offbundle
