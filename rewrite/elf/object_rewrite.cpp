// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// prune, compress and decompress of relocatable objects and archives (see
// rewrite.h): an object's .hip_fatbin (or .llvm.offloading) rewritten and
// the object written again as llvm-objcopy --update-section writes it; an
// archive's members rewritten one by one and the archive written again as
// llvm-ar writes it.
#include "rewrite/bundle_rewriter.h"

#include <deque>
#include <memory>
#include <optional>

#include "archive/ar_reading.h"
#include "archive/ar_writing.h"
#include "formats/coff/coff_object.h"
#include "formats/embedded_offload.h"
#include "formats/file_magic.h"
#include "formats/objcopy/objcopy.h"
#include "formats/offload_binary.h"
#include "rewrite/target_selection.h"
#include "support/offload_sections.h"

namespace offbundle::rewriting {
namespace {

// A relocatable object rewritten: the plan llvm-objcopy's layout gives,
// and the new .hip_fatbin it views.
struct RewrittenObject {
  std::unique_ptr<const std::string> fatbin; // never moves
  ElfWritePlan plan;
};

} // namespace

Result<std::optional<std::string>>
rewriteOffloadBinaries(const std::string &name, std::string_view section,
                       BundleRewriter &rewriter, bool required) {
  const RewriteKind kind = rewriter.request().kind;
  const std::string context = quotedFileName(name) + ": section '" +
                              std::string(kLlvmOffloadingSection) + "'";
  auto binaries =
      splitOffloadBinaries(section, context, LlvmMessages::InContext);
  if (!binaries)
    return binaries.takeError();
  RewriteResult &result = rewriter.result();
  result.bundles += binaries->size();
  if (kind != RewriteKind::Prune) {
    if (required || result.nothingToDo.empty())
      result.nothingToDo = std::string(kOffloadBinariesNotCompressed);
    return std::optional<std::string>();
  }
  std::string kept;
  uint64_t removed = 0;
  for (const OffloadBinaryView &binary : *binaries) {
    if (binary.version != 1 || binary.inflated)
      return fileError(name, "pruning reads offload binaries of format version "
                             "1, one image each, as LLVM 22 writes them");
    if (!anySelects(rewriter.request().keep, offloadImageEntryId(binary))) {
      ++removed;
      continue;
    }
    ++result.entriesKept;
    ++result.deviceEntriesKept;
    kept += binary.bytes;
    // Each binary starts 8-byte aligned, as the linker and LLVM lay them.
    kept.append((8 - kept.size() % 8) % 8, '\0');
  }
  result.entriesRemoved += removed;
  if (removed == 0)
    return std::optional<std::string>();
  result.changed = true;
  return std::optional<std::string>(std::move(kept));
}

namespace {

// An object of clang's new offloading driver (see rewriteOffloadBinaries),
// its .llvm.offloading replaced as llvm-objcopy --update-section does.
Result<std::optional<RewrittenObject>>
rewriteOffloadingObject(const std::string &name, const ElfObject &object,
                        BundleRewriter &rewriter, bool required) {
  // `required`: the object is the file itself, not an archive member.
  std::string_view section;
  for (const ElfSection &candidate : object.sections())
    if (candidate.name == kLlvmOffloadingSection)
      section = object.contents(candidate);
  auto kept = rewriteOffloadBinaries(name, section, rewriter, required);
  if (!kept)
    return kept.takeError();
  if (!*kept)
    return std::optional<RewrittenObject>();
  RewrittenObject rewritten;
  rewritten.fatbin = std::make_unique<const std::string>(std::move(**kept));
  auto plan =
      planSectionUpdate(object, kLlvmOffloadingSection, *rewritten.fatbin);
  if (!plan)
    return fileError(name, plan.error());
  rewritten.plan = std::move(*plan);
  return std::optional<RewrittenObject>(std::move(rewritten));
}

// Whether an archive member is a COFF object with a .hip_fatbin or
// .llvm.offloading section that holds something.
bool holdsCoffGpuCode(std::string_view bytes) {
  const FileMagic magic = identifyFile(bytes);
  if (magic != FileMagic::Coff && magic != FileMagic::CoffBigObject)
    return false;
  auto sections = readCoffSections(bytes);
  if (!sections)
    return false;
  for (const CoffSection &section : *sections)
    if ((section.name == kHipFatbinSection ||
         section.name == kLlvmOffloadingSection) &&
        !section.contents.empty())
      return true;
  return false;
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
    return fileError(name, plan.error());
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
  return identifyFile(bytes) == FileMagic::CompressedBundle ||
         binaryBundleHeaderSize(bytes).value_or(0) != 0;
}

} // namespace

Result<OutputPlan> rewriteArchive(const std::string &file,
                                  std::string_view bytes,
                                  BundleRewriter &rewriter,
                                  const RewriteRequest &request) {
  if (bytes.substr(0, kThinArchiveMagic.size()) == kThinArchiveMagic)
    return fileError(file, "thin archives are not rewritten; rewrite the "
                           "objects they name");
  auto members = readArchive(bytes, file);
  if (!members)
    return fileError(file, members.error());
  std::deque<std::string> rewritten;
  std::vector<NewArchiveMember> written;
  for (const ArchiveMember &member : *members) {
    const std::string name = file + "(" + member.name + ")";
    std::optional<std::string> changed;
    if (isElf(member.bytes)) {
      auto parsed = parseElfObject(member.bytes);
      if (!parsed)
        return fileError(name, parsed.error());
      auto object = rewriteObject(name, *parsed, rewriter, false);
      if (!object)
        return object.takeError();
      if (*object)
        changed = (*object)->plan.render();
    } else if (holdsCoffGpuCode(member.bytes)) {
      return fileError(name, "a COFF object holding GPU code: archives of "
                             "COFF objects are not rewritten (llvm-ar "
                             "writes them in the COFF archive format); "
                             "rewrite the object and archive it again");
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
    return fileError(file, plan.error());
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

Result<OutputPlan> rewriteRelocatable(const std::string &file,
                                      const ElfObject &object,
                                      BundleRewriter &rewriter) {
  auto rewritten = rewriteObject(file, object, rewriter, true);
  if (!rewritten)
    return rewritten.takeError();
  if (!*rewritten) {
    OutputPlan unchanged;
    unchanged.addInput(0, object.bytes().size());
    return unchanged;
  }
  return asOutputPlan((*rewritten)->plan, object.bytes());
}

} // namespace offbundle::rewriting
