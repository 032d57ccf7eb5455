#include "toolkit/rewrite.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>

#include "archive/ar_archive.h"
#include "bitcode/bitcode_symbols.h"
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
  BundleRewriter(const RewriteRequest &request, RewriteResult &result)
      : request_(request), result_(result) {}

  // The bundle (plain or compressed) rewritten as asked; `name` names it in
  // messages.
  Result<std::string> rewrite(std::string_view bundle,
                              const std::string &name) {
    file_ = name;
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

  std::string file_;
  const RewriteRequest &request_;
  RewriteResult &result_;
};

// A relocatable object's .hip_fatbin rewritten, the rest of the object
// written again as llvm-objcopy --update-section does; nothing when the
// object has no .hip_fatbin (`required` makes that an error, naming why).
Result<std::optional<std::string>> rewriteObject(const std::string &name,
                                                 std::string_view bytes,
                                                 BundleRewriter &rewriter,
                                                 bool required) {
  auto object = parseElfObject(bytes);
  if (!object)
    return makeError("'" + name + "': " + object.error().message);
  if (object->header().programHeaderCount != 0)
    return makeError("'" + name +
                     "': rewriting executables and shared libraries is not "
                     "supported yet, only standalone bundles, relocatable "
                     "objects and archives of them");
  const ElfSection *fatbin = nullptr;
  bool newDriver = false;
  for (const ElfSection &section : object->sections()) {
    if (section.name == kFatbinSection)
      fatbin = &section;
    newDriver = newDriver || section.name == ".llvm.offloading";
  }
  if (!fatbin && newDriver)
    return makeError("'" + name +
                     "': objects of clang's new offloading driver "
                     "(.llvm.offloading) are not rewritten yet");
  if (!fatbin && !required)
    return std::optional<std::string>();
  if (!fatbin)
    return makeError("'" + name +
                     "': no .hip_fatbin section: no GPU code to rewrite");
  auto bundle = rewriter.rewrite(object->contents(*fatbin), name);
  if (!bundle)
    return bundle.takeError();
  auto plan = planSectionUpdate(bytes, kFatbinSection, *bundle);
  if (!plan)
    return makeError("'" + name + "': " + plan.error().message);
  return std::optional<std::string>(plan->render());
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
Result<std::string> rewriteArchive(const std::string &file,
                                   std::string_view bytes,
                                   BundleRewriter &rewriter,
                                   const RewriteResult &result) {
  if (bytes.substr(0, kThinArchiveMagic.size()) == kThinArchiveMagic)
    return makeError("'" + file +
                     "': thin archives are not rewritten; rewrite the "
                     "objects they name");
  auto members = readArchive(bytes, file);
  if (!members)
    return makeError("'" + file + "': " + members.error().message);
  std::deque<std::string> rewritten;
  std::vector<NewArchiveMember> written;
  for (const ArchiveMember &member : *members) {
    const std::string name = file + "(" + member.name + ")";
    std::optional<std::string> changed;
    if (isElf(member.bytes)) {
      auto object = rewriteObject(name, member.bytes, rewriter, false);
      if (!object)
        return object.takeError();
      changed = std::move(*object);
    } else if (isBundle(member.bytes)) {
      auto bundle = rewriter.rewrite(member.bytes, name);
      if (!bundle)
        return bundle.takeError();
      changed = std::move(*bundle);
    }
    if (changed) {
      rewritten.push_back(std::move(*changed));
      written.push_back({member.name, rewritten.back()});
    } else {
      written.push_back({member.name, member.bytes});
    }
  }
  if (!result.changed)
    return std::string(bytes);
  ArchiveWriteOptions options;
  options.sym64Threshold = sym64ThresholdFromEnvironment();
  options.bitcodeSymbols = [](std::string_view bitcode) {
    return bitcodeArchiveSymbols(bitcode);
  };
  auto plan = planGnuArchive(written, options);
  if (!plan)
    return makeError("'" + file + "': " + plan.error().message);
  std::string archive;
  archive.reserve(static_cast<size_t>(plan->size()));
  Status streamed = plan->stream([&](std::string_view piece) {
    archive += piece;
    return Status::success();
  });
  if (!streamed.ok())
    return streamed.takeError();
  return archive;
}

} // namespace

Result<RewriteResult> rewriteFile(const std::string &file,
                                  std::string_view bytes,
                                  const RewriteRequest &request) {
  RewriteResult result;
  BundleRewriter rewriter(request, result);
  Result<std::string> rewritten = std::string();
  if (isElf(bytes)) {
    auto object = rewriteObject(file, bytes, rewriter, true);
    if (!object)
      return object.takeError();
    rewritten = std::move(**object);
  } else if (isArchive(bytes)) {
    rewritten = rewriteArchive(file, bytes, rewriter, result);
  } else {
    rewritten = rewriter.rewrite(bytes, file);
  }
  if (!rewritten)
    return rewritten.takeError();
  result.bytes = std::move(*rewritten);
  return result;
}

} // namespace offbundle
