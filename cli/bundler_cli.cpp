// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// clang-offload-bundler's command line (see bundler_cli.h): the option table,
// the environment variables it reads (OFFLOAD_BUNDLER_*,
// COMPRESSED_BUNDLE_FORMAT_VERSION), and LLVM 22's checks of the options
// before those of a bundling request, which the public API shares
// (bundler/target_checks.h). Options LLVM 22 lacks (-output-dir, -format,
// -verify-hash) are hidden from --help.

#include "cli/bundler_cli.h"

#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <type_traits>
#include <unistd.h>
#include <unordered_set>
#include <variant>

#include "bundler/config.h"
#include "bundler/operations.h"
#include "bundler/target_checks.h"
#include "cli/command_line.h"
#include "cli/tool_start.h"
#include "cli/version.h"
#include "targets/offload_target.h"
#include "targets/target_id.h"

namespace offbundle {
namespace {

OptionSpec flagOption(std::string name, std::string help) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.help = {std::move(help)};
  return spec;
}

OptionSpec valueOption(std::string name, OptionShape shape,
                       std::string valueName, std::vector<std::string> help,
                       ValueKind kind = ValueKind::String) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.shape = shape;
  spec.valueName = std::move(valueName);
  spec.help = std::move(help);
  spec.valueKind = kind;
  return spec;
}

CommandLineSyntax bundlerSyntax() {
  CommandLineSyntax syntax;
  syntax.overview =
      "A tool to bundle several input files of the specified type <type> \n"
      "referring to the same source file but different targets into a "
      "single \n"
      "one. The resulting file can also be unbundled into different files "
      "by \n"
      "this tool if -unbundle is provided.\n";
  syntax.toolCategory = "clang-offload-bundler options";
  syntax.requiredOptions = {"type"};
  syntax.goesOnAfterResponseFileError = true;

  OptionSpec helpAlias = flagOption("h", "Alias for -help");
  helpAlias.visibility = OptionVisibility::ReallyHidden;
  syntax.options = {
      helpAlias,
      valueOption("input", OptionShape::List, "string",
                  {"Input file. Can be specified multiple times for multiple "
                   "input files."}),
      valueOption("inputs", OptionShape::CommaList, "string",
                  {"[<input file>,...] (deprecated)"}),
      valueOption("output", OptionShape::List, "string",
                  {"Output file. Can be specified multiple times for multiple "
                   "output files."}),
      valueOption("outputs", OptionShape::CommaList, "string",
                  {"[<output file>,...] (deprecated)"}),
      valueOption("targets", OptionShape::CommaList, "string",
                  {"[<offload kind>-<target triple>,...]"}),
      valueOption("type", OptionShape::Value, "string",
                  {"Type of the files to be bundled/unbundled.",
                   "Current supported types are:", "  i    - cpp-output",
                   "  ii   - c++-cpp-output", "  cui  - cuda-cpp-output",
                   "  hipi - hip-cpp-output", "  d    - dependency",
                   "  ll   - llvm", "  bc   - llvm-bc", "  s    - assembler",
                   "  o    - object", "  a    - archive of objects",
                   "  gch  - precompiled-header", "  ast  - clang AST file"}),
      flagOption("unbundle",
                 "Unbundle bundled file into several output files."),
      flagOption("list", "List bundle IDs in the bundled file."),
      flagOption("###", "Print any external commands that are to be executed "
                        "instead of actually executing them - for testing "
                        "purposes."),
      flagOption("allow-missing-bundles",
                 "Create empty files if bundles are missing when unbundling."),
      valueOption("bundle-align", OptionShape::Value, "uint",
                  {"Alignment of bundle for binary files"},
                  ValueKind::Unsigned),
      flagOption("check-input-archive",
                 "Check if input heterogeneous archive is valid in terms of "
                 "TargetID rules."),
      flagOption("hip-openmp-compatible",
                 "Treat hip and hipv4 offload kinds as compatible with openmp "
                 "kind, and vice versa."),
      flagOption("compress", "Compress output file when bundling."),
      flagOption("verbose", "Print debug information."),
      valueOption("compression-level", OptionShape::Value, "n",
                  {"Specify the compression level (integer)"},
                  ValueKind::Integer),
  };
  // Options LLVM 22's tool does not have. Left out of --help and of "Did
  // you mean" suggestions, which must stay LLVM's;
  // docs/clang-offload-bundler.md documents them.
  OptionSpec outputDir =
      valueOption("output-dir", OptionShape::Value, "folder",
                  {"With -unbundle: write every entry into this folder."});
  outputDir.visibility = OptionVisibility::ReallyHidden;
  OptionSpec format = valueOption("format", OptionShape::Value, "text|json",
                                  {"With -list: the listing's format."});
  format.visibility = OptionVisibility::ReallyHidden;
  OptionSpec verifyHash =
      flagOption("verify-hash", "Check the hash of compressed bundles when "
                                "decompressing them (default true).");
  verifyHash.visibility = OptionVisibility::ReallyHidden;
  syntax.options.push_back(outputDir);
  syntax.options.push_back(format);
  syntax.options.push_back(verifyHash);
  return syntax;
}

