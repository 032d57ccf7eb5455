// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A bounds-checked reader for LLVM's bitstream container, the encoding under
// every bitcode file. It knows enough to walk the top level of a file, skip
// blocks by their length word, and read the blob records of a block; it never
// looks inside the IR itself.
//
// Positions and failures follow LLVM's BitstreamCursor (which reads the
// stream a 64-bit word at a time), down to odd cases such as alignment near
// the end of a stream whose length is not a multiple of eight, so what it
// reads it accepts or refuses as LLVM does. The one deliberate difference:
// abbreviation definitions totalling more than about a million operands are
// refused, to bound memory.
#pragma once

#include "support/error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace offbundle::bitcode {

// Abbreviation IDs every block reserves.
inline constexpr unsigned kEndBlockAbbrevId = 0;
inline constexpr unsigned kEnterSubblockAbbrevId = 1;
inline constexpr unsigned kDefineAbbrevAbbrevId = 2;
inline constexpr unsigned kUnabbreviatedRecordAbbrevId = 3;
inline constexpr unsigned kFirstApplicationAbbrevId = 4;

// One operand of an abbreviation (DEFINE_ABBREV).
struct AbbrevOperand {
  enum class Kind : uint8_t { Literal, Fixed, Vbr, Array, Char6, Blob };
  Kind kind = Kind::Literal;
  // The literal value, or the bit width of a Fixed or Vbr field.
  uint64_t value = 0;
};

using Abbreviation = std::vector<AbbrevOperand>;

// What advance() found next in the current block.
struct BitstreamEntry {
  enum class Kind { EndBlock, SubBlock, Record };
  Kind kind = Kind::EndBlock;
  // The block ID of a SubBlock, the abbreviation ID of a Record.
  unsigned id = 0;
};

// A record read for its blob: the record code and, when the record's
// abbreviation has a blob operand, the blob's bytes (a view into the stream).
struct BlobRecord {
  unsigned code = 0;
  std::optional<std::string_view> blob;
};

// A record read whole, as LLVM's readRecord returns it: the code, the
// operand values (array elements inline, characters of Char6 arrays
// decoded), and the blob when the abbreviation has one.
struct Record {
  unsigned code = 0;
  std::vector<uint64_t> operands;
  std::optional<std::string_view> blob;
};

// The BLOCKINFO block's ID.
inline constexpr unsigned kBlockInfoBlockId = 0;

// The stream a bitcode wrapper header points at (magic 0x0B17C0DE, then
// version, offset, size and CPU type, little-endian 32-bit words), or the
// input itself when it has no such header; nothing when the header is cut
// short or points past the input. As LLVM's SkipBitcodeWrapperHeader, which
// needs the header only up to its size field.
std::optional<std::string_view> unwrapBitcode(std::string_view input);

class BitstreamCursor {
public:
  explicit BitstreamCursor(std::string_view bytes) : bytes_(bytes) {}

  // Number of bits consumed from the start of the stream.
  uint64_t bitPosition() const { return nextByte_ * 8 - bitsInWord_; }
  uint64_t bytePosition() const { return bitPosition() / 8; }
  size_t sizeInBytes() const { return bytes_.size(); }
  bool atEndOfStream() const {
    return bitsInWord_ == 0 && nextByte_ >= bytes_.size();
  }

  // Primitive reads. Widths are 1 to 64 bits for fixed fields and 1 to 32
  // bits per chunk for variable-width (VBR) fields.
  Result<uint64_t> readFixed(unsigned width);
  Result<uint32_t> readVbr32(unsigned chunkWidth);
  Result<uint64_t> readVbr64(unsigned chunkWidth);
  void skipToFourByteBoundary();
  Status jumpToBit(uint64_t bit);

  // The next entry of the current block. Abbreviation definitions are read
  // and kept for the block on the way; reaching the end of the stream, or an
  // END_BLOCK outside any block, is "Malformed block".
  Result<BitstreamEntry> advance();

  // After advance() returned a SubBlock: enter it (its abbreviations start
  // empty; a BLOCKINFO block is never consulted, as LLVM's top-level scan
  // does not consult one either) or skip all of it using its length word.
  Status enterSubBlock();
  Status skipBlock();

  // After advance() returned a Record with this abbreviation ID: consume it.
  // readBlobRecord checks the record as LLVM's readRecord does and returns
  // its blob; skipRecord is meant for the top level, where records can only
  // be unabbreviated.
  Result<unsigned> skipRecord(unsigned abbrevId);
  Result<BlobRecord> readBlobRecord(unsigned abbrevId);
  // The same checks, keeping every operand (for reading the IR itself).
  Result<Record> readRecord(unsigned abbrevId);

  // After advance() returned a SubBlock with kBlockInfoBlockId: read the
  // BLOCKINFO block, whose abbreviations every block entered afterwards
  // with enterSubBlock() then starts with (as in LLVM's readers of IR).
  Status readBlockInfoBlock();

private:
  struct EnclosingBlock {
    unsigned codeWidth;
    std::vector<Abbreviation> abbreviations;
  };

  Status fillWord();
  // readVbr32 and readVbr64: a VBR value of 32 or 64 bits.
  template <typename Value> Result<Value> readVbr(unsigned chunkWidth);
  // The next entry of the current block, as advance() finds it, but an
  // abbreviation definition is returned (as nothing) once read and kept
  // for the block, so that a caller can act on each one.
  Result<std::optional<BitstreamEntry>> readEntry();
  Status readAbbreviationDefinition();
  Result<const Abbreviation *> abbreviation(unsigned abbrevId) const;
  Result<uint64_t> readScalarOperand(const AbbrevOperand &operand);
  Result<unsigned> readRecordCode(const Abbreviation &abbrev);
  // Reads a record as LLVM's readRecord does: its code is returned, its
  // operands appended to `operands` (unless null) and its blob, if any,
  // stored in `blob`.
  Result<unsigned> readRecordOperands(unsigned abbrevId,
                                      std::vector<uint64_t> *operands,
                                      std::optional<std::string_view> &blob);
  bool endBlock();

  std::string_view bytes_;
  // LLVM's cursor state: the next byte to load, the word loaded last and how
  // many of its bits are still unread.
  uint64_t nextByte_ = 0;
  uint64_t currentWord_ = 0;
  unsigned bitsInWord_ = 0;

  // Abbreviations BLOCKINFO defines, by block ID, and the ID of the block
  // advance() found last (the one enterSubBlock() enters).
  std::vector<std::pair<unsigned, std::vector<Abbreviation>>> blockInfo_;
  unsigned lastSubBlockId_ = 0;

  unsigned codeWidth_ = 2; // abbreviation ID width; 2 at the top level
  std::vector<Abbreviation> abbreviations_;
  std::vector<EnclosingBlock> enclosingBlocks_;
  // Abbreviation operands held in all scopes, to bound memory on hostile
  // input (each operand costs at least four bits of input).
  size_t operandsHeld_ = 0;
};

} // namespace offbundle::bitcode
