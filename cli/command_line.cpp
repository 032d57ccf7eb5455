// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// LLVM-style command-line parsing and help text (see command_line.h). Boost
// gets no style of its own: a walker that follows LLVM's parser token by token
// hands it the options and collects LLVM's diagnostics; Boost stores the
// values.

#include "cli/command_line.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "support/number_text.h"
#include "support/string_map.h"

namespace offbundle {
namespace po = boost::program_options;
namespace {

std::vector<OptionSpec> allSpecs(const CommandLineSyntax &syntax) {
  std::vector<OptionSpec> specs = genericOptionSpecs();
  specs.insert(specs.end(), syntax.options.begin(), syntax.options.end());
  return specs;
}

// "--name" for long names, "-n" for one-letter ones, as LLVM prints them.
std::string printedName(const std::string &name) {
  return (name.size() == 1 ? "-" : "--") + name;
}

// StringRef::getAsInteger's radix rules: 0x, 0b, 0o prefixes and a leading
// zero for octal; the whole text must be digits of that radix.
std::optional<uint64_t> parseUnsignedAutoRadix(std::string text) {
  unsigned radix = 10;
  auto consumePrefix = [&](const char *lower, const char *upper) {
    if (text.rfind(lower, 0) == 0 || text.rfind(upper, 0) == 0) {
      text.erase(0, 2);
      return true;
    }
    return false;
  };
  if (consumePrefix("0x", "0X"))
    radix = 16;
  else if (consumePrefix("0b", "0B"))
    radix = 2;
  else if (text.rfind("0o", 0) == 0) {
    text.erase(0, 2);
    radix = 8;
  } else if (text.size() > 1 && text[0] == '0' && text[1] >= '0' &&
             text[1] <= '9') {
    text.erase(0, 1);
    radix = 8;
  }
  return parseDigits(text, radix);
}

std::optional<std::string> validateValue(const OptionSpec &spec,
                                         const std::string &value) {
  if (spec.valueKind == ValueKind::Unsigned) {
    auto parsed = parseUnsignedAutoRadix(value);
    if (!parsed || *parsed > std::numeric_limits<unsigned>::max())
      return "'" + value + "' value invalid for uint argument!";
  } else if (spec.valueKind == ValueKind::Integer) {
    bool negative = !value.empty() && value[0] == '-';
    auto parsed = parseUnsignedAutoRadix(negative ? value.substr(1) : value);
    uint64_t limit = negative ? uint64_t{1} << 31 : (uint64_t{1} << 31) - 1;
    if (!parsed || *parsed > limit)
      return "'" + value + "' value invalid for integer argument!";
  }
  return std::nullopt;
}

std::optional<bool> parseFlagValue(const std::string &value) {
  if (value.empty() || value == "true" || value == "TRUE" || value == "True" ||
      value == "1")
    return true;
  if (value == "false" || value == "FALSE" || value == "False" || value == "0")
    return false;
  return std::nullopt;
}

// Levenshtein distance with replacements, as StringRef::edit_distance.
unsigned editDistance(const std::string &a, const std::string &b) {
  std::vector<unsigned> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = static_cast<unsigned>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    unsigned previous = row[0];
    row[0] = static_cast<unsigned>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      unsigned saved = row[j];
      unsigned replace = previous + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, replace});
      previous = saved;
    }
  }
  return row[b.size()];
}

// LLVM's "Did you mean" search: the first option, in its option map's
// order, at the smallest edit distance from what was typed.
std::optional<std::string>
nearestOption(const std::string &typed,
              const LlvmOrderedStringMap<const OptionSpec *> &byName) {
  if (typed.empty())
    return std::nullopt;
  size_t equals = typed.find('=');
  std::string name = typed.substr(0, equals);
  std::optional<std::string> value;
  if (equals != std::string::npos)
    value = typed.substr(equals + 1);
  std::optional<std::string> best;
  unsigned bestDistance = 0;
  for (const auto &[optionName, spec] : byName.entries()) {
    if ((*spec)->visibility == OptionVisibility::ReallyHidden)
      continue;
    unsigned distance = editDistance(std::string(optionName), name);
    if (!best || distance < bestDistance) {
      bestDistance = distance;
      best = std::string(optionName);
      if (value && !value->empty())
        *best += "=" + *value;
    }
  }
  return best;
}

