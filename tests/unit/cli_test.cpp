// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The command line: LLVM's syntax, its messages, and the order of its checks.
// The same cases run against LLVM 22's tool in the differential suite; here
// they pin our front end down without needing the reference installed.
#include "cli/bundler_cli.h"
#include "cli/packager_cli.h"
#include "cli/response_file.h"
#include "compression/compressed_bundle.h"
#include "in_memory.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace offbundle {
namespace {

ToolOutcome run(std::vector<std::string> arguments) {
  arguments.insert(arguments.begin(), "clang-offload-bundler");
  return runClangOffloadBundler(arguments);
}

TEST(CommandLine, TypeIsRequired) {
  ToolOutcome outcome = run({"-list", "-input=x"});
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: for the --type option: must be specified "
            "at least once!\n");
}

TEST(CommandLine, UnsupportedShaderModelKeepsEarlierWarnings) {
  // LLVM 22 prints the warnings, then stops with its fatal error line.
  ToolOutcome outcome = run({"-type=bc", "-inputs=a,b", "-outputs=c",
                             "-targets=host-x86_64-unknown-linux-gnu,"
                             "hip-dxil-unknown-shadermodel6.10-compute"});
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardOutput, "");
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: warning: -inputs is deprecated, use "
            "-input instead\n"
            "clang-offload-bundler: warning: -outputs is deprecated, use "
            "-output instead\n"
            "LLVM ERROR: Unsupported Shader Model version\n");
}

TEST(CompressedInput, SizeClaimBeyondMemoryIsRefusedBeforeDecompressing) {
  // Data can honestly expand tens of thousands of times, so checking sizes
  // while decompressing is not enough: a claim beyond what the machine can
  // hold is refused up front (LLVM aborts with "out of memory").
  Result<std::string> compressed = compressBundle("not a bundle", {});
  ASSERT_TRUE(compressed.ok());
  std::string bytes = *compressed;
  // Version 3: the uncompressed size is the u64 at offset 16.
  const uint64_t claim = uint64_t{1} << 62;
  for (int i = 0; i < 8; ++i)
    bytes[16 + i] = static_cast<char>((claim >> (8 * i)) & 0xff);
  char folder[] = "/tmp/offbundle-cli-XXXXXX";
  ASSERT_NE(::mkdtemp(folder), nullptr);
  const std::string input = std::string(folder) + "/big.ccob";
  std::ofstream(input, std::ios::binary) << bytes;
  ToolOutcome outcome =
      run({"-type=bc", "-unbundle", "-input=" + input,
           "-targets=host-x86_64-unknown-linux-gnu", "-output=-"});
  std::filesystem::remove_all(folder);
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardOutput, "");
  EXPECT_EQ(outcome.standardError.rfind(
                "clang-offload-bundler: error: Failed to decompress input: the "
                "uncompressed size in the header, 4611686018427387904 bytes, "
                "exceeds the limit of ",
                0),
            0u)
      << outcome.standardError;
  EXPECT_NE(outcome.standardError.find("(half of this machine's memory)\n"),
            std::string::npos);
}

