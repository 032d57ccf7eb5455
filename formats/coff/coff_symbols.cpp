// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// COFF archive symbols (see the header for the layouts). Deliberately
// separate from formats/coff_object, which finds sections by name: this
// reader must accept and refuse exactly what LLVM's COFFObjectFile does when
// the archive writer lists symbols.
#include "formats/coff/coff_symbols.h"

#include "formats/coff/pe_header.h"
#include "support/byte_order.h"
#include "support/byte_range.h"

#include <cstdint>
#include <cstdio>
#include <optional>

namespace offbundle {
namespace {

constexpr uint64_t kFileHeaderSize = 20;
// PE images.
constexpr uint64_t kPe32HeaderSize = 96;
constexpr uint64_t kPe32PlusHeaderSize = 112;
constexpr uint16_t kPe32Magic = 0x10b;
constexpr uint16_t kPe32PlusMagic = 0x20b;
constexpr uint64_t kDataDirectorySize = 8;
constexpr uint32_t kExportTable = 0;
constexpr uint32_t kImportTable = 1;
constexpr uint32_t kBaseRelocationTable = 5;
constexpr uint32_t kDebugDirectory = 6;
constexpr uint32_t kTlsTable = 9;
constexpr uint32_t kLoadConfigTable = 10;
constexpr uint32_t kDelayImportTable = 13;
constexpr uint32_t kDebugDirectoryEntrySize = 28;
constexpr uint32_t kTlsDirectory32Size = 24;
constexpr uint32_t kTlsDirectory64Size = 40;
// In a PE32+ load configuration, the address (u64, with the image base
// added) of the hybrid (CHPE) metadata, which LLVM checks when the
// configuration's size (its first field, a u32) covers it.
constexpr uint32_t kHybridMetadataField = 0xc8;
// The section number (u16) of the dynamic relocation table, which LLVM
// follows when it is covered and not zero. Found, as the CHPE field, by
// setting each field of a configuration in turn before LLVM 22.
constexpr uint32_t kDynamicRelocationSection32 = 0x8c;
constexpr uint32_t kDynamicRelocationSection64 = 0xe4;
// The hybrid metadata (92 bytes) and the tables it points to, each an
// address and an entry count (u32 each) at these offsets.
constexpr uint64_t kHybridMetadataSize = 92;
struct HybridMetadataTable {
  uint32_t addressField;
  uint32_t countField;
  uint32_t entrySize;
  const char *what;
};
constexpr HybridMetadataTable kHybridMetadataTables[] = {
    {4, 8, 8, "CHPE code map"},
    {12, 48, 12, "CHPE entry point ranges"},
    {16, 52, 8, "CHPE redirection metadata"},
};
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

struct SymbolTable {
  uint64_t offset = 0;     // where the first record starts
  uint64_t end = 0;        // where the string table starts
  uint64_t recordSize = 0; // 18, or 20 in big objects
  std::string_view strings;
};

class CoffSymbolReader {
public:
  explicit CoffSymbolReader(std::string_view bytes) : bytes_(bytes) {}

