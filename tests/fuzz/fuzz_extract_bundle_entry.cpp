// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// llvm-extract-bundle-entry's whole command line: argv taken from the input
// (NUL-separated) and run through the tool's entry point inside a scratch
// folder holding an object file, a text file and an archive. Arguments with
// '/' are refused, so that every file the tool reads or writes is in that
// folder; URIs name those files by relative paths.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/extract_bundle_entry_cli.h"
#include "fuzz_support.h"

namespace {

class Inputs {
public:
  void reset() const {
    scratch_.clear();
    // Enough of an ELF header for the tool to take it as an object file;
    // the tool reads no further than the magic.
    std::string elf("\x7f"
                    "ELF\x02\x01\x01",
                    7);
    elf.resize(4096, 'x');
    scratch_.put("o", elf);
    scratch_.put("t", "text\n");
    scratch_.put("a", "!<arch>\n");
  }

private:
  offbundle::fuzz::Scratch scratch_;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const Inputs inputs;
  std::vector<std::string> argv = {"llvm-extract-bundle-entry"};
  for (std::string &piece :
       offbundle::fuzz::splitAtNul(offbundle::fuzz::asView(data, size), 16)) {
    if (piece.find('/', piece.starts_with("file://") ? 7 : 0) !=
        std::string::npos)
      return 0;
    argv.push_back(std::move(piece));
  }
  inputs.reset();
  offbundle::ToolOutcome outcome = offbundle::runLlvmExtractBundleEntry(argv);
  if (outcome.exitCode != 0 && outcome.exitCode != 1)
    std::abort();
  // Anything that failed says so in one "error:" line.
  if (outcome.exitCode == 1 &&
      outcome.standardError.find(": error: ") == std::string::npos &&
      !outcome.standardError.starts_with("OVERVIEW:"))
    std::abort();
  return 0;
}
