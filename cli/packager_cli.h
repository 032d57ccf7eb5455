// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-offload-binary's command line (and clang-offload-packager's, the
// same program under its older name): the options, their checks and
// messages, and the dispatch to the operations. The only place that knows
// about argv, exit codes and message prefixes.
#pragma once

#include <string>
#include <vector>

#include "cli/bundler_cli.h"

namespace offbundle {

// Runs the tool on argv (argv[0] included). Files named on the command line
// are written by the operations; what the tool prints is returned.
ToolOutcome runLlvmOffloadBinary(const std::vector<std::string> &argv);

} // namespace offbundle
