// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Scans files and folders for GPU code through offbundle's public API, the
// way `offbundle verify` walks them: folders recursively, symlinks inside
// them not followed, files without GPU code skipped. Prints one line per
// file holding GPU code, "PATH: N bundles", in walk order, then how many
// files were skipped; a file that cannot be read gets an error line, and
// the exit status is then 1.
//
//   scan_tree FILE|FOLDER...
#include <cstdio>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
    return 1;
  }
  const offbundle::api::FileWalk walk = offbundle::api::walkFiles(
      std::vector<std::string>(argv + 1, argv + argc));
  unsigned long long skipped = walk.skipped.noGpuCode;
  int status = 0;
  for (const offbundle::api::WalkedFile &file : walk.files) {
    if (!file.failure.empty()) {
      std::fprintf(stderr, "%s: error: %s\n", argv[0], file.failure.c_str());
      status = 1;
      continue;
    }
    auto input = offbundle::api::Input::open(file.path);
    if (!input) {
      std::fprintf(stderr, "%s: error: %s\n", argv[0],
                   input.error().message.c_str());
      status = 1;
      continue;
    }
    const size_t bundles = input->bundles().size();
    if (bundles == 0 && file.inFolder) {
      ++skipped;
      continue;
    }
    std::printf("%s: %zu %s\n", file.path.c_str(), bundles,
                bundles == 1 ? "bundle" : "bundles");
  }
  std::printf("skipped %llu files holding no GPU code\n", skipped);
  return status;
}
