// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AMDGPU code objects (formats/amdgpu_code_object.h): the ELF sections,
// the notes, the NT_AMDGPU_METADATA MessagePack (the size check, then
// msgpack-c), the symbol tables and the kernel descriptors; then each
// kernel's occupancy. Whatever is read must lie inside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "formats/amdgpu_code_object.h"
#include "fuzz_support.h"
#include "targets/amdgpu_elf_mach.h"
#include "targets/amdgpu_occupancy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view input = offbundle::fuzz::asView(data, size);
  auto kernels = offbundle::readAmdgpuKernels(input);
  if (!kernels)
    return 0;
  const auto processor = offbundle::processorOfAmdgpuMach(kernels->mach);
  for (const offbundle::AmdgpuKernel &kernel : kernels->kernels) {
    offbundle::AmdgpuOccupancyInput occupancy;
    occupancy.processor = processor.value_or("");
    occupancy.wavefrontSize = static_cast<uint32_t>(kernel.wavefrontSize);
    occupancy.sgprs = kernel.sgprCount;
    occupancy.vgprs = kernel.vgprCount;
    occupancy.descriptorVgprBlocks = kernel.descriptorVgprBlocks;
    occupancy.ldsBytes = kernel.groupSegmentFixedSize;
    occupancy.maxFlatWorkgroupSize = kernel.maxFlatWorkgroupSize;
    if (auto waves = offbundle::amdgpuOccupancy(occupancy);
        waves && (*waves < 1 || *waves > 20))
      std::abort();
  }
  return 0;
}
