// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a bundler or packager operation prints, kept apart from the files it
// writes, so that the command line decides where and when it goes.
#pragma once

#include <string>

namespace offbundle {

// On error it holds what was printed before the error, as LLVM prints as it
// goes.
struct OperationReport {
  std::string standardOutput;
  // -verbose reports and other notes for standard error.
  std::string diagnostics;
};

} // namespace offbundle
