// Output plans (see the header).
#include "support/output_plan.h"

#include <algorithm>

#include "support/file_io.h"

namespace offbundle {

void OutputPlan::addBytes(std::string bytes) {
  if (bytes.empty())
    return;
  owned_.push_back(std::make_unique<const std::string>(std::move(bytes)));
  addView(*owned_.back());
}

void OutputPlan::addView(std::string_view bytes) {
  if (bytes.empty())
    return;
  pieces_.push_back({PieceKind::Bytes, bytes, 0, bytes.size()});
  size_ += bytes.size();
}

void OutputPlan::addInput(uint64_t offset, uint64_t length) {
  if (length == 0)
    return;
  // Adjacent ranges become one, so the copy is one long read.
  if (!pieces_.empty() && pieces_.back().kind == PieceKind::Input &&
      pieces_.back().offset + pieces_.back().length == offset)
    pieces_.back().length += length;
  else
    pieces_.push_back({PieceKind::Input, {}, offset, length});
  size_ += length;
}

void OutputPlan::addZeros(uint64_t count) {
  if (count == 0)
    return;
  if (!pieces_.empty() && pieces_.back().kind == PieceKind::Zeros)
    pieces_.back().length += count;
  else
    pieces_.push_back({PieceKind::Zeros, {}, 0, count});
  size_ += count;
}

void OutputPlan::addProduced(uint64_t length, Producer produce) {
  producers_.push_back(std::move(produce));
  pieces_.push_back({PieceKind::Produced, {}, producers_.size() - 1, length});
  size_ += length;
}

namespace {

// A produced piece's bytes, checked against the length announced.
Result<std::string> produce(const OutputPlan::Producer &producer,
                            uint64_t length) {
  auto bytes = producer();
  if (bytes && bytes->size() != length)
    return makeError("internal error: a computed piece of the output has " +
                     std::to_string(bytes->size()) + " bytes, not " +
                     std::to_string(length));
  return bytes;
}

} // namespace

void OutputPlan::append(OutputPlan &&other) {
  for (const Piece &piece : other.pieces_) {
    switch (piece.kind) {
    case PieceKind::Bytes:
      addView(piece.bytes);
      break;
    case PieceKind::Input:
      addInput(piece.offset, piece.length);
      break;
    case PieceKind::Zeros:
      addZeros(piece.length);
      break;
    case PieceKind::Produced:
      addProduced(
          piece.length,
          std::move(other.producers_[static_cast<size_t>(piece.offset)]));
      break;
    }
  }
  for (auto &owned : other.owned_)
    owned_.push_back(std::move(owned));
  other = OutputPlan();
}

Result<std::string> OutputPlan::render(std::string_view input) const {
  // Room for what the plan holds, but not more up front than a produced
  // piece could be trusted to fill: a damaged header may announce
  // hundreds of gigabytes that its producer then fails to make.
  constexpr uint64_t kLargestReservation = uint64_t{64} << 20;
  std::string whole;
  whole.reserve(static_cast<size_t>(std::min(size_, kLargestReservation)));
  for (const Piece &piece : pieces_) {
    switch (piece.kind) {
    case PieceKind::Bytes:
      whole += piece.bytes;
      break;
    case PieceKind::Input:
      whole += input.substr(static_cast<size_t>(piece.offset),
                            static_cast<size_t>(piece.length));
      break;
    case PieceKind::Zeros:
      whole.append(static_cast<size_t>(piece.length), '\0');
      break;
    case PieceKind::Produced: {
      auto bytes =
          produce(producers_[static_cast<size_t>(piece.offset)], piece.length);
      if (!bytes)
        return bytes.takeError();
      whole += *bytes;
      break;
    }
    }
  }
  return whole;
}

Status OutputPlan::write(OutputFile &output, const InputFile &input) const {
  for (const Piece &piece : pieces_) {
    Status written = Status::success();
    switch (piece.kind) {
    case PieceKind::Bytes:
      written = output.write(piece.bytes);
      break;
    case PieceKind::Input:
      written = output.copyFrom(input, piece.offset, piece.length);
      break;
    case PieceKind::Zeros:
      written = output.writeZeros(piece.length);
      break;
    case PieceKind::Produced: {
      auto bytes =
          produce(producers_[static_cast<size_t>(piece.offset)], piece.length);
      written = bytes ? output.write(*bytes) : Status(bytes.takeError());
      break;
    }
    }
    if (!written.ok())
      return written;
  }
  return Status::success();
}

} // namespace offbundle
