// offbundle prune, compress and decompress (see rewrite.h for the files they
// take and what each does to a bundle): a rewriter of single bundles, then one
// function per kind of file. The plans keep input bytes as ranges of the input
// rather than copies.

#include "toolkit/rewrite.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "archive/ar_archive.h"
#include "bitcode/bitcode_symbols.h"
#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/bundle_format.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "formats/elf/linked_section_resize.h"
#include "formats/embedded_offload.h"
#include "formats/offload_binary.h"
#include "support/file_io.h"
#include "support/offload_sections.h"
#include "targets/offload_target.h"

namespace offbundle {
namespace {

constexpr uint64_t kLargestInferredAlignment = 4096;

struct PlainEntry {
  std::string id;
  ByteRange payload;
};

// A binary bundle's entries in file order, repeats included.
Result<std::vector<PlainEntry>> readPlainEntries(std::string_view bundle) {
  auto reader = BinaryBundleReader::openInFileOrder(bundle);
  if (!reader)
    return reader.takeError();
  std::vector<PlainEntry> entries;
  BundleReader &records = **reader;
  Status walked =
      forEachEntry(records, [&](std::string_view id) -> Result<EntryWalk> {
        auto payload = records.readEntry();
        if (!payload)
          return payload.takeError();
        entries.push_back({std::string(id), *payload});
        return EntryWalk::Continue;
      });
  if (!walked.ok())
    return walked.takeError();
  return entries;
}

// Whether `bytes` are a whole binary bundle, every entry inside them.
Status checkPlainBundle(std::string_view bytes) {
  if (!hasBinaryBundleMagic(bytes))
    return makeError("it has no bundle magic");
  if (auto entries = readPlainEntries(bytes); !entries)
    return entries.takeError();
  return Status::success();
}

// The alignment the bundle was written with, as far as its offsets show:
// the largest power of two up to 4096 dividing every payload offset.
uint64_t inferredAlignment(const std::vector<PlainEntry> &entries) {
  uint64_t alignment = kLargestInferredAlignment;
  for (const PlainEntry &entry : entries)
    while (alignment > 1 && entry.payload.offset % alignment != 0)
      alignment /= 2;
  return alignment;
}

// The pages of the input being rewritten, when it is a mapped file: read
// in ahead of a pass over a bundle, and let go of after it
// (InputFile::prefetchPages, releasePages), so that a pass over a large
// library takes fewer page faults and keeps its memory flat.
class InputPages {
public:
  InputPages(std::string_view bytes, const InputFile *file)
      : bytes_(bytes), file_(file) {}
  void willRead(std::string_view part) const {
    if (file_)
      file_->prefetchPages(offsetOf(part), part.size());
  }
  void doneReading(std::string_view part) const {
    if (file_)
      file_->releasePages(offsetOf(part), part.size());
  }

private:
  uint64_t offsetOf(std::string_view part) const {
    return static_cast<uint64_t>(part.data() - bytes_.data());
  }
  std::string_view bytes_;
  const InputFile *file_;
};

// Rewrites bundles as a request asks. Every bundle it is given views the
// input (`input`), and what it keeps of a bundle it names as ranges of the
// input rather than copies.
class BundleRewriter {
public:
  BundleRewriter(std::string_view input, const RewriteRequest &request,
                 RewriteResult &result, const InputFile *pages)
      : input_(input), request_(request), result_(result),
        pages_(input, pages) {}

  const RewriteRequest &request() const { return request_; }
  RewriteResult &result() { return result_; }
  const InputPages &pages() const { return pages_; }

  // The bundle (plain or compressed) rewritten as asked; `name` names it in
  // messages.
  Result<OutputPlan> rewrite(std::string_view bundle, const std::string &name) {
    file_ = name;
    if (bundle.size() >= kCompressedBundleCommonHeaderSize &&
        hasCompressedBundleMagic(bundle))
      return rewriteCompressed(bundle);
    if (binaryBundleHeaderSize(bundle).value_or(0) == 0)
      return fileError(file_, "not an offload bundle");
    switch (request_.kind) {
    case RewriteKind::Decompress:
      return unchanged(bundle);
    case RewriteKind::Compress: {
      // A damaged bundle is refused rather than sealed into a compressed
      // one that every reader would then refuse.
      if (Status valid = checkPlainBundle(bundle); !valid.ok())
        return fileError(file_, valid.error().message);
      result_.changed = true;
      CompressionOptions options;
      options.level = request_.compressionLevel;
      auto compressed = compressBundle(bundle, options);
      if (!compressed)
        return compressed.takeError();
      OutputPlan plan;
      plan.addBytes(std::move(*compressed));
      return plan;
    }
    case RewriteKind::Prune:
      break;
    }
    return prune(bundle, input_);
  }

