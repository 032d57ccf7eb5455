// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The reader of WebAssembly modules behind wasm_symbols.h, which
// documents the module layout and the rules the reader follows; internal to
// archive/. Here: the bounds-checked cursor and the reader's state. The
// reader's two files: wasm_module.cpp decodes the module (the section
// order, the walks every section shares, the standard sections) and
// wasm_symbols.cpp reads the custom sections (linking metadata,
// names, relocations, dylink, producers, target features) and lists the
// archive symbols.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"
#include "support/leb128.h"

namespace offbundle::wasm {

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

class SectionOrderChecker {
public:
  // Whether the section may come here; if so it counts as seen.
  bool accept(uint8_t id, std::string_view name);

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

// The error refusing a member that LLVM's reader would stop on or read past.
Error unsupported(const std::string &reason);

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
                    const std::function<Status(uint32_t index)> &entry);

// Where LLVM's reader would stop the program: a read past the end of a
// section, or a number malformed or too wide for its field.
Status cutShort();

// A failure LLVM reports with `message`, unless the cursor ran out first,
// where LLVM's reader would have stopped the program instead.
Status failWith(const Cursor &cursor, const std::string &message);

// The end of a section or subsection: a cursor that ran out is refused,
// one that stopped early fails with LLVM's message.
Status requireEnd(const Cursor &cursor, const std::string &what);

// The same for a whole section, which must end with its last entry.
Status forEachEntryToEnd(Cursor &cursor, const std::string &what,
                         const std::function<Status(uint32_t index)> &entry);

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

} // namespace offbundle::wasm
