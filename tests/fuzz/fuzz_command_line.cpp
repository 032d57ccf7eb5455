// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whole command line: argv taken from the input (NUL-separated) and run
// through the tool's entry point inside a scratch folder that holds a few
// small inputs of every kind. Arguments with '/' are refused so that every
// file the tool reads or writes is in that folder.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cli/bundler_cli.h"
#include "fuzz_support.h"

namespace {

// Files every run starts with, made once by the tool itself: plain inputs
// and bundles of each container made from them.
class Inputs {
public:
  Inputs() {
    scratch_.put("h", "host code\n");
    scratch_.put("d", "device code\n");
    scratch_.put("e", "other device code\n");
    const std::string targets = "-targets=host-x86_64-unknown-linux-gnu,"
                                "hip-amdgcn-amd-amdhsa--gfx906,"
                                "hip-amdgcn-amd-amdhsa--gfx90a:xnack+";
    const std::vector<std::vector<std::string>> makers = {
        {"-type=i", "-output=t"},
        {"-type=bc", "-output=b"},
        {"-type=bc", "-compress", "-output=c"},
    };
    for (const auto &maker : makers) {
      std::vector<std::string> argv = {"clang-offload-bundler", targets,
                                       "-input=h", "-input=d", "-input=e"};
      argv.insert(argv.end(), maker.begin(), maker.end());
      if (offbundle::runClangOffloadBundler(argv).exitCode != 0)
        std::abort();
    }
    for (const char *name : {"h", "d", "e", "t", "b", "c"}) {
      std::string bytes;
      FILE *file = std::fopen(name, "rb");
      if (!file)
        std::abort();
      char buffer[4096];
      size_t count;
      while ((count = std::fread(buffer, 1, sizeof buffer, file)) > 0)
        bytes.append(buffer, count);
      std::fclose(file);
      files_[name] = bytes;
    }
  }

  void reset() const {
    scratch_.clear();
    for (const auto &[name, bytes] : files_)
      scratch_.put(name, bytes);
  }

private:
  offbundle::fuzz::Scratch scratch_;
  std::map<std::string, std::string> files_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const Inputs inputs;
  std::vector<std::string> argv = {"clang-offload-bundler"};
  for (std::string &piece :
       offbundle::fuzz::splitAtNul(offbundle::fuzz::asView(data, size), 32)) {
    if (piece.find('/') != std::string::npos)
      return 0;
    argv.push_back(std::move(piece));
  }
  inputs.reset();
  offbundle::ToolOutcome outcome = offbundle::runClangOffloadBundler(argv);
  // LLVM's tools exit 0 or 1; anything else would be a crash report here.
  if (outcome.exitCode != 0 && outcome.exitCode != 1)
    std::abort();
  return 0;
}
