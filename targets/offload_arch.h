// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU processor names LLVM 22.1's clang knows (clang::OffloadArch), and
// the AMDGPU processor table (primary and alternative names, supported
// target-ID features) from LLVM 22.1's TargetParser.
#pragma once

#include <string_view>
#include <vector>

namespace offbundle {

// clang::StringToOffloadArch(name) != OffloadArch::Unknown for LLVM 22.1.
// Case-sensitive, exact names only ("gfx906", "sm_90a", "gfx11-generic").
bool isKnownOffloadArch(std::string_view name);

// llvm::AMDGPU::parseArchAMDGCN + getArchNameAMDGCN: the primary name of an
// amdgcn processor given its primary or alternative name, or "" if unknown.
std::string_view canonicalAmdgcnProcessor(std::string_view name);
// Same for r600 processors (parseArchR600 + getArchNameR600).
std::string_view canonicalR600Processor(std::string_view name);

// Target-ID features ("sramecc", "xnack") the amdgcn processor with this
// primary name supports, in the order clang's getAllPossibleTargetIDFeatures
// lists them. Empty for unknown processors.
std::vector<std::string_view>
amdgcnTargetIdFeatures(std::string_view primaryName);

} // namespace offbundle
