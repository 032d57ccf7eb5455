// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How every tool starts and ends (see tool_start.h): response files, parsing
// and LLVM's generic options first; runToolMain then writes out what the tool
// printed, and ToolReporter gives messages their prefixes.

#include "cli/tool_start.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "archive/ar_writing.h"
#include "cli/response_file.h"
#include "support/interrupt_cleanup.h"

namespace offbundle {

std::optional<ParsedCommandLine>
startCommandLine(const std::vector<std::string> &rawArgv,
                 const std::string &program, const CommandLineSyntax &syntax,
                 const std::string &versionText, ToolOutcome &outcome) {
  auto finish = [&outcome](int exitCode) -> std::optional<ParsedCommandLine> {
    outcome.exitCode = exitCode;
    return std::nullopt;
  };
  auto expanded = expandResponseFiles(rawArgv);
  if (!expanded) {
    const std::string argv0 = rawArgv.empty() ? program : rawArgv.front();
    if (!syntax.goesOnAfterResponseFileError) {
      outcome = ToolReporter(argv0, {}).fail(expanded.error().message);
      return std::nullopt;
    }
    // As LLVM's command-line library: the message alone, then every option
    // at its default, none of them required; the tool's own checks follow.
    outcome.standardError += expanded.error().message + "\n";
    CommandLineSyntax defaults = syntax;
    defaults.requiredOptions.clear();
    return parseCommandLine({argv0}, defaults);
  }
  ParsedCommandLine parsed = parseCommandLine(*expanded, syntax);
  for (const std::string &line : parsed.diagnostics)
    outcome.standardError += line + "\n";
  switch (parsed.earlyExit) {
  case EarlyExit::Help:
  case EarlyExit::HelpHidden:
    outcome.standardOutput +=
        formatHelp(syntax, program, /*categorized=*/true,
                   parsed.earlyExit == EarlyExit::HelpHidden);
    return finish(0);
  case EarlyExit::HelpList:
  case EarlyExit::HelpListHidden:
    outcome.standardOutput +=
        formatHelp(syntax, program, /*categorized=*/false,
                   parsed.earlyExit == EarlyExit::HelpListHidden);
    return finish(0);
  case EarlyExit::Version:
    outcome.standardOutput += versionText;
    return finish(0);
  case EarlyExit::None:
    break;
  }
  if (parsed.failed)
    return finish(1);
  return parsed;
}

int runToolMain(int argc, char **argv,
                ToolOutcome (*runTool)(const std::vector<std::string> &),
                const char *programName) {
  const char *argv0 =
      programName ? programName : (argc > 0 ? argv[0] : "offbundle");
  installInterruptCleanup(argv0);
  ToolOutcome outcome;
  try {
    std::vector<std::string> arguments(argv, argv + argc);
    outcome = runTool(arguments);
  } catch (const std::bad_alloc &) {
    outcome = ToolReporter(argv0, {}).fail("not enough memory");
  } catch (const std::exception &error) {
    outcome = ToolReporter(argv0, {}).fail(std::string("internal error: ") +
                                           error.what());
  }
  std::fwrite(outcome.standardOutput.data(), 1, outcome.standardOutput.size(),
              stdout);
  std::fflush(stdout);
  std::fwrite(outcome.standardError.data(), 1, outcome.standardError.size(),
              stderr);
  return outcome.exitCode;
}

ToolOutcome ToolReporter::fail(const std::string &message) {
  error(message);
  outcome_.exitCode = 1;
  return outcome_;
}

void ToolReporter::error(const std::string &message) {
  outcome_.standardError +=
      argv0_ + ": error: " + escapeControlCharacters(message) + "\n";
}

void ToolReporter::warn(const std::string &message) {
  outcome_.standardError += argv0_ + ": warning: " + message + "\n";
}

void ToolReporter::printError(const std::string &line) {
  outcome_.standardError += line + "\n";
}

void ToolReporter::printDiagnostics(const std::string &text) {
  outcome_.standardError += text;
}

void ToolReporter::print(const std::string &text) {
  outcome_.standardOutput += text;
}

ToolOutcome ToolReporter::finish(int exitCode) {
  outcome_.exitCode = exitCode;
  return outcome_;
}

uint64_t archiveSym64ThresholdFromEnvironment() {
  return sym64ThresholdFromValue(std::getenv("SYM64_THRESHOLD"));
}

} // namespace offbundle