// StringRef::getAsInteger with radix 10: optional '-', then only digits.
template <typename Integer>
std::optional<Integer> parseDecimal(const std::string &text) {
  size_t digitsAt = !text.empty() && text[0] == '-' ? 1 : 0;
  if (digitsAt == text.size())
    return std::nullopt;
  if (digitsAt == 1 && !std::is_signed_v<Integer>)
    return std::nullopt;
  __int128 value = 0;
  for (size_t i = digitsAt; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9')
      return std::nullopt;
    value = value * 10 + (text[i] - '0');
    if (value > (__int128{1} << 64))
      return std::nullopt;
  }
  if (digitsAt == 1)
    value = -value;
  if (value < std::numeric_limits<Integer>::min() ||
      value > std::numeric_limits<Integer>::max())
    return std::nullopt;
  return static_cast<Integer>(value);
}

// LLVM's bundler reads these variables when it builds its configuration,
// before it checks the command line; its warnings are plain lines.
void applyEnvironment(BundlerConfig &config, ToolReporter &report) {
  CompressionConfig &compression = config.compression;
  auto variable = [](const char *name) -> std::optional<std::string> {
    const char *value = std::getenv(name);
    if (value == nullptr)
      return std::nullopt;
    return std::string(value);
  };
  // LLVM's archive writer reads its own variable, whatever the others say.
  config.output.archiveSym64Threshold = archiveSym64ThresholdFromEnvironment();
  if (variable("OFFLOAD_BUNDLER_IGNORE_ENV_VAR") == "1")
    return;
  if (auto verbose = variable("OFFLOAD_BUNDLER_VERBOSE"))
    compression.verbose = *verbose == "1";
  if (auto compress = variable("OFFLOAD_BUNDLER_COMPRESS"))
    compression.compress = *compress == "1";
  // Not LLVM's: clang passes no flags of ours to the bundler. Only "0" turns
  // the check off, so that a mistyped value never weakens it.
  if (auto verify = variable("OFFLOAD_BUNDLER_VERIFY_HASH"))
    compression.verifyHash = *verify != "0";
  if (auto level = variable("OFFLOAD_BUNDLER_COMPRESSION_LEVEL")) {
    if (auto parsed = parseDecimal<int>(*level))
      compression.compressionLevel = *parsed;
    else
      report.printDiagnostics(
          "Warning: Invalid value for OFFLOAD_BUNDLER_COMPRESSION_LEVEL: " +
          *level + ". Ignoring it.\n");
  }
  if (auto version = variable("COMPRESSED_BUNDLE_FORMAT_VERSION")) {
    const std::string fallback =
        std::to_string(compression.compressedBundleVersion);
    if (auto parsed = parseDecimal<uint16_t>(*version)) {
      if (*parsed >= 2 && *parsed <= 3)
        compression.compressedBundleVersion = *parsed;
      else
        report.printDiagnostics(
            "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: " +
            *version + ". Valid values are 2 or 3. Using default version " +
            fallback + ".\n");
    } else {
      report.printDiagnostics(
          "Warning: Invalid value for COMPRESSED_BUNDLE_FORMAT_VERSION: " +
          *version + ". Using default version " + fallback + ".\n");
    }
  }
}

