// COFF archive symbols (see the header for the layouts). Deliberately
// separate from formats/coff_object, which finds sections by name: this
// reader must accept and refuse exactly what LLVM's COFFObjectFile does when
// the archive writer lists symbols.
#include "archive/coff_archive_symbols.h"

#include <cstdint>
#include <optional>

namespace offbundle {
namespace {

constexpr uint64_t kFileHeaderSize = 20;
constexpr uint64_t kBigObjectHeaderSize = 56;
constexpr uint64_t kSectionHeaderSize = 40;
constexpr uint64_t kSymbolSize = 18;
constexpr uint64_t kBigObjectSymbolSize = 20;
constexpr uint16_t kMinBigObjectVersion = 2;
constexpr uint16_t kImportHeaderSections = 0xffff;
constexpr uint8_t kClassExternal = 2;
constexpr uint8_t kClassStatic = 3;
constexpr uint8_t kClassFile = 103;
constexpr uint8_t kClassWeakExternal = 105;
constexpr int32_t kSectionUndefined = 0;
constexpr int32_t kSectionAbsolute = -1;
// The largest 16-bit section number that is not a reserved (negative) one.
constexpr uint16_t kMaxSectionNumber16 = 0xfeff;
constexpr uint32_t kWeakSearchAlias = 3;
constexpr uint16_t kMachineArm64EC = 0xa641;
constexpr uint16_t kMachineArm64X = 0xa64e;
constexpr uint16_t kImportTypeData = 1;

// The class ID big objects carry at offset 12.
constexpr std::string_view kBigObjectClassId(
    "\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6\x6a\xa4\xdc\xb8", 16);

// LLVM's object_error messages.
constexpr const char *kUnexpectedEnd =
    "The end of the file was unexpectedly encountered";

uint32_t readLe(std::string_view bytes, uint64_t at, unsigned width) {
  uint32_t value = 0;
  for (unsigned i = width; i-- > 0;)
    value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

bool fits(std::string_view bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

struct SymbolTable {
  uint64_t offset = 0;     // where the first record starts
  uint64_t end = 0;        // where the string table starts
  uint64_t recordSize = 0; // 18, or 20 in big objects
  std::string_view strings;
};

class CoffSymbolReader {
public:
  explicit CoffSymbolReader(std::string_view bytes) : bytes_(bytes) {}

  // COFFObjectFile::initialize() without the PE parts (a member whose
  // magic LLVM calls a COFF object never starts "MZ").
  Status open() {
    if (bytes_.size() < kFileHeaderSize)
      return makeError(kUnexpectedEnd);
    uint64_t sectionCount = readLe(bytes_, 2, 2);
    uint32_t symbolTableOffset = readLe(bytes_, 8, 4);
    uint32_t symbolCount = readLe(bytes_, 12, 4);
    uint64_t position = kFileHeaderSize + readLe(bytes_, 16, 2);
    uint64_t recordSize = kSymbolSize;
    if (isBigObject()) {
      sectionCount = readLe(bytes_, 44, 4);
      symbolTableOffset = readLe(bytes_, 48, 4);
      symbolCount = readLe(bytes_, 52, 4);
      position = kBigObjectHeaderSize;
      recordSize = kBigObjectSymbolSize;
    } else if (sectionCount == kImportHeaderSections) {
      // LLVM stops reading here: no sections, no symbols.
      return Status::success();
    }
    if (!fits(bytes_, position, sectionCount * kSectionHeaderSize))
      return makeError(kUnexpectedEnd);
    // No symbol table offset: no symbols, whatever the count says (LLVM 22
    // no longer calls that an error).
    if (symbolTableOffset == 0)
      return Status::success();
    // Tables that do not fit leave the object without symbols in LLVM.
    symbols_ = findSymbolTable(symbolTableOffset, symbolCount, recordSize);
    return Status::success();
  }

  Result<std::vector<std::string>> archiveSymbols() const {
    std::vector<std::string> names;
    if (!symbols_)
      return names;
    const SymbolTable &table = *symbols_;
    for (uint64_t record = table.offset; record < table.end;) {
      const uint8_t auxiliaryCount =
          static_cast<uint8_t>(bytes_[record + table.recordSize - 1]);
      Result<bool> listed = isArchiveSymbol(record, auxiliaryCount);
      if (!listed)
        return listed.takeError();
      if (*listed) {
        Result<std::string_view> name = symbolName(record);
        if (!name)
          return name.takeError();
        names.emplace_back(*name);
      }
      // LLVM's iteration stops at the string table even when the last
      // record claims auxiliary records past it.
      const uint64_t next =
          record + (1 + uint64_t{auxiliaryCount}) * table.recordSize;
      record = next < table.end ? next : table.end;
    }
    return names;
  }

private:
  bool isBigObject() const {
    return readLe(bytes_, 0, 2) == 0 &&
           readLe(bytes_, 2, 2) == kImportHeaderSections &&
           bytes_.size() >= kBigObjectHeaderSize &&
           readLe(bytes_, 4, 2) >= kMinBigObjectVersion &&
           bytes_.substr(12, kBigObjectClassId.size()) == kBigObjectClassId;
  }

  // COFFObjectFile::initSymbolTablePtr(): nothing when a table does not fit
  // or the string table lacks its final NUL.
  std::optional<SymbolTable> findSymbolTable(uint32_t offset, uint32_t count,
                                             uint64_t recordSize) const {
    const uint64_t tableSize = uint64_t{count} * recordSize;
    if (!fits(bytes_, offset, tableSize))
      return std::nullopt;
    // LLVM keeps the string table's offset in 32 bits.
    const uint32_t stringsOffset = static_cast<uint32_t>(offset + tableSize);
    if (!fits(bytes_, stringsOffset, 4))
      return std::nullopt;
    uint64_t stringsSize = readLe(bytes_, stringsOffset, 4);
    if (!fits(bytes_, stringsOffset, stringsSize))
      return std::nullopt;
    // Some writers put 0 for an empty table; LLVM reads it as 4.
    if (stringsSize < 4)
      stringsSize = 4;
    if (stringsSize > 4 && bytes_[stringsOffset + stringsSize - 1] != '\0')
      return std::nullopt;
    SymbolTable table;
    table.offset = offset;
    table.end = stringsOffset;
    table.recordSize = recordSize;
    table.strings = bytes_.substr(stringsOffset, stringsSize);
    return table;
  }

  int32_t sectionNumber(uint64_t record) const {
    if (symbols_->recordSize == kBigObjectSymbolSize)
      return static_cast<int32_t>(readLe(bytes_, record + 12, 4));
    const uint16_t number =
        static_cast<uint16_t>(readLe(bytes_, record + 12, 2));
    // Above the largest section number the values are the reserved
    // negative ones (-1 absolute, -2 debug).
    return number <= kMaxSectionNumber16 ? number
                                         : static_cast<int16_t>(number);
  }

  // COFFObjectFile::getSymbolFlags() seen through the writer's filter:
  // global, not undefined, not format-specific.
  Result<bool> isArchiveSymbol(uint64_t record, uint8_t auxiliaryCount) const {
    const uint64_t size = symbols_->recordSize;
    const uint8_t storageClass =
        static_cast<uint8_t>(bytes_[record + size - 2]);
    const uint32_t value = readLe(bytes_, record + 8, 4);
    const int32_t section = sectionNumber(record);
    const bool external = storageClass == kClassExternal;
    const bool weakExternal = storageClass == kClassWeakExternal;
    if (!external && !weakExternal)
      return false;
    if (external && section == kSectionUndefined && value == 0)
      return false;
    if (weakExternal && auxiliaryCount != 0) {
      // The characteristics field of the auxiliary record that follows.
      const uint64_t characteristics = record + size + 4;
      if (!fits(bytes_, characteristics, 4))
        return makeError("the auxiliary record of weak external symbol " +
                         std::to_string((record - symbols_->offset) / size) +
                         " runs past the end of the file");
      if (readLe(bytes_, characteristics, 4) != kWeakSearchAlias)
        return false;
    }
    const bool sectionDefinition =
        auxiliaryCount != 0 && ((external && section == kSectionAbsolute) ||
                                storageClass == kClassStatic);
    return !sectionDefinition && storageClass != kClassFile;
  }

  // COFFObjectFile::getSymbolName().
  Result<std::string_view> symbolName(uint64_t record) const {
    std::string_view shortName = bytes_.substr(record, 8);
    if (readLe(bytes_, record, 4) != 0) {
      // Eight characters, or up to the first NUL when the last byte is one
      // (LLVM tests only that byte).
      if (shortName.back() != '\0')
        return shortName;
      return shortName.substr(0, shortName.find('\0'));
    }
    const uint32_t offset = readLe(bytes_, record + 4, 4);
    std::string_view strings = symbols_->strings;
    if (strings.size() <= 4)
      return makeError("string table empty");
    if (offset >= strings.size())
      return makeError(kUnexpectedEnd);
    // The table ends with a NUL (checked when it was found).
    std::string_view rest = strings.substr(offset);
    return rest.substr(0, rest.find('\0'));
  }

  std::string_view bytes_;
  std::optional<SymbolTable> symbols_;
};

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// getArm64ECDemangledFunctionName(): the name without its ARM64EC mangling,
// or nothing when it carries none.
std::optional<std::string> arm64ECDemangledName(std::string_view name) {
  if (startsWith(name, "#"))
    return std::string(name.substr(1));
  if (!startsWith(name, "?"))
    return std::nullopt;
  // MD5-hashed C++ names carry the tag as a suffix.
  constexpr std::string_view kHashedSuffix = "@$$h@";
  if (startsWith(name, "??@") && name.size() >= kHashedSuffix.size() &&
      name.substr(name.size() - kHashedSuffix.size()) == kHashedSuffix)
    return std::string(name.substr(0, name.size() - 4));
  const size_t tag = name.find("$$h");
  if (tag == std::string_view::npos || tag + 3 == name.size())
    return std::nullopt;
  return std::string(name.substr(0, tag)) + std::string(name.substr(tag + 3));
}

} // namespace

Result<std::vector<std::string>>
coffObjectArchiveSymbols(std::string_view bytes) {
  CoffSymbolReader reader(bytes);
  if (Status status = reader.open(); !status.ok())
    return status.takeError();
  return reader.archiveSymbols();
}

Result<std::vector<std::string>>
coffImportArchiveSymbols(std::string_view bytes) {
  constexpr uint64_t kImportHeaderSize = 20;
  if (bytes.size() < kImportHeaderSize)
    return makeError("the import header is truncated");
  std::string_view rest = bytes.substr(kImportHeaderSize);
  const size_t nameEnd = rest.find('\0');
  if (nameEnd == std::string_view::npos)
    return makeError("the import name has no terminating NUL");
  const std::string_view name = rest.substr(0, nameEnd);
  const uint16_t machine = static_cast<uint16_t>(readLe(bytes, 6, 2));
  const bool isData = (readLe(bytes, 18, 2) & 3) == kImportTypeData;
  const bool isArm64EC =
      machine == kMachineArm64EC || machine == kMachineArm64X;

  const std::optional<std::string> demangled =
      isArm64EC ? arm64ECDemangledName(name) : std::nullopt;
  const std::string plain = demangled ? *demangled : std::string(name);
  std::vector<std::string> names{"__imp_" + plain};
  if (isData)
    return names;
  names.push_back(plain);
  if (isArm64EC) {
    names.push_back("__imp_aux_" + plain);
    names.emplace_back(name);
  }
  return names;
}

} // namespace offbundle
