// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-offload-binary's command line (see packager_cli.h): the option table,
// the deprecation warning under the name clang-offload-packager, and the
// choice between packaging, extracting, archiving and listing.

#include "cli/packager_cli.h"

#include <string_view>

#include "cli/command_line.h"
#include "cli/tool_start.h"
#include "cli/version.h"
#include "packager/operations.h"

namespace offbundle {
namespace {

CommandLineSyntax packagerSyntax() {
  CommandLineSyntax syntax;
  syntax.overview =
      "A utility for bundling several object files into a single binary.\n"
      "The output binary can then be embedded into the host section table\n"
      "to create a fatbinary containing offloading code.\n";
  syntax.toolCategory = "llvm-offload-binary options";
  syntax.maxPositionals = 1;
  syntax.positionalHelp = "Extract from <file>.";

  auto option = [](std::string name, OptionShape shape, std::string valueName,
                   std::string help) {
    OptionSpec spec;
    spec.name = std::move(name);
    spec.shape = shape;
    spec.valueName = std::move(valueName);
    spec.help = {std::move(help)};
    return spec;
  };
  OptionSpec helpAlias = option("h", OptionShape::Flag, "", "Alias for -help");
  OptionSpec compressionLevel =
      option("compression-level", OptionShape::Value, "int",
             "Level for --compress (default 5 for zstd, 6 for zlib)");
  compressionLevel.valueKind = ValueKind::Integer;
  helpAlias.visibility = OptionVisibility::ReallyHidden;
  syntax.options = {
      helpAlias,
      option("o", OptionShape::Value, "file", "Write output to <file>."),
      option("image", OptionShape::List, "<key>=<value>,...",
             "List of key and value arguments. Required keywords are 'file' "
             "and 'triple'."),
      option("archive", OptionShape::Flag, "",
             "Write extracted files to a static archive"),
      // Not in LLVM 22.
      option("list", OptionShape::Flag, "",
             "List the images in the input file, one per line"),
      // Not in LLVM 22; newer LLVM's spelling (see
      // docs/llvm-offload-binary.md).
      option("compress", OptionShape::Flag, "",
             "Write one compressed binary holding every image"),
      option("compression-format", OptionShape::Value, "zstd|zlib",
             "Codec for --compress (default zstd)"),
      compressionLevel,
  };
  return syntax;
}

// What --version prints: LLVM's two lines, with our name where Debian's
// build puts its own.
std::string versionText() {
  return std::string("offbundle LLVM version ") + kCompatibleLlvmVersion +
         " (offbundle " + kOffbundleVersion + ")\n  Optimized build.\n";
}

// llvm::sys::path::stem of argv[0]: the file name up to its last '.'.
std::string_view programStem(std::string_view argv0) {
  const size_t slash = argv0.rfind('/');
  std::string_view name =
      slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
  if (name == "." || name == "..")
    return name;
  return name.substr(0, name.rfind('.'));
}

// What an operation printed, then its error if any.
ToolOutcome conclude(ToolReporter &report, const PackagerReport &printed,
                     const Status &status) {
  report.print(printed.standardOutput);
  for (const std::string &warning : printed.warnings)
    report.warn(escapeControlCharacters(warning));
  for (const std::string &line : printed.plainDiagnostics)
    report.printError(escapeControlCharacters(line));
  if (!status.ok())
    return report.fail(status.error().message);
  return report.finish(0);
}

} // namespace

ToolOutcome runLlvmOffloadBinary(const std::vector<std::string> &rawArgv) {
  const std::string argv0 =
      rawArgv.empty() ? "llvm-offload-binary" : rawArgv.front();
  const std::string program = programBaseName(argv0);
  const CommandLineSyntax syntax = packagerSyntax();
  ToolOutcome started;
  std::optional<ParsedCommandLine> parsedOrEnd =
      startCommandLine(rawArgv, program, syntax, versionText(), started);
  if (!parsedOrEnd)
    return started;
  const ParsedCommandLine &parsed = *parsedOrEnd;
  ToolReporter report(argv0, std::move(started));

  // LLVM warns about the old name once the command line is read, before
  // anything else, and without the program name in front.
  if (programStem(argv0).ends_with("clang-offload-packager"))
    report.printError("warning: 'clang-offload-packager' is deprecated. Use "
                      "'llvm-offload-binary' instead.");

  PackagerConfig config;
  config.outputFile = parsed.last("o").value_or("");
  config.inputFile = parsed.positionals.empty() ? "" : parsed.positionals[0];
  config.images = parsed.all("image");
  config.createArchive = parsed.flag("archive");
  config.compress = parsed.flag("compress");
  // What LLVM's archive writer reads (a test hook).
  config.archiveSym64Threshold = archiveSym64ThresholdFromEnvironment();
  const bool list = parsed.flag("list");

  if (parsed.flag("h") ||
      (config.outputFile.empty() && config.inputFile.empty())) {
    report.print(formatHelp(syntax, program, /*categorized=*/false,
                            /*showHidden=*/false));
    return report.finish(0);
  }

  if (auto format = parsed.last("compression-format")) {
    if (*format == "zlib")
      config.compressionFormat = OffloadCompressionFormat::Zlib;
    else if (*format != "zstd")
      return report.fail("for the --compression-format option: Cannot find "
                         "option named '" +
                         *format + "'!");
  }
  if (auto level = parsed.last("compression-level"))
    config.compressionLevel = static_cast<int>(std::stoll(*level, nullptr, 0));

  PackagerReport printed;
  if (list) {
    if (config.inputFile.empty() || !config.outputFile.empty() ||
        config.createArchive)
      return report.fail("--list lists the images of an input file; it "
                         "takes neither -o nor --archive");
    return conclude(report, printed, listImages(config, printed));
  }
  if (!config.inputFile.empty() && !config.outputFile.empty()) {
    // The form LLVM's manual shows for writing every image into one
    // archive, which LLVM 22 itself refuses.
    if (config.createArchive)
      return conclude(report, printed, archiveAllImages(config, printed));
    return report.fail("Packaging to an output file and extracting from an "
                       "input file are mutually exclusive.");
  }
  if (!config.outputFile.empty())
    return conclude(report, printed, packageImages(config, printed));
  if (config.images.empty()) {
    if (config.createArchive)
      return report.fail("--archive needs the archive's name: -o <file>, or "
                         "file=<name> in an --image filter");
    return conclude(report, printed, extractAllImages(config, printed));
  }
  return conclude(report, printed, extractMatchingImages(config, printed));
}

} // namespace offbundle
