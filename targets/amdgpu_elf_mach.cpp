// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// EF_AMDGPU_MACH values (see amdgpu_elf_mach.h). The table follows LLVM
// 22's llvm/include/llvm/BinaryFormat/ELF.h, where each processor has its
// value; AMDGPUUsage's "AMDGPU ELF Header e_flags" table lists the same.
#include "targets/amdgpu_elf_mach.h"

namespace offbundle {
namespace {

struct MachName {
  uint32_t mach;
  std::string_view processor;
};

constexpr MachName kMachNames[] = {
    {0x020, "gfx600"},          {0x021, "gfx601"},
    {0x022, "gfx700"},          {0x023, "gfx701"},
    {0x024, "gfx702"},          {0x025, "gfx703"},
    {0x026, "gfx704"},          {0x028, "gfx801"},
    {0x029, "gfx802"},          {0x02a, "gfx803"},
    {0x02b, "gfx810"},          {0x02c, "gfx900"},
    {0x02d, "gfx902"},          {0x02e, "gfx904"},
    {0x02f, "gfx906"},          {0x030, "gfx908"},
    {0x031, "gfx909"},          {0x032, "gfx90c"},
    {0x033, "gfx1010"},         {0x034, "gfx1011"},
    {0x035, "gfx1012"},         {0x036, "gfx1030"},
    {0x037, "gfx1031"},         {0x038, "gfx1032"},
    {0x039, "gfx1033"},         {0x03a, "gfx602"},
    {0x03b, "gfx705"},          {0x03c, "gfx805"},
    {0x03d, "gfx1035"},         {0x03e, "gfx1034"},
    {0x03f, "gfx90a"},          {0x041, "gfx1100"},
    {0x042, "gfx1013"},         {0x043, "gfx1150"},
    {0x044, "gfx1103"},         {0x045, "gfx1036"},
    {0x046, "gfx1101"},         {0x047, "gfx1102"},
    {0x048, "gfx1200"},         {0x049, "gfx1250"},
    {0x04a, "gfx1151"},         {0x04c, "gfx942"},
    {0x04e, "gfx1201"},         {0x04f, "gfx950"},
    {0x051, "gfx9-generic"},    {0x052, "gfx10-1-generic"},
    {0x053, "gfx10-3-generic"}, {0x054, "gfx11-generic"},
    {0x055, "gfx1152"},         {0x058, "gfx1153"},
    {0x059, "gfx12-generic"},   {0x05a, "gfx1251"},
    {0x05f, "gfx9-4-generic"},
};

} // namespace

std::optional<std::string_view> processorOfAmdgpuMach(uint32_t mach) {
  for (const MachName &entry : kMachNames)
    if (entry.mach == mach)
      return entry.processor;
  return std::nullopt;
}

std::optional<uint32_t> amdgpuMachOfProcessor(std::string_view processor) {
  for (const MachName &entry : kMachNames)
    if (entry.processor == processor)
      return entry.mach;
  return std::nullopt;
}

} // namespace offbundle
