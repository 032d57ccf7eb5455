// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target ID parsing and conflict checks (see target_id.h), following
// clang/lib/Basic/TargetID.cpp. Processor names and their features come from
// offload_arch.h.

#include "targets/target_id.h"

#include <algorithm>
#include <vector>

#include "targets/offload_arch.h"

namespace offbundle {
namespace {

// clang's getCanonicalProcessorName: AMDGPU triples accept alternative names
// ("tahiti") and use the primary one; other targets keep what was written.
// "" means the processor is unknown for the triple.
std::string_view canonicalProcessorName(const Triple &triple,
                                        std::string_view processor) {
  if (!triple.isAMDGPU())
    return processor;
  return triple.isAMDGCN() ? canonicalAmdgcnProcessor(processor)
                           : canonicalR600Processor(processor);
}

// clang's getAllPossibleTargetIDFeatures. Only amdgcn processors have any:
// r600 processors carry neither the XNACK nor the SRAMECC attribute, and
// other targets have no target-ID features at all.
std::vector<std::string_view>
possibleTargetIdFeatures(const Triple &triple, std::string_view processor) {
  if (triple.isAMDGCN())
    return amdgcnTargetIdFeatures(processor);
  return {};
}

} // namespace

std::optional<std::string_view>
parseTargetIdFormat(std::string_view targetId, TargetFeatureMap *features) {
  // An empty target ID is valid and names no processor.
  if (targetId.empty())
    return std::string_view();

  std::size_t processorEnd = targetId.find(':');
  std::string_view processor = targetId.substr(0, processorEnd);
  if (processor.empty())
    return std::nullopt;
  if (processorEnd == std::string_view::npos)
    return processor;

  TargetFeatureMap localFeatures;
  if (!features)
    features = &localFeatures;

  // Each piece between colons is "<name>+" or "<name>-". A single trailing
  // colon ends the list without adding a piece ("gfx906:" and
  // "gfx906:xnack+:" are valid), because clang only looks for another piece
  // while text remains.
  std::string_view remaining = targetId.substr(processorEnd + 1);
  while (!remaining.empty()) {
    std::size_t pieceEnd = remaining.find(':');
    std::string_view piece = remaining.substr(0, pieceEnd);
    remaining = pieceEnd == std::string_view::npos
                    ? std::string_view()
                    : remaining.substr(pieceEnd + 1);
    // An empty piece ("gfx906::xnack+") has no sign. clang reads the
    // character before it as the sign, which is always the ':' separator,
    // so it rejects the ID; say so directly instead.
    if (piece.empty())
      return std::nullopt;
    char sign = piece.back();
    if (sign != '+' && sign != '-')
      return std::nullopt;
    std::string_view name = piece.substr(0, piece.size() - 1);
    // A feature may be given only once, whatever its sign.
    if (!features->try_emplace(std::string(name), sign == '+').second)
      return std::nullopt;
  }
  return processor;
}

std::optional<std::string> parseTargetId(const Triple &triple,
                                         std::string_view targetId,
                                         TargetFeatureMap *features) {
  // clang requires a map here; a local one lets callers pass nullptr when
  // they only want the processor.
  TargetFeatureMap localFeatures;
  if (!features)
    features = &localFeatures;

  std::optional<std::string_view> writtenProcessor =
      parseTargetIdFormat(targetId, features);
  if (!writtenProcessor)
    return std::nullopt;

  // Also rejects the empty target ID, whatever the triple.
  std::string_view processor =
      canonicalProcessorName(triple, *writtenProcessor);
  if (processor.empty())
    return std::nullopt;

  std::vector<std::string_view> supported =
      possibleTargetIdFeatures(triple, processor);
  for (const auto &[name, enabled] : *features) {
    if (std::find(supported.begin(), supported.end(), name) == supported.end())
      return std::nullopt;
  }
  return std::string(processor);
}

std::optional<std::pair<std::string, std::string>>
conflictingTargetIds(const std::set<std::string> &targetIds) {
  struct FirstSeen {
    std::string_view targetId;
    TargetFeatureMap features;
  };
  // Keyed by the processor as written: clang does not canonicalise here, so
  // "tahiti" and "gfx600" never conflict with each other.
  std::map<std::string_view, FirstSeen, std::less<>> firstByProcessor;

  // std::set<std::string> orders bytes as unsigned values, the same order as
  // clang's std::set<StringRef>, so the same pair is found first.
  for (const std::string &targetId : targetIds) {
    TargetFeatureMap features;
    std::optional<std::string_view> processor =
        parseTargetIdFormat(targetId, &features);
    // clang assumes every ID is well formed and reads an empty optional;
    // ignoring the ID is the defined behaviour chosen here.
    if (!processor)
      continue;

    auto first = firstByProcessor.find(*processor);
    if (first == firstByProcessor.end()) {
      firstByProcessor.emplace(*processor,
                               FirstSeen{targetId, std::move(features)});
      continue;
    }

    // A feature named by the later ID (On or Off) but left as Any by the
    // first one makes the pair ambiguous. Only this direction is checked,
    // as in clang: the later ID may leave out features the first one names.
    const TargetFeatureMap &firstFeatures = first->second.features;
    bool namesNewFeature =
        std::any_of(features.begin(), features.end(),
                    [&firstFeatures](const auto &feature) {
                      return firstFeatures.count(feature.first) == 0;
                    });
    if (namesNewFeature)
      return std::make_pair(std::string(first->second.targetId), targetId);
  }
  return std::nullopt;
}

} // namespace offbundle
