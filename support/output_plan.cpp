// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Output plans (see the header).
#include "support/output_plan.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "support/output_file.h"

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

void OutputPlan::addProduced(uint64_t length, Producer produce,
                             uint64_t readsOffset, uint64_t readsLength) {
  producers_.push_back({std::move(produce), readsOffset, readsLength});
  pieces_.push_back({PieceKind::Produced, {}, producers_.size() - 1, length});
  size_ += length;
}

namespace {

// A produced piece's bytes, checked against the length announced.
Result<ByteBuffer> produce(const OutputPlan::Producer &producer,
                           uint64_t length, ByteBuffer spare = ByteBuffer()) {
  Result<ByteBuffer> bytes = ByteBuffer();
  try {
    bytes = producer(std::move(spare));
  } catch (const std::bad_alloc &) {
    return makeError("out of memory making the output");
  }
  if (bytes && bytes->size() != length)
    return makeError("internal error: a computed piece of the output has " +
                     std::to_string(bytes->size()) + " bytes, not " +
                     std::to_string(length));
  return bytes;
}

} // namespace

// The produced pieces of a plan being written, made on worker threads, in
// plan order, one core each. Into a file, each worker writes the piece it
// made at its place in the output (OutputFile::writeAt) while the writer
// goes on past it, so that decoding and copying into the file both run on
// every core. Elsewhere (standard output, memory) the writer takes the
// pieces in order: a worker then starts one only while those made and not
// yet taken, with it, stay within kAheadBudget (pieces may be hundreds of
// MiB), or when it is the very next the writer needs. Either way, buffers
// whose bytes were written are filled again (one kept a worker, up to
// kLargestSpare), sparing the page faults of fresh memory.
class ProducedAhead {
public:
  ProducedAhead(const OutputPlan &plan, const InputFile &input,
                const OutputFile &output)
      : plan_(plan), input_(input), lengths_(plan.producers_.size()),
        offsets_(plan.producers_.size()), made_(plan.producers_.size()) {
    uint64_t at = 0;
    for (const OutputPlan::Piece &piece : plan.pieces_) {
      if (piece.kind == OutputPlan::PieceKind::Produced) {
        lengths_[static_cast<size_t>(piece.offset)] = piece.length;
        offsets_[static_cast<size_t>(piece.offset)] = at;
      }
      at += piece.length;
    }
    const size_t count = plan.producers_.size();
    const unsigned cores =
        plan.threads_ != 0 ? plan.threads_
                           : std::max(1u, std::thread::hardware_concurrency());
    if (count < 2 || cores < 2)
      return; // made by the writer as it reaches them
    order_.resize(count);
    for (size_t i = 0; i < count; ++i)
      order_[i] = i;
    if (output.writesInPlace()) {
      output_ = &output;
      // Pieces written at their places may be made in any order: the
      // largest first, so that no core is left alone with a big one at the
      // end (librocsparse: 111 bundles up to 89 MiB, 5% less wall time).
      std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
        return lengths_[a] > lengths_[b];
      });
    }
    const size_t workers = std::min<size_t>(cores, count);
    keptSpares_ = workers;
    for (size_t i = 0; i < workers; ++i)
      workers_.emplace_back([this] { work(); });
  }

  ~ProducedAhead() { stop(); }

  ProducedAhead(const ProducedAhead &) = delete;
  ProducedAhead &operator=(const ProducedAhead &) = delete;

  // Whether the workers write the pieces themselves: the writer only skips
  // them, then waits in finish().
  bool writesInPlace() const { return output_ != nullptr; }

  // Piece `index` (in plan order; each taken once, in order), when the
  // writer writes the pieces.
  Result<ByteBuffer> take(size_t index) {
    if (workers_.empty())
      return makePiece(index, ByteBuffer());
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return made_[index].has_value(); });
    Result<ByteBuffer> bytes = std::move(*made_[index]);
    made_[index].reset();
    taken_ = index + 1;
    ahead_ -= lengths_[index];
    lock.unlock();
    changed_.notify_all();
    return bytes;
  }

  // A buffer whose bytes were written, for a piece still to make.
  void recycle(ByteBuffer buffer) {
    if (buffer.capacity() > kLargestSpare)
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (spares_.size() < keptSpares_)
      spares_.push_back(std::move(buffer));
  }

  // When the workers write the pieces: waits for all of them, and returns
  // the error of the first piece (in plan order) that failed.
  Status finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return finished_ == made_.size(); });
    lock.unlock();
    stop();
    for (std::optional<Result<ByteBuffer>> &piece : made_)
      if (piece && !*piece)
        return piece->takeError();
    return Status::success();
  }

