// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The kernels of an AMDGPU code object, as its NT_AMDGPU_METADATA note and
// its symbols describe them (AMDGPUUsage, "Code Object Metadata", code
// object versions 3 to 6; LLVM's AMDGPUHSAMetadataStreamer writes it).
//
// The note lives in a SHT_NOTE section: namesz, descsz and type (u32
// each), the owner name "AMDGPU" and the description, each padded to 4
// bytes; type 32 (NT_AMDGPU_METADATA). The description is one MessagePack
// map: "amdhsa.version", "amdhsa.target" (the target ID), and
// "amdhsa.kernels", an array with a map per kernel whose keys start with a
// dot:
//
//   .name .symbol (the kernel descriptor, "<name>.kd")
//   .vgpr_count (arch VGPRs and AGPRs together) .agpr_count (MAI parts)
//   .sgpr_count (with VCC, flat scratch and XNACK) .vgpr_spill_count
//   .sgpr_spill_count .group_segment_fixed_size (static LDS bytes)
//   .private_segment_fixed_size (scratch bytes per lane)
//   .uses_dynamic_stack .wavefront_size .max_flat_workgroup_size
//   .kernarg_segment_size .workgroup_processor_mode (gfx10+, v5 and later)
//
// The kernel descriptor (64 bytes at the ".kd" symbol) holds in
// COMPUTE_PGM_RSRC1 (offset 48) bits 0-5 the VGPR blocks the hardware
// allocates, which is the count occupancy is computed from (it includes
// the floor amdgpu-waves-per-eu imposes). The kernel's code is the
// function symbol of its name; its size is the code's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

struct AmdgpuKernel {
  std::string name;
  std::string symbol;
  uint64_t vgprCount = 0;
  std::optional<uint64_t> agprCount;
  uint64_t sgprCount = 0;
  uint64_t vgprSpillCount = 0;
  uint64_t sgprSpillCount = 0;
  uint64_t groupSegmentFixedSize = 0;
  uint64_t privateSegmentFixedSize = 0;
  bool usesDynamicStack = false;
  uint64_t wavefrontSize = 64;
  uint64_t maxFlatWorkgroupSize = 0;
  uint64_t kernargSegmentSize = 0;
  std::optional<bool> workgroupProcessorMode;
  // The GRANULATED_WORKITEM_VGPR_COUNT field of its descriptor, when the
  // descriptor was found.
  std::optional<uint32_t> descriptorVgprBlocks;
  // The size of the kernel's function symbol.
  std::optional<uint64_t> codeBytes;
};

struct AmdgpuKernels {
  std::string target; // "amdhsa.target", e.g. amdgcn-amd-amdhsa--gfx90a
  uint32_t mach = 0;  // the processor in e_flags (EF_AMDGPU_MACH)
  std::vector<AmdgpuKernel> kernels; // in metadata order
};

// The kernels of a 64-bit little-endian AMDGPU ELF code object. Code
// objects of version 2 (YAML in an NT_AMD_HSA_METADATA note of owner
// "AMD") are reported as such; so is a code object without metadata.
Result<AmdgpuKernels> readAmdgpuKernels(std::string_view codeObject);

} // namespace offbundle
