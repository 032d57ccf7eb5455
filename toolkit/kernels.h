// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle kernels: every GPU kernel of a file's AMDGPU code objects, per
// target, with its registers, memory, occupancy and code size
// (api::readKernels), sorted and printed as a table per target or as JSON.
#pragma once

#include <offbundle/offbundle.h>

#include <string>
#include <string_view>
#include <vector>

#include "rewrite/target_selection.h"
#include "support/error.h"

namespace offbundle {

struct KernelRow {
  api::Kernel kernel;
  std::string name; // demangled when asked
};

struct TargetKernels {
  std::string target; // as sizes names targets: amdgcn-amd-amdhsa--gfx906
  std::vector<KernelRow> kernels;
};

struct FileKernels {
  std::string file;
  std::vector<TargetKernels> targets;
};

struct KernelsRequest {
  std::vector<TargetSelector> selectors; // empty: every target
  std::string sortField;                 // empty: metadata order
  bool demangle = false;
};

// The fields --sort takes, as the JSON names them.
const std::vector<std::string_view> &kernelSortFields();

// The kernels of every AMDGPU code object `input` holds whose entry the
// selectors select, by target in the order targets first appear. Entries
// that are not AMDGPU code objects (host code, bitcode) are passed over;
// a code object whose metadata cannot be read is an Error naming it.
Result<std::vector<TargetKernels>> kernelsOf(const api::Input &input,
                                             const KernelsRequest &request);

// sizes --by-kernel: a kernel, by its (mangled) name, over every code
// object of every file and target holding it.
struct KernelTotal {
  std::string name;                 // as printed: demangled when asked
  uint64_t codeBytes = 0;           // the sum of its code_bytes
  size_t instances = 0;             // the code objects holding it
  std::vector<std::string> targets; // in the order first seen
  uint64_t largestCodeBytes = 0;    // its largest instance
};

struct KernelTotals {
  std::vector<KernelTotal> kernels; // largest codeBytes first, then by name
  size_t names = 0;                 // distinct names, before any --top cut
  size_t instances = 0;             // every kernel of every code object
  uint64_t codeBytes = 0;           // their code_bytes, summed
  size_t files = 0;                 // files holding at least one kernel
};

// The totals of `files`' kernels, the `top` largest (0: all).
KernelTotals kernelTotals(const std::vector<FileKernels> &files, size_t top);

std::string kernelTotalsText(const KernelTotals &totals,
                             const api::FileWalk &walk);
std::string kernelTotalsJson(const KernelTotals &totals,
                             const api::FileWalk &walk);

std::string kernelsText(const std::vector<FileKernels> &files,
                        const api::FileWalk &walk);
std::string kernelsJson(const std::vector<FileKernels> &files,
                        const api::FileWalk &walk);

} // namespace offbundle
