// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// clang-offload-bundler: parse, run, report. Everything else lives in the
// library.
#include "cli/bundler_cli.h"
#include "cli/tool_start.h"

int main(int argc, char **argv) {
  return offbundle::runToolMain(argc, argv, offbundle::runClangOffloadBundler);
}