// Walks argv the way LLVM's parser does and turns it into Boost options,
// collecting LLVM's diagnostics on the side.
class LlvmStyleWalker {
public:
  LlvmStyleWalker(const CommandLineSyntax &syntax, const std::string &argv0,
                  ParsedCommandLine &result)
      : specs_(allSpecs(syntax)), argv0_(argv0),
        program_(programBaseName(argv0)), result_(result),
        acceptsPositionals_(syntax.maxPositionals > 0) {
    for (const OptionSpec &spec : specs_)
      byName_.insertOrAssign(spec.name, &spec);
  }

  std::vector<po::option> walk(std::vector<std::string> &tokens) {
    std::vector<po::option> options;
    while (!tokens.empty() && result_.earlyExit == EarlyExit::None) {
      std::string token = tokens.front();
      tokens.erase(tokens.begin());
      step(token, tokens, options);
    }
    tokens.clear();
    return options;
  }

private:
  void unknown(const std::string &token, bool suggest) {
    result_.diagnostics.push_back(program_ +
                                  ": Unknown command line argument '" + token +
                                  "'.  Try: '" + argv0_ + " --help'");
    if (suggest)
      if (auto nearest =
              nearestOption(token.substr(token[1] == '-' ? 2 : 1), byName_))
        result_.diagnostics.push_back(program_ + ": Did you mean '" +
                                      printedName(*nearest) + "'?");
    result_.failed = true;
  }

  void optionError(const OptionSpec &spec, const std::string &message) {
    result_.diagnostics.push_back(program_ + ": for the " +
                                  printedName(spec.name) +
                                  " option: " + message);
    result_.failed = true;
  }

  void step(const std::string &token, std::vector<std::string> &rest,
            std::vector<po::option> &options) {
    if (token.size() < 2 || token[0] != '-' || afterDashDash_) {
      if (acceptsPositionals_) {
        result_.positionals.push_back(token);
        return;
      }
      unknown(token, false);
      return;
    }
    if (token == "--") {
      afterDashDash_ = true;
      return;
    }
    std::string body = token.substr(token[1] == '-' ? 2 : 1);
    size_t equals = body.find('=');
    std::string name = body.substr(0, equals);
    std::optional<std::string> value;
    if (equals != std::string::npos)
      value = body.substr(equals + 1);
    const OptionSpec *const *found = byName_.find(name);
    if (found == nullptr) {
      // LLVM reads "-ofile" as a group of one-letter options, and a letter
      // that takes a value may not be part of a group.
      if (const OptionSpec *const *letter = byName_.find(body.substr(0, 1));
          letter != nullptr && (*letter)->name.size() == 1 &&
          (*letter)->shape != OptionShape::Flag)
        optionError(**letter, "may not occur within a group!");
      unknown(token, true);
      return;
    }
    const OptionSpec &spec = **found;
    if (!spec.allowsValue && value) {
      optionError(spec, "does not allow a value! '" + *value + "' specified.");
      return;
    }

    if (spec.shape == OptionShape::Flag) {
      std::optional<bool> enabled = parseFlagValue(value.value_or(""));
      if (!enabled) {
        optionError(spec, "'" + *value +
                              "' is invalid value for boolean argument! Try "
                              "0 or 1");
        return;
      }
      if (spec.generic && *enabled) {
        result_.earlyExit = earlyExitFor(spec.name);
        if (result_.earlyExit != EarlyExit::None)
          return;
      }
      options.push_back(makeOption(spec.name, *enabled ? "true" : "false"));
      return;
    }

    if (!value) {
      if (rest.empty()) {
        optionError(spec, "requires a value!");
        return;
      }
      // Like "-o file": the next argument is the value, whatever it is.
      value = rest.front();
      rest.erase(rest.begin());
    }
    std::vector<std::string> pieces;
    if (spec.shape == OptionShape::CommaList) {
      std::string remaining = *value;
      size_t comma;
      while ((comma = remaining.find(',')) != std::string::npos) {
        pieces.push_back(remaining.substr(0, comma));
        remaining.erase(0, comma + 1);
      }
      pieces.push_back(remaining);
    } else {
      pieces.push_back(*value);
    }
    for (const std::string &piece : pieces) {
      if (auto problem = validateValue(spec, piece)) {
        optionError(spec, *problem);
        return;
      }
      options.push_back(makeOption(spec.name, piece));
    }
  }

