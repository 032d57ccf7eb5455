// Mach-O archive symbols (see the header for the layout and what is taken).
#include "archive/macho_archive_symbols.h"

#include "support/byte_order.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

namespace offbundle {
namespace {

constexpr uint32_t kFileTypeDylib = 6;
constexpr uint32_t kFileTypeDylibStub = 9;
constexpr uint32_t kCommandSegment = 0x1;
constexpr uint32_t kCommandSymtab = 0x2;
constexpr uint32_t kCommandDysymtab = 0xb;
constexpr uint32_t kCommandUuid = 0x1b;
constexpr uint32_t kCommandSegment64 = 0x19;
constexpr uint32_t kCommandVersionMinMacOS = 0x24;
constexpr uint32_t kCommandVersionMinIOS = 0x25;
constexpr uint32_t kCommandDataInCode = 0x29;
constexpr uint32_t kCommandOptimizationHints = 0x2e;
constexpr uint32_t kCommandVersionMinTvOS = 0x2f;
constexpr uint32_t kCommandVersionMinWatchOS = 0x30;
constexpr uint32_t kCommandBuildVersion = 0x32;
constexpr uint32_t kSectionZeroFill = 0x1;
constexpr uint32_t kSectionThreadLocalZeroFill = 0x12;
constexpr uint8_t kTypeStab = 0xe0;
constexpr uint8_t kTypeMask = 0x0e;
constexpr uint8_t kTypeUndefined = 0x0;
constexpr uint8_t kTypeExternal = 0x01;
constexpr uint64_t kRelocationSize = 8;

struct Range {
  uint64_t offset = 0;
  uint64_t size = 0;
  const char *what = "";
};

class MachOSymbolReader {
public:
  MachOSymbolReader(std::string_view bytes, bool is64Bit, bool bigEndian)
      : bytes_(bytes), is64Bit_(is64Bit), bigEndian_(bigEndian) {}

  Status open() {
    const uint64_t headerSize = is64Bit_ ? 32 : 28;
    if (bytes_.size() < headerSize)
      return refuse("its header is cut short");
    fileType_ = read32(12);
    const uint32_t commandCount = read32(16);
    headersEnd_ = headerSize + uint64_t{read32(20)};
    if (headersEnd_ > bytes_.size())
      return refuse("its load commands extend past the end of the file");
    ranges_.push_back({0, headersEnd_, "the headers"});
    uint64_t position = headerSize;
    for (uint32_t index = 0; index < commandCount; ++index) {
      if (position + 8 > headersEnd_)
        return refuse("load command " + std::to_string(index) +
                      " extends past the load commands");
      const uint32_t command = read32(position);
      const uint32_t size = read32(position + 4);
      if (size < 8 || size % (is64Bit_ ? 8 : 4) != 0 ||
          position + size > headersEnd_)
        return refuse("load command " + std::to_string(index) +
                      " has a bad size");
      if (Status status = readCommand(command, position, size); !status.ok())
        return status;
      position += size;
    }
    if (Status status = checkLayout(); !status.ok())
      return status;
    return checkDylibIdentity();
  }

  Result<std::vector<std::string>> archiveSymbols() const {
    std::vector<std::string> names;
    const uint64_t recordSize = is64Bit_ ? 16 : 12;
    for (uint64_t index = 0; index < symbolCount_; ++index) {
      const uint64_t record = symbolOffset_ + index * recordSize;
      const uint8_t type = static_cast<uint8_t>(bytes_[record + 4]);
      const uint64_t value =
          is64Bit_ ? read64(record + 8) : uint64_t{read32(record + 8)};
      if ((type & kTypeStab) != 0 || (type & kTypeExternal) == 0)
        continue;
      if ((type & kTypeMask) == kTypeUndefined && value == 0)
        continue;
      Result<std::string> name = symbolName(index, read32(record));
      if (!name)
        return name.takeError();
      names.push_back(std::move(*name));
    }
    return names;
  }

private:
  uint64_t readBytes(uint64_t offset, unsigned width) const {
    return loadInByteOrder(bytes_, offset, width, bigEndian_);
  }
  uint32_t read32(uint64_t offset) const {
    return static_cast<uint32_t>(readBytes(offset, 4));
  }
  uint64_t read64(uint64_t offset) const { return readBytes(offset, 8); }
  uint64_t readWord(uint64_t offset) const {
    return is64Bit_ ? read64(offset) : read32(offset);
  }

  static Error refuse(const std::string &reason) {
    return makeError("archive symbol tables for this Mach-O member are not "
                     "supported: " +
                     reason);
  }

  // A table in the file: it must fit, and is checked against the others
  // once every command is read.
  // (LLVM checks the offset even of an empty table.)
  Status addTable(uint64_t offset, uint64_t size, const char *what) {
    if (offset > bytes_.size() || size > bytes_.size() - offset)
      return refuse(std::string(what) + " extends past the end of the file");
    if (size != 0)
      ranges_.push_back({offset, size, what});
    return Status::success();
  }

