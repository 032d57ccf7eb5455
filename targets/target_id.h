// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target IDs ("gfx90a:sramecc+:xnack-"), as clang/lib/Basic/TargetID.cpp
// parses them and decides conflicts. Pure functions over strings.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "targets/triple.h"

namespace offbundle {

// Feature name -> On (true) or Off (false). A feature that is absent is Any.
using TargetFeatureMap = std::map<std::string, bool, std::less<>>;

// clang's parseTargetIDWithFormatCheckingOnly: splits "proc:feat+:feat-".
// Returns the processor ("" for an empty ID), or nullopt when the format is
// bad (empty processor, a feature without +/-, a feature given twice).
std::optional<std::string_view> parseTargetIdFormat(std::string_view targetId,
                                                    TargetFeatureMap *features);

// clang::parseTargetID: as above, then canonicalises the processor for the
// triple (AMDGPU alternative names) and checks every feature is one the
// processor supports. nullopt when any step fails.
std::optional<std::string> parseTargetId(const Triple &triple,
                                         std::string_view targetId,
                                         TargetFeatureMap *features);

// clang::getConflictTargetIDCombination over a sorted set of target IDs:
// the first pair (existing, new) whose processors agree but where the new
// one names a feature the existing one leaves as Any.
std::optional<std::pair<std::string, std::string>>
conflictingTargetIds(const std::set<std::string> &targetIds);

} // namespace offbundle