TEST(CompressedInput, ListingAHeaderThatNeverEndsStaysWithinTheLimit) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "needs an address-space limit, which ASan cannot run under";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "needs an address-space limit, which ASan cannot run under";
#endif
#endif
  // A compressed bundle of 900 MiB whose inner header claims an entry ID of
  // 2^40 bytes: -list decompresses ever longer prefixes looking for the end
  // of the header, and must stop at the limit (half of ulimit -v) with an
  // error rather than decompress the rest.
  std::string bundle = "__CLANG_OFFLOAD_BUNDLE__";
  auto appendLittle64 = [&bundle](uint64_t value) {
    for (int i = 0; i < 8; ++i)
      bundle += static_cast<char>((value >> (8 * i)) & 0xff);
  };
  appendLittle64(1);          // one entry
  appendLittle64(0);          // its offset
  appendLittle64(0);          // its size
  appendLittle64(1ull << 40); // its ID's length
  bundle.resize(900u << 20, '\0');
  CompressionOptions options;
  options.level = 1;
  Result<std::string> compressed = compressBundle(bundle, options);
  ASSERT_TRUE(compressed.ok());
  bundle.clear();
  bundle.shrink_to_fit();
  char folder[] = "/tmp/offbundle-cli-XXXXXX";
  ASSERT_NE(::mkdtemp(folder), nullptr);
  const std::string input = std::string(folder) + "/endless-header.bc";
  std::ofstream(input, std::ios::binary) << *compressed;
  const std::string errors = std::string(folder) + "/stderr";
  pid_t child = ::fork();
  if (child == 0) {
    const rlim_t limit = rlim_t{3} << 29;
    struct rlimit addressSpace {
      limit, limit
    };
    ::setrlimit(RLIMIT_AS, &addressSpace);
    ToolOutcome outcome = run({"-type=bc", "-list", "-input=" + input});
    std::ofstream(errors) << outcome.standardError;
    ::_exit(outcome.exitCode);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  std::ifstream in(errors);
  std::string message((std::istreambuf_iterator<char>(in)), {});
  std::filesystem::remove_all(folder);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(message,
            "clang-offload-bundler: error: Failed to decompress input: the "
            "uncompressed size in the header, " +
                std::to_string(900u << 20) + " bytes, exceeds the limit of " +
                std::to_string(3u << 28) +
                " bytes (half of this process's address-space limit)\n");
}

TEST(CommandLine, UnknownArgumentSuggestsNearestOption) {
  ToolOutcome outcome = run({"-lsit", "-type=bc", "-input=x"});
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: Unknown command line argument '-lsit'.  "
            "Try: 'clang-offload-bundler --help'\n"
            "clang-offload-bundler: Did you mean '--list'?\n");
}

TEST(CommandLine, SuggestionKeepsTheValue) {
  ToolOutcome outcome = run({"-type=bc", "-debug-only=foo"});
  EXPECT_NE(outcome.standardError.find("Did you mean '--unbundle=foo'?"),
            std::string::npos);
}

TEST(CommandLine, BooleanValuesAreChecked) {
  ToolOutcome outcome = run({"-type=bc", "-list=maybe", "-input=x"});
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: for the --list option: 'maybe' is invalid "
            "value for boolean argument! Try 0 or 1\n");
  // -list=0 turns listing off, so bundling checks apply.
  EXPECT_EQ(run({"-type=bc", "-list=0", "-input=x"}).standardError,
            "clang-offload-bundler: error: no output file specified!\n");
}

TEST(CommandLine, UnsignedValuesUseAutomaticRadix) {
  EXPECT_NE(run({"-type=bc", "-bundle-align=0x10", "-list", "-input=/none"})
                .standardError.find("No such file"),
            std::string::npos);
  EXPECT_EQ(
      run({"-type=bc", "-bundle-align=08", "-list", "-input=x"}).standardError,
      "clang-offload-bundler: for the --bundle-align option: '08' value "
      "invalid for uint argument!\n");
  EXPECT_EQ(
      run({"-type=bc", "-bundle-align=4294967296", "-list"}).standardError,
      "clang-offload-bundler: for the --bundle-align option: "
      "'4294967296' value invalid for uint argument!\n");
}

TEST(CommandLine, ValueOptionTakesTheNextArgumentWhateverItIs) {
  ToolOutcome outcome = run({"-type=bc", "-list", "-input", "-list"});
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: error: '-list': No such file or "
            "directory\n");
}

TEST(CommandLine, MissingValueIsReported) {
  EXPECT_EQ(run({"-type=bc", "-list", "-input"}).standardError,
            "clang-offload-bundler: for the --input option: requires a "
            "value!\n");
}

TEST(CommandLine, HelpPrintsCategorisedOptions) {
  ToolOutcome outcome = run({"--help"});
  EXPECT_EQ(outcome.exitCode, 0);
  EXPECT_NE(outcome.standardOutput.find("Generic Options:"), std::string::npos);
  EXPECT_NE(outcome.standardOutput.find(
                "  --bundle-align=<uint>   - Alignment of bundle for binary "
                "files\n"),
            std::string::npos);
  EXPECT_EQ(outcome.standardOutput.find("\n  --help-hidden "),
            std::string::npos);
  EXPECT_NE(run({"--help-hidden"}).standardOutput.find("\n  --print-options "),
            std::string::npos);
}

