// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle prune, compress and decompress (see rewrite.h for the files they
// take and what each does to a bundle): the file's kind chosen, its editor
// run (host_editors.h), and the output written.
#include "rewrite/rewrite.h"

#include <sys/stat.h>

#include "formats/host_kinds.h"
#include "rewrite/bundle_rewriter.h"
#include "rewrite/host_editors.h"
#include "support/output_transaction.h"

namespace offbundle {

using rewriting::BundleRewriter;

Result<RewriteResult> rewriteFile(const std::string &file,
                                  std::string_view bytes,
                                  const RewriteRequest &request,
                                  const InputFile *pages) {
  RewriteResult result;
  BundleRewriter rewriter(bytes, request, result, pages);
  Result<OutputPlan> rewritten =
      rewriting::hostEditor(classifyHost(bytes)).edit(file, bytes, rewriter);
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
