// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-extract-bundle-entry: parse, run, report. Everything else lives in
// the library.
#include "cli/extract_bundle_entry_cli.h"
#include "cli/tool_start.h"

int main(int argc, char **argv) {
  return offbundle::runToolMain(argc, argv,
                                offbundle::runLlvmExtractBundleEntry);
}
