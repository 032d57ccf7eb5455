// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// "@file" response files, expanded the way LLVM's command-line library does
// for its tools: GNU-style quoting, expansion in place, nested files named
// relative to the current directory, and "@name" left alone when no such
// file exists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace offbundle {

// Splits text into arguments with GNU shell-like rules: whitespace separates,
// single and double quotes group, a backslash escapes the next character.
std::vector<std::string> tokenizeGnuCommandLine(std::string_view text);

// Expands every "@file" argument (argv[0] excluded) recursively.
Result<std::vector<std::string>>
expandResponseFiles(std::vector<std::string> arguments);

} // namespace offbundle