  // COFFObjectFile::initialize().
  Status open() {
    if (bytes_.size() < kFileHeaderSize)
      return makeError(kUnexpectedEnd);
    // A PE image: "MZ", and where the DOS header points "PE\0\0" and the
    // file header (LLVM looks for the stub only in files that can hold a DOS
    // header and the signature).
    uint64_t header = 0;
    const bool isImage =
        bytes_.size() >= kDosHeaderSize + 4 && bytes_.substr(0, 2) == "MZ";
    if (isImage) {
      const std::optional<uint64_t> fileHeader = peFileHeaderOffset(bytes_);
      if (!fileHeader)
        return makeError("incorrect PE magic");
      header = *fileHeader;
    }
    if (!rangeFits(header, kFileHeaderSize, bytes_.size()))
      return makeError(kUnexpectedEnd);
    uint64_t sectionCount = loadLittleEndian(bytes_, header + 2, 2);
    uint32_t symbolTableOffset = loadLittleEndian(bytes_, header + 8, 4);
    uint32_t symbolCount = loadLittleEndian(bytes_, header + 12, 4);
    uint64_t position = header + kFileHeaderSize;
    uint64_t recordSize = kSymbolSize;
    if (!isImage && isBigObject()) {
      sectionCount = loadLittleEndian(bytes_, 44, 4);
      symbolTableOffset = loadLittleEndian(bytes_, 48, 4);
      symbolCount = loadLittleEndian(bytes_, 52, 4);
      position = kBigObjectHeaderSize;
      recordSize = kBigObjectSymbolSize;
    } else if (sectionCount == kImportHeaderSections) {
      // LLVM stops reading here: no sections, no symbols.
      return Status::success();
    } else {
      if (isImage)
        if (Status status = readImageHeader(position); !status.ok())
          return status;
      position += loadLittleEndian(bytes_, header + 16, 2);
    }
    if (!rangeFits(position, sectionCount * kSectionHeaderSize, bytes_.size()))
      return makeError(kUnexpectedEnd);
    sectionTable_ = position;
    sectionCount_ = sectionCount;
    // No symbol table offset: no symbols, whatever the count says (LLVM 22
    // no longer calls that an error).
    if (symbolTableOffset != 0) {
      // Tables that do not fit leave the object without symbols in LLVM.
      symbols_ = findSymbolTable(symbolTableOffset, symbolCount, recordSize);
    }
    return checkDataDirectories();
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
    return loadLittleEndian(bytes_, 0, 2) == 0 &&
           loadLittleEndian(bytes_, 2, 2) == kImportHeaderSections &&
           bytes_.size() >= kBigObjectHeaderSize &&
           loadLittleEndian(bytes_, 4, 2) >= kMinBigObjectVersion &&
           bytes_.substr(12, kBigObjectClassId.size()) == kBigObjectClassId;
  }

  // COFFObjectFile::initSymbolTablePtr(): nothing when a table does not fit
  // or the string table lacks its final NUL.
  std::optional<SymbolTable> findSymbolTable(uint32_t offset, uint32_t count,
                                             uint64_t recordSize) const {
    const uint64_t tableSize = uint64_t{count} * recordSize;
    if (!rangeFits(offset, tableSize, bytes_.size()))
      return std::nullopt;
    // LLVM keeps the string table's offset in 32 bits.
    const uint32_t stringsOffset = static_cast<uint32_t>(offset + tableSize);
    if (!rangeFits(stringsOffset, 4, bytes_.size()))
      return std::nullopt;
    uint64_t stringsSize = loadLittleEndian(bytes_, stringsOffset, 4);
    if (!rangeFits(stringsOffset, stringsSize, bytes_.size()))
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
      return static_cast<int32_t>(loadLittleEndian(bytes_, record + 12, 4));
    const uint16_t number =
        static_cast<uint16_t>(loadLittleEndian(bytes_, record + 12, 2));
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
    const uint32_t value = loadLittleEndian(bytes_, record + 8, 4);
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
      if (!rangeFits(characteristics, 4, bytes_.size()))
        return makeError("the auxiliary record of weak external symbol " +
                         std::to_string((record - symbols_->offset) / size) +
                         " runs past the end of the file");
      if (loadLittleEndian(bytes_, characteristics, 4) != kWeakSearchAlias)
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
    if (loadLittleEndian(bytes_, record, 4) != 0) {
      // Eight characters, or up to the first NUL when the last byte is one
      // (LLVM tests only that byte).
      if (shortName.back() != '\0')
        return shortName;
      return shortName.substr(0, shortName.find('\0'));
    }
    const uint32_t offset = loadLittleEndian(bytes_, record + 4, 4);
    std::string_view strings = symbols_->strings;
    if (strings.size() <= 4)
      return makeError("string table empty");
    if (offset >= strings.size())
      return makeError(kUnexpectedEnd);
    // The table ends with a NUL (checked when it was found).
    std::string_view rest = strings.substr(offset);
    return rest.substr(0, rest.find('\0'));
  }

