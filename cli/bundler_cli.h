// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// clang-offload-bundler's command line: the options, their checks and
// messages, and the dispatch to the operations. The only place that knows
// about argv, exit codes and message prefixes.
#pragma once

#include <string>
#include <vector>

namespace offbundle {

struct ToolOutcome {
  int exitCode = 0;
  std::string standardOutput;
  std::string standardError;
};

// Runs the tool on argv (argv[0] included). Outputs named on the command
// line are written by the operations; what the tool prints is returned.
ToolOutcome runClangOffloadBundler(const std::vector<std::string> &argv);

} // namespace offbundle
