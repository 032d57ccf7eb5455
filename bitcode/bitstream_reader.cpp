// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LLVM's bitstream container, read as LLVM's BitstreamCursor reads it (see
// bitstream_reader.h): words are loaded 64 bits at a time, little-endian, and
// most error messages are LLVM's own.

#include "bitcode/bitstream_reader.h"

#include "support/byte_order.h"
#include "support/byte_range.h"

#include <string>

namespace offbundle::bitcode {

std::optional<std::string_view> unwrapBitcode(std::string_view input) {
  constexpr size_t kOffsetField = 8;
  constexpr size_t kSizeField = 12;
  if (input.substr(0, 4) != "\xDE\xC0\x17\x0B")
    return input;
  if (input.size() < kSizeField + 4)
    return std::nullopt;
  const uint64_t offset = loadLittle32(input, kOffsetField);
  const uint64_t size = loadLittle32(input, kSizeField);
  if (!rangeFits(offset, size, input.size()))
    return std::nullopt;
  return input.substr(offset, size);
}

namespace {

constexpr unsigned kWordBits = 64;
// Widest fixed field or VBR chunk an abbreviation may declare, and widest
// abbreviation ID a block may use (LLVM's MaxChunkSize).
constexpr unsigned kMaxChunkWidth = 32;
// Widths of the fields of the bitstream's own framing.
constexpr unsigned kBlockIdWidth = 8;
constexpr unsigned kCodeLengthWidth = 4;
constexpr unsigned kBlockSizeWidth = 32;
constexpr unsigned kAbbrevOperandCountWidth = 5;
constexpr unsigned kAbbrevLiteralWidth = 8;
constexpr unsigned kAbbrevEncodingWidth = 3;
constexpr unsigned kAbbrevEncodingDataWidth = 5;
constexpr unsigned kUnabbreviatedFieldWidth = 6;
// LLVM accepts any number of abbreviations; real files define a few dozen
// per block and none at the top level. Past this many operands in all open
// scopes the input is refused, so hostile input cannot make us hold many
// times its own size.
constexpr size_t kMaxAbbreviationOperands = size_t(1) << 20;

uint64_t lowBits(uint64_t value, unsigned count) {
  return count >= kWordBits ? value : value & ((uint64_t(1) << count) - 1);
}

uint64_t shiftedDown(uint64_t value, unsigned count) {
  return count >= kWordBits ? 0 : value >> count;
}

char decodeChar6(uint64_t value) {
  if (value < 26)
    return char('a' + value);
  if (value < 52)
    return char('A' + (value - 26));
  if (value < 62)
    return char('0' + (value - 52));
  return value == 62 ? '.' : '_';
}

bool isScalar(AbbrevOperand::Kind kind) {
  return kind == AbbrevOperand::Kind::Fixed ||
         kind == AbbrevOperand::Kind::Vbr || kind == AbbrevOperand::Kind::Char6;
}

} // namespace

Status BitstreamCursor::fillWord() {
  if (nextByte_ >= bytes_.size())
    return makeError("Unexpected end of file reading " +
                     std::to_string(nextByte_) + " of " +
                     std::to_string(bytes_.size()) + " bytes");
  // Whole words are loaded little-endian; the last one may be short.
  size_t available = bytes_.size() - size_t(nextByte_);
  unsigned loaded = available >= 8 ? 8 : unsigned(available);
  currentWord_ = 0;
  for (unsigned index = 0; index != loaded; ++index)
    currentWord_ |= uint64_t(uint8_t(bytes_[size_t(nextByte_) + index]))
                    << (index * 8);
  nextByte_ += loaded;
  bitsInWord_ = loaded * 8;
  return Status::success();
}

Result<uint64_t> BitstreamCursor::readFixed(unsigned width) {
  if (width == 0 || width > kWordBits)
    return makeError("invalid bit field width " + std::to_string(width));
  if (bitsInWord_ >= width) {
    uint64_t value = lowBits(currentWord_, width);
    currentWord_ = shiftedDown(currentWord_, width);
    bitsInWord_ -= width;
    return value;
  }
  // The field straddles two words: take what is left of this one, then the
  // rest from the next.
  uint64_t value = bitsInWord_ ? currentWord_ : 0;
  unsigned bitsTaken = bitsInWord_;
  unsigned bitsLeft = width - bitsTaken;
  if (Status status = fillWord(); !status.ok())
    return status.takeError();
  if (bitsLeft > bitsInWord_)
    return makeError("Unexpected end of file reading " +
                     std::to_string(bitsInWord_) + " of " +
                     std::to_string(bitsLeft) + " bits");
  uint64_t upper = lowBits(currentWord_, bitsLeft);
  currentWord_ = shiftedDown(currentWord_, bitsLeft);
  bitsInWord_ -= bitsLeft;
  return value | (upper << bitsTaken);
}

template <typename Value>
Result<Value> BitstreamCursor::readVbr(unsigned chunkWidth) {
  if (chunkWidth == 0 || chunkWidth > kMaxChunkWidth)
    return makeError("invalid VBR chunk width " + std::to_string(chunkWidth));
  const uint32_t continuation = uint32_t(1) << (chunkWidth - 1);
  Result<uint64_t> chunk = readFixed(chunkWidth);
  if (!chunk)
    return chunk.takeError();
  uint32_t piece = uint32_t(*chunk);
  if ((piece & continuation) == 0)
    return Value(piece);
  // Like LLVM, bits shifted past the value's width are dropped and a value
  // needing more chunks than fit in it is an error. A 1-bit chunk carries no
  // payload and so never reaches that limit, but every chunk consumes input,
  // so the loop still ends at the end of the stream.
  constexpr unsigned kValueBits = sizeof(Value) * 8;
  Value value = 0;
  unsigned shift = 0;
  while (true) {
    value |= Value(piece & (continuation - 1)) << shift;
    if ((piece & continuation) == 0)
      return value;
    shift += chunkWidth - 1;
    if (shift >= kValueBits)
      return makeError("Unterminated VBR");
    chunk = readFixed(chunkWidth);
    if (!chunk)
      return chunk.takeError();
    piece = uint32_t(*chunk);
  }
}

Result<uint32_t> BitstreamCursor::readVbr32(unsigned chunkWidth) {
  return readVbr<uint32_t>(chunkWidth);
}

Result<uint64_t> BitstreamCursor::readVbr64(unsigned chunkWidth) {
  return readVbr<uint64_t>(chunkWidth);
}

void BitstreamCursor::skipToFourByteBoundary() {
  // Within a full word this rounds the position up to a multiple of 32 bits;
  // in a short last word it keeps LLVM's arithmetic (keep 32 bits or none).
  if (bitsInWord_ >= 32) {
    currentWord_ >>= bitsInWord_ - 32;
    bitsInWord_ = 32;
    return;
  }
  bitsInWord_ = 0;
}

Status BitstreamCursor::jumpToBit(uint64_t bit) {
  // Like LLVM, restart at the word holding the target bit. Callers check
  // the target against the stream size first.
  nextByte_ = (bit / 8) & ~uint64_t(7);
  bitsInWord_ = 0;
  currentWord_ = 0;
  unsigned bitsIntoWord = unsigned(bit % kWordBits);
  if (bitsIntoWord == 0)
    return Status::success();
  Result<uint64_t> skipped = readFixed(bitsIntoWord);
  if (!skipped)
    return skipped.takeError();
  return Status::success();
}

Result<std::optional<BitstreamEntry>> BitstreamCursor::readEntry() {
  if (atEndOfStream())
    return makeError("Malformed block");
  Result<uint64_t> code = readFixed(codeWidth_);
  if (!code)
    return code.takeError();
  switch (*code) {
  case kEndBlockAbbrevId:
    if (!endBlock())
      return makeError("Malformed block");
    return std::optional(BitstreamEntry{BitstreamEntry::Kind::EndBlock, 0});
  case kEnterSubblockAbbrevId: {
    Result<uint32_t> blockId = readVbr32(kBlockIdWidth);
    if (!blockId)
      return blockId.takeError();
    return std::optional(
        BitstreamEntry{BitstreamEntry::Kind::SubBlock, *blockId});
  }
  case kDefineAbbrevAbbrevId:
    if (Status status = readAbbreviationDefinition(); !status.ok())
      return status.takeError();
    return std::optional<BitstreamEntry>();
  default:
    return std::optional(
        BitstreamEntry{BitstreamEntry::Kind::Record, unsigned(*code)});
  }
}

Result<BitstreamEntry> BitstreamCursor::advance() {
  while (true) {
    Result<std::optional<BitstreamEntry>> entry = readEntry();
    if (!entry)
      return entry.takeError();
    if (!*entry)
      continue;
    if ((*entry)->kind == BitstreamEntry::Kind::SubBlock)
      lastSubBlockId_ = (*entry)->id;
    return **entry;
  }
}

bool BitstreamCursor::endBlock() {
  if (enclosingBlocks_.empty())
    return false;
  skipToFourByteBoundary();
  for (const Abbreviation &abbrev : abbreviations_)
    operandsHeld_ -= abbrev.size();
  codeWidth_ = enclosingBlocks_.back().codeWidth;
  abbreviations_ = std::move(enclosingBlocks_.back().abbreviations);
  enclosingBlocks_.pop_back();
  return true;
}

Status BitstreamCursor::enterSubBlock() {
  enclosingBlocks_.push_back({codeWidth_, std::move(abbreviations_)});
  abbreviations_.clear();
  // Abbreviations BLOCKINFO gave this kind of block come first.
  for (const auto &[blockId, abbreviations] : blockInfo_) {
    if (blockId != lastSubBlockId_)
      continue;
    for (const Abbreviation &abbrev : abbreviations) {
      if (operandsHeld_ + abbrev.size() >= kMaxAbbreviationOperands)
        return makeError("too many abbreviation operands");
      operandsHeld_ += abbrev.size();
      abbreviations_.push_back(abbrev);
    }
  }
  Result<uint32_t> width = readVbr32(kCodeLengthWidth);
  if (!width)
    return width.takeError();
  if (*width > kMaxChunkWidth)
    return makeError("can't read more than 32 bits at a time, trying to read " +
                     std::to_string(*width));
  codeWidth_ = *width;
  skipToFourByteBoundary();
  // The block's length in words; entering reads the block record by record,
  // so only its presence matters.
  Result<uint64_t> lengthInWords = readFixed(kBlockSizeWidth);
  if (!lengthInWords)
    return lengthInWords.takeError();
  if (codeWidth_ == 0)
    return makeError("can't enter sub-block: current code size is 0");
  if (atEndOfStream())
    return makeError("can't enter sub block: already at end of stream");
  return Status::success();
}

Status BitstreamCursor::skipBlock() {
  // The abbreviation width of the skipped block does not matter.
  Result<uint32_t> width = readVbr32(kCodeLengthWidth);
  if (!width)
    return width.takeError();
  skipToFourByteBoundary();
  Result<uint64_t> lengthInWords = readFixed(kBlockSizeWidth);
  if (!lengthInWords)
    return lengthInWords.takeError();
  uint64_t target = bitPosition() + *lengthInWords * 32;
  if (atEndOfStream())
    return makeError("can't skip block: already at end of stream");
  if (target / 8 > bytes_.size())
    return makeError("can't skip to bit " + std::to_string(target) + " from " +
                     std::to_string(bitPosition()));
  return jumpToBit(target);
}

Status BitstreamCursor::readAbbreviationDefinition() {
  Result<uint32_t> operandCount = readVbr32(kAbbrevOperandCountWidth);
  if (!operandCount)
    return operandCount.takeError();
  Abbreviation abbrev;
  // Operands are read one by one and each consumes input, so a huge declared
  // count runs into the end of the stream rather than into an allocation.
  for (uint32_t index = 0; index != *operandCount; ++index) {
    if (operandsHeld_ + abbrev.size() >= kMaxAbbreviationOperands)
      return makeError("too many abbreviation operands");
    Result<uint64_t> isLiteral = readFixed(1);
    if (!isLiteral)
      return isLiteral.takeError();
    if (*isLiteral) {
      Result<uint64_t> literal = readVbr64(kAbbrevLiteralWidth);
      if (!literal)
        return literal.takeError();
      abbrev.push_back({AbbrevOperand::Kind::Literal, *literal});
      continue;
    }
    Result<uint64_t> encoding = readFixed(kAbbrevEncodingWidth);
    if (!encoding)
      return encoding.takeError();
    switch (*encoding) {
    case 1:   // Fixed
    case 2: { // VBR
      Result<uint64_t> width = readVbr64(kAbbrevEncodingDataWidth);
      if (!width)
        return width.takeError();
      // A zero-width field always reads as zero: LLVM stores it as the
      // literal 0.
      if (*width == 0) {
        abbrev.push_back({AbbrevOperand::Kind::Literal, 0});
        continue;
      }
      if (*width > kMaxChunkWidth)
        return makeError("Fixed or VBR abbrev record with size > MaxChunkData");
      abbrev.push_back({*encoding == 1 ? AbbrevOperand::Kind::Fixed
                                       : AbbrevOperand::Kind::Vbr,
                        *width});
      continue;
    }
    case 3:
      abbrev.push_back({AbbrevOperand::Kind::Array, 0});
      continue;
    case 4:
      abbrev.push_back({AbbrevOperand::Kind::Char6, 0});
      continue;
    case 5:
      abbrev.push_back({AbbrevOperand::Kind::Blob, 0});
      continue;
    default:
      return makeError("Invalid encoding");
    }
  }
  if (abbrev.empty())
    return makeError("Abbrev record with no operands");
  operandsHeld_ += abbrev.size();
  abbreviations_.push_back(std::move(abbrev));
  return Status::success();
}

Result<const Abbreviation *>
BitstreamCursor::abbreviation(unsigned abbrevId) const {
  // IDs below the first application ID were dispatched by advance(); any
  // other ID must name an abbreviation defined in this block.
  if (abbrevId < kFirstApplicationAbbrevId ||
      abbrevId - kFirstApplicationAbbrevId >= abbreviations_.size())
    return makeError("Invalid abbrev number");
  return &abbreviations_[abbrevId - kFirstApplicationAbbrevId];
}

Result<uint64_t>
BitstreamCursor::readScalarOperand(const AbbrevOperand &operand) {
  switch (operand.kind) {
  case AbbrevOperand::Kind::Fixed:
    return readFixed(unsigned(operand.value));
  case AbbrevOperand::Kind::Vbr:
    return readVbr64(unsigned(operand.value));
  case AbbrevOperand::Kind::Char6: {
    Result<uint64_t> value = readFixed(6);
    if (!value)
      return value.takeError();
    return uint64_t(uint8_t(decodeChar6(*value)));
  }
  default:
    return makeError("invalid scalar operand");
  }
}

Result<unsigned> BitstreamCursor::readRecordCode(const Abbreviation &abbrev) {
  const AbbrevOperand &codeOperand = abbrev.front();
  if (codeOperand.kind == AbbrevOperand::Kind::Literal)
    return unsigned(codeOperand.value);
  if (!isScalar(codeOperand.kind))
    return makeError("Abbreviation starts with an Array or a Blob");
  Result<uint64_t> code = readScalarOperand(codeOperand);
  if (!code)
    return code.takeError();
  return unsigned(*code);
}

Result<unsigned> BitstreamCursor::skipRecord(unsigned abbrevId) {
  if (abbrevId != kUnabbreviatedRecordAbbrevId) {
    // Abbreviated records cannot occur at the top level, where abbreviation
    // IDs are two bits wide; within blocks the full checks of
    // readBlobRecord apply (LLVM's skipRecord checks less, which can only
    // matter for input LLVM would go on to refuse while reading the IR).
    Result<BlobRecord> record = readBlobRecord(abbrevId);
    if (!record)
      return record.takeError();
    return record->code;
  }
  // Unlike readBlobRecord, the element count is not checked against the
  // stream size: skipping reads each element and fails at the end.
  Result<uint32_t> code = readVbr32(kUnabbreviatedFieldWidth);
  if (!code)
    return code.takeError();
  Result<uint32_t> count = readVbr32(kUnabbreviatedFieldWidth);
  if (!count)
    return count.takeError();
  for (uint32_t index = 0; index != *count; ++index)
    if (Result<uint64_t> value = readVbr64(kUnabbreviatedFieldWidth); !value)
      return value.takeError();
  return unsigned(*code);
}

Result<unsigned>
BitstreamCursor::readRecordOperands(unsigned abbrevId,
                                    std::vector<uint64_t> *operands,
                                    std::optional<std::string_view> &blob) {
  // The stream's size in bits bounds any element count: every element takes
  // at least one bit.
  auto isPlausibleCount = [&](uint32_t count) {
    return uint64_t(count) < uint64_t(bytes_.size()) * 8;
  };
  auto keep = [operands](uint64_t value) {
    if (operands)
      operands->push_back(value);
  };

  if (abbrevId == kUnabbreviatedRecordAbbrevId) {
    Result<uint32_t> code = readVbr32(kUnabbreviatedFieldWidth);
    if (!code)
      return code.takeError();
    Result<uint32_t> count = readVbr32(kUnabbreviatedFieldWidth);
    if (!count)
      return makeError("Failed to read size: " + count.error().message);
    if (!isPlausibleCount(*count))
      return makeError("Size is not plausible");
    for (uint32_t index = 0; index != *count; ++index) {
      Result<uint64_t> value = readVbr64(kUnabbreviatedFieldWidth);
      if (!value)
        return value.takeError();
      keep(*value);
    }
    return unsigned(*code);
  }

  Result<const Abbreviation *> found = abbreviation(abbrevId);
  if (!found)
    return found.takeError();
  const Abbreviation &abbrev = **found;
  Result<unsigned> code = readRecordCode(abbrev);
  if (!code)
    return code.takeError();
  for (size_t index = 1; index < abbrev.size(); ++index) {
    const AbbrevOperand &operand = abbrev[index];
    if (operand.kind == AbbrevOperand::Kind::Literal) {
      keep(operand.value);
      continue;
    }
    if (isScalar(operand.kind)) {
      Result<uint64_t> value = readScalarOperand(operand);
      if (!value)
        return value.takeError();
      keep(*value);
      continue;
    }
    if (operand.kind == AbbrevOperand::Kind::Array) {
      Result<uint32_t> count = readVbr32(kUnabbreviatedFieldWidth);
      if (!count)
        return makeError("Failed to read size: " + count.error().message);
      if (!isPlausibleCount(*count))
        return makeError("Size is not plausible");
      if (index + 2 != abbrev.size())
        return makeError("Array op not second to last");
      const AbbrevOperand &element = abbrev[++index];
      if (element.kind == AbbrevOperand::Kind::Literal)
        return makeError("Array element type has to be an encoding of a type");
      if (!isScalar(element.kind))
        return makeError("Array element type can't be an Array or a Blob");
      for (uint32_t left = *count; left != 0; --left) {
        Result<uint64_t> value = readScalarOperand(element);
        if (!value)
          return value.takeError();
        keep(*value);
      }
      continue;
    }
    Result<uint32_t> length = readVbr32(kUnabbreviatedFieldWidth);
    if (!length)
      return length.takeError();
    skipToFourByteBoundary();
    uint64_t start = bitPosition();
    uint64_t end = start + ((uint64_t(*length) + 3) & ~uint64_t(3)) * 8;
    if (end / 8 > bytes_.size())
      return makeError("Blob ends too soon");
    if (Status status = jumpToBit(end); !status.ok())
      return status.takeError();
    // The blob starts on a byte boundary: skipToFourByteBoundary leaves
    // either 32 bits of a word or none.
    blob = bytes_.substr(size_t(start / 8), *length);
  }
  return *code;
}

Result<BlobRecord> BitstreamCursor::readBlobRecord(unsigned abbrevId) {
  BlobRecord record;
  Result<unsigned> code = readRecordOperands(abbrevId, nullptr, record.blob);
  if (!code)
    return code.takeError();
  record.code = *code;
  return record;
}

Result<Record> BitstreamCursor::readRecord(unsigned abbrevId) {
  Record record;
  Result<unsigned> code =
      readRecordOperands(abbrevId, &record.operands, record.blob);
  if (!code)
    return code.takeError();
  record.code = *code;
  return record;
}

Status BitstreamCursor::readBlockInfoBlock() {
  // The block's own abbreviation list is empty, so every abbreviation
  // advance() collects in it was defined for the current SETBID target.
  if (Status status = enterSubBlock(); !status.ok())
    return status;
  std::optional<unsigned> target;
  auto keepDefinitions = [&]() -> Status {
    if (abbreviations_.empty())
      return Status::success();
    if (!target)
      return makeError("Malformed block");
    auto existing = blockInfo_.begin();
    while (existing != blockInfo_.end() && existing->first != *target)
      ++existing;
    if (existing == blockInfo_.end()) {
      blockInfo_.push_back({*target, {}});
      existing = blockInfo_.end() - 1;
    }
    // The operands stay counted in operandsHeld_: BLOCKINFO keeps them.
    for (Abbreviation &abbrev : abbreviations_)
      existing->second.push_back(std::move(abbrev));
    abbreviations_.clear();
    return Status::success();
  };
  // Read entry by entry rather than with advance(), which would fold the
  // definitions into the block and drop those before END_BLOCK with it.
  while (true) {
    Result<std::optional<BitstreamEntry>> entry = readEntry();
    if (!entry)
      return entry.takeError();
    if (!*entry) {
      // An abbreviation definition, just read.
      if (Status status = keepDefinitions(); !status.ok())
        return status;
      continue;
    }
    switch ((*entry)->kind) {
    case BitstreamEntry::Kind::EndBlock:
      return Status::success();
    case BitstreamEntry::Kind::SubBlock:
      if (Status status = skipBlock(); !status.ok())
        return status;
      continue;
    case BitstreamEntry::Kind::Record: {
      Result<Record> record = readRecord((*entry)->id);
      if (!record)
        return record.takeError();
      if (record->code == 1) { // SETBID
        if (record->operands.empty())
          return makeError("Malformed block");
        target = unsigned(record->operands[0]);
      }
      continue;
    }
    }
  }
}

} // namespace offbundle::bitcode
