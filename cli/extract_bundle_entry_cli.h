// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-extract-bundle-entry's command line (LLVM 23; an llvm-objcopy
// personality there, parsed with LLVM's option tables): grouped short
// options, -h/--help, -V/--version, -o, and any number of URIs, each
// extracted in turn until one fails. The only place that knows about argv,
// exit codes and message prefixes for this tool.
#pragma once

#include <string>
#include <vector>

#include "cli/bundler_cli.h"

namespace offbundle {

// Runs the tool on argv (argv[0] included); what it prints is returned.
ToolOutcome runLlvmExtractBundleEntry(const std::vector<std::string> &argv);

} // namespace offbundle