  static EarlyExit earlyExitFor(const std::string &name) {
    if (name == "help")
      return EarlyExit::Help;
    if (name == "help-hidden")
      return EarlyExit::HelpHidden;
    if (name == "help-list")
      return EarlyExit::HelpList;
    if (name == "help-list-hidden")
      return EarlyExit::HelpListHidden;
    if (name == "version")
      return EarlyExit::Version;
    return EarlyExit::None;
  }

  static po::option makeOption(const std::string &name,
                               const std::string &value) {
    po::option option(name, {value});
    option.original_tokens = {name};
    return option;
  }

  std::vector<OptionSpec> specs_;
  LlvmOrderedStringMap<const OptionSpec *> byName_;
  std::string argv0_;
  std::string program_;
  ParsedCommandLine &result_;
  bool acceptsPositionals_;
  bool afterDashDash_ = false;
};

std::string optionColumn(const OptionSpec &spec) {
  std::string column = "  " + printedName(spec.name);
  // LLVM shows a one-letter option's value after a space ("-o <file>").
  if (spec.shape != OptionShape::Flag)
    column += (spec.name.size() == 1 ? " <" : "=<") + spec.valueName + ">";
  return column;
}

bool shown(const OptionSpec &spec, bool categorized, bool showHidden) {
  if (spec.visibility == OptionVisibility::ReallyHidden)
    return false;
  // LLVM lists --help-list only in categorised help, where it is the way
  // to the flat list.
  if (categorized && spec.name == "help-list")
    return true;
  return showHidden || spec.visibility == OptionVisibility::Visible;
}

void appendOptionLines(std::string &text,
                       const std::vector<const OptionSpec *> &specs,
                       size_t width) {
  for (const OptionSpec *spec : specs) {
    std::string column = optionColumn(*spec);
    text += column + std::string(width - column.size(), ' ') + " - " +
            spec->help.front() + "\n";
    for (size_t i = 1; i < spec->help.size(); ++i)
      text += std::string(width + 3, ' ') + spec->help[i] + "\n";
  }
}

} // namespace

bool ParsedCommandLine::specified(const std::string &name) const {
  return values.count(name) != 0;
}

std::vector<std::string> ParsedCommandLine::all(const std::string &name) const {
  if (!specified(name))
    return {};
  return values[name].as<std::vector<std::string>>();
}

std::optional<std::string>
ParsedCommandLine::last(const std::string &name) const {
  std::vector<std::string> values = all(name);
  if (values.empty())
    return std::nullopt;
  return values.back();
}

bool ParsedCommandLine::flag(const std::string &name) const {
  return last(name).value_or("false") == "true";
}

