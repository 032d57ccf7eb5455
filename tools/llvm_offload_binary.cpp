// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-offload-binary, also built as clang-offload-packager: parse, run,
// report. Everything else lives in the library.
#include "cli/packager_cli.h"
#include "cli/tool_start.h"

int main(int argc, char **argv) {
  return offbundle::runToolMain(argc, argv, offbundle::runLlvmOffloadBinary);
}
