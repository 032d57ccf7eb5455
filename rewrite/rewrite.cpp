// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle prune, compress and decompress (see rewrite.h for the files they
// take and what each does to a bundle): the file's kind chosen, the part
// that rewrites it run (bundle_rewriter.h), and the output written.
#include "rewrite/rewrite.h"

#include <sys/stat.h>

#include "archive/ar_archive.h"
#include "formats/file_magic.h"
#include "rewrite/bundle_rewriter.h"

namespace offbundle {
namespace {

using rewriting::BundleRewriter;

// An ELF file, parsed once: every step reads this object.
Result<OutputPlan> rewriteElf(const std::string &file, std::string_view bytes,
                              BundleRewriter &rewriter) {
  auto parsed = parseElfObject(bytes);
  if (!parsed)
    return fileError(file, parsed.error().message);
  if (parsed->header().programHeaderCount != 0)
    return rewriting::rewriteLinked(file, *parsed, rewriter);
  return rewriting::rewriteRelocatable(file, *parsed, rewriter);
}

} // namespace

Result<RewriteResult> rewriteFile(const std::string &file,
                                  std::string_view bytes,
                                  const RewriteRequest &request,
                                  const InputFile *pages) {
  RewriteResult result;
  BundleRewriter rewriter(bytes, request, result, pages);
  Result<OutputPlan> rewritten = OutputPlan();
  const FileMagic magic = identifyFile(bytes);
  if (isElf(bytes))
    rewritten = rewriteElf(file, bytes, rewriter);
  else if (magic == FileMagic::PeImage)
    rewritten = rewriting::rewritePeImage(file, bytes, rewriter);
  else if (magic == FileMagic::Coff)
    rewritten = rewriting::rewriteCoffObject(file, bytes, rewriter);
  else if (isArchive(bytes))
    rewritten = rewriting::rewriteArchive(file, bytes, rewriter, request);
  else
    rewritten = rewriter.rewrite(bytes, file);
  if (!rewritten)
    return rewritten.takeError();
  result.plan = std::move(*rewritten);
  result.plan.setThreads(request.threads);
  return result;
}

namespace {

Status writeThrough(OutputTransaction &transaction, const std::string &path,
                    const RewriteResult &result, const InputFile &input) {
  struct stat info;
  const unsigned mode = input.fd() >= 0 && ::fstat(input.fd(), &info) == 0
                            ? info.st_mode & 0777
                            : 0666;
  auto output = transaction.create(path, mode);
  if (!output)
    return output.takeError();
  if (Status written = result.plan.write(**output, input); !written.ok())
    return written;
  // Written to meanwhile, the input may have given old bytes to the plan
  // and new ones to the copy (a compressed bundle whose hash is not its
  // data's): such an output is not put in place.
  if (Status unchanged = input.checkUnchanged(); !unchanged.ok())
    return unchanged;
  return transaction.commit();
}

} // namespace

Status writeRewrittenFile(const std::string &path, const RewriteResult &result,
                          const InputFile &input) {
  OutputTransaction transaction;
  // The output keeps the input's mode, whatever file it replaces.
  transaction.giveReplacedFilesTheNewMode();
  return writeThrough(transaction, path, result, input);
}

Status replaceRewrittenFile(std::vector<AnchoredName> names,
                            const RewriteResult &result,
                            const InputFile &input) {
  auto output = InPlaceOutput::create(std::move(names), input);
  if (!output)
    return output.takeError();
  if (Status written = result.plan.write((*output)->output(), input);
      !written.ok())
    return written;
  return (*output)->commit();
}

} // namespace offbundle
