// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AMDGPU spellings after LLVM 22 (see amdgpu_spellings.h): the
// sub-architectures that name one processor, and entry IDs rewritten in
// LLVM 22's spelling.

#include "targets/amdgpu_spellings.h"

#include <vector>

#include "support/string_split.h"

namespace offbundle {
namespace {

constexpr std::string_view kAmdgpu = "amdgpu";

// The sub-architectures of LLVM main's Triple::parseSubArch that name one
// processor, as written after "amdgpu": the major version, a dot, then the
// processor's minor version and stepping. The families it also accepts
// ("9", "9.4", "9.5", "10", "10.1", "10.3", "11", "11.7", "12", "12.5",
// "13", and "6" to "8") name no processor and are absent.
constexpr std::string_view kProcessorSubArchs[] = {
    "6.00",  "6.01",  "6.02",  "7.00",  "7.01",  "7.02",  "7.03",  "7.04",
    "7.05",  "8.01",  "8.02",  "8.03",  "8.05",  "8.10",  "9.00",  "9.02",
    "9.04",  "9.06",  "9.08",  "9.09",  "9.0a",  "9.0c",  "9.42",  "9.50",
    "10.10", "10.11", "10.12", "10.13", "10.30", "10.31", "10.32", "10.33",
    "10.34", "10.35", "10.36", "11.00", "11.01", "11.02", "11.03", "11.50",
    "11.51", "11.52", "11.53", "11.54", "11.70", "11.71", "11.72", "12.00",
    "12.01", "12.50", "12.51", "13.10"};

} // namespace

bool isAmdgpuArchName(std::string_view arch) {
  return arch == "amdgcn" || arch.substr(0, kAmdgpu.size()) == kAmdgpu;
}

std::optional<std::string> processorOfAmdgpuArch(std::string_view arch) {
  if (arch.substr(0, kAmdgpu.size()) != kAmdgpu)
    return std::nullopt;
  const std::string_view subArch = arch.substr(kAmdgpu.size());
  for (std::string_view known : kProcessorSubArchs) {
    if (known != subArch)
      continue;
    const size_t dot = known.find('.');
    return "gfx" + std::string(known.substr(0, dot)) +
           std::string(known.substr(dot + 1));
  }
  return std::nullopt;
}

std::string llvm22EntryId(std::string_view id) {
  const std::vector<std::string_view> parts = splitOnDash(id, 6);
  if (parts.size() < 4 || !isAmdgpuArchName(parts[1]))
    return std::string(id);
  const std::string_view environment = parts.size() > 4 ? parts[4] : "";
  std::string targetId = parts.size() > 5 ? std::string(parts[5]) : "";
  if (parts[1] == "amdgcn" && environment != "unknown")
    return std::string(id);
  if (targetId.empty())
    targetId = processorOfAmdgpuArch(parts[1]).value_or("");
  std::string spelled =
      std::string(parts[0]) + "-amdgcn-" + std::string(parts[2]) + "-" +
      std::string(parts[3]) + "-" +
      std::string(environment == "unknown" ? "" : environment);
  if (!targetId.empty())
    spelled += "-" + targetId;
  return spelled;
}

} // namespace offbundle
