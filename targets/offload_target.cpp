// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bundle entry IDs (see offload_target.h): splitting them, the spelling the
// bundler writes, and clang's isCodeObjectCompatible rules. Four-part IDs of
// older releases are normalised when read from a bundle; LLVM 22 refuses them.

#include "targets/offload_target.h"

#include <vector>

#include "support/string_split.h"
#include "targets/offload_arch.h"
#include "targets/target_id.h"

namespace offbundle {
namespace {

// An entry ID has at most six parts, the last keeping any further dashes.
std::vector<std::string_view> splitBundleId(std::string_view id) {
  return splitOnDash(id, 6);
}

bool startsWithHipIgnoringCase(std::string_view kind) {
  if (kind.size() < 3)
    return false;
  auto lower = [](char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  };
  return lower(kind[0]) == 'h' && lower(kind[1]) == 'i' &&
         lower(kind[2]) == 'p';
}

} // namespace

bool isWellFormedBundleId(std::string_view id) {
  std::size_t parts = splitBundleId(id).size();
  return parts == 5 || parts == 6;
}

std::optional<std::string> normalizeStoredBundleId(std::string_view id) {
  if (isWellFormedBundleId(id))
    return std::string(id);
  std::vector<std::string_view> parts = splitBundleId(id);
  if (parts.size() != 4)
    return std::nullopt;
  Triple triple(id.substr(parts[0].size() + 1));
  if (triple.normalizationIsFatal())
    return std::nullopt;
  std::string normalized =
      std::string(parts[0]) + "-" + bundlerTripleSpelling(triple);
  // Normalised components hold no dashes, so this is a well-formed ID of
  // five parts; checked rather than assumed, as parse() requires it.
  if (splitBundleId(normalized).size() != 5)
    return std::nullopt;
  return normalized;
}

OffloadTarget OffloadTarget::parse(std::string_view id) {
  std::vector<std::string_view> parts = splitBundleId(id);
  OffloadTarget target;
  target.offloadKind = std::string(parts.at(0));
  target.triple = Triple(parts.at(1), parts.at(2), parts.at(3), parts.at(4));
  std::string_view idWithFeatures = parts.size() == 6 ? parts[5] : "";
  std::string_view processor =
      idWithFeatures.substr(0, idWithFeatures.find(':'));
  if (!processor.empty() && isKnownOffloadArch(processor))
    target.targetId = std::string(idWithFeatures);
  return target;
}

std::optional<OffloadTarget> OffloadTarget::parseStored(std::string_view id) {
  std::optional<std::string> normalized = normalizeStoredBundleId(id);
  if (!normalized)
    return std::nullopt;
  return parse(*normalized);
}

bool OffloadTarget::isOffloadKindValid() const {
  return offloadKind == "host" || offloadKind == "openmp" ||
         offloadKind == "hip" || offloadKind == "hipv4";
}

bool OffloadTarget::isTripleValid() const {
  return !triple.str().empty() && triple.hasKnownArch();
}

bool OffloadTarget::isOffloadKindCompatible(std::string_view otherKind,
                                            bool hipOpenmpCompatible) const {
  if (offloadKind == otherKind ||
      (offloadKind == "hip" && otherKind == "hipv4") ||
      (offloadKind == "hipv4" && otherKind == "hip"))
    return true;
  if (!hipOpenmpCompatible)
    return false;
  return (startsWithHipIgnoringCase(offloadKind) && otherKind == "openmp") ||
         (offloadKind == "openmp" && startsWithHipIgnoringCase(otherKind));
}

bool OffloadTarget::sameAs(const OffloadTarget &other) const {
  return offloadKind == other.offloadKind &&
         triple.isCompatibleWith(other.triple) && targetId == other.targetId;
}

std::string bundlerTripleSpelling(const Triple &triple) {
  // AMDHSA runtimes expect "amdgcn-amd-amdhsa-" with an empty environment,
  // so LLVM writes those triples in three-part form plus a dash.
  if (triple.isOSAMDHSA())
    return triple.normalize(TripleForm::ThreeIdent) + "-";
  return triple.normalize(TripleForm::FourIdent);
}

std::string OffloadTarget::str() const {
  return offloadKind + "-" + bundlerTripleSpelling(triple) + "-" + targetId;
}

bool isCodeObjectCompatible(const OffloadTarget &codeObject,
                            const OffloadTarget &target,
                            bool hipOpenmpCompatible) {
  if (codeObject.sameAs(target))
    return true;
  if (!codeObject.isOffloadKindCompatible(target.offloadKind,
                                          hipOpenmpCompatible) ||
      !codeObject.triple.isCompatibleWith(target.triple))
    return false;

  TargetFeatureMap codeObjectFeatures;
  TargetFeatureMap targetFeatures;
  std::optional<std::string> codeObjectProcessor = parseTargetId(
      codeObject.triple, codeObject.targetId, &codeObjectFeatures);
  std::optional<std::string> targetProcessor =
      parseTargetId(target.triple, target.targetId, &targetFeatures);
  if (!codeObjectProcessor || !targetProcessor ||
      *codeObjectProcessor != *targetProcessor)
    return false;

  // A code object that fixes more features than the target names cannot
  // match it, whatever their values.
  if (codeObjectFeatures.size() > targetFeatures.size())
    return false;

  // Every feature the code object fixes (On or Off) must be fixed the same
  // way by the target; features the code object leaves as Any match anything.
  for (const auto &[name, enabled] : codeObjectFeatures) {
    auto found = targetFeatures.find(name);
    if (found == targetFeatures.end() || found->second != enabled)
      return false;
  }
  return true;
}

} // namespace offbundle
