// The first steps both tools take, in LLVM's order: expand @file response
// files, parse the command line, print the parser's diagnostics, and answer
// LLVM's generic options (--help, --help-hidden, --help-list,
// --help-list-hidden, --version).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bundler/bundler_cli.h"
#include "bundler/command_line.h"

namespace offbundle {

// The parsed command line, or nothing when the run ends here; `outcome`
// holds what was printed either way (and then the exit status). `program`
// is the name the help text shows.
std::optional<ParsedCommandLine>
startCommandLine(const std::vector<std::string> &rawArgv,
                 const std::string &program, const CommandLineSyntax &syntax,
                 const std::string &versionText, ToolOutcome &outcome);

} // namespace offbundle
