// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LLVM-style command lines on top of Boost.Program_options.
//
// LLVM's tools accept "-opt=v", "--opt=v", "-opt v", "-flag", "-flag=false",
// comma-separated lists, "--" and "@file", and report problems with fixed
// messages ("for the --type option: requires a value!"). Boost holds the
// option table and the parsed values; the token rules and messages that
// Boost's own styles do not share with LLVM are implemented here, in a style
// parser handed to Boost.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace offbundle {

enum class OptionShape {
  Flag,      // bool; "-f", "-f=true", "-f=0"
  Value,     // one value; the last occurrence wins
  List,      // each occurrence adds one value
  CommaList, // each occurrence adds its comma-separated values
};

enum class ValueKind { String, Unsigned, Integer };

enum class OptionVisibility { Visible, Hidden, ReallyHidden };

struct OptionSpec {
  std::string name;
  OptionShape shape = OptionShape::Flag;
  ValueKind valueKind = ValueKind::String;
  std::string valueName; // shown as --name=<valueName>
  // Help text, one element per line.
  std::vector<std::string> help;
  OptionVisibility visibility = OptionVisibility::Visible;
  // Listed under "Generic Options" in categorised help.
  bool generic = false;
  // LLVM's --help and --version take no value ("--help=1" is an error).
  bool allowsValue = true;
};

enum class EarlyExit {
  None,
  Help,
  HelpHidden,
  HelpList,
  HelpListHidden,
  Version
};

struct ParsedCommandLine {
  boost::program_options::variables_map values;
  // Lines for standard error, in the order LLVM prints them.
  std::vector<std::string> diagnostics;
  bool failed = false;
  EarlyExit earlyExit = EarlyExit::None;
  // Arguments that are not options ("-" included, and all after "--"), for
  // tools that take positional arguments.
  std::vector<std::string> positionals;

  bool specified(const std::string &name) const;
  std::vector<std::string> all(const std::string &name) const;
  std::optional<std::string> last(const std::string &name) const;
  bool flag(const std::string &name) const;
};

struct CommandLineSyntax {
  std::vector<OptionSpec> options; // the tool's own, in registration order
  std::vector<std::string> requiredOptions;
  std::string overview;
  std::string toolCategory; // heading of the tool's options in --help
  // Positional arguments the tool accepts (0: every non-option argument is
  // an unknown argument), and their description on the USAGE line.
  size_t maxPositionals = 0;
  std::string positionalHelp;
  // After a response file it cannot expand, LLVM's bundler prints the
  // reason and runs with every option at its default (and fails later);
  // LLVM's packager crashes there, so ours gives one error line instead.
  bool goesOnAfterResponseFileError = false;
};

// The options every LLVM tool has (help, help-list, version, ...).
std::vector<OptionSpec> genericOptionSpecs();

// Parses argv (argv[0] included, response files already expanded).
ParsedCommandLine parseCommandLine(const std::vector<std::string> &argv,
                                   const CommandLineSyntax &syntax);

// The help text LLVM prints for --help (categorised) or --help-list (flat).
std::string formatHelp(const CommandLineSyntax &syntax,
                       const std::string &programName, bool categorized,
                       bool showHidden);

std::string programBaseName(const std::string &argv0);

} // namespace offbundle
