// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The processor tables of LLVM 22.1, written out as data (see offload_arch.h):
// clang's OffloadArch names and LLVM's AMDGCN and R600 processors. Each was
// checked against the 22.1.8 libraries and describes that release only.

#include "targets/offload_arch.h"

#include <algorithm>
#include <array>

namespace offbundle {
namespace {

// Every name clang 22.1's StringToOffloadArch maps to something other than
// OffloadArch::UNKNOWN, in clang's enumeration order. The list was taken from
// libclang-cpp 22.1.8 (OffloadArchToString over every enumerator) and checked
// against clang-offload-bundler 22.1.8, which keeps a target ID only when its
// processor is in this list. Note what is absent: gfx940, gfx941, gfx1170 and
// any "sm_*f" name are unknown to this release.
constexpr std::array<std::string_view, 91> kKnownOffloadArchNames = {
    // NVIDIA.
    "sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52",
    "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80",
    "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a",
    "sm_101", "sm_101a", "sm_103", "sm_103a", "sm_110", "sm_110a", "sm_120",
    "sm_120a", "sm_121", "sm_121a",
    // AMD, including the generic targets.
    "gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703",
    "gfx704", "gfx705", "gfx801", "gfx802", "gfx803", "gfx805", "gfx810",
    "gfx9-generic", "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909",
    "gfx90a", "gfx90c", "gfx9-4-generic", "gfx942", "gfx950", "gfx10-1-generic",
    "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-3-generic", "gfx1030",
    "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
    "gfx11-generic", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150",
    "gfx1151", "gfx1152", "gfx1153", "gfx12-generic", "gfx1200", "gfx1201",
    "gfx1250", "gfx1251", "amdgcnspirv",
    // The testing-only "generic" model, then Intel CPU and GPU names.
    "generic", "graniterapids", "bmg_g21"};

struct AmdgcnProcessor {
  std::string_view name;
  std::string_view canonicalName;
  bool hasXnack;
  bool hasSramEcc;
};

// llvm::AMDGPU's AMDGCNGPUs table for LLVM 22.1: every accepted spelling, the
// primary name it stands for, and the two attribute bits target IDs care
// about (FEATURE_XNACK, FEATURE_SRAMECC). Checked entry by entry against
// libLLVM 22.1.8 (fillValidArchListAMDGCN, parseArchAMDGCN, getArchNameAMDGCN,
// getArchAttrAMDGCN).
constexpr AmdgcnProcessor kAmdgcnProcessors[] = {
    {"gfx600", "gfx600", false, false},
    {"tahiti", "gfx600", false, false},
    {"gfx601", "gfx601", false, false},
    {"pitcairn", "gfx601", false, false},
    {"verde", "gfx601", false, false},
    {"gfx602", "gfx602", false, false},
    {"hainan", "gfx602", false, false},
    {"oland", "gfx602", false, false},
    {"gfx700", "gfx700", false, false},
    {"kaveri", "gfx700", false, false},
    {"gfx701", "gfx701", false, false},
    {"hawaii", "gfx701", false, false},
    {"gfx702", "gfx702", false, false},
    {"gfx703", "gfx703", false, false},
    {"kabini", "gfx703", false, false},
    {"mullins", "gfx703", false, false},
    {"gfx704", "gfx704", false, false},
    {"bonaire", "gfx704", false, false},
    {"gfx705", "gfx705", false, false},
    {"gfx801", "gfx801", true, false},
    {"carrizo", "gfx801", true, false},
    {"gfx802", "gfx802", false, false},
    {"iceland", "gfx802", false, false},
    {"tonga", "gfx802", false, false},
    {"gfx803", "gfx803", false, false},
    {"fiji", "gfx803", false, false},
    {"polaris10", "gfx803", false, false},
    {"polaris11", "gfx803", false, false},
    {"gfx805", "gfx805", false, false},
    {"tongapro", "gfx805", false, false},
    {"gfx810", "gfx810", true, false},
    {"stoney", "gfx810", true, false},
    {"gfx900", "gfx900", true, false},
    {"gfx902", "gfx902", true, false},
    {"gfx904", "gfx904", true, false},
    {"gfx906", "gfx906", true, true},
    {"gfx908", "gfx908", true, true},
    {"gfx909", "gfx909", true, false},
    {"gfx90a", "gfx90a", true, true},
    {"gfx90c", "gfx90c", true, false},
    {"gfx942", "gfx942", true, true},
    {"gfx950", "gfx950", true, true},
    {"gfx1010", "gfx1010", true, false},
    {"gfx1011", "gfx1011", true, false},
    {"gfx1012", "gfx1012", true, false},
    {"gfx1013", "gfx1013", true, false},
    {"gfx1030", "gfx1030", false, false},
    {"gfx1031", "gfx1031", false, false},
    {"gfx1032", "gfx1032", false, false},
    {"gfx1033", "gfx1033", false, false},
    {"gfx1034", "gfx1034", false, false},
    {"gfx1035", "gfx1035", false, false},
    {"gfx1036", "gfx1036", false, false},
    {"gfx1100", "gfx1100", false, false},
    {"gfx1101", "gfx1101", false, false},
    {"gfx1102", "gfx1102", false, false},
    {"gfx1103", "gfx1103", false, false},
    {"gfx1150", "gfx1150", false, false},
    {"gfx1151", "gfx1151", false, false},
    {"gfx1152", "gfx1152", false, false},
    {"gfx1153", "gfx1153", false, false},
    {"gfx1200", "gfx1200", false, false},
    {"gfx1201", "gfx1201", false, false},
    {"gfx1250", "gfx1250", false, false},
    {"gfx1251", "gfx1251", false, false},
    {"gfx9-generic", "gfx9-generic", true, false},
    {"gfx10-1-generic", "gfx10-1-generic", true, false},
    {"gfx10-3-generic", "gfx10-3-generic", false, false},
    {"gfx11-generic", "gfx11-generic", false, false},
    {"gfx12-generic", "gfx12-generic", false, false},
    {"gfx9-4-generic", "gfx9-4-generic", true, true},
};

struct R600Processor {
  std::string_view name;
  std::string_view canonicalName;
};

// llvm::AMDGPU's R600GPUs table for LLVM 22.1 (names only: no r600 processor
// has a target-ID feature). Checked against libLLVM 22.1.8 like the table
// above.
constexpr R600Processor kR600Processors[] = {
    {"r600", "r600"},       {"rv630", "r600"},      {"rv635", "r600"},
    {"r630", "r630"},       {"rs780", "rs880"},     {"rs880", "rs880"},
    {"rv610", "rs880"},     {"rv620", "rs880"},     {"rv670", "rv670"},
    {"rv710", "rv710"},     {"rv730", "rv730"},     {"rv740", "rv770"},
    {"rv770", "rv770"},     {"cedar", "cedar"},     {"palm", "cedar"},
    {"cypress", "cypress"}, {"hemlock", "cypress"}, {"juniper", "juniper"},
    {"redwood", "redwood"}, {"sumo", "sumo"},       {"sumo2", "sumo"},
    {"barts", "barts"},     {"caicos", "caicos"},   {"aruba", "cayman"},
    {"cayman", "cayman"},   {"turks", "turks"},
};

const AmdgcnProcessor *findAmdgcnProcessor(std::string_view name) {
  const auto *found =
      std::find_if(std::begin(kAmdgcnProcessors), std::end(kAmdgcnProcessors),
                   [name](const AmdgcnProcessor &processor) {
                     return processor.name == name;
                   });
  return found == std::end(kAmdgcnProcessors) ? nullptr : found;
}

} // namespace

bool isKnownOffloadArch(std::string_view name) {
  // clang's table starts with a placeholder entry (OffloadArch::UNUSED) whose
  // name is "", so the empty string is not UNKNOWN either. Kept so that
  // callers see exactly what clang's comparison gives.
  if (name.empty())
    return true;
  return std::find(kKnownOffloadArchNames.begin(), kKnownOffloadArchNames.end(),
                   name) != kKnownOffloadArchNames.end();
}

std::string_view canonicalAmdgcnProcessor(std::string_view name) {
  const AmdgcnProcessor *processor = findAmdgcnProcessor(name);
  return processor ? processor->canonicalName : std::string_view();
}

std::string_view canonicalR600Processor(std::string_view name) {
  const auto *found =
      std::find_if(std::begin(kR600Processors), std::end(kR600Processors),
                   [name](const R600Processor &processor) {
                     return processor.name == name;
                   });
  return found == std::end(kR600Processors) ? std::string_view()
                                            : found->canonicalName;
}

std::vector<std::string_view> amdgcnTargetIdFeatures(std::string_view name) {
  // clang looks the name up with parseArchAMDGCN, so an alternative name
  // yields the same features as its primary name.
  std::vector<std::string_view> features;
  const AmdgcnProcessor *processor = findAmdgcnProcessor(name);
  if (!processor)
    return features;
  // clang lists them alphabetically: sramecc before xnack.
  if (processor->hasSramEcc)
    features.push_back("sramecc");
  if (processor->hasXnack)
    features.push_back("xnack");
  return features;
}

} // namespace offbundle
