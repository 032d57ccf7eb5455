// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "targets/target_id.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Expected values below agree with clang 22.1.8 itself: the same inputs were
// run through clang::parseTargetID and clang::getConflictTargetIDCombination
// in libclang-cpp 22.1.8, and the conflict pairs marked "bundler" were also
// reproduced with clang-offload-bundler 22.1.8.

namespace offbundle {
namespace {

struct FormatCase {
  std::string_view targetId;
  std::optional<std::string_view> processor;
  TargetFeatureMap features;
};

const std::vector<FormatCase> kFormatCases = {
    // The empty ID is well formed and names no processor.
    {"", "", {}},
    {"gfx906", "gfx906", {}},
    // The format check knows nothing of processors or feature names.
    {"anything", "anything", {}},
    {"sm_90a", "sm_90a", {}},
    {"gfx906:xnack+", "gfx906", {{"xnack", true}}},
    {"gfx906:xnack-", "gfx906", {{"xnack", false}}},
    {"gfx90a:sramecc+:xnack-", "gfx90a", {{"sramecc", true}, {"xnack", false}}},
    {"gfx90a:xnack-:sramecc+", "gfx90a", {{"sramecc", true}, {"xnack", false}}},
    {"gfx906:foo+:bar-", "gfx906", {{"foo", true}, {"bar", false}}},
    // Only the last character is the sign; the rest is the name, verbatim.
    {"gfx906:xnack++", "gfx906", {{"xnack+", true}}},
    {"gfx906:+", "gfx906", {{"", true}}},
    {"gfx906:-", "gfx906", {{"", false}}},
    {"gfx906: xnack+", "gfx906", {{" xnack", true}}},
    // A single trailing colon ends the list without adding a piece.
    {"gfx906:", "gfx906", {}},
    {"gfx906:xnack+:", "gfx906", {{"xnack", true}}},
    // An empty processor.
    {":xnack+", std::nullopt, {}},
    {":", std::nullopt, {}},
    {"::", std::nullopt, {}},
    // A feature without a sign.
    {"gfx906:xnack", std::nullopt, {}},
    {"gfx906:xnack*", std::nullopt, {}},
    {"gfx906:xnack+:sramecc", std::nullopt, {{"xnack", true}}},
    // An empty piece between colons.
    {"gfx906::xnack+", std::nullopt, {}},
    {"gfx906::", std::nullopt, {}},
    {"gfx906:xnack+::", std::nullopt, {{"xnack", true}}},
    {"gfx906:xnack+::sramecc+", std::nullopt, {{"xnack", true}}},
    // A feature given twice, with the same or the other sign.
    {"gfx906:xnack+:xnack+", std::nullopt, {{"xnack", true}}},
    {"gfx906:xnack+:xnack-", std::nullopt, {{"xnack", true}}},
};

TEST(TargetIdTest, FormatCheck) {
  for (const FormatCase &formatCase : kFormatCases) {
    TargetFeatureMap features;
    std::optional<std::string_view> processor =
        parseTargetIdFormat(formatCase.targetId, &features);
    EXPECT_EQ(processor, formatCase.processor) << formatCase.targetId;
    // On failure the map holds what was read before the bad piece, as in
    // clang; callers must not rely on it, but it is pinned down here.
    EXPECT_EQ(features, formatCase.features) << formatCase.targetId;
  }
}

TEST(TargetIdTest, FormatCheckWithoutFeatureMap) {
  EXPECT_EQ(parseTargetIdFormat("gfx906:xnack+:sramecc-", nullptr), "gfx906");
  EXPECT_EQ(parseTargetIdFormat("gfx906:xnack+:xnack-", nullptr), std::nullopt);
  EXPECT_EQ(parseTargetIdFormat("gfx906::", nullptr), std::nullopt);
}

TEST(TargetIdTest, FormatCheckReturnsAViewIntoTheId) {
  std::string targetId = "gfx908:sramecc-";
  std::optional<std::string_view> processor =
      parseTargetIdFormat(targetId, nullptr);
  ASSERT_TRUE(processor.has_value());
  EXPECT_EQ(processor->data(), targetId.data());
}

struct ParseCase {
  std::string_view triple;
  std::string_view targetId;
  std::optional<std::string> processor;
};

const std::vector<ParseCase> kParseCases = {
    {"amdgcn-amd-amdhsa", "gfx906", "gfx906"},
    {"amdgcn-amd-amdhsa", "gfx906:xnack+", "gfx906"},
    {"amdgcn-amd-amdhsa", "gfx906:sramecc-:xnack+", "gfx906"},
    {"amdgcn-amd-amdhsa", "gfx90a:xnack-:sramecc+", "gfx90a"},
    {"amdgcn-amd-amdhsa", "gfx942:sramecc+", "gfx942"},
    {"amdgcn-amd-amdhsa", "gfx9-4-generic:sramecc+:xnack-", "gfx9-4-generic"},
    {"amdgcn-amd-amdhsa", "gfx9-generic:xnack+", "gfx9-generic"},
    {"amdgcn-amd-amdhsa", "gfx10-1-generic:xnack-", "gfx10-1-generic"},
    {"amdgcn-amd-amdhsa", "gfx1030", "gfx1030"},
    {"amdgcn-amd-amdhsa", "gfx1251", "gfx1251"},
    {"amdgcn-amd-amdhsa", "gfx906:", "gfx906"},
    // Alternative names become the primary name.
    {"amdgcn-amd-amdhsa", "tahiti", "gfx600"},
    {"amdgcn-amd-amdhsa", "carrizo:xnack+", "gfx801"},
    {"amdgcn-amd-amdhsa", "stoney:xnack-", "gfx810"},
    {"amdgcn-amd-amdhsa", "polaris11", "gfx803"},
    // Features the processor does not support.
    {"amdgcn-amd-amdhsa", "gfx900:sramecc+", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx1030:xnack+", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx1250:xnack-", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx906:foo+", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx906:Xnack+", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx906:+", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx906:xnack+:wavefrontsize64+", std::nullopt},
    // Processors amdgcn does not know, and bad formats.
    {"amdgcn-amd-amdhsa", "", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx940", std::nullopt},
    {"amdgcn-amd-amdhsa", "GFX906", std::nullopt},
    {"amdgcn-amd-amdhsa", "sm_90a", std::nullopt},
    {"amdgcn-amd-amdhsa", "r600", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx906:xnack", std::nullopt},
    {"amdgcn-amd-amdhsa", "gfx906:xnack+:xnack-", std::nullopt},
    {"amdgcn-amd-amdhsa", ":xnack+", std::nullopt},
    // r600 processors have no target-ID features.
    {"r600-unknown-unknown", "r600", "r600"},
    {"r600-unknown-unknown", "rv630", "r600"},
    {"r600-unknown-unknown", "aruba", "cayman"},
    {"r600-unknown-unknown", "cayman:xnack+", std::nullopt},
    {"r600-unknown-unknown", "gfx906", std::nullopt},
    {"r600-unknown-unknown", "", std::nullopt},
    // Other targets keep the processor as written and accept no features.
    {"nvptx64-nvidia-cuda", "sm_90a", "sm_90a"},
    {"nvptx64-nvidia-cuda", "anything", "anything"},
    {"nvptx64-nvidia-cuda", "gfx906", "gfx906"},
    {"nvptx64-nvidia-cuda", "tahiti", "tahiti"},
    {"nvptx64-nvidia-cuda", "sm_90a:xnack+", std::nullopt},
    {"nvptx64-nvidia-cuda", "", std::nullopt},
    {"x86_64-unknown-linux-gnu", "graniterapids", "graniterapids"},
    {"x86_64-unknown-linux-gnu", "gfx906:xnack+", std::nullopt},
    {"spirv64-amd-amdhsa", "amdgcnspirv", "amdgcnspirv"},
};

TEST(TargetIdTest, ParseForTriple) {
  for (const ParseCase &parseCase : kParseCases) {
    TargetFeatureMap features;
    EXPECT_EQ(
        parseTargetId(Triple(parseCase.triple), parseCase.targetId, &features),
        parseCase.processor)
        << parseCase.triple << " " << parseCase.targetId;
    // A null map is accepted and gives the same answer.
    EXPECT_EQ(
        parseTargetId(Triple(parseCase.triple), parseCase.targetId, nullptr),
        parseCase.processor)
        << parseCase.triple << " " << parseCase.targetId;
  }
}

TEST(TargetIdTest, ParseFillsFeatureMap) {
  TargetFeatureMap features;
  EXPECT_EQ(parseTargetId(Triple("amdgcn-amd-amdhsa"), "gfx90a:xnack-:sramecc+",
                          &features),
            "gfx90a");
  EXPECT_EQ(features, (TargetFeatureMap{{"sramecc", true}, {"xnack", false}}));

  // An alternative name keeps its features.
  TargetFeatureMap carrizoFeatures;
  EXPECT_EQ(parseTargetId(Triple("amdgcn-amd-amdhsa"), "carrizo:xnack-",
                          &carrizoFeatures),
            "gfx801");
  EXPECT_EQ(carrizoFeatures, (TargetFeatureMap{{"xnack", false}}));
}

TEST(TargetIdTest, EveryFeatureSupportedByTheProcessorIsAccepted) {
  const Triple amdgcn("amdgcn-amd-amdhsa");
  for (std::string_view processor :
       {"gfx801", "gfx810", "gfx900", "gfx902", "gfx904", "gfx909", "gfx90c",
        "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx9-generic",
        "gfx10-1-generic"}) {
    std::string base(processor);
    EXPECT_TRUE(parseTargetId(amdgcn, base + ":xnack+", nullptr)) << base;
    EXPECT_FALSE(parseTargetId(amdgcn, base + ":sramecc+", nullptr)) << base;
  }
  for (std::string_view processor :
       {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx9-4-generic"}) {
    std::string base(processor);
    EXPECT_TRUE(parseTargetId(amdgcn, base + ":sramecc-:xnack+", nullptr))
        << base;
  }
}

struct ConflictCase {
  std::set<std::string> targetIds;
  std::optional<std::pair<std::string, std::string>> conflict;
};

const std::vector<ConflictCase> kConflictCases = {
    {{}, std::nullopt},
    {{"gfx906"}, std::nullopt},
    {{"gfx906", "gfx90a"}, std::nullopt},
    {{"gfx906:xnack+", "gfx906:xnack-"}, std::nullopt}, // bundler
    {{"gfx906:sramecc+:xnack+", "gfx906:sramecc-:xnack-"}, std::nullopt},
    // Different processors never conflict.
    {{"gfx906", "gfx90a:xnack+"}, std::nullopt}, // bundler
    // The later ID names a feature the earlier one leaves as Any.
    {{"gfx906", "gfx906:xnack+"},
     std::make_pair("gfx906", "gfx906:xnack+")}, // bundler
    {{"gfx906:sramecc+", "gfx906:xnack+"},
     std::make_pair("gfx906:sramecc+", "gfx906:xnack+")}, // bundler
    // Only the later ID is checked against the first: "gfx906:sramecc+:xnack+"
    // sorts first and names everything "gfx906:xnack+" names.
    {{"gfx906:sramecc+:xnack+", "gfx906:xnack+"}, std::nullopt}, // bundler
    {{"gfx906:sramecc-:xnack+", "gfx906:xnack-"}, std::nullopt},
    // The first pair in set order is reported, paired with the first ID seen
    // for the processor.
    {{"gfx906", "gfx906:sramecc+", "gfx906:xnack+"},
     std::make_pair("gfx906", "gfx906:sramecc+")},
    {{"gfx900", "gfx906", "gfx906:xnack-", "gfx90a"},
     std::make_pair("gfx906", "gfx906:xnack-")},
    // Processors are compared as written: no canonicalisation here.
    {{"carrizo", "gfx801:xnack+"}, std::nullopt},
    {{"carrizo", "carrizo:xnack+"},
     std::make_pair("carrizo", "carrizo:xnack+")},
    // Feature names are not validated here either.
    {{"sm_90a", "sm_90a:foo+"}, std::make_pair("sm_90a", "sm_90a:foo+")},
    // The empty ID has processor "" and no features.
    {{"", "gfx906:xnack+"}, std::nullopt},
    // IDs whose format is invalid are skipped.
    {{"gfx906", "gfx906:xnack", "gfx906::", ":xnack+"}, std::nullopt},
    {{"gfx906", "gfx906:xnack", "gfx906:xnack+"},
     std::make_pair("gfx906", "gfx906:xnack+")},
};

TEST(TargetIdTest, ConflictingCombinations) {
  for (const ConflictCase &conflictCase : kConflictCases) {
    std::string description;
    for (const std::string &targetId : conflictCase.targetIds)
      description += "'" + targetId + "' ";
    EXPECT_EQ(conflictingTargetIds(conflictCase.targetIds),
              conflictCase.conflict)
        << description;
  }
}

TEST(TargetIdTest, ConflictsFollowByteOrder) {
  // Set order is by unsigned byte value, as with clang's std::set<StringRef>:
  // '\xff' sorts after every ASCII byte, so the plain ID comes first.
  std::set<std::string> targetIds = {"gfx906:\xff+", "gfx906"};
  EXPECT_EQ(conflictingTargetIds(targetIds),
            std::make_pair(std::string("gfx906"), std::string("gfx906:\xff+")));
}

} // namespace
} // namespace offbundle