  // The PE32 or PE32+ optional header that starts at `position`, and the
  // data directories after it.
  Status readImageHeader(uint64_t position) {
    if (!rangeFits(position, kPe32HeaderSize, bytes_.size()))
      return makeError(kUnexpectedEnd);
    const uint16_t magic =
        static_cast<uint16_t>(loadLittleEndian(bytes_, position, 2));
    uint64_t headerSize = 0;
    if (magic == kPe32Magic) {
      headerSize = kPe32HeaderSize;
    } else if (magic == kPe32PlusMagic) {
      // LLVM reads the longer PE32+ header having checked only that a PE32
      // one fits.
      if (!rangeFits(position, kPe32PlusHeaderSize, bytes_.size()))
        return makeError("the PE32+ header of the image is truncated");
      headerSize = kPe32PlusHeaderSize;
      is64BitImage_ = true;
      imageBase_ = loadLittleEndian(bytes_, position + 24, 4) |
                   uint64_t{loadLittleEndian(bytes_, position + 28, 4)} << 32;
    } else {
      return makeError("incorrect PE magic");
    }
    const uint64_t count =
        loadLittleEndian(bytes_, position + headerSize - 4, 4);
    if (!rangeFits(position + headerSize, count * kDataDirectorySize,
                   bytes_.size()))
      return makeError(kUnexpectedEnd);
    dataDirectories_ = position + headerSize;
    dataDirectoryCount_ = count;
    return Status::success();
  }

  // Where COFFObjectFile::getRvaPtr() finds an address: the file offset, or
  // nothing for an address in the part of a section the file leaves out
  // (LLVM calls those stripped and ignores them).
  Result<std::optional<uint64_t>> fileOffsetOf(uint32_t address,
                                               const char *what) const {
    for (uint64_t index = 0; index < sectionCount_; ++index) {
      const uint64_t section = sectionTable_ + index * kSectionHeaderSize;
      const uint32_t virtualSize = loadLittleEndian(bytes_, section + 8, 4);
      const uint32_t start = loadLittleEndian(bytes_, section + 12, 4);
      const uint32_t rawSize = loadLittleEndian(bytes_, section + 16, 4);
      const uint32_t rawOffset = loadLittleEndian(bytes_, section + 20, 4);
      // LLVM computes the end in 32 bits.
      const uint32_t end = start + virtualSize;
      if (start <= address && address < end) {
        if (rawSize < virtualSize && address >= start + rawSize)
          return std::optional<uint64_t>();
        return std::optional<uint64_t>(uint64_t{rawOffset} + (address - start));
      }
    }
    char text[16];
    std::snprintf(text, sizeof(text), "%x", address);
    return makeError("RVA 0x" + std::string(text) + " for " + what +
                     " not found");
  }

  // The table a data directory points to must be in a section and inside
  // the file; the file offset, if it is there.
  Result<std::optional<uint64_t>>
  findDirectoryTable(uint32_t address, uint32_t size, const char *what) const {
    Result<std::optional<uint64_t>> offset = fileOffsetOf(address, what);
    if (!offset)
      return offset.takeError();
    if (*offset && !rangeFits(**offset, size, bytes_.size()))
      return makeError(kUnexpectedEnd);
    return offset;
  }

  // The data directory checks at the end of COFFObjectFile::initialize(),
  // in LLVM's order.
  Status checkDataDirectories() const {
    struct Directory {
      uint32_t index;
      const char *what;
    };
    static constexpr Directory kDirectories[] = {
        {kImportTable, "import table"},
        {kDelayImportTable, "delay import table"},
        {kExportTable, "export table"},
        {kBaseRelocationTable, "base reloc table"},
        {kDebugDirectory, "debug directory"},
        {kTlsTable, "TLS directory"},
        {kLoadConfigTable, "load config table"},
    };
    for (const Directory &directory : kDirectories) {
      if (directory.index >= dataDirectoryCount_)
        continue;
      const uint64_t entry =
          dataDirectories_ + directory.index * kDataDirectorySize;
      const uint32_t address = loadLittleEndian(bytes_, entry, 4);
      const uint32_t size = loadLittleEndian(bytes_, entry + 4, 4);
      if (address == 0)
        continue;
      if (directory.index == kDebugDirectory &&
          size % kDebugDirectoryEntrySize != 0)
        return makeError("debug directory has uneven size");
      if (directory.index == kTlsTable) {
        const uint32_t expected =
            is64BitImage_ ? kTlsDirectory64Size : kTlsDirectory32Size;
        if (size != expected)
          return makeError("TLS Directory size (" + std::to_string(size) +
                           ") is not the expected size (" +
                           std::to_string(expected) + ").");
      }
      Result<std::optional<uint64_t>> table =
          findDirectoryTable(address, size, directory.what);
      if (!table)
        return table.takeError();
      if (directory.index == kLoadConfigTable && *table)
        if (Status status = checkLoadConfig(**table); !status.ok())
          return status;
    }
    return Status::success();
  }

