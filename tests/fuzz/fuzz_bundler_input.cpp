// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The whole tool on one input file: -list, then -unbundle of what was
// listed (plus targets that are not there), as each -type; then -list
// -format=json, -unbundle -output-dir and the public API's Input over it. A
// failed run must leave the scratch folder as it was: the input alone, no
// output, no temporary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <offbundle/offbundle.h>

#include "cli/bundler_cli.h"
#include "fuzz_support.h"

namespace {

size_t filesInFolder() {
  size_t count = 0;
  for ([[maybe_unused]] const auto &entry :
       std::filesystem::directory_iterator("."))
    ++count;
  return count;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const offbundle::fuzz::Scratch scratch;
  if (size < 1)
    return 0;
  constexpr const char *kTypes[] = {"i", "ii", "cui", "hipi", "d", "ll",
                                    "s", "bc", "gch", "ast",  "o", "a"};
  const uint8_t control = data[0];
  const std::string type = kTypes[(control & 0x0f) % 12];
  scratch.clear();
  scratch.put("in", offbundle::fuzz::asView(data + 1, size - 1));

  offbundle::ToolOutcome listed = offbundle::runClangOffloadBundler(
      {"clang-offload-bundler", "-type=" + type, "-list", "-input=in"});
  if (listed.exitCode != 0 && listed.exitCode != 1)
    std::abort();
  if (filesInFolder() != 1)
    std::abort();

  // Targets: up to three listed IDs that the command line can carry, then
  // ones that may be missing, so both found and missing entries are written.
  std::vector<std::string> targets;
  std::string_view listing = listed.standardOutput;
  while (!listing.empty() && targets.size() < 3) {
    size_t newline = listing.find('\n');
    std::string_view id = listing.substr(0, newline);
    listing.remove_prefix(newline == std::string_view::npos ? listing.size()
                                                            : newline + 1);
    if (!id.empty() && id.find(',') == std::string_view::npos)
      targets.emplace_back(id);
  }
  for (const char *extra :
       {"host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx906"}) {
    bool present = false;
    for (const std::string &target : targets)
      present = present || target.starts_with(extra);
    if (!present && targets.size() < 4)
      targets.emplace_back(extra);
  }

  std::vector<std::string> argv = {"clang-offload-bundler", "-type=" + type,
                                   "-unbundle", "-input=in"};
  std::string joined;
  for (size_t i = 0; i < targets.size(); ++i) {
    joined += (i ? "," : "") + targets[i];
    argv.push_back("-output=out" + std::to_string(i));
  }
  argv.push_back("-targets=" + joined);
  if (control & 0x10)
    argv.push_back("-allow-missing-bundles");
  if (control & 0x20)
    argv.push_back("-hip-openmp-compatible");
  if (control & 0x40)
    argv.push_back("-check-input-archive");
  offbundle::ToolOutcome unbundled = offbundle::runClangOffloadBundler(argv);
  if (unbundled.exitCode != 0 && unbundled.exitCode != 1)
    std::abort();
  // All outputs or none.
  const size_t expected = unbundled.exitCode == 0 ? 1 + targets.size() : 1;
  if (filesInFolder() != expected)
    std::abort();

  // The listings and readers that describe the whole input, which read
  // compressed bundles as far as their headers and decompress the rest only
  // when payloads are read: the JSON listing, -output-dir (all files or,
  // on failure, not even its folder), and the public API's Input.
  scratch.clear();
  scratch.put("in", offbundle::fuzz::asView(data + 1, size - 1));
  offbundle::ToolOutcome json = offbundle::runClangOffloadBundler(
      {"clang-offload-bundler", "-type=" + type, "-list", "-format=json",
       "-input=in"});
  if (json.exitCode != 0 && json.exitCode != 1)
    std::abort();
  offbundle::ToolOutcome all = offbundle::runClangOffloadBundler(
      {"clang-offload-bundler", "-type=" + type, "-unbundle", "-input=in",
       "-output-dir=all"});
  if ((all.exitCode != 0 && all.exitCode != 1) ||
      (all.exitCode == 1 && filesInFolder() != 1))
    std::abort();
  offbundle::api::Expected<offbundle::api::Input> input =
      offbundle::api::Input::open("in", type);
  if (input) {
    for (size_t bundle = 0; bundle < input->bundles().size(); ++bundle) {
      size_t visited = 0;
      offbundle::api::Outcome walked = input->forEachPayload(
          bundle, [&](size_t entry, std::string_view bytes) {
            const offbundle::api::Entry &listed =
                input->bundles()[bundle].entries.at(entry);
            // A payload is what the listing said it would be.
            if (bytes.size() != listed.size &&
                input->bundles()[bundle].format !=
                    offbundle::api::ContainerFormat::FatObject)
              std::abort();
            ++visited;
            return true;
          });
      if (walked.ok() && visited != input->bundles()[bundle].entries.size())
        std::abort();
    }
    (void)input->checkCompressedBundles();
  }
  return 0;
}
