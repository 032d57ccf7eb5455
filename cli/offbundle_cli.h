// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The offbundle tool's command line: subcommands with GNU-style options.
//
//   offbundle list FILE... [--json]     every entry: URI, ID, size
//   offbundle sizes FILE... [--json]    per target: entries, bytes, share
//   offbundle extract FILE [-t T]... [-o DIR]  entries into a folder
//   offbundle verify FILE...            every bundle checked, hashes too
//   offbundle --help | --version; offbundle COMMAND --help
//
// Success is exit status 0; a failure is "offbundle: error: <message>" on
// standard error and exit status 1 (for verify, a line per faulty file).
#pragma once

#include <string>
#include <vector>

#include "cli/bundler_cli.h"

namespace offbundle {

// Runs the tool on argv (argv[0] included).
ToolOutcome runOffbundle(const std::vector<std::string> &argv);

} // namespace offbundle
