// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Relocations as the ELF object rewriter holds them (see objcopy_model.h):
// REL and RELA entries (r_info packed as the class and machine want it,
// MIPS64 little-endian included) and CREL, LLVM's compact form: a ULEB128
// header (count * 8 + addend flag + offset shift), then per relocation a
// flags byte and SLEB128 deltas of what changed since the last one.
#include "formats/objcopy/objcopy_model.h"

#include "support/leb128.h"

namespace offbundle::elf_rewrite {

namespace {

// CREL's bytes: single bytes and LEB128 numbers (support/leb128.h), the
// first failed read failing every later one.
class LebReader {
public:
  explicit LebReader(std::string_view bytes) : bytes_(bytes) {}
  bool failed() const { return failed_; }

  uint8_t byte() {
    if (failed_ || position_ >= bytes_.size()) {
      failed_ = true;
      return 0;
    }
    return static_cast<uint8_t>(bytes_[position_++]);
  }
  uint64_t unsignedValue() {
    if (failed_)
      return 0;
    const auto value = readUleb128(bytes_, position_);
    failed_ = !value;
    return value.value_or(0);
  }
  int64_t signedValue() {
    if (failed_)
      return 0;
    const auto value = readSleb128(bytes_, position_);
    failed_ = !value;
    return value.value_or(0);
  }

private:
  std::string_view bytes_;
  size_t position_ = 0;
  bool failed_ = false;
};

void appendUnsignedLeb(std::string &out, uint64_t value) {
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (value != 0)
      byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (value != 0);
}

void appendSignedLeb(std::string &out, int64_t value) {
  bool more;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7; // arithmetic shift
    more = !((value == 0 && (byte & 0x40) == 0) ||
             (value == -1 && (byte & 0x40) != 0));
    if (more)
      byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (more);
}

} // namespace

std::pair<uint32_t, uint32_t>
ElfPlanBuilder::unpackRelocationInfo(uint64_t info) const {
  if (!header_.is64Bit)
    return {static_cast<uint32_t>(info >> 8),
            static_cast<uint32_t>(info & 0xff)};
  if (isMips64Little()) {
    // MIPS64 little-endian stores r_info as a little-endian symbol index
    // followed by four type bytes in big-endian order.
    info = (info << 32) | ((info >> 8) & 0xff000000) |
           ((info >> 24) & 0x00ff0000) | ((info >> 40) & 0x0000ff00) |
           ((info >> 56) & 0x000000ff);
  }
  return {static_cast<uint32_t>(info >> 32),
          static_cast<uint32_t>(info & 0xffffffff)};
}

uint64_t ElfPlanBuilder::packRelocationInfo(uint32_t symbol,
                                            uint32_t type) const {
  if (!header_.is64Bit)
    return static_cast<uint32_t>((symbol << 8) + (type & 0xff));
  uint64_t info = (uint64_t(symbol) << 32) + type;
  if (isMips64Little())
    info = (info >> 32) | ((info & 0xff000000) << 8) |
           ((info & 0x00ff0000) << 24) | ((info & 0x0000ff00) << 40) |
           ((info & 0x000000ff) << 56);
  return info;
}

Result<std::vector<Relocation>>
ElfPlanBuilder::decodeCrel(std::string_view bytes) const {
  // CREL: a ULEB128 header (count * 8 + addend flag + offset shift), then
  // per relocation a flags byte with the start of the offset delta, and
  // SLEB128 deltas of the symbol index, type and addend when they change.
  LebReader reader(bytes);
  const uint64_t header = reader.unsignedValue();
  if (reader.failed())
    return invalidElfObject("malformed CREL header");
  const uint64_t count = header / 8;
  const bool hasAddends = (header & 4) != 0;
  if (!hasAddends)
    return makeError("CREL relocations without addends are not supported");
  const unsigned flagBits = 3;
  const unsigned shift = header % 4;
  if (count > bytes.size())
    return invalidElfObject("CREL section claims " + std::to_string(count) +
                            " relocations in " + std::to_string(bytes.size()) +
                            " bytes");
  const uint64_t wordMask =
      header_.is64Bit ? ~uint64_t(0) : uint64_t(0xffffffff);
  std::vector<Relocation> relocations;
  relocations.reserve(count);
  uint64_t offset = 0, addend = 0;
  uint32_t symbol = 0, type = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t first = reader.byte();
    offset = (offset + (first >> flagBits)) & wordMask;
    if (first >= 0x80)
      offset = (offset + (reader.unsignedValue() << (7 - flagBits)) -
                (0x80 >> flagBits)) &
               wordMask;
    if (first & 1)
      symbol += static_cast<uint32_t>(reader.signedValue());
    if (first & 2)
      type += static_cast<uint32_t>(reader.signedValue());
    if (first & 4)
      addend =
          (addend + static_cast<uint64_t>(reader.signedValue())) & wordMask;
    if (reader.failed())
      return invalidElfObject("malformed CREL relocation " + std::to_string(i));
    Relocation relocation;
    relocation.offset = (offset << shift) & wordMask;
    // llvm-objcopy passes each entry through an Elf_Rela, whose r_info
    // keeps only 24 bits of symbol and 8 of type in ELF32.
    auto [packedSymbol, packedType] = unpackRelocationInfo(
        header_.is64Bit ? (uint64_t(symbol) << 32) + type
                        : static_cast<uint32_t>((symbol << 8) + (type & 0xff)));
    relocation.symbol = packedSymbol;
    relocation.type = packedType;
    // An ELF32 addend is a signed 32-bit value, widened by sign.
    relocation.addend = header_.is64Bit
                            ? addend
                            : static_cast<uint64_t>(static_cast<int64_t>(
                                  static_cast<int32_t>(addend)));
    relocations.push_back(relocation);
  }
  return relocations;
}

