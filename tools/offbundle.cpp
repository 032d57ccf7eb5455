// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle: the fat-binary toolkit's command line. Everything else lives in
// the library.
#include "cli/offbundle_cli.h"
#include "cli/tool_start.h"

int main(int argc, char **argv) {
  return offbundle::runToolMain(argc, argv, offbundle::runOffbundle,
                                "offbundle");
}