bool isExecutableFile(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// What --### prints: the llvm-objcopy LLVM's bundler would run (beside its
// own executable, then on PATH, else the bare name; never run here) and
// the folder of its temporary files (TMPDIR, else /tmp).
ExternalCommandSettings findExternalCommands() {
  ExternalCommandSettings settings;
  char self[4096];
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::vector<std::string> folders;
  if (length > 0) {
    const std::string path(self, static_cast<size_t>(length));
    const size_t slash = path.rfind('/');
    folders.push_back(slash == std::string::npos ? "" : path.substr(0, slash));
  }
  if (const char *path = std::getenv("PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      if (colon != 0)
        folders.emplace_back(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view()
                                             : rest.substr(colon + 1);
    }
  }
  for (const std::string &folder : folders) {
    if (isExecutableFile(folder + "/llvm-objcopy")) {
      settings.objcopy = folder + "/llvm-objcopy";
      break;
    }
  }
  if (const char *folder = std::getenv("TMPDIR"); folder && *folder)
    settings.temporaryFolder = folder;
  return settings;
}

// The values of the options that configure every mode, after the
// environment (the command line wins).
void readOptionValues(const ParsedCommandLine &parsed, BundlerConfig &config) {
  auto &[files, matching, compression, output] = config;
  files.filesType = parsed.last("type").value_or("");
  matching.allowMissingBundles = parsed.flag("allow-missing-bundles");
  matching.checkInputArchive = parsed.flag("check-input-archive");
  output.printExternalCommands = parsed.flag("###");
  if (output.printExternalCommands)
    output.externalCommands = findExternalCommands();
  matching.hipOpenmpCompatible = parsed.flag("hip-openmp-compatible");
  if (auto alignment = parsed.last("bundle-align"))
    output.bundleAlignment = std::stoull(*alignment, nullptr, 0);
  if (parsed.specified("compress"))
    compression.compress = parsed.flag("compress");
  if (parsed.specified("verbose"))
    compression.verbose = parsed.flag("verbose");
  if (parsed.specified("verify-hash"))
    compression.verifyHash = parsed.flag("verify-hash");
  compression.hashCheckHint = "-verify-hash=false skips this check";
  if (auto level = parsed.last("compression-level"))
    compression.compressionLevel =
        static_cast<int>(std::stoll(*level, nullptr, 0));
}

// -input and -output, with the deprecated -inputs and -outputs appended
// (with LLVM's warnings) unless both spellings were used. Returns the
// failure, if any.
std::optional<ToolOutcome> readInputsAndOutputs(const ParsedCommandLine &parsed,
                                                ToolReporter &report,
                                                FilesConfig &files) {
  std::vector<std::string> inputs = parsed.all("input");
  std::vector<std::string> outputs = parsed.all("output");
  if (parsed.specified("input") && parsed.specified("inputs"))
    return report.fail("-inputs and -input cannot be used together, use only "
                       "-input instead");
  if (std::vector<std::string> deprecated = parsed.all("inputs");
      !deprecated.empty()) {
    report.warn("-inputs is deprecated, use -input instead");
    inputs.insert(inputs.end(), deprecated.begin(), deprecated.end());
  }
  if (parsed.specified("output") && parsed.specified("outputs"))
    return report.fail("-outputs and -output cannot be used together, use "
                       "only -output instead");
  if (std::vector<std::string> deprecated = parsed.all("outputs");
      !deprecated.empty()) {
    report.warn("-outputs is deprecated, use -output instead");
    outputs.insert(outputs.end(), deprecated.begin(), deprecated.end());
  }
  files.inputFileNames = std::move(inputs);
  files.outputFileNames = std::move(outputs);
  return std::nullopt;
}

// What an operation printed, then its error or success.
ToolOutcome reportOperation(ToolReporter &report,
                            const OperationReport &printed,
                            const Status &done) {
  report.print(printed.standardOutput);
  report.printDiagnostics(printed.diagnostics);
  if (!done.ok())
    return report.fail(done.error().message);
  return report.finish(0);
}

// -unbundle -output-dir=<folder>: every entry into the folder. The checks
// come before LLVM's own: this option's command lines are ones LLVM's tool
// refuses anyway.
ToolOutcome runOutputDirectory(const std::string &folder, bool unbundle,
                               bool list, bool hasTargets, ToolReporter &report,
                               BundlerConfig &config) {
  if (folder.empty())
    return report.fail("-output-dir needs a folder name");
  if (!unbundle || list)
    return report.fail("-output-dir is only valid with -unbundle");
  if (config.matching.checkInputArchive)
    return report.fail("-check-input-archive cannot be used with -output-dir");
  if (!config.files.outputFileNames.empty())
    return report.fail("-output-dir and -output cannot be used together");
  if (hasTargets)
    return report.fail("-targets option is invalid with -output-dir, which "
                       "extracts every entry");
  if (config.files.inputFileNames.size() != 1)
    return report.fail("only one input file supported in unbundling mode");
  config.output.outputDirectory = folder;
  OperationReport printed;
  Status done = unbundleAllToDirectory(config, printed);
  return reportOperation(report, printed, done);
}

// -list, as IDs or as JSON.
ToolOutcome runList(bool unbundle, bool hasTargets, ToolReporter &report,
                    const BundlerConfig &config) {
  if (unbundle)
    return report.fail("-unbundle and -list cannot be used together");
  if (config.files.inputFileNames.size() != 1)
    return report.fail("only one input file supported for -list");
  if (!config.files.outputFileNames.empty())
    return report.fail("-outputs option is invalid for -list");
  if (hasTargets)
    return report.fail("-targets option is invalid for -list");
  OperationReport printed;
  Status listed = config.output.listAsJson ? listBundlesAsJson(config, printed)
                                           : listBundleIds(config, printed);
  return reportOperation(report, printed, listed);
}

} // namespace

ToolOutcome runClangOffloadBundler(const std::vector<std::string> &rawArgv) {
  const std::string argv0 =
      rawArgv.empty() ? "clang-offload-bundler" : rawArgv.front();
  const std::string program = programBaseName(argv0);
  const CommandLineSyntax syntax = bundlerSyntax();
  ToolOutcome started;
  std::optional<ParsedCommandLine> parsedOrEnd =
      startCommandLine(rawArgv, program, syntax, bundlerVersionText(), started);
  if (!parsedOrEnd)
    return started;
  const ParsedCommandLine &parsed = *parsedOrEnd;
  ToolReporter report(argv0, std::move(started));
  if (parsed.flag("h")) {
    report.print(formatHelp(syntax, program, /*categorized=*/false,
                            /*showHidden=*/false));
    return report.finish(0);
  }

  BundlerConfig config;
  applyEnvironment(config, report);
  readOptionValues(parsed, config);
  const bool unbundle = parsed.flag("unbundle");
  const bool list = parsed.flag("list");
  const std::vector<std::string> targets = parsed.all("targets");
  if (auto failed = readInputsAndOutputs(parsed, report, config.files))
    return std::move(*failed);

  // The options of our own come with command lines LLVM's tool refuses, so
  // checking them first changes nothing LLVM accepts.
  if (auto format = parsed.last("format")) {
    if (*format != "text" && *format != "json")
      return report.fail("invalid -format value '" + *format +
                         "': expected text or json");
    if (!list)
      return report.fail("-format is only valid with -list");
    config.output.listAsJson = *format == "json";
  }
  if (auto folder = parsed.last("output-dir"))
    return runOutputDirectory(*folder, unbundle, list, !targets.empty(), report,
                              config);
  if (list)
    return runList(unbundle, !targets.empty(), report, config);
  auto checked = checkBundlingRequest(
      {unbundle, targets, parsed.specified("targets"), std::move(config)});
  if (const auto *problem = std::get_if<BundlingProblem>(&checked)) {
    if (!problem->llvmFatal)
      return report.fail(problem->message);
    // LLVM's report_fatal_error: a line of its own, not the tool's error.
    report.printError(problem->message);
    return report.finish(1);
  }
  OperationReport printed;
  Status done =
      runBundling(std::get<BundlerConfig>(checked), unbundle, printed);
  return reportOperation(report, printed, done);
}

} // namespace offbundle