  // Each command kind at most once (the version commands together).
  Status once(uint32_t command) {
    const uint32_t kind = command == kCommandVersionMinMacOS ||
                                  command == kCommandVersionMinIOS ||
                                  command == kCommandVersionMinTvOS ||
                                  command == kCommandVersionMinWatchOS
                              ? kCommandBuildVersion
                              : command;
    if (std::find(seen_.begin(), seen_.end(), kind) != seen_.end())
      return refuse("load command 0x" + hex(command) + " is repeated");
    seen_.push_back(kind);
    return Status::success();
  }

  static std::string hex(uint32_t value) {
    static const char kDigits[] = "0123456789abcdef";
    std::string text;
    do {
      text.insert(text.begin(), kDigits[value & 0xf]);
      value >>= 4;
    } while (value != 0);
    return text;
  }

  Status exactSize(uint32_t command, uint32_t size, uint64_t expected) const {
    if (size != expected)
      return refuse("load command 0x" + hex(command) + " has a bad size");
    return Status::success();
  }

  Status readCommand(uint32_t command, uint64_t at, uint32_t size) {
    switch (command) {
    case kCommandSegment:
    case kCommandSegment64:
      if ((command == kCommandSegment64) != is64Bit_)
        return refuse("it has a segment command of the other word size");
      return readSegment(command, at, size);
    case kCommandSymtab: {
      if (Status status = once(command); !status.ok())
        return status;
      if (Status status = exactSize(command, size, 24); !status.ok())
        return status;
      symbolOffset_ = read32(at + 8);
      symbolCount_ = read32(at + 12);
      const uint64_t strings = read32(at + 16);
      const uint64_t stringsSize = read32(at + 20);
      stringTable_ = strings;
      if (Status status =
              addTable(symbolOffset_, symbolCount_ * (is64Bit_ ? 16 : 12),
                       "the symbol table");
          !status.ok())
        return status;
      return addTable(strings, stringsSize, "the string table");
    }
    case kCommandDysymtab: {
      if (Status status = once(command); !status.ok())
        return status;
      if (Status status = exactSize(command, size, 80); !status.ok())
        return status;
      for (unsigned field = 0; field < 3; ++field)
        symbolRanges_.emplace_back(read32(at + 8 + 8 * field),
                                   read32(at + 12 + 8 * field));
      // Tables objects do not have (offset and count both zero): contents,
      // modules, external references, external and local relocations.
      for (uint64_t table : {32, 40, 48, 64, 72})
        if (read32(at + table) != 0 || read32(at + table + 4) != 0)
          return refuse("its LC_DYSYMTAB has tables an object does not have");
      return addTable(read32(at + 56), uint64_t{read32(at + 60)} * 4,
                      "the indirect symbol table");
    }
    case kCommandUuid:
      if (Status status = once(command); !status.ok())
        return status;
      return exactSize(command, size, 24);
    case kCommandVersionMinMacOS:
    case kCommandVersionMinIOS:
    case kCommandVersionMinTvOS:
    case kCommandVersionMinWatchOS:
      if (Status status = once(command); !status.ok())
        return status;
      return exactSize(command, size, 16);
    case kCommandBuildVersion:
      if (Status status = once(command); !status.ok())
        return status;
      return exactSize(command, size, 24 + uint64_t{read32(at + 20)} * 8);
    case kCommandDataInCode:
    case kCommandOptimizationHints:
      if (Status status = once(command); !status.ok())
        return status;
      if (Status status = exactSize(command, size, 16); !status.ok())
        return status;
      return addTable(read32(at + 8), read32(at + 12),
                      command == kCommandDataInCode ? "the data in code table"
                                                    : "the optimization hints");
    default:
      return refuse("load command 0x" + hex(command) + " is not supported");
    }
  }

