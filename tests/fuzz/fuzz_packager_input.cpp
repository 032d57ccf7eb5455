// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whole llvm-offload-binary tool on one input file: --list, extraction
// of every image, and an archive of every image. A failed run must leave the
// scratch folder as it was: the input alone, no output, no temporary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli/packager_cli.h"
#include "fuzz_support.h"

namespace {

size_t filesInFolder() {
  size_t count = 0;
  for ([[maybe_unused]] const auto &entry :
       std::filesystem::directory_iterator("."))
    ++count;
  return count;
}

void expectCleanOutcome(const offbundle::ToolOutcome &outcome) {
  if (outcome.exitCode != 0 && outcome.exitCode != 1)
    std::abort();
  if (outcome.exitCode == 1 && filesInFolder() != 1)
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const offbundle::fuzz::Scratch scratch;
  scratch.clear();
  scratch.put("in", offbundle::fuzz::asView(data, size));

  expectCleanOutcome(
      offbundle::runLlvmOffloadBinary({"llvm-offload-binary", "in", "--list"}));
  if (filesInFolder() != 1)
    std::abort();

  expectCleanOutcome(offbundle::runLlvmOffloadBinary(
      {"llvm-offload-binary", "in", "--archive", "-o", "all.a"}));
  scratch.clear();
  scratch.put("in", offbundle::fuzz::asView(data, size));

  expectCleanOutcome(
      offbundle::runLlvmOffloadBinary({"llvm-offload-binary", "in"}));
  return 0;
}