Result<std::vector<Relocation>>
ElfPlanBuilder::decodeRelocations(const SectionRecord &section) const {
  if (section.originalType == elf::kTypeCrel)
    return decodeCrel(section.contents);
  const bool withAddend = section.originalType == elf::kTypeRela;
  const size_t entrySize = withAddend ? shape_.relaSize : shape_.relSize;
  if (section.entrySize != entrySize || section.size % entrySize != 0)
    return invalidElfObject("relocation section '" + section.name +
                            "' has a bad entry size or size");
  std::vector<Relocation> relocations(section.size / entrySize);
  for (size_t i = 0; i < relocations.size(); ++i) {
    const char *entry = section.contents.data() + i * entrySize;
    Relocation &relocation = relocations[i];
    relocation.offset = order_.read(entry, shape_.wordSize);
    auto [symbol, type] = unpackRelocationInfo(
        order_.read(entry + shape_.wordSize, shape_.wordSize));
    relocation.symbol = symbol;
    relocation.type = type;
    if (withAddend) {
      uint64_t addend =
          order_.read(entry + 2 * shape_.wordSize, shape_.wordSize);
      relocation.addend = header_.is64Bit
                              ? addend
                              : static_cast<uint64_t>(static_cast<int64_t>(
                                    static_cast<int32_t>(addend)));
    }
  }
  return relocations;
}

std::string
ElfPlanBuilder::encodeCrel(const std::vector<Relocation> &relocations) const {
  const uint64_t wordMask =
      header_.is64Bit ? ~uint64_t(0) : uint64_t(0xffffffff);
  uint64_t offsetBits = 8;
  for (const Relocation &relocation : relocations)
    offsetBits |= relocation.offset & wordMask;
  unsigned shift = 0;
  while (!((offsetBits >> shift) & 1))
    ++shift;
  std::string out;
  appendUnsignedLeb(out, relocations.size() * 8 + 4 + shift);
  uint64_t offset = 0, addend = 0;
  uint32_t symbol = 0, type = 0;
  for (const Relocation &relocation : relocations) {
    const uint64_t newOffset = relocation.offset & wordMask;
    const uint32_t newSymbol =
        relocation.symbol ? symbols_[relocation.symbol].outputIndex : 0;
    const uint64_t newAddend = relocation.addend & wordMask;
    const uint64_t delta = ((newOffset - offset) & wordMask) >> shift;
    offset = newOffset;
    uint8_t flags = static_cast<uint8_t>(
        (delta << 3) + (symbol != newSymbol ? 1 : 0) +
        (type != relocation.type ? 2 : 0) + (addend != newAddend ? 4 : 0));
    if (delta < 0x10) {
      out.push_back(static_cast<char>(flags));
    } else {
      out.push_back(static_cast<char>(flags | 0x80));
      appendUnsignedLeb(out, delta >> 4);
    }
    if (flags & 1) {
      appendSignedLeb(out, static_cast<int32_t>(newSymbol - symbol));
      symbol = newSymbol;
    }
    if (flags & 2) {
      appendSignedLeb(out, static_cast<int32_t>(relocation.type - type));
      type = relocation.type;
    }
    if (flags & 4) {
      uint64_t difference = (newAddend - addend) & wordMask;
      appendSignedLeb(out, header_.is64Bit ? static_cast<int64_t>(difference)
                                           : static_cast<int32_t>(difference));
      addend = newAddend;
    }
  }
  return out;
}

std::string ElfPlanBuilder::encodeRelocations(
    const SectionRecord &section,
    const std::vector<Relocation> &relocations) const {
  if (section.type == elf::kTypeCrel)
    return encodeCrel(relocations);
  const bool withAddend = section.type == elf::kTypeRela;
  const size_t entrySize = withAddend ? shape_.relaSize : shape_.relSize;
  std::string out(relocations.size() * entrySize, '\0');
  for (size_t i = 0; i < relocations.size(); ++i) {
    const Relocation &relocation = relocations[i];
    char *entry = out.data() + i * entrySize;
    uint32_t symbol =
        relocation.symbol ? symbols_[relocation.symbol].outputIndex : 0;
    order_.write(entry, relocation.offset, shape_.wordSize);
    order_.write(entry + shape_.wordSize,
                 packRelocationInfo(symbol, relocation.type), shape_.wordSize);
    if (withAddend)
      order_.write(entry + 2 * shape_.wordSize, relocation.addend,
                   shape_.wordSize);
  }
  return out;
}

} // namespace offbundle::elf_rewrite