  // LLVM reads the load configuration's own size field, unchecked, and
  // follows the hybrid (CHPE) metadata and dynamic relocation table that
  // the fields it covers name; fields it covers that are zero name none.
  Status checkLoadConfig(uint64_t config) const {
    if (!rangeFits(config, 4, bytes_.size()))
      return makeError("the load configuration of the image is truncated");
    const uint32_t size = loadLittleEndian(bytes_, config, 4);
    if (is64BitImage_) {
      Result<bool> goOn = checkHybridMetadata(config, size);
      if (!goOn)
        return goOn.takeError();
      if (!*goOn)
        return Status::success();
    }
    const uint32_t field = is64BitImage_ ? kDynamicRelocationSection64
                                         : kDynamicRelocationSection32;
    if (size < field + 2)
      return Status::success();
    if (!rangeFits(config + field, 2, bytes_.size()))
      return makeError("the load configuration of the image is truncated");
    if (loadLittleEndian(bytes_, config + field, 2) != 0)
      return makeError("archive symbol tables for PE images whose load "
                       "configuration names a dynamic relocation table are "
                       "not supported");
    return Status::success();
  }

  // The hybrid metadata checks of a PE32+ load configuration: its address
  // and the tables it names must be in sections and in the file. False
  // when LLVM stops checking the configuration there without an error
  // (an address in the part of a section the file leaves out).
  Result<bool> checkHybridMetadata(uint64_t config, uint32_t size) const {
    if (size < kHybridMetadataField + 8)
      return true;
    if (!rangeFits(config + kHybridMetadataField, 8, bytes_.size()))
      return makeError("the load configuration of the image is truncated");
    const uint64_t address =
        loadLittleEndian(bytes_, config + kHybridMetadataField, 4) |
        uint64_t{loadLittleEndian(bytes_, config + kHybridMetadataField + 4, 4)}
            << 32;
    if (address == 0)
      return true;
    // LLVM takes the image base off and keeps 32 bits.
    Result<std::optional<uint64_t>> metadata = fileOffsetOf(
        static_cast<uint32_t>(address - imageBase_), "CHPE metadata");
    if (!metadata)
      return metadata.takeError();
    if (!*metadata)
      return false;
    if (!rangeFits(**metadata, kHybridMetadataSize, bytes_.size()))
      return makeError(kUnexpectedEnd);
    for (const HybridMetadataTable &table : kHybridMetadataTables) {
      const uint32_t count =
          loadLittleEndian(bytes_, **metadata + table.countField, 4);
      if (count == 0)
        continue;
      Result<std::optional<uint64_t>> entries = fileOffsetOf(
          loadLittleEndian(bytes_, **metadata + table.addressField, 4),
          table.what);
      if (!entries)
        return entries.takeError();
      if (!*entries)
        return false;
      if (!rangeFits(**entries, uint64_t{count} * table.entrySize,
                     bytes_.size()))
        return makeError(kUnexpectedEnd);
    }
    return true;
  }

  std::string_view bytes_;
  std::optional<SymbolTable> symbols_;
  uint64_t sectionTable_ = 0;
  uint64_t sectionCount_ = 0;
  uint64_t dataDirectories_ = 0;
  uint64_t dataDirectoryCount_ = 0;
  bool is64BitImage_ = false;
  uint64_t imageBase_ = 0; // of a PE32+ image
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
  const uint16_t machine = static_cast<uint16_t>(loadLittleEndian(bytes, 6, 2));
  const bool isData = (loadLittleEndian(bytes, 18, 2) & 3) == kImportTypeData;
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