  // The bundle as it is, named as its range of the input.
  OutputPlan unchanged(std::string_view bundle) const {
    OutputPlan plan;
    plan.addInput(offsetInInput(bundle), bundle.size());
    return plan;
  }

  // The bytes a plan holds, ranges of the input included.
  Result<std::string> render(const OutputPlan &plan) const {
    return plan.render(input_);
  }

private:
  HashCheck hashCheck() const {
    return request_.verifyHash ? HashCheck::Verify : HashCheck::Skip;
  }

  uint64_t offsetInInput(std::string_view bytes) const {
    return static_cast<uint64_t>(bytes.data() - input_.data());
  }

  Result<OutputPlan> rewriteCompressed(std::string_view bundle) {
    auto spans = splitConcatenatedCompressedBundles(bundle);
    if (!spans)
      return fileError(file_, spans.error().message);
    if (spans->size() != 1)
      return fileError(file_,
                       "holds " + std::to_string(spans->size()) +
                           " compressed bundles end to end; a standalone file "
                           "of one bundle is rewritten");
    if (request_.kind == RewriteKind::Compress)
      return unchanged(bundle);
    const CompressedBundleHeader header = spans->front().header;
    result_.changed = true;
    OutputPlan rewritten;
    if (request_.kind == RewriteKind::Decompress) {
      // Decompressed as the output is written, a few bundles in memory at
      // a time: a library of a hundred bundles never holds them all.
      const std::string_view compressed = spans->front().bytes;
      rewritten.addProduced(
          header.uncompressedSize,
          [compressed, name = file_,
           check = hashCheck()](ByteBuffer spare) -> Result<ByteBuffer> {
            auto plain = decompressBundle(compressed, check, std::move(spare));
            if (!plain)
              return fileError(name, plain.error().message);
            // What it held must be a bundle, as for any plain input.
            if (Status valid = checkPlainBundle(plain->bytes.view());
                !valid.ok())
              return fileError(name, "the compressed bundle holds no valid "
                                     "bundle: " +
                                         valid.error().message);
            return std::move(plain->bytes);
          },
          offsetInInput(compressed), compressed.size());
      return rewritten;
    }
    auto plain = decompressBundle(spans->front().bytes, hashCheck());
    if (!plain)
      return fileError(file_, plain.error().message);
    auto pruned = prune(plain->bytes.view(), plain->bytes.view());
    if (!pruned)
      return pruned.takeError();
    CompressionOptions options;
    options.method = header.method;
    options.version = header.version;
    options.level = header.method == CompressionMethod::Zlib
                        ? kDefaultZlibLevel
                        : request_.compressionLevel;
    auto prunedBytes = pruned->render(plain->bytes.view());
    if (!prunedBytes)
      return prunedBytes.takeError();
    auto compressed = compressBundle(*prunedBytes, options);
    if (!compressed)
      return compressed.takeError();
    rewritten.addBytes(std::move(*compressed));
    return rewritten;
  }

  // The plain bundle with only the host entries and the selected ones; its
  // payloads named as ranges of `base`, which `bundle` views.
  Result<OutputPlan> prune(std::string_view bundle, std::string_view base) {
    auto entries = readPlainEntries(bundle);
    if (!entries)
      return fileError(file_, entries.error().message);
    const uint64_t bundleStart =
        static_cast<uint64_t>(bundle.data() - base.data());
    std::vector<BinaryBundleEntryShape> kept;
    std::vector<uint64_t> keptOffsets;
    for (const PlainEntry &entry : *entries) {
      std::optional<OffloadTarget> target =
          OffloadTarget::parseStored(entry.id);
      const bool host = target && target->hasHostKind();
      if (!host && !anySelects(request_.keep, entry.id)) {
        ++result_.entriesRemoved;
        continue;
      }
      ++result_.entriesKept;
      result_.deviceEntriesKept += host ? 0 : 1;
      kept.push_back({entry.id, entry.payload.size});
      keptOffsets.push_back(bundleStart + entry.payload.offset);
    }
    OutputPlan plan;
    if (kept.size() == entries->size()) {
      plan.addInput(bundleStart, bundle.size());
      return plan;
    }
    result_.changed = true;
    auto layout = layOutBinaryBundle(kept, inferredAlignment(*entries));
    if (!layout)
      return layout.takeError();
    uint64_t written = layout->header.size();
    plan.addBytes(std::move(layout->header));
    for (size_t i = 0; i < kept.size(); ++i) {
      plan.addZeros(layout->offsets[i] - written);
      plan.addInput(keptOffsets[i], kept[i].size);
      written = layout->offsets[i] + kept[i].size;
    }
    return plan;
  }

