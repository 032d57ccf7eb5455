// llvm-offload-binary, also built as clang-offload-packager: parse, run,
// report. Everything else lives in the library.
#include <cstdio>
#include <string>
#include <vector>

#include "packager/packager_cli.h"

int main(int argc, char **argv) {
  std::vector<std::string> arguments(argv, argv + argc);
  offbundle::ToolOutcome outcome = offbundle::runLlvmOffloadBinary(arguments);
  std::fwrite(outcome.standardOutput.data(), 1, outcome.standardOutput.size(),
              stdout);
  std::fflush(stdout);
  std::fwrite(outcome.standardError.data(), 1, outcome.standardError.size(),
              stderr);
  return outcome.exitCode;
}