TEST(CommandLine, ChecksRunInTheReferenceOrder) {
  EXPECT_EQ(run({"-type=bc", "-list", "-unbundle", "-input=x"}).standardError,
            "clang-offload-bundler: error: -unbundle and -list cannot be used "
            "together\n");
  EXPECT_EQ(run({"-type=bc", "-input=x", "-output=o"}).standardError,
            "clang-offload-bundler: error: for the --targets option: must be "
            "specified at least once!\n");
  EXPECT_EQ(run({"-type=a", "-input=x", "-output=o",
                 "-targets=host-x86_64-unknown-linux-gnu"})
                .standardError,
            "clang-offload-bundler: error: Archive files are only supported "
            "for unbundling\n");
}

TEST(CommandLine, DeprecatedListsWarnAndSplitOnCommas) {
  ToolOutcome outcome = run({"-type=bc", "-list", "-inputs=a,b"});
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: warning: -inputs is deprecated, use -input "
            "instead\n"
            "clang-offload-bundler: error: only one input file supported for "
            "-list\n");
}

TEST(TargetChecks, ConflictingTargetIdsAreRefused) {
  ToolOutcome outcome =
      run({"-type=bc", "-input=a", "-input=b", "-output=o",
           "-targets=hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--"
           "gfx906:xnack+"});
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: error: Cannot bundle inputs with "
            "conflicting targets: 'hip-amdgcn-amd-amdhsa--gfx906' and "
            "'hip-amdgcn-amd-amdhsa--gfx906:xnack+'\n");
}

TEST(TargetChecks, TwoSpellingsOfOneTargetAreDuplicates) {
  // LLVM writes a corrupt bundle here (both spellings become one entry ID).
  ToolOutcome outcome =
      run({"-type=bc", "-input=a", "-input=b", "-output=o",
           "-targets=hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa-"
           "unknown-gfx906"});
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: error: Duplicate targets are not "
            "allowed\n");
}

TEST(TargetChecks, TwoSpellingsOfOneTargetAreDuplicatesWhenUnbundling) {
  // LLVM sends both entries to the second output and never creates the
  // first one.
  ToolOutcome outcome =
      run({"-type=bc", "-unbundle", "-input=a", "-output=o", "-output=p",
           "-targets=hip-amdgcn-amd-amdhsa-unknown-gfx906,hip-amdgcn-amd-"
           "amdhsa--gfx906"});
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardError,
            "clang-offload-bundler: error: Duplicate targets are not "
            "allowed\n");
}

TEST(TargetChecks, HostCountIsChecked) {
  EXPECT_EQ(run({"-type=bc", "-input=a", "-output=o",
                 "-targets=openmp-amdgcn-amd-amdhsa--gfx906"})
                .standardError,
            "clang-offload-bundler: error: expecting exactly one host target "
            "but got 0\n");
}

TEST(ResponseFiles, GnuTokenizerRules) {
  EXPECT_EQ(tokenizeGnuCommandLine("a 'b c' \"d\\\"e\" f\\ g\n\th"),
            (std::vector<std::string>{"a", "b c", "d\"e", "f g", "h"}));
  EXPECT_EQ(tokenizeGnuCommandLine("'' x"), (std::vector<std::string>{"x"}));
  EXPECT_TRUE(tokenizeGnuCommandLine("  \n ").empty());
}

TEST(ResponseFiles, MissingFileStaysAnArgument) {
  auto expanded = expandResponseFiles({"tool", "@/no/such/file"});
  ASSERT_TRUE(expanded.ok());
  EXPECT_EQ(*expanded, (std::vector<std::string>{"tool", "@/no/such/file"}));
}

TEST(ResponseFiles, SelfInclusionStops) {
  char pattern[] = "/tmp/offbundle-rsp-XXXXXX";
  int fd = ::mkstemp(pattern);
  ASSERT_GE(fd, 0);
  std::string self = std::string("@") + pattern;
  ASSERT_EQ(::write(fd, self.data(), self.size()),
            static_cast<ssize_t>(self.size()));
  ::close(fd);
  auto expanded = expandResponseFiles({"tool", self});
  ::unlink(pattern);
  ASSERT_FALSE(expanded.ok());
  EXPECT_NE(expanded.error().message.find("recursive expansion"),
            std::string::npos);
}

