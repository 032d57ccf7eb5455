// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checks clang-offload-bundler makes on a bundling or unbundling
// request (its inputs, outputs and -targets) before it runs, in LLVM 22's
// order and with its messages, and the configuration they produce: the one
// path into the bundler for the command line and the public API, so that a
// program gets what the tool would say.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bundler/config.h"

namespace offbundle {

struct BundlingProblem {
  BundlingProblem(std::string text, bool fatal = false)
      : message(std::move(text)), llvmFatal(fatal) {}
  BundlingProblem(const char *text) : message(text) {}
  std::string message;
  // Where LLVM stops with report_fatal_error, the message is a whole line of
  // its own ("LLVM ERROR: ..."), not an error of the tool.
  bool llvmFatal = false;
};

// The checks LLVM's tool makes on the targets, in its order: on success
// config.targetNames holds the normalised entry IDs, and hostInputIndex and
// allowNoHost are set.
std::optional<BundlingProblem>
checkTargets(const std::vector<std::string> &targets, bool unbundle,
             FilesConfig &config);

// A -bundle or -unbundle run as asked for, before any check.
struct BundlingRequest {
  bool unbundle = false;
  // -targets as given. Whether the option was given at all is told apart
  // from an empty list: LLVM's "must be specified at least once" is about
  // the option.
  std::vector<std::string> targets;
  bool targetsGiven = false;
  // The inputs, outputs, -type and the other values asked for; the check
  // fills in the targets' fields.
  BundlerConfig config;
};

// LLVM 22's checks of a request, in its order: the configuration to run
// (runBundling, bundler/operations.h), or the first problem found.
std::variant<BundlerConfig, BundlingProblem>
checkBundlingRequest(BundlingRequest request);

} // namespace offbundle
