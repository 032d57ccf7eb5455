// WebAssembly modules for archive symbol tables (see the header).
#include "archive/wasm_archive_symbols.h"

#include "support/byte_order.h"
#include "support/leb128.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

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
  kStart = 8,
  kElem = 9,
  kCode = 10,
  kData = 11,
  kDataCount = 12,
  kTag = 13,
};

// The places a section may take in a module. A section may not follow any
// section reachable from it through `kMustNotPrecede`; unknown custom
// sections go anywhere.
enum SectionOrder : uint8_t {
  kOrderNone,
  kOrderType,
  kOrderImport,
  kOrderFunction,
  kOrderTable,
  kOrderMemory,
  kOrderTag,
  kOrderGlobal,
  kOrderExport,
  kOrderStart,
  kOrderElem,
  kOrderDataCount,
  kOrderCode,
  kOrderData,
  kOrderDylink,
  kOrderLinking,
  kOrderReloc,
  kOrderName,
  kOrderProducers,
  kOrderTargetFeatures,
  kOrderCount,
};

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

class SectionOrderChecker {
public:
  // Whether the section may come here; if so it counts as seen.
  bool accept(uint8_t id, std::string_view name) {
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

private:
  std::array<bool, kOrderCount> seen_{};
};

enum SymbolKind : uint8_t {
  kSymbolFunction = 0,
  kSymbolData = 1,
  kSymbolGlobal = 2,
  kSymbolSection = 3,
  kSymbolTag = 4,
  kSymbolTable = 5,
};

constexpr uint32_t kBindingMask = 0x3;
constexpr uint32_t kBindingWeak = 0x1;
constexpr uint32_t kBindingLocal = 0x2;
constexpr uint32_t kFlagUndefined = 0x10;
constexpr uint32_t kFlagExplicitName = 0x40;
constexpr uint32_t kFlagAbsolute = 0x200;

Error unsupported(const std::string &reason) {
  return makeError(
      "archive symbol tables for this Wasm member are not supported: " +
      reason);
}

// A bounds-checked reader over one payload. A failed read makes the cursor
// fail for good and returns 0, so callers check failed() once per record.
// Where LLVM's reader would stop the program (a read past the end, a number
// too wide), this cursor fails and the member is refused.
class Cursor {
public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}

  bool failed() const { return failed_; }
  bool atEnd() const { return position_ == bytes_.size(); }
  size_t position() const { return position_; }
  size_t remaining() const { return bytes_.size() - position_; }

  uint8_t byte() {
    if (failed_ || position_ >= bytes_.size())
      return fail();
    return static_cast<uint8_t>(bytes_[position_++]);
  }

  // An unsigned LEB128 whose value fits `bits` bits (32 or 64). As in
  // LLVM, any number of padding bytes may follow, as long as no bit past
  // the 64th is set.
  uint64_t leb(unsigned bits) {
    if (failed_)
      return 0;
    const auto value = readUleb128(bytes_, position_);
    if (!value || (bits < 64 && *value >> bits != 0))
      return fail();
    return *value;
  }
  uint32_t u32() { return static_cast<uint32_t>(leb(32)); }
  uint64_t u64() { return leb(64); }

  // A signed LEB128 whose value fits `bits` bits (32 or 64); padding as
  // for leb(), in the sign's bits.
  int64_t sleb(unsigned bits) {
    if (failed_)
      return 0;
    const auto value = readSleb128(bytes_, position_);
    if (!value || (bits == 32 && (*value < INT32_MIN || *value > INT32_MAX)))
      return static_cast<int64_t>(fail());
    return *value;
  }
  void skipSignedLeb(unsigned bits) { sleb(bits); }

