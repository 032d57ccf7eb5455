// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-extract-bundle-entry's command line (see extract_bundle_entry_cli.h).
// LLVM's option table groups short options ("-hV" is -h -V; "-abc" is
// reported as its first unknown letter), checks --help, then --version,
// then unknown arguments, so that a request for help is answered whatever
// else is on the line.

#include "cli/extract_bundle_entry_cli.h"

#include <optional>

#include "bundler/uri_extraction.h"
#include "cli/response_file.h"
#include "cli/tool_start.h"
#include "cli/version.h"

namespace offbundle {
namespace {

constexpr const char *kHelpText =
    "OVERVIEW: llvm-extract-bundle-entry tool\n"
    "\n"
    "USAGE: llvm-extract-bundle-entry URI\n"
    "\n"
    "OPTIONS:\n"
    "  --help    Extracts the bytes each URI names from an object file into\n"
    "            a file named <file>-offset<number>-size<number>.co beside\n"
    "            it, one URI after another.\n"
    "\n"
    "            URI syntax:\n"
    "              file_uri ::= \"file://\" path range\n"
    "              range    ::= (\"#\" | \"?\") \"offset=\" number \"&size=\" "
    "number\n"
    "              number   ::= decimal, or 0x and hexadecimal\n"
    "\n"
    "            The path is as llvm-readobj --offloading prints it, or\n"
    "            percent-encoded, as ROCm and offbundle print it.\n"
    "            Example: file://dir/app#offset=4096&size=14472\n"
    "  -o <file> Write output to <file> (one URI only)\n"
    "  --version Print the version and exit\n"
    "  -V        Alias for --version\n"
    "\n"
    "Pass @FILE as argument to read options from FILE.\n";

// LLVM's: the tool's name, then the version block, with our name where a
// distribution's build puts its own.
std::string versionText() {
  return std::string("llvm-extract-bundle-entry\noffbundle LLVM version ") +
         kExtractBundleEntryLlvmVersion + " (offbundle " + kOffbundleVersion +
         ")\n  Optimized build.\n";
}

struct ExtractionCommandLine {
  bool help = false;
  bool version = false;
  std::optional<std::string> output;
  std::vector<std::string> unknown; // as LLVM names them
  std::vector<std::string> missingValue;
  std::vector<std::string> uris;
};

ExtractionCommandLine parseArguments(const std::vector<std::string> &args) {
  ExtractionCommandLine line;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      line.uris.push_back(arg); // "-" included: a URI, as in LLVM
      continue;
    }
    if (arg.starts_with("--")) {
      if (arg == "--help")
        line.help = true;
      else if (arg == "--version")
        line.version = true;
      else
        line.unknown.push_back(arg);
      continue;
    }
    // A group of short options; -o takes the rest, or the next argument.
    for (size_t at = 1; at < arg.size(); ++at) {
      const char letter = arg[at];
      if (letter == 'h') {
        line.help = true;
      } else if (letter == 'V') {
        line.version = true;
      } else if (letter == 'o') {
        if (at + 1 < arg.size())
          line.output = arg.substr(at + 1);
        else if (i + 1 < args.size())
          line.output = args[++i];
        else
          line.missingValue.push_back("-o");
        break;
      } else {
        line.unknown.push_back(std::string("-") + letter);
        break;
      }
    }
  }
  return line;
}

} // namespace

ToolOutcome runLlvmExtractBundleEntry(const std::vector<std::string> &rawArgv) {
  const std::string argv0 =
      rawArgv.empty() ? "llvm-extract-bundle-entry" : rawArgv.front();
  ToolReporter report(argv0, {});
  auto expanded = expandResponseFiles(rawArgv);
  if (!expanded)
    return report.fail(expanded.error().message);
  if (expanded->size() <= 1) {
    // As LLVM's: with nothing to do, the help on standard error.
    report.printDiagnostics(kHelpText);
    return report.finish(1);
  }
  const ExtractionCommandLine line = parseArguments(*expanded);
  if (line.help) {
    report.print(kHelpText);
    return report.finish(0);
  }
  if (line.version) {
    report.print(versionText());
    return report.finish(0);
  }
  if (!line.unknown.empty())
    return report.fail("unknown argument '" + line.unknown.front() + "'");
  if (!line.missingValue.empty())
    return report.fail("argument to '" + line.missingValue.front() +
                       "' is missing (expected 1 value)");
  if (line.uris.empty())
    return report.fail("no URI given");
  if (line.output && line.uris.size() > 1)
    return report.fail("-o names one output file, and " +
                       std::to_string(line.uris.size()) +
                       " URIs were given; give one URI with -o");

  // One URI after another; those extracted before a failure stay.
  for (const std::string &text : line.uris) {
    auto uri = parseExtractionUri(text);
    if (!uri)
      return report.fail(uri.error().message);
    const std::string output =
        line.output.value_or(defaultExtractionOutput(*uri));
    if (Status status = extractUriRange(*uri, output); !status.ok())
      return report.fail(status.error().message);
  }
  return report.finish(0);
}

} // namespace offbundle
