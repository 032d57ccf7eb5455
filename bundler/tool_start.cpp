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

std::string escapeControlCharacters(const std::string &text) {
  std::string escaped;
  for (unsigned char c : text) {
    if (c == '\n') {
      escaped += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      escaped += "\\x";
      escaped += kHex[c >> 4];
      escaped += kHex[c & 15];
    } else {
      escaped += static_cast<char>(c);
    }
  }
  return escaped;
}

ToolOutcome ToolReporter::fail(const std::string &message) {
  outcome_.standardError +=
      argv0_ + ": error: " + escapeControlCharacters(message) + "\n";
  outcome_.exitCode = 1;
  return outcome_;
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

} // namespace offbundle
