#include "bundler/tool_start.h"

#include "bundler/response_file.h"

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
    outcome.standardError += expanded.error().message + "\n";
    return finish(1);
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

} // namespace offbundle