std::string programBaseName(const std::string &argv0) {
  size_t slash = argv0.rfind('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

std::vector<OptionSpec> genericOptionSpecs() {
  auto generic = [](std::string name, std::string help,
                    OptionVisibility visibility) {
    OptionSpec spec;
    spec.name = std::move(name);
    spec.help = {std::move(help)};
    spec.visibility = visibility;
    spec.generic = true;
    // The help and version options take no value; the print-options ones
    // are ordinary flags.
    spec.allowsValue = spec.name.rfind("print-", 0) == 0;
    return spec;
  };
  return {
      generic("help", "Display available options (--help-hidden for more)",
              OptionVisibility::Visible),
      generic("help-list",
              "Display list of available options (--help-list-hidden for "
              "more)",
              OptionVisibility::Hidden),
      generic("help-hidden", "Display all available options",
              OptionVisibility::Hidden),
      generic("help-list-hidden", "Display list of all available options",
              OptionVisibility::Hidden),
      generic("print-options",
              "Print non-default options after command line parsing",
              OptionVisibility::Hidden),
      generic("print-all-options",
              "Print all option values after command line parsing",
              OptionVisibility::Hidden),
      generic("version", "Display the version of this program",
              OptionVisibility::Visible),
  };
}

ParsedCommandLine parseCommandLine(const std::vector<std::string> &argv,
                                   const CommandLineSyntax &syntax) {
  ParsedCommandLine result;
  po::options_description description;
  for (const OptionSpec &spec : allSpecs(syntax))
    description.add_options()(spec.name.c_str(),
                              po::value<std::vector<std::string>>());

  const std::string argv0 = argv.empty() ? "" : argv.front();
  LlvmStyleWalker walker(syntax, argv0, result);
  std::vector<std::string> arguments(argv.begin() + (argv.empty() ? 0 : 1),
                                     argv.end());
  po::parsed_options parsed =
      po::command_line_parser(arguments)
          .options(description)
          .style(0)
          .extra_style_parser([&walker](std::vector<std::string> &tokens) {
            return walker.walk(tokens);
          })
          .run();
  po::store(parsed, result.values);

  if (result.earlyExit != EarlyExit::None)
    return result;
  if (syntax.maxPositionals > 0 &&
      result.positionals.size() > syntax.maxPositionals) {
    result.diagnostics.push_back(programBaseName(argv0) +
                                 ": Too many positional arguments specified!");
    result.diagnostics.push_back(
        "Can specify at most " + std::to_string(syntax.maxPositionals) +
        " positional arguments: See: " + argv0 + " --help");
    result.failed = true;
  }
  for (const std::string &required : syntax.requiredOptions) {
    if (!result.specified(required)) {
      result.diagnostics.push_back(programBaseName(argv0) + ": for the " +
                                   printedName(required) +
                                   " option: must be specified at least once!");
      result.failed = true;
    }
  }
  return result;
}

std::string formatHelp(const CommandLineSyntax &syntax,
                       const std::string &programName, bool categorized,
                       bool showHidden) {
  std::vector<OptionSpec> specs = allSpecs(syntax);
  std::vector<const OptionSpec *> genericShown;
  std::vector<const OptionSpec *> toolShown;
  for (const OptionSpec &spec : specs) {
    if (!shown(spec, categorized, showHidden))
      continue;
    (spec.generic && categorized ? genericShown : toolShown).push_back(&spec);
  }
  auto byName = [](const OptionSpec *a, const OptionSpec *b) {
    return a->name < b->name;
  };
  std::sort(genericShown.begin(), genericShown.end(), byName);
  std::sort(toolShown.begin(), toolShown.end(), byName);
  size_t width = 0;
  for (const auto *group : {&genericShown, &toolShown})
    for (const OptionSpec *spec : *group)
      width = std::max(width, optionColumn(*spec).size());

  std::string text = "OVERVIEW: " + syntax.overview + "\n";
  text += "USAGE: " + programName + " [options]";
  if (!syntax.positionalHelp.empty())
    text += " " + syntax.positionalHelp;
  text += "\n\nOPTIONS:\n";
  if (!categorized) {
    appendOptionLines(text, toolShown, width);
    return text;
  }
  text += "\nGeneric Options:\n\n";
  appendOptionLines(text, genericShown, width);
  text += "\n" + syntax.toolCategory + ":\n\n";
  appendOptionLines(text, toolShown, width);
  return text;
}

} // namespace offbundle
