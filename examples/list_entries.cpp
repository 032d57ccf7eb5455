// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Prints the entry IDs of the bundles in a file, one per line: for its one
// argument, exactly what `clang-offload-bundler -type=o -list -input=<file>`
// prints, through offbundle's public API. On failure it prints the tool's
// one error line and exits with 1.
//
// Build it against the installed package:
//   cmake -S examples -B build-examples -DCMAKE_PREFIX_PATH=<prefix>
//   cmake --build build-examples
#include <cstdio>
#include <string>

#include <offbundle/offbundle.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <file>\n", argv[0]);
    return 1;
  }
  auto ids = offbundle::api::listEntryIds(argv[1], "o");
  if (!ids) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0],
                 ids.error().message.c_str());
    return 1;
  }
  for (const std::string &id : *ids)
    std::printf("%s\n", id.c_str());
  return 0;
}
