// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "targets/offload_arch.h"
#include "targets/offload_target.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace offbundle {
namespace {

// Every processor name clang 22.1.8 knows (StringToOffloadArch != UNKNOWN).
// Obtained from the reference in two independent ways that agreed exactly:
// calling clang::OffloadArchToString on every OffloadArch enumerator in
// libclang-cpp 22.1.8, and running clang-offload-bundler 22.1.8 with
// "-targets=hip-amdgcn-amd-amdhsa--NAME" for about 1,800 candidate names
// (sm_10..sm_139 with "", "a" and "f" suffixes, gfx500..gfx1399, hexadecimal
// gfx80a..gfx139f, gfxN-generic and gfxN-M-generic for N in 6..13, alternative
// AMD names, case variants): the tool keeps NAME in the bundle entry ID only
// when it is known.
const std::vector<std::string_view> kKnownNames = {
    "sm_20",           "sm_21",           "sm_30",         "sm_32",
    "sm_35",           "sm_37",           "sm_50",         "sm_52",
    "sm_53",           "sm_60",           "sm_61",         "sm_62",
    "sm_70",           "sm_72",           "sm_75",         "sm_80",
    "sm_86",           "sm_87",           "sm_88",         "sm_89",
    "sm_90",           "sm_90a",          "sm_100",        "sm_100a",
    "sm_101",          "sm_101a",         "sm_103",        "sm_103a",
    "sm_110",          "sm_110a",         "sm_120",        "sm_120a",
    "sm_121",          "sm_121a",         "gfx600",        "gfx601",
    "gfx602",          "gfx700",          "gfx701",        "gfx702",
    "gfx703",          "gfx704",          "gfx705",        "gfx801",
    "gfx802",          "gfx803",          "gfx805",        "gfx810",
    "gfx9-generic",    "gfx900",          "gfx902",        "gfx904",
    "gfx906",          "gfx908",          "gfx909",        "gfx90a",
    "gfx90c",          "gfx9-4-generic",  "gfx942",        "gfx950",
    "gfx10-1-generic", "gfx1010",         "gfx1011",       "gfx1012",
    "gfx1013",         "gfx10-3-generic", "gfx1030",       "gfx1031",
    "gfx1032",         "gfx1033",         "gfx1034",       "gfx1035",
    "gfx1036",         "gfx11-generic",   "gfx1100",       "gfx1101",
    "gfx1102",         "gfx1103",         "gfx1150",       "gfx1151",
    "gfx1152",         "gfx1153",         "gfx12-generic", "gfx1200",
    "gfx1201",         "gfx1250",         "gfx1251",       "amdgcnspirv",
    "generic",         "graniterapids",   "bmg_g21",
};

TEST(OffloadArchTest, EveryNameClangKnowsIsKnown) {
  EXPECT_EQ(kKnownNames.size(), 91u);
  for (std::string_view name : kKnownNames)
    EXPECT_TRUE(isKnownOffloadArch(name)) << name;
}

TEST(OffloadArchTest, NamesClangDoesNotKnow) {
  const std::vector<std::vector<std::string_view>> unknownNameGroups = {
      // Processors absent from 22.1's table.
      {"gfx940", "gfx941", "gfx1105", "gfx1170", "sm_91", "sm_10"},
      // NVIDIA variants 22.1 does not list.
      {"sm_90f", "sm_100f", "sm_120f", "sm_100b"},
      // Alternative AMD names are TargetParser spellings only.
      {"tahiti", "carrizo", "r600", "cayman"},
      // Matching is exact and case-sensitive.
      {"GFX906", "SM_90", "sm_90A", "gfx90A", " gfx906", "gfx906 "},
      {"gfx906:xnack+", "gfx", "sm_", "unknown", "Unknown", "UNUSED"},
      // Neighbouring spellings that are not processors.
      {"compute_90", "compute_amdgcn", "generic-hsa", "spirv64", "pvc"},
      {"gfx8-generic", "gfx13-generic", "gfx9-0-generic", "gfx10-generic"},
      {"foo-generic"},
  };
  for (const auto &group : unknownNameGroups)
    for (std::string_view name : group)
      EXPECT_FALSE(isKnownOffloadArch(name)) << name;
}

TEST(OffloadArchTest, EmptyNameIsNotUnknown) {
  // clang's name table begins with OffloadArch::UNUSED spelled "", so
  // StringToOffloadArch("") is UNUSED, which is not UNKNOWN.
  EXPECT_TRUE(isKnownOffloadArch(""));
}

TEST(OffloadArchTest, SweepOfCandidatesFindsExactlyTheKnownTable) {
  // Replays the reference probe: among systematically generated names, the
  // known ones are exactly the table above (minus the non-numbered names).
  std::vector<std::string> candidates;
  for (int number = 10; number < 140; ++number)
    for (const char *suffix : {"", "a", "f"})
      candidates.push_back("sm_" + std::to_string(number) + suffix);
  for (int number = 500; number < 1400; ++number)
    candidates.push_back("gfx" + std::to_string(number));
  for (int prefix = 80; prefix < 140; ++prefix)
    for (char digit : std::string_view("abcdef"))
      candidates.push_back("gfx" + std::to_string(prefix) + digit);
  for (int major = 6; major < 14; ++major) {
    candidates.push_back("gfx" + std::to_string(major) + "-generic");
    for (int minor = 0; minor < 10; ++minor)
      candidates.push_back("gfx" + std::to_string(major) + "-" +
                           std::to_string(minor) + "-generic");
  }

  std::set<std::string> found;
  for (const std::string &candidate : candidates)
    if (isKnownOffloadArch(candidate))
      found.insert(candidate);

  std::set<std::string> expected;
  for (std::string_view name : kKnownNames)
    if (name.substr(0, 3) == "sm_" || name.substr(0, 3) == "gfx")
      expected.insert(std::string(name));
  EXPECT_EQ(found, expected);
}

struct AmdgcnProcessorCase {
  std::string_view name;
  std::string_view canonicalName;
  std::vector<std::string_view> targetIdFeatures;
};

// Every spelling LLVM 22.1.8's parseArchAMDGCN accepts (fillValidArchListAMDGCN
// in libLLVM 22.1.8), its primary name (getArchNameAMDGCN) and the features
// clang::getAllPossibleTargetIDFeatures returns for an amdgcn triple.
const std::vector<AmdgcnProcessorCase> kAmdgcnProcessorCases = {
    {"gfx600", "gfx600", {}},
    {"tahiti", "gfx600", {}},
    {"gfx601", "gfx601", {}},
    {"pitcairn", "gfx601", {}},
    {"verde", "gfx601", {}},
    {"gfx602", "gfx602", {}},
    {"hainan", "gfx602", {}},
    {"oland", "gfx602", {}},
    {"gfx700", "gfx700", {}},
    {"kaveri", "gfx700", {}},
    {"gfx701", "gfx701", {}},
    {"hawaii", "gfx701", {}},
    {"gfx702", "gfx702", {}},
    {"gfx703", "gfx703", {}},
    {"kabini", "gfx703", {}},
    {"mullins", "gfx703", {}},
    {"gfx704", "gfx704", {}},
    {"bonaire", "gfx704", {}},
    {"gfx705", "gfx705", {}},
    {"gfx801", "gfx801", {"xnack"}},
    {"carrizo", "gfx801", {"xnack"}},
    {"gfx802", "gfx802", {}},
    {"iceland", "gfx802", {}},
    {"tonga", "gfx802", {}},
    {"gfx803", "gfx803", {}},
    {"fiji", "gfx803", {}},
    {"polaris10", "gfx803", {}},
    {"polaris11", "gfx803", {}},
    {"gfx805", "gfx805", {}},
    {"tongapro", "gfx805", {}},
    {"gfx810", "gfx810", {"xnack"}},
    {"stoney", "gfx810", {"xnack"}},
    {"gfx900", "gfx900", {"xnack"}},
    {"gfx902", "gfx902", {"xnack"}},
    {"gfx904", "gfx904", {"xnack"}},
    {"gfx906", "gfx906", {"sramecc", "xnack"}},
    {"gfx908", "gfx908", {"sramecc", "xnack"}},
    {"gfx909", "gfx909", {"xnack"}},
    {"gfx90a", "gfx90a", {"sramecc", "xnack"}},
    {"gfx90c", "gfx90c", {"xnack"}},
    {"gfx942", "gfx942", {"sramecc", "xnack"}},
    {"gfx950", "gfx950", {"sramecc", "xnack"}},
    {"gfx1010", "gfx1010", {"xnack"}},
    {"gfx1011", "gfx1011", {"xnack"}},
    {"gfx1012", "gfx1012", {"xnack"}},
    {"gfx1013", "gfx1013", {"xnack"}},
    {"gfx1030", "gfx1030", {}},
    {"gfx1031", "gfx1031", {}},
    {"gfx1032", "gfx1032", {}},
    {"gfx1033", "gfx1033", {}},
    {"gfx1034", "gfx1034", {}},
    {"gfx1035", "gfx1035", {}},
    {"gfx1036", "gfx1036", {}},
    {"gfx1100", "gfx1100", {}},
    {"gfx1101", "gfx1101", {}},
    {"gfx1102", "gfx1102", {}},
    {"gfx1103", "gfx1103", {}},
    {"gfx1150", "gfx1150", {}},
    {"gfx1151", "gfx1151", {}},
    {"gfx1152", "gfx1152", {}},
    {"gfx1153", "gfx1153", {}},
    {"gfx1200", "gfx1200", {}},
    {"gfx1201", "gfx1201", {}},
    {"gfx1250", "gfx1250", {}},
    {"gfx1251", "gfx1251", {}},
    {"gfx9-generic", "gfx9-generic", {"xnack"}},
    {"gfx10-1-generic", "gfx10-1-generic", {"xnack"}},
    {"gfx10-3-generic", "gfx10-3-generic", {}},
    {"gfx11-generic", "gfx11-generic", {}},
    {"gfx12-generic", "gfx12-generic", {}},
    {"gfx9-4-generic", "gfx9-4-generic", {"sramecc", "xnack"}},
};

TEST(OffloadArchTest, AmdgcnCanonicalNamesAndFeatures) {
  EXPECT_EQ(kAmdgcnProcessorCases.size(), 71u);
  for (const AmdgcnProcessorCase &processor : kAmdgcnProcessorCases) {
    EXPECT_EQ(canonicalAmdgcnProcessor(processor.name), processor.canonicalName)
        << processor.name;
    EXPECT_EQ(amdgcnTargetIdFeatures(processor.name),
              processor.targetIdFeatures)
        << processor.name;
    // No amdgcn spelling is an r600 processor.
    EXPECT_EQ(canonicalR600Processor(processor.name), "") << processor.name;
  }
}

TEST(OffloadArchTest, EveryAmdgcnPrimaryNameIsAKnownOffloadArch) {
  for (const AmdgcnProcessorCase &processor : kAmdgcnProcessorCases) {
    if (processor.name == processor.canonicalName)
      EXPECT_TRUE(isKnownOffloadArch(processor.name)) << processor.name;
    else
      EXPECT_FALSE(isKnownOffloadArch(processor.name)) << processor.name;
  }
}

TEST(OffloadArchTest, UnknownAmdgcnNames) {
  const std::vector<std::vector<std::string_view>> unknownNameGroups = {
      {"", "gfx940", "gfx941", "gfx1105", "gfx1170"},
      {"GFX906", "Tahiti", "gfx906:xnack+", "gfx9-4-generic:xnack+"},
      // Offload architectures that are not amdgcn processors.
      {"r600", "sm_90", "generic", "amdgcnspirv"},
  };
  for (const auto &group : unknownNameGroups) {
    for (std::string_view name : group) {
      EXPECT_EQ(canonicalAmdgcnProcessor(name), "") << name;
      EXPECT_TRUE(amdgcnTargetIdFeatures(name).empty()) << name;
    }
  }
}

// What LLVM 22.1.8 does with r600 processor names, one row per name: the
// names clang 22 lists as valid r600 CPUs, then some it refuses; the
// processor macro clang 22 predefines for "-cc1 -triple r600-unknown-unknown
// -target-cpu NAME" (it names the primary processor the name stands for; a
// refused name gets none); and the entry ID clang-offload-bundler 22 writes
// for the target "openmp-r600-unknown-unknown--NAME". Printed by
// scripts/collect_r600_cases.sh, which runs those tools.
struct R600Observation {
  std::string_view name;
  std::string_view processorMacro;
  std::string_view bundlerEntryId;
};
const R600Observation kR600Observations[] = {
    {"r600", "__r600__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv630", "__r600__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv635", "__r600__", "openmp-r600-unknown-unknown-unknown-"},
    {"r630", "__r630__", "openmp-r600-unknown-unknown-unknown-"},
    {"rs780", "__rs880__", "openmp-r600-unknown-unknown-unknown-"},
    {"rs880", "__rs880__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv610", "__rs880__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv620", "__rs880__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv670", "__rv670__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv710", "__rv710__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv730", "__rv730__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv740", "__rv770__", "openmp-r600-unknown-unknown-unknown-"},
    {"rv770", "__rv770__", "openmp-r600-unknown-unknown-unknown-"},
    {"cedar", "__cedar__", "openmp-r600-unknown-unknown-unknown-"},
    {"palm", "__cedar__", "openmp-r600-unknown-unknown-unknown-"},
    {"cypress", "__cypress__", "openmp-r600-unknown-unknown-unknown-"},
    {"hemlock", "__cypress__", "openmp-r600-unknown-unknown-unknown-"},
    {"juniper", "__juniper__", "openmp-r600-unknown-unknown-unknown-"},
    {"redwood", "__redwood__", "openmp-r600-unknown-unknown-unknown-"},
    {"sumo", "__sumo__", "openmp-r600-unknown-unknown-unknown-"},
    {"sumo2", "__sumo__", "openmp-r600-unknown-unknown-unknown-"},
    {"barts", "__barts__", "openmp-r600-unknown-unknown-unknown-"},
    {"caicos", "__caicos__", "openmp-r600-unknown-unknown-unknown-"},
    {"aruba", "__cayman__", "openmp-r600-unknown-unknown-unknown-"},
    {"cayman", "__cayman__", "openmp-r600-unknown-unknown-unknown-"},
    {"turks", "__turks__", "openmp-r600-unknown-unknown-unknown-"},
    {"R600", "", "openmp-r600-unknown-unknown-unknown-"},
    {"RV630", "", "openmp-r600-unknown-unknown-unknown-"},
    {"rv600", "", "openmp-r600-unknown-unknown-unknown-"},
    {"r700", "", "openmp-r600-unknown-unknown-unknown-"},
    {"tahiti", "", "openmp-r600-unknown-unknown-unknown-"},
    {"gfx906", "", "openmp-r600-unknown-unknown-unknown-gfx906"},
    {"sm_70", "", "openmp-r600-unknown-unknown-unknown-sm_70"},
};

TEST(OffloadArchTest, R600NamesAsLlvm22TreatsThem) {
  for (const R600Observation &observed : kR600Observations) {
    // "__rs880__" -> "rs880"; no macro -> the name is not an r600 processor.
    std::string_view expected = observed.processorMacro;
    if (!expected.empty())
      expected = expected.substr(2, expected.size() - 4);
    EXPECT_EQ(canonicalR600Processor(observed.name), expected) << observed.name;
    // r600 names are no offload architectures: the bundler drops them from
    // the entry ID (the triple then gets an "unknown" environment).
    std::string target =
        "openmp-r600-unknown-unknown--" + std::string(observed.name);
    EXPECT_EQ(OffloadTarget::parse(target).str(), observed.bundlerEntryId)
        << target;
  }
  EXPECT_EQ(canonicalR600Processor(""), "");
}

} // namespace
} // namespace offbundle
