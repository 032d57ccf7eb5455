// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The rewriter of single bundles that prune, compress and decompress share
// (see rewrite.h), and the parts that rewrite each kind of file around it:
// relocatable objects and archives (object_rewrite.cpp), executables and
// shared libraries (linked_rewrite.cpp). Internal to the toolkit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/bundle_format.h"
#include "formats/coff/pe_hip_wrappers.h"
#include "formats/elf/elf_object.h"
#include "formats/elf/hip_wrappers.h"
#include "rewrite/elf/linked_section_resize.h"
#include "rewrite/rewrite.h"
#include "support/input_edits.h"
#include "support/input_file.h"
#include "support/output_plan.h"

namespace offbundle::rewriting {

// The largest alignment a bundle's offsets are taken to show.
inline constexpr uint64_t kLargestInferredAlignment = 4096;

struct PlainEntry {
  std::string id;
  ByteRange payload;
};

// A binary bundle's entries in file order, repeats included.
Result<std::vector<PlainEntry>> readPlainEntries(std::string_view bundle);

// Whether `bytes` are a whole binary bundle, every entry inside them.
Status checkPlainBundle(std::string_view bytes);

// The alignment the bundle was written with, as far as its offsets show:
// the largest power of two up to 4096 dividing every payload offset.
uint64_t inferredAlignment(const std::vector<PlainEntry> &entries);

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
    ++result_.bundles;
    if (bundle.size() >= kCompressedBundleCommonHeaderSize &&
        hasCompressedBundleMagic(bundle))
      return rewriteCompressed(bundle);
    if (binaryBundleHeaderSize(bundle).value_or(0) == 0)
      return fileError(file_, "not an offload bundle");
    switch (request_.kind) {
    case RewriteKind::Decompress:
      // Left as it is, but not when damaged: a run that reads it must not
      // say it is fine.
      if (Status valid = checkPlainBundle(bundle); !valid.ok())
        return fileError(file_, valid.error());
      return unchanged(bundle);
    case RewriteKind::Compress: {
      // A damaged bundle is refused rather than sealed into a compressed
      // one that every reader would then refuse.
      if (Status valid = checkPlainBundle(bundle); !valid.ok())
        return fileError(file_, valid.error());
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
  // Whether the hash of `compressed`, a compressed bundle of the input, is
  // to be checked as it is decompressed: not when that was done already.
  HashCheck hashCheck(std::string_view compressed) const {
    if (!request_.verifyHash)
      return HashCheck::Skip;
    const uint64_t offset = offsetInInput(compressed);
    const std::vector<ByteRange> &checked = request_.hashesChecked;
    auto found = std::lower_bound(
        checked.begin(), checked.end(), offset,
        [](const ByteRange &range, uint64_t at) { return range.offset < at; });
    return found != checked.end() && found->offset == offset &&
                   found->size == compressed.size()
               ? HashCheck::Skip
               : HashCheck::Verify;
  }

  uint64_t offsetInInput(std::string_view bytes) const {
    return static_cast<uint64_t>(bytes.data() - input_.data());
  }

  Result<OutputPlan> rewriteCompressed(std::string_view bundle) {
    auto spans = splitConcatenatedCompressedBundles(bundle);
    if (!spans)
      return fileError(file_, spans.error());
    if (spans->size() != 1)
      return fileError(file_,
                       "holds " + std::to_string(spans->size()) +
                           " compressed bundles end to end; a standalone file "
                           "of one bundle is rewritten");
    if (request_.kind == RewriteKind::Compress)
      return unchanged(bundle);
    const CompressedBundleHeader header = spans->front().header;
    OutputPlan rewritten;
    if (request_.kind == RewriteKind::Decompress) {
      result_.changed = true;
      // Decompressed as the output is written, a few bundles in memory at
      // a time: a library of a hundred bundles never holds them all.
      const std::string_view compressed = spans->front().bytes;
      rewritten.addProduced(
          header.uncompressedSize,
          [compressed, name = file_, check = hashCheck(compressed)](
              ByteBuffer spare) -> Result<ByteBuffer> {
            auto plain = decompressBundle(compressed, check, std::move(spare));
            if (!plain)
              return fileError(name, plain.error());
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
    auto plain =
        decompressBundle(spans->front().bytes, hashCheck(spans->front().bytes));
    if (!plain)
      return fileError(file_, plain.error());
    const uint64_t removedBefore = result_.entriesRemoved;
    auto pruned = prune(plain->bytes.view(), plain->bytes.view());
    if (!pruned)
      return pruned.takeError();
    // Nothing removed: the bundle stays as it is, not compressed again.
    if (result_.entriesRemoved == removedBefore)
      return unchanged(bundle);
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
      return fileError(file_, entries.error());
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

// Why compress and decompress leave offload binaries (clang's new
// offloading driver's .llvm.offloading) as they are.
inline constexpr std::string_view kOffloadBinariesNotCompressed =
    "it holds offload binaries (.llvm.offloading), not bundles, and LLVM 22 "
    "reads no compressed offload binary";

// An object's .llvm.offloading section, one offload binary per image end to
// end, rewritten: prune keeps the binaries of the kept targets, in order,
// each 8-byte aligned (they have no host entry); compress and decompress
// have nothing to do (kOffloadBinariesNotCompressed, made the file's reason
// when `required`: the object is the file, not an archive member). The new
// contents, or nothing when they stay as they are.
Result<std::optional<std::string>>
rewriteOffloadBinaries(const std::string &name, std::string_view section,
                       BundleRewriter &rewriter, bool required);

// A relocatable ELF object (no program headers) rewritten.
Result<OutputPlan> rewriteRelocatable(const std::string &file,
                                      const ElfObject &object,
                                      BundleRewriter &rewriter);

// An archive whose members are rewritten one by one (ELF objects with a
// .hip_fatbin or .llvm.offloading, and bundles; other members as they
// are), written again as llvm-ar rcD writes it: GNU format, a symbol table,
// no timestamps. The input comes back unchanged when no member changed. An
// archive of COFF objects holding GPU code is refused: llvm-ar writes those
// in the COFF archive format, which is not written here.
Result<OutputPlan> rewriteArchive(const std::string &file,
                                  std::string_view bytes,
                                  BundleRewriter &rewriter,
                                  const RewriteRequest &request);

// The bundles the HIP fat binary wrappers point at in a linked file's fat
// binary section (`sectionName`, for messages), rewritten (plain ones
// compressed on every core) and laid out anew one after the other, each at
// the alignment it had: the section's new contents, and where each old
// bundle start goes. Nothing when no bundle changes.
struct FatbinRewrite {
  OutputPlan contents;
  std::vector<AddressMove> moves; // sorted by `from`
};
Result<std::optional<FatbinRewrite>> rewriteFatbin(const std::string &file,
                                                   std::string_view bytes,
                                                   const HipWrappers &wrappers,
                                                   std::string_view sectionName,
                                                   BundleRewriter &rewriter);

// An executable or shared library whose .hip_fatbin bundles are rewritten,
// laid out anew one after the other (each at the alignment it had), the
// wrappers repointed and the file shrunk (see
// rewrite/elf/linked_section_resize.h).
Result<OutputPlan> rewriteLinked(const std::string &file,
                                 const ElfObject &object,
                                 BundleRewriter &rewriter);

// A COFF object whose .hip_fatbin bundle (or .llvm.offloading offload
// binaries) is rewritten, the object laid out again around it (see
// coff_object_rewrite.cpp).
Result<OutputPlan> rewriteCoffObject(const std::string &file,
                                     std::string_view bytes,
                                     BundleRewriter &rewriter);

// A PE image (DLL or EXE) whose .hip_fat bundles are rewritten, laid out
// anew, the wrappers repointed, and the file shrunk (see pe_rewrite.cpp).
Result<OutputPlan> rewritePeImage(const std::string &file,
                                  std::string_view bytes,
                                  BundleRewriter &rewriter);

// The PE image laid out again around new .hip_fat contents (what
// rewritePeImage does once the bundles are rewritten; see pe_rewrite.cpp):
// `rewrite.moves` maps the wrappers' pointers (`image`'s, which may differ
// from the file's) to their bundles; `patches` are further fields to set.
// checkRewritablePeImage first says whether the image may be rewritten.
Status checkRewritablePeImage(const std::string &file, const PeLayout &layout);
Result<OutputPlan> layOutPeFatbin(const std::string &file,
                                  std::string_view bytes,
                                  const PeHipImage &image,
                                  FatbinRewrite rewrite, InputEdits patches);

} // namespace offbundle::rewriting
