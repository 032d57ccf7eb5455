// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// XCOFF archive symbols (see the header for the layout and what is taken).
#include "formats/xcoff/xcoff_symbols.h"

#include "support/byte_order.h"
#include "support/hex.h"

#include <cstdint>
#include <utility>

namespace offbundle {
namespace {

constexpr uint64_t kEntrySize = 18;
constexpr uint8_t kStorageExternal = 2;         // C_EXT
constexpr uint8_t kStorageHiddenExternal = 107; // C_HIDEXT
constexpr uint8_t kStorageWeakExternal = 111;   // C_WEAKEXT
constexpr uint8_t kAuxiliaryCsect = 251;        // AUX_CSECT
constexpr int16_t kSectionUndefined = 0;        // N_UNDEF

// Offsets from here up are negative in LLVM's pointer arithmetic.
constexpr uint64_t kBeforeTheFile = uint64_t{1} << 63;

// LLVM's message for a structure that does not fit in the file.
constexpr const char *kEndOfFile =
    "The end of the file was unexpectedly encountered";

// A member LLVM 22 stops on with a fatal error (its symbol flags fail) is
// refused, the reason quoting LLVM's message.
Error refuse(const std::string &reason) {
  return makeError(
      "archive symbol tables for this XCOFF member are not supported: " +
      reason);
}

class XcoffSymbolReader {
public:
  XcoffSymbolReader(std::string_view bytes, bool is64Bit)
      : bytes_(bytes), is64Bit_(is64Bit) {}

  // Checks the file as XCOFFObjectFile::create() does, failing with its
  // messages.
  Status open() {
    const uint64_t headerSize = is64Bit_ ? 24 : 20;
    if (bytes_.size() < headerSize)
      return makeError(kEndOfFile);
    const uint64_t sectionCount = read16(2);
    const uint64_t optionalHeaderSize = read16(16);
    if (is64Bit_) {
      symbolOffset_ = read64(8);
      symbolCount_ = read32(20);
    } else {
      symbolOffset_ = read32(8);
      // LLVM reads a negative count as no symbol table at all.
      const uint32_t count = read32(12);
      symbolCount_ = count >= 0x80000000u ? 0 : count;
    }
    if (optionalHeaderSize > bytes_.size() - headerSize)
      return makeError(kEndOfFile);
    const uint64_t sectionsOffset = headerSize + optionalHeaderSize;
    const uint64_t sectionsSize = sectionCount * (is64Bit_ ? 72 : 40);
    if (sectionsSize > bytes_.size() - sectionsOffset)
      return makeError(
          std::string(kEndOfFile) + ": section headers with offset 0x" +
          hexDigits(sectionsOffset) + " and size 0x" + hexDigits(sectionsSize) +
          " go past the end of the file");
    if (symbolCount_ == 0)
      return Status::success();
    const uint64_t symbolsSize = symbolCount_ * kEntrySize;
    if (symbolOffset_ > bytes_.size() ||
        symbolsSize > bytes_.size() - symbolOffset_) {
      if (symbolOffset_ >= kBeforeTheFile)
        return symbolTableBeforeTheFile(symbolsSize);
      return makeError(
          std::string(kEndOfFile) + ": symbol table with offset 0x" +
          hexDigits(symbolOffset_) + " and size 0x" + hexDigits(symbolsSize) +
          " goes past the end of the file");
    }
    return readStringTable(symbolOffset_ + symbolsSize);
  }

  Result<std::vector<std::string>> archiveSymbols() const {
    std::vector<std::string> names;
    uint64_t index = 0;
    while (index < symbolCount_) {
      const uint64_t entry = symbolOffset_ + index * kEntrySize;
      const uint8_t storageClass = byteAt(entry + 16);
      const uint8_t auxiliaryCount = byteAt(entry + 17);
      // LLVM would step past the end of the table and read on.
      if (auxiliaryCount > symbolCount_ - index - 1)
        return refuse("the auxiliary entries of symbol " +
                      std::to_string(index) + " extend past the symbol table");
      const bool global = storageClass == kStorageExternal ||
                          storageClass == kStorageWeakExternal;
      if (global || storageClass == kStorageHiddenExternal) {
        // LLVM reads every csect symbol's name and csect entry for its
        // flags, whether or not the symbol is listed.
        Result<std::string> name = symbolName(entry);
        if (!name)
          return name.takeError();
        if (auxiliaryCount == 0)
          return refuse("csect symbol \"" + *name + "\" with index " +
                        std::to_string(index) + " contains no auxiliary entry");
        if (csectEntry(entry, auxiliaryCount) == 0)
          return refuse(
              "a csect auxiliary entry has not been found for symbol \"" +
              *name + "\" with index " + std::to_string(index));
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
  // A 64-bit symbol table offset of 2^63 or more lies before the file in
  // LLVM's pointer arithmetic, and its bounds check (compiled on the
  // assumption that pointers do not wrap) only asks whether the table ends
  // inside the file: such a table passes when its end wraps into the file,
  // LLVM reads the string table there, and then symbols from before the
  // member. Its string table's errors come first; otherwise refused.
  Status symbolTableBeforeTheFile(uint64_t symbolsSize) {
    const uint64_t end = symbolOffset_ + symbolsSize; // wraps modulo 2^64
    if (end < symbolOffset_ && end <= bytes_.size()) {
      if (Status strings = readStringTable(end); !strings.ok())
        return strings;
    }
    return refuse("its symbol table offset 0x" + hexDigits(symbolOffset_) +
                  " lies before the start of the file");
  }

  // Reads the string table at `offset` (just after the symbol table) as
  // XCOFFObjectFile::parseStringTable() does.
  Status readStringTable(uint64_t offset) {
    // No room for the size field: no string table, which LLVM allows.
    if (bytes_.size() - offset < 4)
      return Status::success();
    const uint64_t size = read32(offset);
    // A size up to 4 means a table of no strings, whose names are all
    // outside it (LLVM's message then gives the size as 4).
    stringTableSize_ = 4;
    if (size <= 4)
      return Status::success();
    if (size > bytes_.size() - offset)
      return makeError(std::string(kEndOfFile) +
                       ": string table with offset 0x" + hexDigits(offset) +
                       " and size 0x" + hexDigits(size) +
                       " goes past the end of the file");
    if (bytes_[offset + size - 1] != '\0')
      return makeError("String table must end with a null terminator");
    stringTable_ = bytes_.substr(offset, size);
    stringTableSize_ = size;
    return Status::success();
  }

  uint8_t byteAt(uint64_t offset) const {
    return static_cast<uint8_t>(bytes_[offset]);
  }
  uint64_t readBig(uint64_t offset, unsigned width) const {
    return loadBigEndian(bytes_, offset, width);
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

  Result<std::string> symbolName(uint64_t entry) const {
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
      return refuse("entry with offset 0x" + hexDigits(offset) +
                    " in a string table with size 0x" +
                    hexDigits(stringTableSize_) + " is invalid");
    const std::string_view rest = stringTable_.substr(offset);
    return std::string(rest.substr(0, rest.find('\0')));
  }

  std::string_view bytes_;
  bool is64Bit_;
  uint64_t symbolOffset_ = 0;
  uint64_t symbolCount_ = 0;
  std::string_view stringTable_;
  // The size LLVM records: 0 without a table, 4 for one without strings.
  uint64_t stringTableSize_ = 0;
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
