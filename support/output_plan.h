// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A file to be written, described as a list of pieces: bytes made in
// memory, ranges of one input file, and runs of zeros.
//
// Rewriting a 1.25 GiB shared library to keep one GPU target of eight
// must not hold the library, or even what it keeps, in memory: the plan
// names the kept ranges of the input, and writing it copies them from the
// input file with pread into the output's write buffer. Only the new
// headers and tables live in memory. Bytes that must be computed (a
// decompressed bundle) can be produced when written, from a size known in
// advance: writing makes them on every core, a few pieces ahead of the one
// being written and in the plan's order, each worker filling the buffer of
// a piece already written when one is at hand, and releases the input
// pages each piece was made from (InputFile::releasePages), so that memory
// stays flat whatever the file's size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/byte_buffer.h"
#include "support/error.h"

namespace offbundle {

class InputFile;
class OutputFile;

class OutputPlan {
public:
  enum class PieceKind { Bytes, Input, Zeros, Produced };
  struct Piece {
    PieceKind kind = PieceKind::Bytes;
    std::string_view bytes; // Bytes
    uint64_t offset = 0;    // Input: where the range starts in the input;
                            // Produced: which producer makes it
    uint64_t length = 0;    // every kind
  };
  // Makes a produced piece's bytes, exactly as many as announced, or an
  // error that fails the write. `spare` is the buffer of a piece already
  // written, to fill rather than allocate a new one (its bytes are not the
  // producer's to read), or an empty one. Producers of one plan may run at
  // the same time, on different threads.
  using Producer = std::function<Result<ByteBuffer>(ByteBuffer spare)>;

  // The input unchanged: its first `size` bytes.
  static OutputPlan wholeInput(uint64_t size) {
    OutputPlan plan;
    plan.addInput(0, size);
    return plan;
  }

  // Bytes the plan keeps.
  void addBytes(std::string bytes);
  // Bytes the caller keeps alive as long as the plan.
  void addView(std::string_view bytes);
  // [offset, offset + length) of the input the plan is written with.
  void addInput(uint64_t offset, uint64_t length);
  void addZeros(uint64_t count);
  // `length` bytes that `produce` makes when the plan is written, from
  // input bytes [readsOffset, readsOffset + readsLength), which are not
  // read again once it has.
  void addProduced(uint64_t length, Producer produce, uint64_t readsOffset = 0,
                   uint64_t readsLength = 0);
  // Everything `other` holds, after what this plan holds.
  void append(OutputPlan &&other);

  // How many produced pieces are made at once when the plan is written; 0
  // (the default): one per core.
  void setThreads(unsigned threads) { threads_ = threads; }

  uint64_t size() const { return size_; }
  const std::vector<Piece> &pieces() const { return pieces_; }

  // The whole output in memory; `input` is the input's contents, which
  // must hold every range the plan names. Fails as a producer fails.
  Result<std::string> render(std::string_view input) const;
  // Writes the output, copying input ranges from `input`'s file.
  Status write(OutputFile &output, const InputFile &input) const;

private:
  std::vector<Piece> pieces_;
  // Each string is allocated once and never moves, so the views into it
  // stay valid as the plan grows or is appended to another.
  std::vector<std::unique_ptr<const std::string>> owned_;
  struct ProducedPiece {
    Producer produce;
    uint64_t readsOffset = 0;
    uint64_t readsLength = 0;
  };
  friend class ProducedAhead;
  std::vector<ProducedPiece> producers_;
  uint64_t size_ = 0;
  unsigned threads_ = 0;
};

} // namespace offbundle
