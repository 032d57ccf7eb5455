// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The offbundle command line (see offbundle_cli.h): the table of commands,
// their options (parsed with Boost.Program_options), and one function per
// command over the toolkit: list, sizes, extract, prune, compress, decompress
// and verify.

#include "cli/offbundle_cli.h"

#include <boost/program_options.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include <offbundle/offbundle.h>

#include "cli/progress_line.h"
#include "cli/tool_start.h"
#include "cli/version.h"
#include "compression/compressed_bundle.h"
#include "support/input_file.h"
#include "toolkit/each_input.h"
#include "toolkit/extraction.h"
#include "toolkit/html_report.h"
#include "toolkit/in_place.h"
#include "toolkit/inventory.h"
#include "toolkit/kernels.h"
#include "toolkit/reports.h"
#include "toolkit/verification.h"

namespace offbundle {
namespace {

namespace po = boost::program_options;

constexpr const char *kProgram = "offbundle";

struct CommandSpec {
  std::string_view name;
  std::string_view arguments; // after the options, in the usage line
  std::string_view summary;
  bool takesJson;
};

constexpr CommandSpec kCommands[] = {
    {"list", "FILE|FOLDER...",
     "every bundle entry: its code object URI, ID and size", true},
    {"sizes", "FILE|FOLDER...",
     "per target: entries, payload bytes and room in the file", true},
    {"extract", "FILE|FOLDER...",
     "write entries, decompressed, into a folder, by target", false},
    {"prune",
     "--keep TARGET[,TARGET...] (FILE -o OUT | --in-place FILE|FOLDER...)",
     "copy keeping the host entries and those of the targets kept", false},
    {"compress", "FILE -o OUT | --in-place FILE|FOLDER...",
     "copy whose plain bundles are compressed as by -compress", false},
    {"decompress", "FILE -o OUT | --in-place FILE|FOLDER...",
     "copy whose compressed bundles are plain", false},
    {"verify", "FILE|FOLDER...",
     "check every bundle, compressed ones against their hash", false},
    {"kernels", "FILE|FOLDER...",
     "every GPU kernel per target: registers, memory, occupancy, code size",
     true},
    {"unpack-kpack", "FILE -o OUT",
     "rebuild an ordinary fat binary from a kpack'd one and its archives",
     false},
};

std::string versionText() {
  return std::string("offbundle ") + kOffbundleVersion + " (LLVM " +
         kCompatibleLlvmVersion + " bundle formats)\n";
}

std::string mainHelp() {
  std::string text = "Usage: offbundle COMMAND [OPTIONS] FILE...\n"
                     "\n"
                     "The GPU code in fat binaries: standalone bundles (plain "
                     "or compressed),\n"
                     "fat objects, objects with .hip_fatbin or "
                     ".llvm.offloading sections,\n"
                     "archives, executables and shared libraries (Linux and "
                     "Windows),\n"
                     "kpack archives and the kpack'd binaries that use "
                     "them.\n"
                     "\n"
                     "Commands:\n";
  size_t width = 0;
  for (const CommandSpec &command : kCommands)
    width = std::max(width, command.name.size());
  for (const CommandSpec &command : kCommands) {
    std::string name(command.name);
    text += "  " + name + std::string(width + 2 - name.size(), ' ') +
            std::string(command.summary) + "\n";
  }
  text += "\n"
          "Options:\n"
          "  -h [ --help ]         print this help, or with a command, its "
          "help\n"
          "  --version             print the version\n"
          "\n"
          "Run 'offbundle COMMAND --help' for a command's options.\n";
  return text;
}

po::options_description commandOptions(const CommandSpec &command) {
  po::options_description options("Options");
  options.add_options()("help,h", "print this help");
  if (command.takesJson)
    options.add_options()("json", "print JSON instead of text");
  options.add_options()(
      "jobs,j", po::value<std::string>(),
      "work on this many files (and bundles of a file) at once (default: the "
      "number of cores)");
  if (command.name != "extract")
    options.add_options()("quiet,q", "no progress line on a terminal");
  if (command.name == "sizes")
    options.add_options()("html", po::value<std::string>(),
                          "also write the report as one self-contained HTML "
                          "page (chart, sortable table, what pruning saves); "
                          "not written when a file fails, nor over a file "
                          "read")(
        "by-kernel",
        "instead, the kernels taking the most code bytes, each summed over "
        "every target and file holding it")(
        "top", po::value<std::string>(),
        "with --by-kernel, only this many of the largest (default: all)")(
        "demangle", "with --by-kernel, print C++ kernel names demangled");
  if (command.name == "kernels") {
    std::string fields;
    for (std::string_view field : kernelSortFields())
      fields += (fields.empty() ? "" : ", ") + std::string(field);
    options.add_options()(
        "target,t", po::value<std::vector<std::string>>()->composing(),
        "only the kernels of this target (repeatable, or comma-separated), "
        "in the forms extract's --target takes")(
        "sort", po::value<std::string>(),
        ("order each target's kernels by this field: " + fields +
         " (largest first; occupancy and name smallest first)")
            .c_str())("demangle", "print C++ kernel names demangled");
  }
  if (command.name == "extract")
    options.add_options()(
        "target,t", po::value<std::vector<std::string>>()->composing(),
        "only the entries of this target (repeatable, or comma-separated): "
        "host, an entry ID, or a processor with optional features (gfx90a "
        "selects every variant, gfx90a:xnack+ those it can run; amdgpu9.0a "
        "is gfx90a)")("output,o", po::value<std::string>()->default_value("."),
                      "the folder to write into (created when missing)");
  const bool rewrites = command.name == "prune" || command.name == "compress" ||
                        command.name == "decompress";
  if (command.name == "prune")
    options.add_options()(
        "keep,k", po::value<std::vector<std::string>>()->composing(),
        "keep the entries of this target (repeatable, or comma-separated), "
        "in the forms extract's --target takes");
  if (rewrites)
    options.add_options()("output,o", po::value<std::string>(),
                          "the file to write (may be FILE itself)")(
        "in-place",
        "rewrite each file holding GPU code where it is, atomically, keeping "
        "its owner, permissions, extended attributes and hard links; needed "
        "for several files or folders")(
        "dry-run", "write nothing; print what a run would do");
  if (command.name == "unpack-kpack")
    options.add_options()("output,o", po::value<std::string>(),
                          "the file to write")(
        "compress", "compress each bundle as by -compress");
  if (command.name == "prune" || command.name == "compress" ||
      command.name == "unpack-kpack")
    options.add_options()("level",
                          po::value<int>()->default_value(kDefaultZstdLevel),
                          "zstd level of the bundles compressed");
  if (command.name == "prune" || command.name == "decompress")
    options.add_options()("no-verify-hash",
                          "do not check compressed bundles against the MD5 "
                          "hash in their header (faster)");
  return options;
}

std::string commandHelp(const CommandSpec &command) {
  std::ostringstream options;
  options << commandOptions(command);
  return "Usage: offbundle " + std::string(command.name) + " [OPTIONS] " +
         std::string(command.arguments) + "\n\n" +
         std::string(command.summary) + ".\n\n" + options.str();
}

const CommandSpec *findCommand(std::string_view name) {
  for (const CommandSpec &command : kCommands)
    if (command.name == name)
      return &command;
  return nullptr;
}

// What a command was asked to do.
struct Request {
  const CommandSpec *command = nullptr;
  std::vector<std::string> files;
  bool json = false;
  bool help = false;
  std::vector<std::string> targets; // extract --target, prune --keep
  std::string output;               // extract, prune, compress, decompress
  int level = kDefaultZstdLevel;    // prune, compress
  bool verifyHash = true;           // prune, decompress
  bool inPlace = false;             // prune, compress, decompress
  bool dryRun = false;              // prune, compress, decompress
  bool compress = false;            // unpack-kpack
  std::string sortField;            // kernels --sort
  bool demangle = false;            // kernels --demangle
  std::string html;                 // sizes --html
  bool byKernel = false;            // sizes --by-kernel
  size_t top = 0;                   // sizes --by-kernel --top; 0: all
  unsigned jobs = 1;                // files at once
  bool quiet = false;               // no progress line
};

// The count an option gives: decimal digits, at least 1. (Boost reads
// "-1" as an unsigned's largest value, which would pass for a count.)
Result<uint64_t> countOption(const po::variables_map &values,
                             const std::string &name,
                             const std::string &usage) {
  const std::string &text = values[name].as<std::string>();
  uint64_t count = 0;
  const char *end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, count);
  if (text.empty() || stop != end || error != std::errc())
    return makeError("--" + name + " takes a whole number, not '" + text + "'" +
                     usage);
  if (count == 0)
    return makeError("--" + name + " needs at least 1" + usage);
  return count;
}

Result<Request> parseRequest(const CommandSpec &command,
                             const std::vector<std::string> &arguments) {
  po::options_description options = commandOptions(command);
  po::options_description all;
  all.add(options);
  all.add_options()("file", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map values;
  try {
    po::store(po::command_line_parser(arguments)
                  .options(all)
                  .positional(positional)
                  .style(po::command_line_style::default_style &
                         ~po::command_line_style::allow_guessing)
                  .run(),
              values);
  } catch (const po::error &error) {
    return makeError(std::string(error.what()) + " (see 'offbundle " +
                     std::string(command.name) + " --help')");
  }
  Request request;
  request.command = &command;
  request.help = values.count("help") != 0;
  request.json = values.count("json") != 0;
  if (values.count("file"))
    request.files = values["file"].as<std::vector<std::string>>();
  if (values.count("target"))
    request.targets = values["target"].as<std::vector<std::string>>();
  if (values.count("keep"))
    request.targets = values["keep"].as<std::vector<std::string>>();
  // Its range is checked by the API (Rewrite::check, unpackKpack).
  if (values.count("level"))
    request.level = values["level"].as<int>();
  request.verifyHash = values.count("no-verify-hash") == 0;
  request.inPlace = values.count("in-place") != 0;
  request.dryRun = values.count("dry-run") != 0;
  request.compress = values.count("compress") != 0;
  request.demangle = values.count("demangle") != 0;
  if (values.count("sort"))
    request.sortField = values["sort"].as<std::string>();
  const std::string usage =
      " (see 'offbundle " + std::string(command.name) + " --help')";
  request.jobs = std::max(1u, std::thread::hardware_concurrency());
  if (values.count("jobs")) {
    auto jobs = countOption(values, "jobs", usage);
    if (!jobs)
      return jobs.takeError();
    // More threads than a run could use are as good as that many.
    request.jobs = static_cast<unsigned>(std::min<uint64_t>(*jobs, 1024));
  }
  request.quiet = values.count("quiet") != 0;
  if (values.count("html"))
    request.html = values["html"].as<std::string>();
  request.byKernel = values.count("by-kernel") != 0;
  if (values.count("top")) {
    auto top = countOption(values, "top", usage);
    if (!top)
      return top.takeError();
    request.top = static_cast<size_t>(*top);
  }
  if (request.byKernel && !request.html.empty())
    return makeError("--by-kernel and --html do not go together" + usage);
  if (!request.byKernel && (values.count("top") || request.demangle) &&
      command.name == "sizes")
    return makeError(std::string(values.count("top") ? "--top" : "--demangle") +
                     " needs --by-kernel" + usage);
  if (values.count("output"))
    request.output = values["output"].as<std::string>();
  if (!request.help && request.files.empty())
    return makeError("no input file (see 'offbundle " +
                     std::string(command.name) + " --help')");
  return request;
}

// list and sizes: each file's part of the report, made on `request.jobs`
// threads; the report comes once every file was tried, and when nothing
// could be reported and something failed, there is none.
template <typename Part, typename Describe>
std::vector<Part> describeFiles(const Request &request, api::FileWalk &walk,
                                ToolReporter &reporter, Describe describe,
                                bool &failed) {
  std::vector<Part> parts;
  ProgressLine progress(walk, !request.quiet);
  using Made =
      decltype(describe(api::WalkedFile(), std::declval<api::Input>()));
  failed = describeEachInput<Made>(
      walk, request.jobs,
      [&](const api::WalkedFile &file, const api::Input &input) {
        return Result<Made>(describe(file, input));
      },
      [&](const std::string &path, Made made) {
        parts.push_back({path, std::move(made)});
      },
      [&](const std::string &message) { reporter.error(message); },
      [&](const api::WalkedFile &file) { progress.fileDone(file); });
  return parts;
}

ToolOutcome runList(const Request &request, ToolReporter &reporter) {
  api::FileWalk walk = api::walkFiles(request.files);
  bool failed = false;
  const std::vector<FileEntries> listed = describeFiles<FileEntries>(
      request, walk, reporter,
      [](const api::WalkedFile &, const api::Input &input) {
        return listEntries(input);
      },
      failed);
  if (!listed.empty() || !failed)
    reporter.print(request.json ? listJson(listed, walk)
                                : listText(listed, walk));
  return reporter.finish(failed ? 1 : 0);
}

// sizes: as list, and with --html the page too.
ToolOutcome runSizesByKernel(const Request &request, ToolReporter &reporter);

ToolOutcome runSizes(const Request &request, ToolReporter &reporter) {
  if (request.byKernel)
    return runSizesByKernel(request, reporter);
  api::FileWalk walk = api::walkFiles(request.files);
  bool failed = false;
  const std::vector<FileSizes> summaries = describeFiles<FileSizes>(
      request, walk, reporter,
      [](const api::WalkedFile &file, const api::Input &input) {
        return summarizeSizes(input, file.size);
      },
      failed);
  if (summaries.empty() && failed)
    return reporter.finish(1);
  reporter.print(request.json ? sizesJson(summaries, walk)
                              : sizesText(summaries, walk));
  // The page stands for the whole run: after a failure it is not written,
  // and a page from an earlier run stays as it was.
  if (!request.html.empty()) {
    Status written =
        failed ? Status(fileError(request.html,
                                  "not written, as a file could not be read"))
               : writeSizesHtml(request.html, summaries, walk);
    if (!written.ok()) {
      reporter.error(written.error().message);
      failed = true;
    }
  }
  return reporter.finish(failed ? 1 : 0);
}

// extract: the entries of one file, all or those of the targets given, into
// a folder, all or nothing; prints each file written.
ToolOutcome runExtract(const Request &request, ToolReporter &reporter) {
  std::error_code error;
  if (request.files.size() != 1 ||
      std::filesystem::is_directory(request.files.front(), error)) {
    const api::FileWalk walk = api::walkFiles(request.files);
    const TreeExtraction done = extractTree(
        walk, request.output, request.targets, request.jobs,
        [&](const std::string &lines) { reporter.print(lines); },
        [&](const std::string &message) { reporter.error(message); });
    reporter.print(treeExtractionSkippedText(walk, done));
    return reporter.finish(done.failed ? 1 : 0);
  }
  const std::string &path = request.files.front();
  auto written = extractFile({path, request.output, request.targets});
  if (!written)
    return reporter.fail(written.error().message);
  reporter.print(*written);
  return reporter.finish(0);
}

// What prune, compress or decompress was asked to do.
Result<api::RewriteOptions> rewriteOptionsFor(const Request &request) {
  const std::string command(request.command->name);
  const std::string usage = " (see 'offbundle " + command + " --help')";
  if (request.inPlace && !request.output.empty())
    return makeError(command + " takes -o OUT or --in-place, not both" + usage);
  if (!request.inPlace) {
    std::error_code error;
    if (request.files.size() != 1 ||
        std::filesystem::is_directory(request.files.front(), error))
      return makeError(command +
                       " takes one file, or --in-place for several files "
                       "and folders" +
                       usage);
    if (request.output.empty())
      return makeError(command + " needs -o OUT" + usage);
  }
  api::RewriteOptions options;
  options.kind = command == "prune"      ? api::RewriteKind::Prune
                 : command == "compress" ? api::RewriteKind::Compress
                                         : api::RewriteKind::Decompress;
  options.compressionLevel = request.level;
  options.threads = request.jobs;
  options.verifyHash = request.verifyHash;
  // What LLVM's archive writer reads (a test hook), for rewritten archives.
  options.archiveSym64Threshold = archiveSym64ThresholdFromEnvironment();
  if (options.kind == api::RewriteKind::Prune && request.targets.empty())
    return makeError("prune needs --keep TARGET" + usage);
  options.keep = request.targets;
  // Wrong targets are said once, not once for every file.
  if (api::Outcome checked = api::Rewrite::check(options); !checked)
    return makeError(checked.error().message + usage);
  return options;
}

// prune, compress, decompress --in-place: the files and folders given,
// each rewritten where it is; the totals close the run.
ToolOutcome runInPlace(const Request &request,
                       const api::RewriteOptions &options,
                       ToolReporter &reporter) {
  api::FileWalk walk = api::walkFiles(request.files);
  ProgressLine progress(walk, !request.quiet);
  const InPlaceTotals totals = rewriteInPlace(
      walk, {options, request.files, request.dryRun, request.jobs},
      [&](const std::string &line) { reporter.print(line); },
      [&](const std::string &message) { reporter.error(message); },
      [&](const api::WalkedFile &file) { progress.fileDone(file); });
  progress.clear();
  reporter.print(skippedText(walk.skipped));
  reporter.print(inPlaceSummary(totals, request.dryRun));
  return reporter.finish(totals.failed != 0 ? 1 : 0);
}

// prune, compress, decompress: one file rewritten into another, which
// appears only when everything succeeded.
ToolOutcome runRewrite(const Request &request, ToolReporter &reporter) {
  auto options = rewriteOptionsFor(request);
  if (!options)
    return reporter.fail(options.error().message);
  if (request.inPlace)
    return runInPlace(request, *options, reporter);
  auto line = rewriteInto(request.files.front(), request.output, *options,
                          request.dryRun);
  if (!line)
    return reporter.fail(line.error().message);
  // "-o -" is a filter, as gzip -c is: standard output carries the file
  // alone, and the report goes to standard error.
  if (request.output == "-")
    reporter.printDiagnostics(*line);
  else
    reporter.print(*line);
  return reporter.finish(0);
}

// verify: every file is checked; a line per faulty file, exit status 1 if
// any was.
ToolOutcome runVerify(const Request &request, ToolReporter &reporter) {
  api::FileWalk walk = api::walkFiles(request.files);
  ProgressLine progress(walk, !request.quiet);
  const bool failed = describeEachInput<std::string>(
      walk, request.jobs,
      [](const api::WalkedFile &, const api::Input &input) {
        return verifyInput(input);
      },
      [&](const std::string &, std::string line) { reporter.print(line); },
      [&](const std::string &message) { reporter.error(message); },
      [&](const api::WalkedFile &file) { progress.fileDone(file); });
  progress.clear();
  reporter.print(skippedText(walk.skipped));
  return reporter.finish(failed ? 1 : 0);
}

// The kernels of every file `request` names, per target; an error line for
// each file that fails.
std::vector<FileKernels> collectKernels(const Request &request,
                                        const KernelsRequest &kernels,
                                        ToolReporter &reporter,
                                        api::FileWalk &walk, bool &failed) {
  ProgressLine progress(walk, !request.quiet);
  std::vector<FileKernels> files;
  failed = describeEachInput<std::vector<TargetKernels>>(
      walk, request.jobs,
      [&](const api::WalkedFile &, const api::Input &input) {
        return kernelsOf(input, kernels);
      },
      [&](const std::string &path, std::vector<TargetKernels> targets) {
        files.push_back({path, std::move(targets)});
      },
      [&](const std::string &message) { reporter.error(message); },
      [&](const api::WalkedFile &file) { progress.fileDone(file); });
  progress.clear();
  return files;
}

// kernels: each file's kernels, per target; the report comes once every
// file was tried.
ToolOutcome runKernels(const Request &request, ToolReporter &reporter) {
  const std::string usage = " (see 'offbundle kernels --help')";
  KernelsRequest kernels;
  auto selectors = parseTargetSelectors(request.targets);
  if (!selectors)
    return reporter.fail(selectors.error().message + usage);
  kernels.selectors = std::move(*selectors);
  const std::vector<std::string_view> &fields = kernelSortFields();
  if (!request.sortField.empty() &&
      std::find(fields.begin(), fields.end(), request.sortField) ==
          fields.end())
    return reporter.fail("unknown field '" + request.sortField +
                         "' for --sort" + usage);
  kernels.sortField = request.sortField;
  kernels.demangle = request.demangle;
  api::FileWalk walk = api::walkFiles(request.files);
  bool failed = false;
  const std::vector<FileKernels> files =
      collectKernels(request, kernels, reporter, walk, failed);
  if (!files.empty() || !failed)
    reporter.print(request.json ? kernelsJson(files, walk)
                                : kernelsText(files, walk));
  return reporter.finish(failed ? 1 : 0);
}

// sizes --by-kernel: the kernels of every file, summed by name over targets
// and files, largest first.
ToolOutcome runSizesByKernel(const Request &request, ToolReporter &reporter) {
  KernelsRequest kernels;
  kernels.demangle = request.demangle;
  api::FileWalk walk = api::walkFiles(request.files);
  bool failed = false;
  const std::vector<FileKernels> files =
      collectKernels(request, kernels, reporter, walk, failed);
  if (files.empty() && failed)
    return reporter.finish(1);
  const KernelTotals totals = kernelTotals(files, request.top);
  reporter.print(request.json ? kernelTotalsJson(totals, walk)
                              : kernelTotalsText(totals, walk));
  return reporter.finish(failed ? 1 : 0);
}

// unpack-kpack: one kpack'd file rebuilt into another, which appears only
// when everything succeeded.
ToolOutcome runUnpackKpack(const Request &request, ToolReporter &reporter) {
  const std::string usage = " (see 'offbundle unpack-kpack --help')";
  if (request.files.size() != 1)
    return reporter.fail("unpack-kpack takes one file" + usage);
  if (request.output.empty())
    return reporter.fail("unpack-kpack needs -o OUT" + usage);
  api::UnpackKpackOptions options;
  options.compress = request.compress;
  options.compressionLevel = request.level;
  auto unpacked =
      api::unpackKpack(request.files.front(), request.output, options);
  if (!unpacked)
    return reporter.fail(unpacked.error().message);
  reporter.print(unpackedKpackText(request.files.front(), request.output,
                                   unpacked->bundles, unpacked->codeObjects,
                                   request.compress));
  return reporter.finish(0);
}

} // namespace

ToolOutcome runOffbundle(const std::vector<std::string> &argv) {
  ToolReporter reporter(kProgram, {});
  if (argv.size() < 2)
    return reporter.fail("no command given (see 'offbundle --help')");
  const std::string &first = argv[1];
  if (first == "--help" || first == "-h") {
    reporter.print(mainHelp());
    return reporter.finish(0);
  }
  if (first == "--version") {
    reporter.print(versionText());
    return reporter.finish(0);
  }
  const CommandSpec *command = findCommand(first);
  if (!command)
    return reporter.fail("unknown command '" + first +
                         "' (see 'offbundle --help')");
  auto request = parseRequest(
      *command, std::vector<std::string>(argv.begin() + 2, argv.end()));
  if (!request)
    return reporter.fail(request.error().message);
  if (request->help) {
    reporter.print(commandHelp(*command));
    return reporter.finish(0);
  }
  if (command->name == "verify")
    return runVerify(*request, reporter);
  if (command->name == "extract")
    return runExtract(*request, reporter);
  if (command->name == "list")
    return runList(*request, reporter);
  if (command->name == "sizes")
    return runSizes(*request, reporter);
  if (command->name == "unpack-kpack")
    return runUnpackKpack(*request, reporter);
  if (command->name == "kernels")
    return runKernels(*request, reporter);
  return runRewrite(*request, reporter);
}

} // namespace offbundle
