// XCOFF archive symbols (see the header for the layout and what is taken).
#include "archive/xcoff_archive_symbols.h"

#include <cstdint>
#include <utility>

namespace offbundle {
namespace {

constexpr uint64_t kEntrySize = 18;
constexpr uint8_t kStorageExternal = 2;         // C_EXT
constexpr uint8_t kStorageHiddenExternal = 107; // C_HIDEXT
constexpr uint8_t kStorageWeakExternal = 111;   // C_WEAKEXT
constexpr uint8_t kAuxiliaryCsect = 251;        // AUX_CSECT
constexpr uint8_t kCsectCommon = 3;             // XTY_CM
constexpr int16_t kSectionUndefined = 0;        // N_UNDEF

Error refuse(const std::string &reason) {
  return makeError(
      "archive symbol tables for this XCOFF member are not supported: " +
      reason);
}

class XcoffSymbolReader {
public:
  XcoffSymbolReader(std::string_view bytes, bool is64Bit)
      : bytes_(bytes), is64Bit_(is64Bit) {}

  Status open() {
    const uint64_t headerSize = is64Bit_ ? 24 : 20;
    if (bytes_.size() < headerSize)
      return refuse("its file header is cut short");
    const uint64_t sectionCount = read16(2);
    const uint64_t optionalHeaderSize = read16(16);
    if (is64Bit_) {
      symbolOffset_ = read64(8);
      symbolCount_ = read32(20);
    } else {
      symbolOffset_ = read32(8);
      const uint32_t count = read32(12);
      if (count >= 0x80000000u)
        return refuse("its symbol count is negative");
      symbolCount_ = count;
    }
    const uint64_t sectionHeaders =
        sectionCount * (is64Bit_ ? 72 : 40) + headerSize + optionalHeaderSize;
    if (sectionHeaders > bytes_.size())
      return refuse("its headers extend past the end of the file");
    if (symbolCount_ == 0)
      return Status::success();
    if (symbolOffset_ > bytes_.size() ||
        symbolCount_ * kEntrySize > bytes_.size() - symbolOffset_)
      return refuse("its symbol table extends past the end of the file");
    const uint64_t strings = symbolOffset_ + symbolCount_ * kEntrySize;
    // No room for the size field: no string table, which LLVM allows.
    if (bytes_.size() - strings < 4)
      return Status::success();
    const uint64_t size = read32(strings);
    if (size <= 4)
      return Status::success();
    if (size > bytes_.size() - strings)
      return refuse("its string table extends past the end of the file");
    if (bytes_[strings + size - 1] != '\0')
      return refuse("its string table does not end with a NUL");
    stringTable_ = bytes_.substr(strings, size);
    return Status::success();
  }

  Result<std::vector<std::string>> archiveSymbols() const {
    std::vector<std::string> names;
    uint64_t index = 0;
    while (index < symbolCount_) {
      const uint64_t entry = symbolOffset_ + index * kEntrySize;
      const uint8_t storageClass = byteAt(entry + 16);
      const uint8_t auxiliaryCount = byteAt(entry + 17);
      if (auxiliaryCount > symbolCount_ - index - 1)
        return refuse("the auxiliary entries of symbol " +
                      std::to_string(index) + " extend past the symbol table");
      const bool global = storageClass == kStorageExternal ||
                          storageClass == kStorageWeakExternal;
      if (global || storageClass == kStorageHiddenExternal) {
        // LLVM reads every csect symbol's name and csect entry for its
        // flags, whether or not the symbol is listed.
        Result<std::string> name = symbolName(index, entry);
        if (!name)
          return name.takeError();
        const uint64_t csect = csectEntry(entry, auxiliaryCount);
        if (csect == 0)
          return refuse("symbol " + std::to_string(index) +
                        " has no csect auxiliary entry");
        // An undefined symbol is not listed even when common (XTY_CM):
        // LLVM's flags then say both, and its writer skips undefined ones.
        const bool undefined =
            static_cast<int16_t>(read16(entry + 12)) == kSectionUndefined;
        if (global && !undefined)
          names.push_back(std::move(*name));
      }
      index += 1 + uint64_t{auxiliaryCount};
    }
    return names;
  }

private:
  uint8_t byteAt(uint64_t offset) const {
    return static_cast<uint8_t>(bytes_[offset]);
  }
  uint64_t readBig(uint64_t offset, unsigned width) const {
    uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i)
      value = value << 8 | byteAt(offset + i);
    return value;
  }
  uint16_t read16(uint64_t offset) const {
    return static_cast<uint16_t>(readBig(offset, 2));
  }
  uint32_t read32(uint64_t offset) const {
    return static_cast<uint32_t>(readBig(offset, 4));
  }
  uint64_t read64(uint64_t offset) const { return readBig(offset, 8); }

  // The offset of the symbol's csect auxiliary entry, or 0 if it has none:
  // the last entry in 32-bit files, the last AUX_CSECT one in 64-bit files.
  uint64_t csectEntry(uint64_t entry, uint8_t auxiliaryCount) const {
    for (uint64_t aux = auxiliaryCount; aux > 0; --aux) {
      const uint64_t at = entry + aux * kEntrySize;
      if (!is64Bit_ || byteAt(at + 17) == kAuxiliaryCsect)
        return at;
    }
    return 0;
  }

  Result<std::string> symbolName(uint64_t index, uint64_t entry) const {
    uint32_t offset = 0;
    if (is64Bit_) {
      offset = read32(entry + 8);
    } else if (read32(entry) != 0) {
      const std::string_view field = bytes_.substr(entry, 8);
      return std::string(field.substr(0, field.find('\0')));
    } else {
      offset = read32(entry + 4);
    }
    // LLVM reads offsets into the size field as empty names.
    if (offset < 4)
      return std::string();
    if (offset >= stringTable_.size())
      return refuse("the name of symbol " + std::to_string(index) +
                    " is outside the string table");
    const std::string_view rest = stringTable_.substr(offset);
    return std::string(rest.substr(0, rest.find('\0')));
  }

  std::string_view bytes_;
  bool is64Bit_;
  uint64_t symbolOffset_ = 0;
  uint64_t symbolCount_ = 0;
  std::string_view stringTable_;
};

} // namespace

Result<std::vector<std::string>> xcoffArchiveSymbols(std::string_view bytes) {
  // The caller has seen the magic, so the file has at least 4 bytes.
  const bool is64Bit =
      bytes.size() >= 2 && static_cast<uint8_t>(bytes[1]) == 0xf7;
  XcoffSymbolReader reader(bytes, is64Bit);
  if (Status status = reader.open(); !status.ok())
    return status.takeError();
  return reader.archiveSymbols();
}

} // namespace offbundle
