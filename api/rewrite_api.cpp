// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public API's rewrites (Rewrite in include/offbundle/offbundle.h) over
// the rewrite layer: the options turned into a RewriteRequest, the input
// checked as verify checks it (input_check.h) and kept open from the plan
// to the write, whose input ranges it names.
#include "offbundle/offbundle.h"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <zstd.h>

#include "api/input_check.h"
#include "api/public_error.h"
#include "archive/ar_writing.h"
#include "rewrite/kpack/kpack_unpack.h"
#include "rewrite/rewrite.h"
#include "rewrite/target_selection.h"
#include "support/folder_handle.h"
#include "support/in_place_output.h"
#include "support/output_transaction.h"

namespace offbundle::api {
namespace {

static_assert(RewriteOptions().archiveSym64Threshold == kDefaultSym64Threshold,
              "the public default is the archive writer's");
static_assert(kDefaultCompressionLevel == kDefaultZstdLevel,
              "the public default is the library's");

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

namespace {

// A rewrite planned.
struct PlannedRewrite {
  std::unique_ptr<InputFile> input; // what the plan's input ranges name
  // Where the input was read, when planned from a walked file; no folder
  // when planned from a path.
  AnchoredName anchor;
  RewriteResult result;
  RewriteReport report;
};

// Plans the rewrite of `input`, read from `anchor`, into `planned`.
offbundle::Status planOpened(PlannedRewrite &planned,
                             std::unique_ptr<InputFile> input,
                             AnchoredName anchor, RewriteRequest request) {
  planned.input = std::move(input);
  planned.anchor = std::move(anchor);
  // What verify refuses, a rewrite refuses (input_check.h).
  auto checked =
      checkBeforeRewrite(*planned.input, {request.verifyHash, request.threads});
  if (!checked)
    return checked.takeError();
  request.hashesChecked = std::move(*checked);
  const std::string &path = planned.input->path();
  auto result = rewriteFile(path, planned.input->contents(), request,
                            planned.input.get());
  if (!result)
    return result.takeError();
  planned.result = std::move(*result);
  RewriteReport &report = planned.report;
  report.inputSize = planned.input->size();
  report.outputSize = planned.result.plan.size();
  report.entriesKept = planned.result.entriesKept;
  report.deviceEntriesKept = planned.result.deviceEntriesKept;
  report.entriesRemoved = planned.result.entriesRemoved;
  report.changed = planned.result.changed;
  report.bundles = planned.result.bundles;
  report.nothingToDo = planned.result.nothingToDo;
  return offbundle::Status::success();
}

} // namespace

struct Rewrite::State : PlannedRewrite {};

Rewrite::Rewrite(std::unique_ptr<State> state) : state_(std::move(state)) {}
Rewrite::Rewrite(Rewrite &&) noexcept = default;
Rewrite &Rewrite::operator=(Rewrite &&) noexcept = default;
Rewrite::~Rewrite() = default;

Outcome Rewrite::check(const RewriteOptions &options) {
  Result<RewriteRequest> request = toRequest(options);
  if (!request)
    return publicError(request.error(), offbundle::ErrorCode::InvalidArgument);
  return std::monostate{};
}

namespace {

// The folder and name of a walked file, the folder opened again from its
// resolved path without following a symbolic link, and checked to be the
// folder the walk saw.
offbundle::Result<AnchoredName> anchorOf(const WalkedFile &file) {
  if (file.name.empty()) {
    struct stat info;
    if (::stat(file.path.c_str(), &info) != 0)
      return systemError(file.path, errno);
    return fileError(file.path, S_ISREG(info.st_mode)
                                    ? "cannot be reached again"
                                    : "not a regular file");
  }
  auto folder = FolderHandle::openResolved(
      file.folder, {file.folderDevice, file.folderInode});
  if (!folder)
    return folder.takeError();
  return AnchoredName{std::move(*folder), file.name, file.path};
}

// Whether the file open at `fd` is the one `file` records.
bool isWalkedFile(int fd, const WalkedFile &file) {
  struct stat info;
  return ::fstat(fd, &info) == 0 &&
         static_cast<uint64_t>(info.st_dev) == file.device &&
         static_cast<uint64_t>(info.st_ino) == file.inode;
}

offbundle::Error replacedMeanwhile(const std::string &path) {
  return fileError(path, "the file changed while the tool ran (something "
                         "else was put in its place); it was left as it is");
}

} // namespace

Expected<Rewrite> Rewrite::plan(const std::string &input,
                                const RewriteOptions &options) {
  Result<RewriteRequest> request = toRequest(options);
  if (!request)
    return publicError(request.error(), offbundle::ErrorCode::InvalidArgument);
  auto opened = InputFile::open(input, InputFile::Devices::Refuse);
  if (!opened)
    return publicError(opened.error());
  auto state = std::make_unique<State>();
  if (offbundle::Status planned =
          planOpened(*state, std::move(*opened), {}, std::move(*request));
      !planned.ok())
    return publicError(planned.error(), offbundle::ErrorCode::DamagedInput);
  return Rewrite(std::move(state));
}

Expected<Rewrite> Rewrite::plan(const WalkedFile &input,
                                const RewriteOptions &options) {
  Result<RewriteRequest> request = toRequest(options);
  if (!request)
    return publicError(request.error(), offbundle::ErrorCode::InvalidArgument);
  auto anchor = anchorOf(input);
  if (!anchor)
    return publicError(anchor.error());
  auto opened = InputFile::openIn(*anchor->folder, anchor->name, input.path);
  if (!opened)
    return publicError(opened.error());
  if (!isWalkedFile((*opened)->fd(), input))
    return publicError(replacedMeanwhile(input.path));
  auto state = std::make_unique<State>();
  if (offbundle::Status planned = planOpened(
          *state, std::move(*opened), std::move(*anchor), std::move(*request));
      !planned.ok())
    return publicError(planned.error(), offbundle::ErrorCode::DamagedInput);
  return Rewrite(std::move(state));
}

const RewriteReport &Rewrite::report() const { return state_->report; }

Outcome Rewrite::write(const std::string &path) const {
  Status written = writeRewrittenFile(path, state_->result, *state_->input);
  if (!written.ok())
    return publicError(written.error());
  return std::monostate{};
}

Outcome
Rewrite::writeInPlace(const std::vector<std::string> &otherNames) const {
  std::vector<WalkedFile> others;
  for (const std::string &name : otherNames)
    others.push_back(walkFiles({name}).files.front());
  return writeInPlace(others);
}

Outcome Rewrite::writeInPlace(const std::vector<WalkedFile> &otherNames) const {
  const InputFile &input = *state_->input;
  std::vector<AnchoredName> names{state_->anchor};
  if (!names.front().folder) {
    // Planned from a path: the file is placed now, and must be the one
    // read.
    const WalkedFile self = walkFiles({input.path()}).files.front();
    auto anchor = anchorOf(self);
    if (!anchor)
      return publicError(anchor.error());
    if (input.fd() < 0 || !isWalkedFile(input.fd(), self))
      return publicError(fileError(input.path(),
                                   "cannot be rewritten in place: not a "
                                   "regular file",
                                   offbundle::ErrorCode::Unsupported));
    names.front() = std::move(*anchor);
  }
  struct stat info;
  if (input.fd() < 0 || ::fstat(input.fd(), &info) != 0)
    return publicError(fileError(input.path(), "not a regular file",
                                 offbundle::ErrorCode::Unsupported));
  for (const WalkedFile &other : otherNames) {
    auto anchor = anchorOf(other);
    if (!anchor)
      return publicError(anchor.error());
    names.push_back(std::move(*anchor));
  }
  Status written =
      replaceRewrittenFile(std::move(names), state_->result, input);
  if (!written.ok())
    return publicError(written.error());
  return std::monostate{};
}

Expected<UnpackKpackReport> unpackKpack(const std::string &input,
                                        const std::string &output,
                                        const UnpackKpackOptions &options) {
  if (options.compress)
    if (offbundle::Status level = checkZstdLevel(options.compressionLevel);
        !level.ok())
      return publicError(level.error(), offbundle::ErrorCode::InvalidArgument);
  auto file = InputFile::open(input, InputFile::Devices::Refuse);
  if (!file)
    return publicError(file.error());
  if (auto checked = checkBeforeRewrite(**file, {}); !checked)
    return publicError(checked.error(), offbundle::ErrorCode::DamagedInput);
  KpackUnpackRequest request;
  request.compress = options.compress;
  request.compressionLevel = options.compressionLevel;
  auto unpacked = offbundle::unpackKpack(input, (*file)->contents(), request);
  if (!unpacked)
    return publicError(unpacked.error(), offbundle::ErrorCode::DamagedInput);
  struct stat info;
  const unsigned mode = (*file)->fd() >= 0 && ::fstat((*file)->fd(), &info) == 0
                            ? info.st_mode & 0777
                            : 0666;
  OutputTransaction transaction;
  auto written = transaction.create(output, mode);
  if (!written)
    return publicError(written.error());
  if (offbundle::Status status =
          unpacked->plan.write(**written, *unpacked->patchedInput);
      !status.ok())
    return publicError(status.error());
  if (offbundle::Status status = transaction.commit(); !status.ok())
    return publicError(status.error());
  return UnpackKpackReport{unpacked->bundles, unpacked->codeObjects};
}

} // namespace offbundle::api
