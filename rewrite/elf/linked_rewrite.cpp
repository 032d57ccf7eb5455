// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// prune, compress and decompress of executables and shared libraries (see
// rewrite.h): the bundles the HIP wrappers point at are rewritten (plain
// ones compressed on every core), laid out anew in .hip_fatbin, and the
// file laid out again around them (rewrite/elf/linked_section_resize.h).
#include "rewrite/bundle_rewriter.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "formats/elf/hip_wrappers.h"
#include "formats/embedded_sections.h"
#include "formats/kpack/kpack_marker.h"
#include "rewrite/elf/linked_section_resize.h"
#include "support/offload_sections.h"

namespace offbundle::rewriting {
namespace {

// The bundles of a linked file's .hip_fatbin: where each starts (the
// wrappers' pointers) and how long it is.
struct LinkedBundle {
  uint64_t address = 0;
  std::string_view bytes;
};

// The largest power of two up to 4096 dividing an address: the alignment a
// bundle had in its object's .hip_fatbin, kept where it moves.
uint64_t addressAlignment(uint64_t address) {
  uint64_t alignment = kLargestInferredAlignment;
  while (alignment > 1 && address % alignment != 0)
    alignment /= 2;
  return alignment;
}

Result<std::vector<LinkedBundle>> linkedBundles(const std::string &file,
                                                std::string_view bytes,
                                                const HipWrappers &found) {
  std::vector<uint64_t> starts;
  for (const HipWrapper &wrapper : found.wrappers) {
    if (wrapper.magic == kHipKpackWrapperMagic)
      return fileError(file, "a kpack'd binary: its code objects are in the "
                             "kpack archives its marker names, which "
                             "offbundle reads but does not rewrite");
    if (wrapper.magic != kHipWrapperMagic)
      return fileError(file, "the HIP wrapper at " +
                                 std::to_string(wrapper.address) +
                                 " has no HIPF magic");
    if (wrapper.binary < found.fatbinStart || wrapper.binary >= found.fatbinEnd)
      return fileError(file, "the HIP wrapper at " +
                                 std::to_string(wrapper.address) +
                                 " points outside .hip_fatbin");
    starts.push_back(wrapper.binary);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<LinkedBundle> bundles;
  for (size_t i = 0; i < starts.size(); ++i) {
    const uint64_t end =
        i + 1 < starts.size() ? starts[i + 1] : found.fatbinEnd;
    const std::string_view room = bytes.substr(
        found.fatbinOffset + (starts[i] - found.fatbinStart), end - starts[i]);
    auto extent = offloadBundleExtent(room);
    if (!extent)
      return fileError(file, "the bundle at " + std::to_string(starts[i]) +
                                 ": " + extent.error().message);
    bundles.push_back({starts[i], room.substr(0, *extent)});
  }
  return bundles;
}

// A compressed bundle as the compressor hands it over, in chunks kept as
// they come (no buffer grows and is copied), then pieces of a plan.
class ChunkedBundle final : public CompressedBundleSink {
public:
  Status append(std::string_view bytes) override {
    chunks_.emplace_back(bytes);
    return Status::success();
  }
  Status overwrite(uint64_t offset, std::string_view bytes) override {
    for (std::string &chunk : chunks_) {
      if (bytes.empty())
        break;
      if (offset >= chunk.size()) {
        offset -= chunk.size();
        continue;
      }
      const size_t count =
          std::min<size_t>(chunk.size() - offset, bytes.size());
      chunk.replace(static_cast<size_t>(offset), count, bytes.substr(0, count));
      bytes.remove_prefix(count);
      offset = 0;
    }
    return Status::success();
  }
  OutputPlan takePlan() {
    OutputPlan plan;
    for (std::string &chunk : chunks_)
      plan.addBytes(std::move(chunk));
    chunks_.clear();
    return plan;
  }

private:
  std::vector<std::string> chunks_;
};

// Plain bundles compressed on every core, one bundle at a time each, the
// largest first so that no core is left with a big one at the end; the
// bytes do not depend on how the work is shared.
Result<std::vector<OutputPlan>>
compressConcurrently(const std::vector<std::string_view> &bundles, int level,
                     unsigned threadLimit, const InputPages &pages) {
  std::vector<size_t> order(bundles.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return bundles[a].size() > bundles[b].size();
  });
  std::vector<Result<OutputPlan>> done;
  done.reserve(bundles.size());
  for (size_t i = 0; i < bundles.size(); ++i)
    done.emplace_back(OutputPlan());
  std::atomic<size_t> next{0};
  const unsigned workers = std::clamp<unsigned>(
      threadLimit != 0 ? threadLimit : std::thread::hardware_concurrency(), 1,
      static_cast<unsigned>(std::max<size_t>(bundles.size(), 1)));
  auto work = [&] {
    ZstdCompressionContext context;
    CompressionOptions options;
    options.level = level;
    options.zstdContext = &context;
    // Every core compresses: each hashes what it compresses.
    options.hashOnItsOwnThread = workers < 2;
    for (size_t at = next++; at < order.size(); at = next++) {
      const size_t i = order[at];
      ChunkedBundle sink;
      pages.willRead(bundles[i]);
      auto header = compressBundleTo(bundles[i], options, sink);
      done[i] = header ? Result<OutputPlan>(sink.takePlan())
                       : Result<OutputPlan>(header.takeError());
      pages.doneReading(bundles[i]);
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < workers; ++i)
    threads.emplace_back(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
  std::vector<OutputPlan> compressed;
  for (Result<OutputPlan> &bundle : done) {
    if (!bundle)
      return bundle.takeError();
    compressed.push_back(std::move(*bundle));
  }
  return compressed;
}

} // namespace

Result<std::optional<FatbinRewrite>> rewriteFatbin(const std::string &file,
                                                   std::string_view bytes,
                                                   const HipWrappers &wrappers,
                                                   std::string_view sectionName,
                                                   BundleRewriter &rewriter) {
  auto bundles = linkedBundles(file, bytes, wrappers);
  if (!bundles)
    return bundles.takeError();

  const RewriteKind kind = rewriter.request().kind;
  std::vector<OutputPlan> compressed;
  std::vector<size_t> compressedIndex(bundles->size(), SIZE_MAX);
  if (kind == RewriteKind::Compress) {
    std::vector<std::string_view> plain;
    for (size_t i = 0; i < bundles->size(); ++i)
      if (!hasCompressedBundleMagic((*bundles)[i].bytes)) {
        compressedIndex[i] = plain.size();
        plain.push_back((*bundles)[i].bytes);
      }
    auto done =
        compressConcurrently(plain, rewriter.request().compressionLevel,
                             rewriter.request().threads, rewriter.pages());
    if (!done)
      return fileError(file, done.error());
    compressed = std::move(*done);
    rewriter.result().changed = rewriter.result().changed || !plain.empty();
    rewriter.result().bundles += plain.size();
  }

  FatbinRewrite rewrite;
  OutputPlan &contents = rewrite.contents;
  // Whatever precedes the first bundle stays where it is.
  const uint64_t first = bundles->front().address;
  contents.addInput(wrappers.fatbinOffset, first - wrappers.fatbinStart);
  for (size_t i = 0; i < bundles->size(); ++i) {
    const LinkedBundle &bundle = (*bundles)[i];
    const uint64_t alignment = addressAlignment(bundle.address);
    const uint64_t at = wrappers.fatbinStart + contents.size();
    const uint64_t padding = (alignment - at % alignment) % alignment;
    contents.addZeros(padding);
    rewrite.moves.push_back(
        {bundle.address, at + padding - wrappers.fatbinStart});
    if (compressedIndex[i] != SIZE_MAX) {
      contents.append(std::move(compressed[compressedIndex[i]]));
      continue;
    }
    auto rewritten = rewriter.rewrite(bundle.bytes,
                                      file + ":" + std::string(sectionName) +
                                          "@" + std::to_string(bundle.address));
    if (!rewritten)
      return rewritten.takeError();
    contents.append(std::move(*rewritten));
  }
  if (!rewriter.result().changed)
    return std::optional<FatbinRewrite>();
  return std::optional(std::move(rewrite));
}

namespace {

// A linked file without HIP wrappers: an OpenMP program or library of
// clang's new offloading driver keeps its offload binaries in an allocated
// .llvm.offloading, which the runtime's image table points into. compress
// and decompress have nothing to do there; prune would have to move what
// the table points at, which is not done.
Result<OutputPlan> rewriteLinkedOffloading(const std::string &file,
                                           const ElfObject &object,
                                           BundleRewriter &rewriter) {
  std::string_view section;
  for (const ElfSection &candidate : object.sections())
    if (candidate.name == kLlvmOffloadingSection)
      section = object.contents(candidate);
  if (section.empty())
    return fileError(file, "no HIP fat binary wrappers (.hipFatBinSegment) "
                           "point into .hip_fatbin: no GPU code to rewrite");
  if (rewriter.request().kind == RewriteKind::Prune)
    return fileError(file, "its offload binaries (.llvm.offloading) are not "
                           "pruned: the offloading runtime's image table "
                           "points into them in a linked file");
  auto kept = rewriteOffloadBinaries(file, section, rewriter, true);
  if (!kept)
    return kept.takeError();
  return OutputPlan::wholeInput(object.bytes().size());
}

} // namespace

Result<OutputPlan> rewriteLinked(const std::string &file,
                                 const ElfObject &object,
                                 BundleRewriter &rewriter) {
  const std::string_view bytes = object.bytes();
  auto found = readHipWrappers(object);
  if (!found)
    return fileError(file, found.error());
  if (!*found || (*found)->wrappers.empty())
    return rewriteLinkedOffloading(file, object, rewriter);
  const HipWrappers &wrappers = **found;
  auto rewritten =
      rewriteFatbin(file, bytes, wrappers, kHipFatbinSection, rewriter);
  if (!rewritten)
    return rewritten.takeError();
  if (!*rewritten)
    return OutputPlan::wholeInput(bytes.size());
  LinkedSectionResize resize;
  resize.sectionName = kHipFatbinSection;
  resize.moves = std::move((*rewritten)->moves);
  for (const HipWrapper &wrapper : wrappers.wrappers)
    resize.pointerFields.push_back(wrapper.address + kHipWrapperBinaryOffset);
  auto plan = planLinkedSectionResize(object, resize,
                                      std::move((*rewritten)->contents));
  if (!plan)
    return fileError(file, plan.error());
  return plan;
}

} // namespace offbundle::rewriting
