// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A rewrite refuses what a reader refuses, on any bytes: the input is
// written to a file and checked as `offbundle verify` checks it
// (api::Input::open, then verifyInput). When verify fails, prune (keeping
// gfx906 and gfx90a:xnack+), compress and decompress, run through the
// entry points the tool runs them through (rewriteInto for -o OUT,
// rewriteInPlace for --in-place), must each fail with verify's message,
// create no output and leave the file as it was. Files verify passes are
// not rewritten here: fuzz_rewrite and fuzz_linked_rewrite check what
// rewrites make of those.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

#include "fuzz_support.h"
#include "toolkit/in_place.h"
#include "toolkit/verification.h"

namespace {

const char *const kInput = "input";
const char *const kOutput = "output";

std::string contentsOf(const char *name) {
  std::ifstream file(name, std::ios::binary);
  if (!file)
    std::abort();
  return {std::istreambuf_iterator<char>(file),
          std::istreambuf_iterator<char>()};
}

// verify's error for the file, or "" when verify passes.
std::string verifyError() {
  offbundle::api::Expected<offbundle::api::Input> input =
      offbundle::api::Input::open(kInput);
  if (!input)
    return input.error().message;
  offbundle::Result<std::string> verified = offbundle::verifyInput(*input);
  return verified ? std::string() : verified.error().message;
}

offbundle::api::RewriteOptions options(offbundle::api::RewriteKind kind) {
  offbundle::api::RewriteOptions made;
  made.kind = kind;
  // Level 1 and one thread keep each run fast; neither changes what is
  // refused.
  made.compressionLevel = 1;
  made.threads = 1;
  if (kind == offbundle::api::RewriteKind::Prune)
    made.keep = {"gfx906,gfx90a:xnack+"};
  return made;
}

// -o OUT: the rewrite fails with `expected` and writes nothing.
void checkRewriteInto(offbundle::api::RewriteKind kind,
                      const std::string &expected) {
  offbundle::Result<std::string> line =
      offbundle::rewriteInto(kInput, kOutput, options(kind), false);
  if (line || line.error().message != expected)
    std::abort();
  std::error_code error;
  if (std::filesystem::exists(kOutput, error) || error)
    std::abort();
}

// --in-place: the one file fails with `expected` and keeps its bytes.
void checkRewriteInPlace(offbundle::api::RewriteKind kind,
                         const std::string &expected,
                         const std::string &contents) {
  offbundle::api::FileWalk walk = offbundle::api::walkFiles({kInput});
  std::vector<std::string> failures;
  const offbundle::InPlaceTotals totals = offbundle::rewriteInPlace(
      walk, {options(kind), {kInput}, /*dryRun=*/false, /*jobs=*/1},
      [](const std::string &) {},
      [&](const std::string &message) { failures.push_back(message); });
  if (totals.failed != 1 || totals.rewritten != 0 ||
      failures != std::vector<std::string>{expected})
    std::abort();
  if (contentsOf(kInput) != contents)
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const offbundle::fuzz::Scratch scratch;
  scratch.clear();
  const std::string contents(offbundle::fuzz::asView(data, size));
  scratch.put(kInput, contents);
  const std::string expected = verifyError();
  if (expected.empty())
    return 0;
  for (offbundle::api::RewriteKind kind :
       {offbundle::api::RewriteKind::Prune,
        offbundle::api::RewriteKind::Compress,
        offbundle::api::RewriteKind::Decompress}) {
    checkRewriteInto(kind, expected);
    checkRewriteInPlace(kind, expected, contents);
  }
  return 0;
}
