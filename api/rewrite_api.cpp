// The public API's rewrites (Rewrite in include/offbundle/offbundle.h) over
// the rewrite layer: the options turned into a RewriteRequest, the input
// checked as verify checks it (input_check.h) and kept open from the plan
// to the write, whose input ranges it names.
#include "offbundle/offbundle.h"

#include <algorithm>
#include <sys/stat.h>
#include <zstd.h>

#include "api/input_check.h"
#include "archive/ar_archive.h"
#include "rewrite/kpack_unpack.h"
#include "rewrite/rewrite.h"
#include "rewrite/target_selection.h"
#include "support/file_io.h"

namespace offbundle::api {
namespace {

static_assert(RewriteOptions().archiveSym64Threshold == kDefaultSym64Threshold,
              "the public default is the archive writer's");

offbundle::RewriteKind toRewriteKind(RewriteKind kind) {
  switch (kind) {
  case RewriteKind::Prune:
    return offbundle::RewriteKind::Prune;
  case RewriteKind::Compress:
    return offbundle::RewriteKind::Compress;
  case RewriteKind::Decompress:
    return offbundle::RewriteKind::Decompress;
  }
  return offbundle::RewriteKind::Compress;
}

// zstd would take any other level as the nearest of its own, silently.
offbundle::Status checkZstdLevel(int level) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
    return makeError("the zstd level " + std::to_string(level) +
                     " is outside zstd's levels, " +
                     std::to_string(ZSTD_minCLevel()) + " to " +
                     std::to_string(ZSTD_maxCLevel()));
  return Status::success();
}

Result<RewriteRequest> toRequest(const RewriteOptions &options) {
  RewriteRequest request;
  request.kind = toRewriteKind(options.kind);
  request.compressionLevel = options.compressionLevel;
  request.verifyHash = options.verifyHash;
  request.archiveSym64Threshold = options.archiveSym64Threshold;
  request.threads = options.threads;
  if (offbundle::Status level = checkZstdLevel(options.compressionLevel);
      !level.ok())
    return level.takeError();
  if (request.kind != offbundle::RewriteKind::Prune)
    return request;
  if (options.keep.empty())
    return makeError("prune needs a target to keep");
  auto selectors = parseTargetSelectors(options.keep);
  if (!selectors)
    return selectors.takeError();
  // Host entries are kept whatever is named: naming only them would keep
  // no GPU code, which is no pruning but a file's worth of losses.
  if (std::all_of(selectors->begin(), selectors->end(),
                  [](const TargetSelector &selector) {
                    return selector.selectsHostOnly();
                  }))
    return makeError("prune keeps host entries always; name a GPU target "
                     "to keep");
  request.keep = std::move(*selectors);
  return request;
}

} // namespace

struct Rewrite::State {
  std::unique_ptr<InputFile> input; // what the plan's input ranges name
  RewriteResult result;
  RewriteReport report;
};

Rewrite::Rewrite(std::unique_ptr<State> state) : state_(std::move(state)) {}
Rewrite::Rewrite(Rewrite &&) noexcept = default;
Rewrite &Rewrite::operator=(Rewrite &&) noexcept = default;
Rewrite::~Rewrite() = default;

Outcome Rewrite::check(const RewriteOptions &options) {
  Result<RewriteRequest> request = toRequest(options);
  if (!request)
    return Error{request.error().message};
  return std::monostate{};
}

Expected<Rewrite> Rewrite::plan(const std::string &input,
                                const RewriteOptions &options) {
  Result<RewriteRequest> request = toRequest(options);
  if (!request)
    return Error{request.error().message};
  auto state = std::make_unique<State>();
  auto opened = InputFile::open(input, InputFile::Devices::Refuse);
  if (!opened)
    return Error{opened.error().message};
  state->input = std::move(*opened);
  auto checked = checkBeforeRewrite(*state->input,
                                    {request->verifyHash, request->threads});
  if (!checked)
    return Error{checked.error().message};
  request->hashesChecked = std::move(*checked);
  auto result = rewriteFile(input, state->input->contents(), *request,
                            state->input.get());
  if (!result)
    return Error{result.error().message};
  state->result = std::move(*result);
  RewriteReport &report = state->report;
  report.inputSize = state->input->size();
  report.outputSize = state->result.plan.size();
  report.entriesKept = state->result.entriesKept;
  report.deviceEntriesKept = state->result.deviceEntriesKept;
  report.entriesRemoved = state->result.entriesRemoved;
  report.changed = state->result.changed;
  report.bundles = state->result.bundles;
  report.nothingToDo = state->result.nothingToDo;
  return Rewrite(std::move(state));
}

const RewriteReport &Rewrite::report() const { return state_->report; }

Outcome Rewrite::write(const std::string &path) const {
  Status written = writeRewrittenFile(path, state_->result, *state_->input);
  if (!written.ok())
    return Error{written.error().message};
  return std::monostate{};
}

Outcome
Rewrite::writeInPlace(const std::vector<std::string> &otherNames) const {
  Status written = replaceRewrittenFile(state_->input->path(), state_->result,
                                        *state_->input, otherNames);
  if (!written.ok())
    return Error{written.error().message};
  return std::monostate{};
}

Expected<UnpackKpackReport> unpackKpack(const std::string &input,
                                        const std::string &output,
                                        const UnpackKpackOptions &options) {
  if (options.compress)
    if (offbundle::Status level = checkZstdLevel(options.compressionLevel);
        !level.ok())
      return Error{level.error().message};
  auto file = InputFile::open(input, InputFile::Devices::Refuse);
  if (!file)
    return Error{file.error().message};
  if (auto checked = checkBeforeRewrite(**file, {}); !checked)
    return Error{checked.error().message};
  KpackUnpackRequest request;
  request.compress = options.compress;
  request.compressionLevel = options.compressionLevel;
  auto unpacked = offbundle::unpackKpack(input, (*file)->contents(), request);
  if (!unpacked)
    return Error{unpacked.error().message};
  struct stat info;
  const unsigned mode = (*file)->fd() >= 0 && ::fstat((*file)->fd(), &info) == 0
                            ? info.st_mode & 0777
                            : 0666;
  OutputTransaction transaction;
  auto written = transaction.create(output, mode);
  if (!written)
    return Error{written.error().message};
  if (offbundle::Status status =
          unpacked->plan.write(**written, *unpacked->patchedInput);
      !status.ok())
    return Error{status.error().message};
  if (offbundle::Status status = transaction.commit(); !status.ok())
    return Error{status.error().message};
  return UnpackKpackReport{unpacked->bundles, unpacked->codeObjects};
}

} // namespace offbundle::api
