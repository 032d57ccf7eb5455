// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The occupancy of an AMDGPU kernel, in waves per SIMD: what clang 22
// prints as "Occupancy [waves/SIMD]" under
// -Rpass-analysis=kernel-resource-usage, computed from what a code object
// records. Facts from LLVM 22's AMDGPU backend (AMDGPUAsmPrinter's
// getSIProgramInfo and resource-usage remarks, AMDGPUSubtarget's
// getOccupancyWithWorkGroupSizes, AMDGPUBaseInfo's IsaInfo functions,
// AMDGPUMCExpr's occupancy and total-VGPR expressions, AMDGPU.td's
// processor features); no code of theirs is used.
//
//   occupancy = min(work-group term, SGPR term, VGPR term)
//
// - Work-group term: how many waves of work-groups of 1 to the kernel's
//   largest flat work-group size fit on a CU (a WGP on gfx10+ in WGP
//   mode), given the LDS each takes out of the CU's, the waves each needs,
//   and at most 16 work-groups with barriers (32 in WGP mode); spread over
//   the CU's SIMDs (4, or 2 in gfx10+ CU mode), at most the processor's
//   waves per SIMD.
// - VGPR term: the register file over the kernel's VGPRs (AGPRs included:
//   gfx908 counts the larger of the two files, gfx90a-class parts add them
//   after aligning VGPRs to 4) rounded up to the allocation granule. The
//   count is the larger of the metadata's and the kernel descriptor's (the
//   blocks the hardware allocates, which include the floor an
//   amdgpu-waves-per-eu request sets).
// - SGPR term, gfx6 to gfx9 only: a table of SGPR counts.
//
// The code object does not record a work-group size minimum above 1, so a
// kernel declaring one may differ; nor dynamic LDS, which the compiler's
// figure leaves out as well.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace offbundle {

struct AmdgpuOccupancyInput {
  std::string_view processor; // gfx906, gfx9-4-generic, ...
  uint32_t wavefrontSize = 64;
  // gfx10+: WGP mode (the default) or CU mode.
  bool workgroupProcessorMode = true;
  uint64_t sgprs = 0;
  uint64_t vgprs = 0; // total, AGPRs included, as the metadata counts them
  std::optional<uint32_t> descriptorVgprBlocks;
  uint64_t ldsBytes = 0;
  uint64_t maxFlatWorkgroupSize = 1024;
};

// Nothing for a processor clang 22 does not know, or a wavefront size it
// does not have.
std::optional<uint32_t> amdgpuOccupancy(const AmdgpuOccupancyInput &input);

} // namespace offbundle