  std::string_view input_;
  std::string file_;
  const RewriteRequest &request_;
  RewriteResult &result_;
  InputPages pages_;
};

// A relocatable object rewritten: the plan llvm-objcopy's layout gives,
// and the new .hip_fatbin it views.
struct RewrittenObject {
  std::unique_ptr<const std::string> fatbin; // never moves
  ElfWritePlan plan;
};

// An object of clang's new offloading driver: .llvm.offloading holds one
// offload binary per image, end to end. prune keeps the binaries of the
// kept targets, in order (they have no host entry); compress and
// decompress have nothing to do: there is no bundle, and LLVM 22 reads no
// compressed offload binary. The section is replaced as llvm-objcopy
// --update-section does.
Result<std::optional<RewrittenObject>>
rewriteOffloadingObject(const std::string &name, const ElfObject &object,
                        BundleRewriter &rewriter, bool required) {
  // `required`: the object is the file itself, not an archive member.
  const RewriteKind kind = rewriter.request().kind;
  std::string_view section;
  for (const ElfSection &candidate : object.sections())
    if (candidate.name == kLlvmOffloadingSection)
      section = object.contents(candidate);
  auto binaries = splitOffloadBinaries(
      section,
      "'" + name + "': section '" + std::string(kLlvmOffloadingSection) + "'");
  if (!binaries)
    return binaries.takeError();
  RewriteResult &result = rewriter.result();
  if (kind != RewriteKind::Prune) {
    if (required)
      result.nothingToDo = "it holds offload binaries (.llvm.offloading), "
                           "not bundles, and LLVM 22 reads no compressed "
                           "offload binary";
    return std::optional<RewrittenObject>();
  }
  std::string kept;
  for (const OffloadBinaryView &binary : *binaries) {
    if (binary.version != 1 || binary.inflated)
      return fileError(name, "pruning reads offload binaries of format version "
                             "1, one image each, as LLVM 22 writes them");
    if (!anySelects(rewriter.request().keep, offloadImageEntryId(binary))) {
      ++result.entriesRemoved;
      continue;
    }
    ++result.entriesKept;
    ++result.deviceEntriesKept;
    kept += binary.bytes;
    // Each binary starts 8-byte aligned, as the linker and LLVM lay them.
    kept.append((8 - kept.size() % 8) % 8, '\0');
  }
  if (result.entriesRemoved == 0)
    return std::optional<RewrittenObject>();
  result.changed = true;
  RewrittenObject rewritten;
  rewritten.fatbin = std::make_unique<const std::string>(std::move(kept));
  auto plan =
      planSectionUpdate(object, kLlvmOffloadingSection, *rewritten.fatbin);
  if (!plan)
    return fileError(name, plan.error().message);
  rewritten.plan = std::move(*plan);
  return std::optional<RewrittenObject>(std::move(rewritten));
}

// A relocatable object's .hip_fatbin rewritten, the rest of the object
// written again as llvm-objcopy --update-section does; nothing when the
// object has no .hip_fatbin (`required` makes that an error, naming why).
Result<std::optional<RewrittenObject>> rewriteObject(const std::string &name,
                                                     const ElfObject &object,
                                                     BundleRewriter &rewriter,
                                                     bool required) {
  const ElfSection *fatbin = nullptr;
  bool newDriver = false;
  for (const ElfSection &section : object.sections()) {
    if (section.name == kHipFatbinSection)
      fatbin = &section;
    newDriver = newDriver || section.name == kLlvmOffloadingSection;
  }
  if (!fatbin && newDriver)
    return rewriteOffloadingObject(name, object, rewriter, required);
  if (!fatbin && !required)
    return std::optional<RewrittenObject>();
  if (!fatbin)
    return fileError(name, "no .hip_fatbin section: no GPU code to rewrite");
  auto bundle = rewriter.rewrite(object.contents(*fatbin), name);
  if (!bundle)
    return bundle.takeError();
  auto contents = rewriter.render(*bundle);
  if (!contents)
    return contents.takeError();
  RewrittenObject rewritten;
  rewritten.fatbin = std::make_unique<const std::string>(std::move(*contents));
  auto plan = planSectionUpdate(object, kHipFatbinSection, *rewritten.fatbin);
  if (!plan)
    return fileError(name, plan.error().message);
  rewritten.plan = std::move(*plan);
  return std::optional<RewrittenObject>(std::move(rewritten));
}

// An object's write plan as an output plan: what it takes from `input` as
// ranges of it, the gaps as zeros (a section aligned to 600 MiB, which
// llvm-objcopy pads out too, costs no memory), the rest copied.
OutputPlan asOutputPlan(const ElfWritePlan &plan, std::string_view input) {
  OutputPlan output;
  for (const ElfOutputChunk &chunk : plan.chunks()) {
    output.addZeros(chunk.offset - output.size());
    const auto start = reinterpret_cast<uintptr_t>(chunk.bytes.data());
    const auto base = reinterpret_cast<uintptr_t>(input.data());
    if (start >= base && start - base <= input.size() &&
        chunk.bytes.size() <= input.size() - (start - base))
      output.addInput(start - base, chunk.bytes.size());
    else
      output.addBytes(std::string(chunk.bytes));
  }
  output.addZeros(plan.size() - output.size());
  return output;
}

bool isBundle(std::string_view bytes) {
  return (bytes.size() >= kCompressedBundleCommonHeaderSize &&
          hasCompressedBundleMagic(bytes)) ||
         binaryBundleHeaderSize(bytes).value_or(0) != 0;
}

// An archive whose members are rewritten one by one (objects with a
// .hip_fatbin, and bundles; other members as they are), written again as
// llvm-ar rcD writes it: GNU format, a symbol table, no timestamps. The
// input comes back unchanged when no member changed.
Result<OutputPlan> rewriteArchive(const std::string &file,
                                  std::string_view bytes,
                                  BundleRewriter &rewriter,
                                  const RewriteRequest &request) {
  if (bytes.substr(0, kThinArchiveMagic.size()) == kThinArchiveMagic)
    return fileError(file, "thin archives are not rewritten; rewrite the "
                           "objects they name");
  auto members = readArchive(bytes, file);
  if (!members)
    return fileError(file, members.error().message);
  std::deque<std::string> rewritten;
  std::vector<NewArchiveMember> written;
  for (const ArchiveMember &member : *members) {
    const std::string name = file + "(" + member.name + ")";
    std::optional<std::string> changed;
    if (isElf(member.bytes)) {
      auto parsed = parseElfObject(member.bytes);
      if (!parsed)
        return fileError(name, parsed.error().message);
      auto object = rewriteObject(name, *parsed, rewriter, false);
      if (!object)
        return object.takeError();
      if (*object)
        changed = (*object)->plan.render();
    } else if (isBundle(member.bytes)) {
      auto bundle = rewriter.rewrite(member.bytes, name);
      if (!bundle)
        return bundle.takeError();
      auto contents = rewriter.render(*bundle);
      if (!contents)
        return contents.takeError();
      changed = std::move(*contents);
    }
    if (changed) {
      rewritten.push_back(std::move(*changed));
      written.push_back({member.name, rewritten.back()});
    } else {
      written.push_back({member.name, member.bytes});
    }
  }
  OutputPlan whole;
  if (!rewriter.result().changed) {
    whole.addInput(0, bytes.size());
    return whole;
  }
  const ArchiveWriteOptions options =
      llvmArchiveWriteOptions(request.archiveSym64Threshold);
  auto plan = planGnuArchive(written, options);
  if (!plan)
    return fileError(file, plan.error().message);
  std::string archive;
  archive.reserve(static_cast<size_t>(plan->size()));
  Status streamed = plan->stream([&](std::string_view piece) {
    archive += piece;
    return Status::success();
  });
  if (!streamed.ok())
    return streamed.takeError();
  whole.addBytes(std::move(archive));
  return whole;
}

// The bundles of a linked file's .hip_fatbin: where each starts (the
// wrappers' pointers) and how long it is.
struct LinkedBundle {
  uint64_t address = 0;
  std::string_view bytes;
};

// Each bundle's extent: a compressed bundle's recorded size, or a plain
// bundle's header and furthest payload; what follows it up to the next
// bundle is padding.
Result<uint64_t> linkedBundleExtent(std::string_view room) {
  if (room.size() >= kCompressedBundleCommonHeaderSize &&
      hasCompressedBundleMagic(room)) {
    auto header = parseCompressedBundleHeader(room);
    if (!header)
      return header.takeError();
    auto extent = compressedBundleExtent(*header, room);
    if (!extent)
      return extent.takeError();
    return static_cast<uint64_t>(*extent);
  }
  if (binaryBundleHeaderSize(room).value_or(0) == 0)
    return makeError("no offload bundle starts there");
  return binaryBundleExtent(room);
}

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
    auto extent = linkedBundleExtent(room);
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
                     const InputPages &pages) {
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
      std::thread::hardware_concurrency(), 1,
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

// An executable or shared library whose .hip_fatbin bundles are rewritten,
// laid out anew one after the other (each at the alignment it had), the
// wrappers repointed and the file shrunk (see
// formats/elf/linked_section_resize.h).
Result<OutputPlan> rewriteLinked(const std::string &file,
                                 const ElfObject &object,
                                 BundleRewriter &rewriter) {
  const std::string_view bytes = object.bytes();
  auto found = readHipWrappers(object);
  if (!found)
    return fileError(file, found.error().message);
  if (!*found || (*found)->wrappers.empty())
    return fileError(file, "no HIP fat binary wrappers (.hipFatBinSegment) "
                           "point into .hip_fatbin: no GPU code to rewrite");
  const HipWrappers &wrappers = **found;
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
    auto done = compressConcurrently(plain, rewriter.request().compressionLevel,
                                     rewriter.pages());
    if (!done)
      return fileError(file, done.error().message);
    compressed = std::move(*done);
    rewriter.result().changed = rewriter.result().changed || !plain.empty();
  }

  OutputPlan contents;
  LinkedSectionResize resize;
  resize.sectionName = kHipFatbinSection;
  // Whatever precedes the first bundle stays where it is.
  const uint64_t first = bundles->front().address;
  contents.addInput(wrappers.fatbinOffset, first - wrappers.fatbinStart);
  for (size_t i = 0; i < bundles->size(); ++i) {
    const LinkedBundle &bundle = (*bundles)[i];
    const uint64_t alignment = addressAlignment(bundle.address);
    const uint64_t at = wrappers.fatbinStart + contents.size();
    const uint64_t padding = (alignment - at % alignment) % alignment;
    contents.addZeros(padding);
    resize.moves.push_back(
        {bundle.address, at + padding - wrappers.fatbinStart});
    if (compressedIndex[i] != SIZE_MAX) {
      contents.append(std::move(compressed[compressedIndex[i]]));
      continue;
    }
    auto rewritten = rewriter.rewrite(
        bundle.bytes, file + ":.hip_fatbin@" + std::to_string(bundle.address));
    if (!rewritten)
      return rewritten.takeError();
    contents.append(std::move(*rewritten));
  }
  if (!rewriter.result().changed) {
    OutputPlan whole;
    whole.addInput(0, bytes.size());
    return whole;
  }
  for (const HipWrapper &wrapper : wrappers.wrappers)
    resize.pointerFields.push_back(wrapper.address + kHipWrapperBinaryOffset);
  auto plan = planLinkedSectionResize(object, resize, std::move(contents));
  if (!plan)
    return fileError(file, plan.error().message);
  return plan;
}

// An ELF file, parsed once: every step below reads this object.
Result<OutputPlan> rewriteElf(const std::string &file, std::string_view bytes,
                              BundleRewriter &rewriter) {
  auto parsed = parseElfObject(bytes);
  if (!parsed)
    return fileError(file, parsed.error().message);
  if (parsed->header().programHeaderCount != 0)
    return rewriteLinked(file, *parsed, rewriter);
  auto object = rewriteObject(file, *parsed, rewriter, true);
  if (!object)
    return object.takeError();
  if (!*object) {
    OutputPlan unchanged;
    unchanged.addInput(0, bytes.size());
    return unchanged;
  }
  return asOutputPlan((*object)->plan, bytes);
}

} // namespace

Result<RewriteResult> rewriteFile(const std::string &file,
                                  std::string_view bytes,
                                  const RewriteRequest &request,
                                  const InputFile *pages) {
  RewriteResult result;
  BundleRewriter rewriter(bytes, request, result, pages);
  Result<OutputPlan> rewritten = OutputPlan();
  if (isElf(bytes))
    rewritten = rewriteElf(file, bytes, rewriter);
  else if (isArchive(bytes))
    rewritten = rewriteArchive(file, bytes, rewriter, request);
  else
    rewritten = rewriter.rewrite(bytes, file);
  if (!rewritten)
    return rewritten.takeError();
  result.plan = std::move(*rewritten);
  return result;
}

} // namespace offbundle
