#include "toolkit/rewrite.h"

#include <algorithm>
#include <memory>

#include "archive/ar_archive.h"
#include "compression/compressed_bundle.h"
#include "formats/binary_bundle.h"
#include "formats/bundle_format.h"
#include "formats/elf_object.h"
#include "support/file_io.h"
#include "targets/offload_target.h"

namespace offbundle {
namespace {

constexpr std::string_view kFatbinSection = ".hip_fatbin";
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

// The alignment the bundle was written with, as far as its offsets show:
// the largest power of two up to 4096 dividing every payload offset.
uint64_t inferredAlignment(const std::vector<PlainEntry> &entries) {
  uint64_t alignment = kLargestInferredAlignment;
  for (const PlainEntry &entry : entries)
    while (alignment > 1 && entry.payload.offset % alignment != 0)
      alignment /= 2;
  return alignment;
}

class BundleRewriter {
public:
  BundleRewriter(const std::string &file, const RewriteRequest &request,
                 RewriteResult &result)
      : file_(file), request_(request), result_(result) {}

  // The bundle (plain or compressed) rewritten as asked.
  Result<std::string> rewrite(std::string_view bundle) {
    if (bundle.size() >= kCompressedBundleCommonHeaderSize &&
        hasCompressedBundleMagic(bundle))
      return rewriteCompressed(bundle);
    if (binaryBundleHeaderSize(bundle).value_or(0) == 0)
      return makeError("'" + file_ + "': not an offload bundle");
    switch (request_.kind) {
    case RewriteKind::Decompress:
      return std::string(bundle);
    case RewriteKind::Compress: {
      result_.changed = true;
      CompressionOptions options;
      options.level = request_.compressionLevel;
      return compressBundle(bundle, options);
    }
    case RewriteKind::Prune:
      break;
    }
    return prune(bundle);
  }

private:
  Result<std::string> rewriteCompressed(std::string_view bundle) {
    auto spans = splitConcatenatedCompressedBundles(bundle);
    if (!spans)
      return makeError("'" + file_ + "': " + spans.error().message);
    if (spans->size() != 1)
      return makeError("'" + file_ + "': holds " +
                       std::to_string(spans->size()) +
                       " compressed bundles end to end; a standalone file "
                       "of one bundle is rewritten");
    if (request_.kind == RewriteKind::Compress)
      return std::string(bundle);
    const CompressedBundleHeader header = spans->front().header;
    auto plain = decompressBundle(spans->front().bytes, HashCheck::Verify);
    if (!plain)
      return makeError("'" + file_ + "': " + plain.error().message);
    result_.changed = true;
    if (request_.kind == RewriteKind::Decompress)
      return std::string(plain->bytes.view());
    auto pruned = prune(plain->bytes.view());
    if (!pruned)
      return pruned.takeError();
    CompressionOptions options;
    options.method = header.method;
    options.version = header.version;
    options.level = header.method == CompressionMethod::Zlib
                        ? kDefaultZlibLevel
                        : request_.compressionLevel;
    return compressBundle(*pruned, options);
  }

  // The plain bundle with only the host entries and the selected ones.
  Result<std::string> prune(std::string_view bundle) {
    auto entries = readPlainEntries(bundle);
    if (!entries)
      return makeError("'" + file_ + "': " + entries.error().message);
    const std::unique_ptr<InputFile> source =
        InputFile::fromMemory(file_, std::string(bundle));
    std::vector<std::unique_ptr<InputFile>> payloads;
    std::vector<EntryToWrite> kept;
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
      payloads.push_back(
          InputFile::slice(*source, entry.payload.offset, entry.payload.size));
      kept.push_back({entry.id, payloads.back().get()});
    }
    if (kept.size() == entries->size())
      return std::string(bundle);
    result_.changed = true;
    OutputTransaction transaction;
    OutputFile *output = transaction.createInMemory();
    if (Status written =
            writeBinaryBundle(*output, kept, inferredAlignment(*entries));
        !written.ok())
      return written.takeError();
    return std::string(output->memoryContents());
  }

  const std::string &file_;
  const RewriteRequest &request_;
  RewriteResult &result_;
};

// A relocatable object's .hip_fatbin rewritten, the rest of the object
// written again as llvm-objcopy --update-section does.
Result<std::string> rewriteObject(const std::string &file,
                                  std::string_view bytes,
                                  BundleRewriter &rewriter) {
  auto object = parseElfObject(bytes);
  if (!object)
    return makeError("'" + file + "': " + object.error().message);
  if (object->header().programHeaderCount != 0)
    return makeError("'" + file +
                     "': rewriting executables and shared libraries is not "
                     "supported yet, only standalone bundles and "
                     "relocatable objects");
  const ElfSection *fatbin = nullptr;
  bool newDriver = false;
  for (const ElfSection &section : object->sections()) {
    if (section.name == kFatbinSection)
      fatbin = &section;
    newDriver = newDriver || section.name == ".llvm.offloading";
  }
  if (!fatbin)
    return makeError(
        "'" + file + "': " +
        (newDriver ? std::string("objects of clang's new offloading driver "
                                 "(.llvm.offloading) are not rewritten yet")
                   : std::string("no .hip_fatbin section: no GPU code to "
                                 "rewrite")));
  auto bundle = rewriter.rewrite(object->contents(*fatbin));
  if (!bundle)
    return bundle.takeError();
  auto plan = planSectionUpdate(bytes, kFatbinSection, *bundle);
  if (!plan)
    return makeError("'" + file + "': " + plan.error().message);
  return plan->render();
}

} // namespace

Result<RewriteResult> rewriteFile(const std::string &file,
                                  std::string_view bytes,
                                  const RewriteRequest &request) {
  RewriteResult result;
  BundleRewriter rewriter(file, request, result);
  Result<std::string> rewritten = std::string();
  if (isElf(bytes))
    rewritten = rewriteObject(file, bytes, rewriter);
  else if (isArchive(bytes))
    return makeError("'" + file +
                     "': rewriting archives is not supported "
                     "yet, only standalone bundles and relocatable objects");
  else
    rewritten = rewriter.rewrite(bytes);
  if (!rewritten)
    return rewritten.takeError();
  result.bytes = std::move(*rewritten);
  return result;
}

} // namespace offbundle