private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (std::thread &worker : workers_)
      if (worker.joinable())
        worker.join();
  }

  Result<ByteBuffer> makePiece(size_t index, ByteBuffer spare) const {
    const OutputPlan::ProducedPiece &piece = plan_.producers_[index];
    Result<ByteBuffer> bytes =
        produce(piece.produce, lengths_[index], std::move(spare));
    if (piece.readsLength != 0)
      input_.releasePages(piece.readsOffset, piece.readsLength);
    return bytes;
  }

  bool mayStart() const {
    if (next_ >= made_.size())
      return false;
    return output_ || next_ == taken_ ||
           ahead_ + lengths_[order_[next_]] <= kAheadBudget;
  }

  void work() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || mayStart(); });
      if (stopping_)
        return;
      const size_t index = order_[next_++];
      ahead_ += lengths_[index];
      ByteBuffer spare;
      if (!spares_.empty()) {
        spare = std::move(spares_.back());
        spares_.pop_back();
      }
      lock.unlock();
      Result<ByteBuffer> bytes = makePiece(index, std::move(spare));
      if (output_) {
        // Written here, at its place; only an error is kept.
        Status written = bytes
                             ? output_->writeAt(offsets_[index], bytes->view())
                             : Status(bytes.takeError());
        if (bytes)
          recycle(std::move(*bytes));
        lock.lock();
        made_[index] = written.ok() ? Result<ByteBuffer>(ByteBuffer())
                                    : Result<ByteBuffer>(written.takeError());
        ++finished_;
      } else {
        lock.lock();
        made_[index] = std::move(bytes);
      }
      lock.unlock();
      changed_.notify_all();
    }
  }

  // Bytes of pieces made ahead that may be held at once.
  static constexpr uint64_t kAheadBudget = uint64_t{128} << 20;
  // The largest buffer kept for reuse. Real libraries hold bundles of tens
  // of MiB (librocsparse: 14 of its 111 above 32 MiB, the largest 89 MiB,
  // 60% of its bytes); a fresh buffer for each costs more in page faults
  // than decoding it. Kept buffers are the ones the workers fill anyway, so
  // keeping them raises the peak little (measured: it fell, 244 to 203 MiB,
  // the allocator no longer holding freed ones).
  static constexpr size_t kLargestSpare = size_t{128} << 20;

  const OutputPlan &plan_;
  const InputFile &input_;
  const OutputFile *output_ = nullptr; // where workers write, if they do
  std::vector<uint64_t> lengths_;      // by producer
  std::vector<uint64_t> offsets_;      // by producer, in the output
  std::vector<size_t> order_;          // producers in the order they start
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::optional<Result<ByteBuffer>>> made_;
  std::vector<ByteBuffer> spares_;
  size_t keptSpares_ = 0;
  size_t next_ = 0;     // the next piece (in order_) a worker starts
  size_t taken_ = 0;    // pieces the writer has taken
  size_t finished_ = 0; // pieces workers have written
  uint64_t ahead_ = 0;  // bytes of pieces started and not yet taken
  bool stopping_ = false;
};

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
    case PieceKind::Produced: {
      ProducedPiece &produced =
          other.producers_[static_cast<size_t>(piece.offset)];
      addProduced(piece.length, std::move(produced.produce),
                  produced.readsOffset, produced.readsLength);
      break;
    }
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
      auto bytes = produce(
          producers_[static_cast<size_t>(piece.offset)].produce, piece.length);
      if (!bytes)
        return bytes.takeError();
      whole += bytes->view();
      break;
    }
    }
  }
  return whole;
}

Status OutputPlan::write(OutputFile &output, const InputFile &input) const {
  ProducedAhead ahead(*this, input, output);
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
      if (ahead.writesInPlace()) {
        written = output.skip(piece.length);
        break;
      }
      auto bytes = ahead.take(static_cast<size_t>(piece.offset));
      if (!bytes) {
        written = bytes.takeError();
        break;
      }
      written = output.write(bytes->view());
      ahead.recycle(std::move(*bytes));
      break;
    }
    }
    if (!written.ok())
      return written;
  }
  // Pieces the workers write are all in place before the output can be
  // committed (which writes out what the writer gathered).
  if (ahead.writesInPlace())
    return ahead.finish();
  return Status::success();
}

} // namespace offbundle
