// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AMDGPU targets as LLVM after version 22 spells them, read as the targets
// LLVM 22 spells differently. Facts from LLVM main's
// llvm/lib/TargetParser/Triple.cpp (parseArch, parseSubArch, getArchName):
//
// - The architecture is named "amdgpu"; "amdgcn" stays its legacy name.
//   Any architecture name starting with "amdgpu" is that architecture.
// - A sub-architecture may follow: "amdgpu" + major + "." + minor and
//   stepping, naming one processor ("amdgpu9.0a" is gfx90a, "amdgpu10.30"
//   gfx1030, "amdgpu9.50" gfx950), or a family without a processor
//   ("amdgpu9", "amdgpu9.4", "amdgpu10.3", "amdgpu11", "amdgpu12.5", ...).
// - Triples are written normalized, the empty environment spelled
//   "unknown": "amdgcn-amd-amdhsa-unknown".
//
// LLVM 22 knows none of these: "amdgpu9.0a-amd-amdhsa" is an unknown
// architecture to it, and "unknown" an environment of its own, so
// clang-offload-bundler keeps that behaviour. offbundle's own commands read
// an entry through llvm22EntryId, so that each spelling is one target.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace offbundle {

// Whether `arch` names the AMDGPU architecture in either spelling.
bool isAmdgpuArchName(std::string_view arch);

// The processor an "amdgpu" architecture name with a processor's
// sub-architecture names ("amdgpu9.0a" -> "gfx90a"); nothing for "amdgpu"
// alone, a family, or any other name.
std::optional<std::string> processorOfAmdgpuArch(std::string_view arch);

// An entry ID ("<kind>-<arch>-<vendor>-<os>[-<environment>[-<target id>]]")
// as LLVM 22 spells its target: an AMDGPU architecture named "amdgcn", its
// "unknown" environment left empty, and, when the ID has no target ID, the
// processor its sub-architecture names taken as one. A target ID the entry
// has wins over the sub-architecture's processor. Other IDs come back as
// given.
std::string llvm22EntryId(std::string_view id);

} // namespace offbundle
