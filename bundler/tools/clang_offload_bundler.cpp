// clang-offload-bundler: parse, run, report. Everything else lives in the
// library.
#include "bundler/bundler_cli.h"
#include "bundler/tool_start.h"

int main(int argc, char **argv) {
  return offbundle::runToolMain(argc, argv, offbundle::runClangOffloadBundler);
}