  // A mutability flag: a signed LEB128 of 0 or 1.
  bool mutability() {
    const int64_t value = sleb(64);
    if (value != 0 && value != 1)
      fail();
    return !failed_;
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

  void rewind(size_t position) {
    if (!failed_)
      position_ = position;
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

// Reads a count, then calls `entry` that many times while the cursor holds
// and the entries succeed: the vector walk every section shares.
Status forEachEntry(Cursor &cursor,
                    const std::function<Status(uint32_t index)> &entry) {
  const uint32_t count = cursor.u32();
  for (uint32_t index = 0; index < count && !cursor.failed(); ++index)
    if (Status status = entry(index); !status.ok())
      return status;
  return Status::success();
}

// Where LLVM's reader would stop the program: a read past the end of a
// section, or a number malformed or too wide for its field.
Status cutShort() {
  return unsupported("a section ends inside a record or holds a malformed "
                     "number");
}

// A failure LLVM reports with `message`, unless the cursor ran out first,
// where LLVM's reader would have stopped the program instead.
Status failWith(const Cursor &cursor, const std::string &message) {
  if (cursor.failed())
    return cutShort();
  return makeError(message);
}

// The end of a section or subsection: a cursor that ran out is refused,
// one that stopped early fails with LLVM's message.
Status requireEnd(const Cursor &cursor, const std::string &what) {
  if (cursor.failed())
    return cutShort();
  if (!cursor.atEnd())
    return makeError(what + " ended prematurely");
  return Status::success();
}

// The same for a whole section, which must end with its last entry.
Status forEachEntryToEnd(Cursor &cursor, const std::string &what,
                         const std::function<Status(uint32_t index)> &entry) {
  if (Status status = forEachEntry(cursor, entry); !status.ok())
    return status;
  return requireEnd(cursor, what);
}

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

// What a relocation's index refers to.
enum class RelocationTarget : uint8_t {
  Function,
  Table,
  Type,
  GotEntry, // a global, data or function symbol
  Global,
  Tag,
  Data,
  Section,
};

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

struct Symbol {
  uint8_t kind = 0;
  uint32_t flags = 0;
  std::string_view name;
};

struct Section {
  uint8_t id = 0;
  std::string_view name;
  uint64_t size = 0;
};

// What the module declares, as far as its symbols and the checks LLVM
// makes on reading it refer to it.
class WasmModuleReader {
public:
  Result<std::vector<std::string>> read(std::string_view bytes);

private:
  Status parseSection(uint8_t id, std::string_view name,
                      std::string_view payload);
  Status parseCustom(std::string_view name, Cursor &cursor);
  Status parseType(Cursor &cursor);
  Status parseImports(Cursor &cursor);
  Status parseFunctions(Cursor &cursor);
  Status parseTables(Cursor &cursor);
  Status parseMemories(Cursor &cursor);
  Status parseTags(Cursor &cursor);
  Status parseGlobals(Cursor &cursor);
  Status parseExports(Cursor &cursor);
  Status parseElements(Cursor &cursor);
  Status parseCode(Cursor &cursor);
  Status parseData(Cursor &cursor);
  Status parseDylink(Cursor &cursor);
  Status parseDylink0(Cursor &cursor);
  Status parseNames(Cursor &cursor);
  Status parseLinking(Cursor &cursor);
  Status parseSymbolTable(Cursor &cursor);
  Status parseSymbol(Cursor &cursor, std::set<std::string_view> &names);
  Status parseComdats(Cursor &cursor);
  Status parseRelocations(Cursor &cursor);
  Status parseProducers(Cursor &cursor);
  Status parseTargetFeatures(Cursor &cursor);

  // A value type whose code has been read: a reference type with an
  // explicit heap type (0x63 nullable, 0x64 not) carries it as a signed
  // LEB128. Any other code stands for itself.
  static void skipHeapType(Cursor &cursor, uint64_t code) {
    if (code == 0x63 || code == 0x64)
      cursor.skipSignedLeb(64);
  }
  // Whether a value type code is a number or vector type, which no table
  // may hold; all other codes count as references to LLVM.
  static bool isNumberType(uint64_t code) {
    return code == 0x7f || code == 0x7e || code == 0x7d || code == 0x7c ||
           code == 0x7b;
  }
  // Limits: flags, minimum and, with flag 1, maximum.
  static void readLimits(Cursor &cursor) {
    const uint32_t flags = cursor.u32();
    cursor.u64();
    if (flags & 0x1)
      cursor.u64();
  }
  static Status readTableType(Cursor &cursor) {
    const uint32_t elementType = cursor.u32();
    skipHeapType(cursor, elementType);
    readLimits(cursor);
    if (isNumberType(elementType))
      return failWith(cursor, "invalid table element type");
    return Status::success();
  }
  Status readFunctionOrGcType(Cursor &cursor, uint32_t &count);
  static Status readInitExpression(Cursor &cursor);

  bool validFunction(uint32_t index) const {
    return index < importedFunctions_ + uint64_t(functionExported_.size());
  }
  bool definedFunction(uint32_t index) const {
    return index >= importedFunctions_ && validFunction(index);
  }
  bool validGlobal(uint32_t index) const {
    return index < importedGlobals_ + uint64_t(definedGlobals_);
  }
  bool validTable(uint32_t index) const {
    return index < importedTables_ + uint64_t(definedTables_);
  }
  bool validTag(uint32_t index) const {
    return index < importedTags_ + uint64_t(definedTags_);
  }
  bool relocationTargetFits(RelocationTarget target, uint32_t index) const;
  bool symbolOfKind(uint32_t index, uint8_t kind) const {
    return index < symbols_.size() && symbols_[index].kind == kind;
  }

  uint32_t typeCount_ = 0;
  std::vector<std::string_view> importedFunctionNames_;
  std::vector<std::string_view> importedGlobalNames_;
  std::vector<std::string_view> importedTableNames_;
  std::vector<std::string_view> importedTagNames_;
  uint32_t importedFunctions_ = 0;
  uint32_t importedGlobals_ = 0;
  uint32_t importedTables_ = 0;
  uint32_t importedTags_ = 0;
  // One entry per defined function: whether an export names it.
  std::vector<bool> functionExported_;
  std::vector<bool> functionInComdat_;
  uint32_t definedGlobals_ = 0;
  uint32_t definedTables_ = 0;
  uint32_t definedTags_ = 0;
  std::optional<uint32_t> dataCount_;
  std::vector<uint64_t> segmentSizes_;
  std::vector<bool> segmentInComdat_;
  std::vector<Section> sections_;
  SectionOrderChecker order_;
  bool hasLinking_ = false;
  bool hasDylink_ = false;
  std::vector<Symbol> symbols_;
};

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

} // namespace

Result<std::vector<std::string>> wasmArchiveSymbols(std::string_view bytes) {
  WasmModuleReader reader;
  return reader.read(bytes);
}

} // namespace offbundle