  Status readSegment(uint32_t command, uint64_t at, uint32_t size) {
    const uint64_t segmentSize = is64Bit_ ? 72 : 56;
    const uint64_t sectionSize = is64Bit_ ? 80 : 68;
    if (size < segmentSize)
      return refuse("load command 0x" + hex(command) + " has a bad size");
    const uint64_t wordSize = is64Bit_ ? 8 : 4;
    const uint64_t address = readWord(at + 24);
    const uint64_t memorySize = readWord(at + 24 + wordSize);
    const uint64_t fileOffset = readWord(at + 24 + 2 * wordSize);
    const uint64_t fileSize = readWord(at + 24 + 3 * wordSize);
    const uint32_t sectionCount = read32(at + segmentSize - 8);
    if (Status status =
            exactSize(command, size, segmentSize + sectionCount * sectionSize);
        !status.ok())
      return status;
    if (fileOffset > bytes_.size() || fileSize > bytes_.size() - fileOffset)
      return refuse("a segment extends past the end of the file");
    if (memorySize > UINT64_MAX - address)
      return refuse("a segment's addresses wrap around");
    for (uint32_t index = 0; index < sectionCount; ++index) {
      const uint64_t section = at + segmentSize + index * sectionSize;
      const uint64_t sectionAddress = readWord(section + 32);
      const uint64_t sectionBytes = readWord(section + 32 + wordSize);
      const uint64_t fields = section + 32 + 2 * wordSize;
      const uint32_t offset = read32(fields);
      const uint32_t relocations = read32(fields + 8);
      const uint32_t relocationCount = read32(fields + 12);
      // LLVM compares the whole flags word, attributes included.
      const uint32_t flags = read32(fields + 16);
      const uint64_t segmentEnd = address + memorySize;
      if (sectionAddress < address || sectionAddress > segmentEnd ||
          sectionBytes > segmentEnd - sectionAddress)
        return refuse("a section lies outside its segment's addresses");
      const bool zeroFill =
          flags == kSectionZeroFill || flags == kSectionThreadLocalZeroFill;
      if (zeroFill) {
        if (offset != 0)
          return refuse("a zero-fill section has a file offset");
      } else if (sectionBytes != 0) {
        if (offset < fileOffset || sectionBytes > fileSize ||
            offset - fileOffset > fileSize - sectionBytes)
          return refuse("a section lies outside its segment in the file");
        if (Status status = addTable(offset, sectionBytes, "a section");
            !status.ok())
          return status;
      }
      if (Status status =
              addTable(relocations, relocationCount * kRelocationSize,
                       "a section's relocations");
          !status.ok())
        return status;
    }
    return Status::success();
  }

  // Everything at its own place, and LC_DYSYMTAB's ranges in the symbols.
  Status checkLayout() {
    std::sort(
        ranges_.begin(), ranges_.end(),
        [](const Range &a, const Range &b) { return a.offset < b.offset; });
    for (size_t index = 1; index < ranges_.size(); ++index) {
      const Range &before = ranges_[index - 1];
      if (ranges_[index].offset < before.offset + before.size)
        return refuse(std::string(ranges_[index].what) + " overlaps " +
                      before.what);
    }
    for (const auto &[first, count] : symbolRanges_)
      if (uint64_t{first} + count > symbolCount_)
        return refuse("a symbol range of LC_DYSYMTAB extends past the "
                      "symbol table");
    return Status::success();
  }

  // LLVM's last check of the load commands: a dynamic library names itself
  // in LC_ID_DYLIB. This reader takes no such command, so every dylib that
  // reaches here lacks it.
  Status checkDylibIdentity() const {
    if (fileType_ == kFileTypeDylib || fileType_ == kFileTypeDylibStub)
      return makeError("truncated or malformed object (no LC_ID_DYLIB load "
                       "command in dynamic library filetype)");
    return Status::success();
  }

  // MachOObjectFile::getSymbolName(): the name starts in the file, at its
  // offset from the string table.
  Result<std::string> symbolName(uint64_t index, uint32_t nameOffset) const {
    if (nameOffset == 0)
      return std::string();
    const uint64_t start = stringTable_ + nameOffset;
    if (start >= bytes_.size())
      return makeError("truncated or malformed object (bad string index: " +
                       std::to_string(nameOffset) + " for symbol at index " +
                       std::to_string(index) + ")");
    const std::string_view rest = bytes_.substr(start);
    const size_t end = rest.find('\0');
    // LLVM would read on past the member.
    if (end == std::string_view::npos)
      return makeError("the name of Mach-O symbol " + std::to_string(index) +
                       " runs past the end of the file");
    return std::string(rest.substr(0, end));
  }

  std::string_view bytes_;
  bool is64Bit_;
  bool bigEndian_;
  uint32_t fileType_ = 0;
  uint64_t headersEnd_ = 0;
  uint64_t symbolOffset_ = 0;
  uint64_t symbolCount_ = 0;
  uint64_t stringTable_ = 0;
  std::vector<Range> ranges_;
  std::vector<uint32_t> seen_;
  std::vector<std::pair<uint32_t, uint32_t>> symbolRanges_;
};

} // namespace

Result<std::vector<std::string>> machOArchiveSymbols(std::string_view bytes) {
  if (bytes.size() < 4)
    return makeError("archive symbol tables for this Mach-O member are not "
                     "supported: its header is cut short");
  const uint8_t first = static_cast<uint8_t>(bytes[0]);
  const uint8_t last = static_cast<uint8_t>(bytes[3]);
  // "\xfe\xed\xfa\xce/\xcf" is big-endian; "\xce/\xcf\xfa\xed\xfe" little.
  const bool bigEndian = first == 0xfe;
  const bool is64Bit = (bigEndian ? last : first) == 0xcf;
  MachOSymbolReader reader(bytes, is64Bit, bigEndian);
  if (Status status = reader.open(); !status.ok())
    return status.takeError();
  return reader.archiveSymbols();
}

} // namespace offbundle
