// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checks clang-offload-bundler makes on -targets before bundling or
// unbundling, in LLVM 22's order and with its messages, and the normalised
// entry IDs they produce. Shared by the command line and the public API.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bundler/config.h"

namespace offbundle {

struct TargetProblem {
  TargetProblem(std::string text, bool fatal = false)
      : message(std::move(text)), llvmFatal(fatal) {}
  TargetProblem(const char *text) : message(text) {}
  std::string message;
  // Where LLVM stops with report_fatal_error, the message is a whole line of
  // its own ("LLVM ERROR: ..."), not an error of the tool.
  bool llvmFatal = false;
};

// The checks LLVM's tool makes on the targets, in its order: on success
// config.targetNames holds the normalised entry IDs, and hostInputIndex and
// allowNoHost are set.
std::optional<TargetProblem>
checkTargets(const std::vector<std::string> &targets, bool unbundle,
             FilesConfig &config);

} // namespace offbundle
