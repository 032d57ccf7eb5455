// llvm-offload-binary, also built as clang-offload-packager: parse, run,
// report. Everything else lives in the library.
#include "bundler/tool_start.h"
#include "packager/packager_cli.h"

int main(int argc, char **argv) {
  return offbundle::runToolMain(argc, argv, offbundle::runLlvmOffloadBinary);
}
