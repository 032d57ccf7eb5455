// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The -targets checks of clang-offload-bundler (see target_checks.h). Unlike
// LLVM, two spellings that normalise to the same entry ID are refused as
// duplicates, since LLVM would write that ID twice.

#include "bundler/target_checks.h"

#include <map>
#include <set>
#include <unordered_set>

#include "targets/offload_target.h"
#include "targets/target_id.h"

namespace offbundle {

std::optional<BundlingProblem>
checkTargets(const std::vector<std::string> &targets, bool unbundle,
             FilesConfig &config) {
  std::unordered_set<std::string> seen;
  std::set<std::string> seenNormalized;
  std::map<std::string, std::set<std::string>> targetIdsByKindAndTriple;
  unsigned hostCount = 0;
  bool hipOnly = true;
  std::vector<std::string> normalized;
  std::vector<OffloadTarget> parsedTargets;
  for (size_t index = 0; index < targets.size(); ++index) {
    const std::string &target = targets[index];
    if (!seen.insert(target).second)
      return "Duplicate targets are not allowed";
    if (!isWellFormedBundleId(target))
      return "Targets need to follow the format '<offload kind>-<target "
             "triple>', where '<target triple>' follows the format "
             "'<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target "
             "features]]'.";
    OffloadTarget parsed = OffloadTarget::parse(target);
    bool kindValid = parsed.isOffloadKindValid();
    bool tripleValid = parsed.isTripleValid();
    if (!kindValid || !tripleValid) {
      std::string message = "invalid target '" + target + "'";
      if (!kindValid)
        message += ", unknown offloading kind '" + parsed.offloadKind + "'";
      if (!tripleValid)
        message += ", unknown target triple '" + parsed.triple.str() + "'";
      return message;
    }
    if (parsed.triple.normalizationIsFatal())
      return BundlingProblem("LLVM ERROR: Unsupported Shader Model version",
                             /*fatal=*/true);
    // Two spellings of one target would be written as one entry ID twice;
    // LLVM then writes a corrupt bundle or drops an output.
    std::string entryId = parsed.str();
    if (!seenNormalized.insert(entryId).second)
      return "Duplicate targets are not allowed";
    normalized.push_back(entryId);
    // Unbundling matches entries against the targets as written.
    if (!isWellFormedBundleId(entryId))
      return "invalid bundle id from bundle config";
    parsedTargets.push_back(OffloadTarget::parse(entryId));
    targetIdsByKindAndTriple[parsed.offloadKind + "-" + parsed.triple.str()]
        .insert(parsed.targetId);
    if (parsed.hasHostKind()) {
      ++hostCount;
      config.hostInputIndex = static_cast<unsigned>(index);
    }
    if (parsed.offloadKind != "hip" && parsed.offloadKind != "hipv4")
      hipOnly = false;
  }
  config.targetNames = normalized;
  config.targets = std::move(parsedTargets);

  for (const auto &[kindAndTriple, targetIds] : targetIdsByKindAndTriple) {
    if (auto conflict = conflictingTargetIds(targetIds))
      return "Cannot bundle inputs with conflicting targets: '" +
             kindAndTriple + "-" + conflict->first + "' and '" + kindAndTriple +
             "-" + conflict->second + "'";
  }

  // HIP bundles device code for several GPUs with no host entry.
  config.allowNoHost = hipOnly;
  if ((unbundle && hostCount > 1) ||
      (!unbundle && hostCount != 1 && !config.allowNoHost))
    return "expecting exactly one host target but got " +
           std::to_string(hostCount);
  return std::nullopt;
}

std::variant<BundlerConfig, BundlingProblem>
checkBundlingRequest(BundlingRequest request) {
  FilesConfig &files = request.config.files;
  const size_t inputs = files.inputFileNames.size();
  const size_t outputs = files.outputFileNames.size();
  if (request.config.matching.checkInputArchive) {
    if (!request.unbundle)
      return "-check-input-archive cannot be used while bundling";
    if (files.filesType != "a")
      return "-check-input-archive can only be used for unbundling archives "
             "(-type=a)";
  }
  if (outputs == 0)
    return "no output file specified!";
  if (!request.targetsGiven)
    return "for the --targets option: must be specified at least once!";
  if (request.unbundle) {
    if (inputs != 1)
      return "only one input file supported in unbundling mode";
    if (outputs != request.targets.size())
      return "number of output files and targets should match in unbundling "
             "mode";
  } else {
    if (files.filesType == "a")
      return "Archive files are only supported for unbundling";
    if (outputs != 1)
      return "only one output file supported in bundling mode";
    if (inputs != request.targets.size())
      return "number of input files and targets should match in bundling mode";
  }
  if (auto problem = checkTargets(request.targets, request.unbundle, files))
    return std::move(*problem);
  return std::move(request.config);
}

} // namespace offbundle
