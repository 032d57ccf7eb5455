// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The first steps both tools take, in LLVM's order: expand @file response
// files, parse the command line, print the parser's diagnostics, and answer
// LLVM's generic options (--help, --help-hidden, --help-list,
// --help-list-hidden, --version).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/bundler_cli.h"
#include "cli/command_line.h"
#include "support/error.h"

namespace offbundle {

// The parsed command line, or nothing when the run ends here; `outcome`
// holds what was printed either way (and then the exit status). `program`
// is the name the help text shows.
std::optional<ParsedCommandLine>
startCommandLine(const std::vector<std::string> &rawArgv,
                 const std::string &program, const CommandLineSyntax &syntax,
                 const std::string &versionText, ToolOutcome &outcome);

// The whole of a tool's main(): installs the signal handlers that remove
// temporary outputs (interrupt_cleanup.h), runs the tool on the command
// line, prints what it printed and returns its exit status. An exception
// that escapes the tool (an allocation that failed) is one "error:" line
// and exit status 1, after the outputs' temporaries were removed on the
// way out.
// `programName`, when given, names the tool in that error line instead of
// argv[0].
int runToolMain(int argc, char **argv,
                ToolOutcome (*runTool)(const std::vector<std::string> &),
                const char *programName = nullptr);

// SYM64_THRESHOLD, which LLVM's archive writer reads (a test hook), as
// sym64ThresholdFromValue() takes it: for every tool that writes archives.
uint64_t archiveSym64ThresholdFromEnvironment();

// Collects what a tool prints and how it ends, carrying on from what
// startCommandLine printed.
class ToolReporter {
public:
  ToolReporter(std::string argv0, ToolOutcome printed)
      : argv0_(std::move(argv0)), outcome_(std::move(printed)) {}

  // "<argv0>: error: <message>" and exit status 1.
  ToolOutcome fail(const std::string &message);
  // "<argv0>: error: <message>", the run going on (the caller decides the
  // exit status).
  void error(const std::string &message);
  // "<argv0>: warning: <message>", as given.
  void warn(const std::string &message);
  // One line on standard error, as given.
  void printError(const std::string &line);
  // Text on standard error or standard output, as given.
  void printDiagnostics(const std::string &text);
  void print(const std::string &text);
  ToolOutcome finish(int exitCode);

private:
  std::string argv0_;
  ToolOutcome outcome_;
};

} // namespace offbundle
