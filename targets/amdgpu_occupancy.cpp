// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AMDGPU occupancy (see amdgpu_occupancy.h). A processor's parameters
// follow from the features LLVM 22's AMDGPU.td gives it: its generation,
// the gfx90a instructions (one unified 512-entry VGPR file, 8 waves per
// SIMD), the gfx10.3 instructions (16 waves, a larger VGPR granule), 50%
// more VGPRs (gfx1100, gfx1101, gfx1151, gfx12), the SGPR initialization
// bug (gfx802, gfx805), its LDS size and gfx1250's CU-only mode.

#include "targets/amdgpu_occupancy.h"

#include <algorithm>
#include <array>
#include <string>

#include "targets/amdgpu_elf_mach.h"

namespace offbundle {
namespace {

struct ProcessorTraits {
  unsigned generation = 0; // 6 (gfx6) to 12 (gfx12)
  bool gfx90aInstructions = false;
  bool gfx10_3Instructions = false;
  bool moreVgprs = false; // Feature1_5xVGPRs
  bool sgprInitBug = false;
  bool cuModeOnly = false; // gfx1250, gfx1251
  bool wave64Only = true;
  uint64_t ldsBytes = 65536; // addressable per work-group
};

bool oneOf(std::string_view name,
           std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<ProcessorTraits> traitsOf(std::string_view processor) {
  // Only processors with an EF_AMDGPU_MACH value, the names code objects
  // carry.
  if (!amdgpuMachOfProcessor(processor))
    return std::nullopt;
  ProcessorTraits traits;
  const std::string_view digits = processor.substr(3);
  if (digits.starts_with("12"))
    traits.generation = 12;
  else if (digits.starts_with("11"))
    traits.generation = 11;
  else if (digits.starts_with("10"))
    traits.generation = 10;
  else if (!digits.empty() && digits[0] >= '6' && digits[0] <= '9')
    traits.generation = static_cast<unsigned>(digits[0] - '0');
  else
    return std::nullopt;
  traits.gfx90aInstructions =
      oneOf(processor, {"gfx90a", "gfx942", "gfx950", "gfx9-4-generic"});
  traits.gfx10_3Instructions =
      traits.generation >= 11 ||
      (traits.generation == 10 &&
       (digits.starts_with("103") || processor == "gfx10-3-generic"));
  traits.moreVgprs = oneOf(processor, {"gfx1100", "gfx1101", "gfx1151",
                                       "gfx1200", "gfx1201", "gfx12-generic"});
  traits.sgprInitBug = oneOf(processor, {"gfx802", "gfx805"});
  traits.cuModeOnly = oneOf(processor, {"gfx1250", "gfx1251"});
  traits.wave64Only = traits.generation <= 9;
  if (traits.generation == 6)
    traits.ldsBytes = 32768;
  else if (processor == "gfx950")
    traits.ldsBytes = 163840;
  else if (traits.cuModeOnly)
    traits.ldsBytes = 327680;
  return traits;
}

uint64_t divideCeil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// IsaInfo::getOccupancyWithNumSGPRs: a table on gfx6 to gfx9.
uint32_t sgprOccupancy(const ProcessorTraits &traits, uint64_t sgprs,
                       uint32_t maxWaves) {
  if (traits.generation >= 10)
    return maxWaves;
  if (traits.generation >= 8) {
    if (sgprs <= 80)
      return 10;
    if (sgprs <= 88)
      return 9;
    if (sgprs <= 100)
      return 8;
    return 7;
  }
  constexpr std::array<uint64_t, 5> kLimits = {48, 56, 64, 72, 80};
  for (size_t i = 0; i < kLimits.size(); ++i)
    if (sgprs <= kLimits[i])
      return static_cast<uint32_t>(10 - i);
  return 5;
}

} // namespace

std::optional<uint32_t> amdgpuOccupancy(const AmdgpuOccupancyInput &input) {
  const std::optional<ProcessorTraits> found = traitsOf(input.processor);
  if (!found)
    return std::nullopt;
  const ProcessorTraits &traits = *found;
  const uint32_t wave = input.wavefrontSize;
  if (wave != 64 && (wave != 32 || traits.wave64Only))
    return std::nullopt;
  const bool wave32 = wave == 32;

  const uint32_t maxWaves = traits.gfx90aInstructions    ? 8
                            : traits.generation <= 9     ? 10
                            : traits.gfx10_3Instructions ? 16
                                                         : 20;
  // The block a work-group's waves share: a WGP (two CUs) in gfx10+ WGP
  // mode, else a CU.
  const bool wgp = traits.generation >= 10 && !traits.cuModeOnly &&
                   input.workgroupProcessorMode;
  const bool cuMode = traits.generation >= 10 && !traits.cuModeOnly && !wgp;
  const uint64_t simds = cuMode ? 2 : 4;
  const uint64_t localMemory = traits.ldsBytes * (wgp ? 2 : 1);
  const uint64_t maxBarriers = wgp ? 32 : 16;

  // The work-group term (getOccupancyWithWorkGroupSizes, its upper end),
  // for work-groups of 1 to maxFlatWorkgroupSize work-items.
  uint32_t workGroupTerm = 1;
  const uint64_t groupsByLds =
      localMemory / std::max<uint64_t>(input.ldsBytes, 1);
  if (groupsByLds != 0) {
    const uint64_t slots = uint64_t{maxWaves} * simds;
    auto groupsPerCu = [&](uint64_t wavesPerGroup) {
      const uint64_t byBarriers =
          wavesPerGroup == 1 ? slots
                             : std::min(slots / wavesPerGroup, maxBarriers);
      return std::min(byBarriers, groupsByLds);
    };
    const uint64_t largest = std::max<uint64_t>(input.maxFlatWorkgroupSize, 1);
    const uint64_t smallWaves = 1; // a work-group of one work-item
    const uint64_t smallGroups = groupsPerCu(smallWaves);
    const uint64_t largeWaves = divideCeil(largest, wave);
    const uint64_t wavesAtSmall = smallWaves * smallGroups;
    const uint64_t wavesAtLarge = largeWaves * groupsPerCu(largeWaves);
    uint64_t most = wavesAtLarge;
    if (wavesAtLarge < wavesAtSmall) {
      most = wavesAtSmall;
      const uint64_t leftoverPerGroup =
          (slots - smallGroups * smallWaves) / smallGroups;
      if (leftoverPerGroup != 0)
        most += smallGroups * std::min(leftoverPerGroup,
                                       (largest - 1) / wave + 1 - smallWaves);
    }
    workGroupTerm = static_cast<uint32_t>(
        std::clamp<uint64_t>(divideCeil(most, simds), 1, maxWaves));
  }

  // The VGPR term.
  const uint64_t vgprFile = traits.gfx90aInstructions ? 512
                            : traits.cuModeOnly       ? 1024
                            : traits.generation <= 9  ? 256
                            : traits.moreVgprs        ? (wave32 ? 1536 : 768)
                                                      : (wave32 ? 1024 : 512);
  const uint64_t granule = traits.gfx90aInstructions    ? 8
                           : traits.moreVgprs           ? (wave32 ? 24 : 12)
                           : traits.gfx10_3Instructions ? (wave32 ? 16 : 8)
                                                        : (wave32 ? 8 : 4);
  const uint64_t encodingGranule = traits.gfx90aInstructions ? 8
                                   : traits.cuModeOnly       ? (wave32 ? 16 : 8)
                                   : wave32                  ? 8
                                                             : 4;
  uint64_t vgprs = std::max<uint64_t>(input.vgprs, 1);
  if (input.descriptorVgprBlocks)
    vgprs = std::max<uint64_t>(
        vgprs, (uint64_t{*input.descriptorVgprBlocks} + 1) * encodingGranule);
  uint32_t vgprTerm = maxWaves;
  if (vgprs >= granule)
    vgprTerm = static_cast<uint32_t>(std::clamp<uint64_t>(
        vgprFile / (divideCeil(vgprs, granule) * granule), 1, maxWaves));

  const uint64_t sgprs =
      traits.sgprInitBug ? 96 : std::max<uint64_t>(input.sgprs, 1);
  const uint32_t sgprTerm = sgprOccupancy(traits, sgprs, maxWaves);
  return std::min({workGroupTerm, vgprTerm, sgprTerm});
}

} // namespace offbundle