// A chain of distinct files nests as deep as it goes; only a file found
// again among those it is nested in is a recursion. One file included twice
// side by side is none.
TEST(ResponseFiles, OnlyAFileInsideItselfIsARecursion) {
  char folder[] = "/tmp/offbundle-rsp-XXXXXX";
  ASSERT_NE(::mkdtemp(folder), nullptr);
  const std::string base = folder;
  auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(base + "/" + name) << text;
  };
  for (int i = 0; i < 80; ++i)
    write("r" + std::to_string(i),
          i == 79 ? "last" : "@" + base + "/r" + std::to_string(i + 1));
  write("twice", "@" + base + "/leaf @" + base + "/leaf");
  write("leaf", "x");
  auto deep = expandResponseFiles({"tool", "@" + base + "/r0"});
  auto twice = expandResponseFiles({"tool", "@" + base + "/twice"});
  for (const char *name : {"twice", "leaf"})
    ::unlink((base + "/" + name).c_str());
  for (int i = 0; i < 80; ++i)
    ::unlink((base + "/r" + std::to_string(i)).c_str());
  ::rmdir(folder);
  ASSERT_TRUE(deep.ok()) << deep.error().message;
  EXPECT_EQ(*deep, (std::vector<std::string>{"tool", "last"}));
  ASSERT_TRUE(twice.ok()) << twice.error().message;
  EXPECT_EQ(*twice, (std::vector<std::string>{"tool", "x", "x"}));
}

// Names are made absolute from $PWD when it names the current directory,
// as LLVM's current_path does: a folder reached through a link keeps the
// link's name in messages.
TEST(ResponseFiles, TheCurrentDirectoryIsNamedAsTheShellNamesIt) {
  char folder[] = "/tmp/offbundle-rsp-XXXXXX";
  ASSERT_NE(::mkdtemp(folder), nullptr);
  const std::string base = folder;
  ASSERT_EQ(::mkdir((base + "/real").c_str(), 0755), 0);
  ASSERT_EQ(::symlink("real", (base + "/link").c_str()), 0);
  std::ofstream(base + "/real/self") << "@self";
  char previous[PATH_MAX];
  ASSERT_NE(::getcwd(previous, sizeof previous), nullptr);
  const char *previousPwd = std::getenv("PWD");
  const std::string savedPwd = previousPwd ? previousPwd : "";
  ASSERT_EQ(::chdir((base + "/link").c_str()), 0);
  ::setenv("PWD", (base + "/link").c_str(), 1);
  auto viaLink = expandResponseFiles({"tool", "@self"});
  ::setenv("PWD", "/", 1); // names another directory: getcwd() is used
  auto physical = expandResponseFiles({"tool", "@self"});
  ASSERT_EQ(::chdir(previous), 0);
  ::setenv("PWD", savedPwd.c_str(), 1);
  ::unlink((base + "/real/self").c_str());
  ::unlink((base + "/link").c_str());
  ::rmdir((base + "/real").c_str());
  ::rmdir(folder);
  ASSERT_FALSE(viaLink.ok());
  EXPECT_EQ(viaLink.error().message,
            "recursive expansion of: '" + base + "/link/self'");
  ASSERT_FALSE(physical.ok());
  EXPECT_EQ(physical.error().message,
            "recursive expansion of: '" + base + "/real/self'");
}

// LLVM's packager crashes after a response file it cannot expand; ours
// gives one error line.
TEST(ResponseFiles, PackagerGivesOneErrorLine) {
  ToolOutcome outcome = runLlvmOffloadBinary({"llvm-offload-binary", "@/"});
  EXPECT_EQ(outcome.exitCode, 1);
  EXPECT_EQ(outcome.standardError,
            "llvm-offload-binary: error: cannot not open file '/': Is a "
            "directory\n");
}

} // namespace
} // namespace offbundle
