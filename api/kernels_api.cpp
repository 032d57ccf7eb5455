// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The public API's kernels (readKernels in include/offbundle/offbundle.h):
// the code object's metadata (formats/amdgpu_code_object.h) with the
// occupancy of each kernel (targets/amdgpu_occupancy.h).
#include "offbundle/offbundle.h"

#include "api/public_error.h"
#include "formats/amdgpu_code_object.h"
#include "targets/amdgpu_elf_mach.h"
#include "targets/amdgpu_occupancy.h"

namespace offbundle::api {

Expected<CodeObjectKernels> readKernels(std::string_view codeObject) {
  auto read = readAmdgpuKernels(codeObject);
  if (!read)
    return publicError(read.error(), offbundle::ErrorCode::DamagedInput);
  CodeObjectKernels result;
  const std::optional<std::string_view> processor =
      processorOfAmdgpuMach(read->mach);
  result.processor = processor ? std::string(*processor) : "";
  for (const AmdgpuKernel &found : read->kernels) {
    Kernel kernel;
    kernel.name = found.name;
    kernel.vgprCount = found.vgprCount;
    kernel.agprCount = found.agprCount.value_or(0);
    kernel.sgprCount = found.sgprCount;
    kernel.vgprSpillCount = found.vgprSpillCount;
    kernel.sgprSpillCount = found.sgprSpillCount;
    kernel.groupSegmentFixedSize = found.groupSegmentFixedSize;
    kernel.privateSegmentFixedSize = found.privateSegmentFixedSize;
    kernel.usesDynamicStack = found.usesDynamicStack;
    kernel.wavefrontSize = found.wavefrontSize;
    kernel.maxFlatWorkgroupSize = found.maxFlatWorkgroupSize;
    kernel.kernargSegmentSize = found.kernargSegmentSize;
    kernel.codeBytes = found.codeBytes;
    AmdgpuOccupancyInput input;
    input.processor = result.processor;
    input.wavefrontSize = static_cast<uint32_t>(found.wavefrontSize);
    input.workgroupProcessorMode = found.workgroupProcessorMode.value_or(true);
    input.sgprs = found.sgprCount;
    input.vgprs = found.vgprCount;
    input.descriptorVgprBlocks = found.descriptorVgprBlocks;
    input.ldsBytes = found.groupSegmentFixedSize;
    input.maxFlatWorkgroupSize = found.maxFlatWorkgroupSize;
    kernel.occupancy = amdgpuOccupancy(input);
    result.kernels.push_back(std::move(kernel));
  }
  return result;
}

} // namespace offbundle::api
