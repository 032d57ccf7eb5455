// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Keeps the GPU code of the targets named and drops the rest, as
// `offbundle prune --keep TARGET... -o OUT FILE` does, through offbundle's
// public API: the same output bytes and the same line on standard output.
// FILE may be a bundle, an object, an archive, an executable or a shared
// library; OUT appears only once it is complete. On failure it prints one
// error line and exits with 1.
//
//   prune_targets FILE OUT TARGET...     (e.g. gfx90a, gfx90a:xnack+)
#include <cstdio>
#include <string>

#include <offbundle/offbundle.h>

namespace {

int fail(const char *program, const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", program, message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s FILE OUT TARGET...\n", argv[0]);
    return 1;
  }
  offbundle::api::RewriteOptions options;
  options.kind = offbundle::api::RewriteKind::Prune;
  options.keep.assign(argv + 3, argv + argc);
  auto rewrite = offbundle::api::Rewrite::plan(argv[1], options);
  if (!rewrite)
    return fail(argv[0], rewrite.error().message);
  // The report comes before anything is written: a file that would keep no
  // GPU code is refused untouched.
  const offbundle::api::RewriteReport &report = rewrite->report();
  if (report.deviceEntriesKept == 0)
    return fail(argv[0], std::string("'") + argv[1] +
                             "' holds no entry for the targets named");
  if (auto written = rewrite->write(argv[2]); !written)
    return fail(argv[0], written.error().message);
  std::printf("%s: %llu -> %llu bytes, %llu %s kept, %llu removed\n", argv[2],
              static_cast<unsigned long long>(report.inputSize),
              static_cast<unsigned long long>(report.outputSize),
              static_cast<unsigned long long>(report.entriesKept),
              report.entriesKept == 1 ? "entry" : "entries",
              static_cast<unsigned long long>(report.entriesRemoved));
  return 0;
}
