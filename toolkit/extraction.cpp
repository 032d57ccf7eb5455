// offbundle extract over the API's extract() (see extraction.h).
#include "toolkit/extraction.h"

#include <unordered_set>

#include <offbundle/offbundle.h>

#include "rewrite/target_selection.h"
#include "toolkit/inventory.h"

namespace offbundle {
namespace {

// The targets a file holds, for the message saying none matched; "" when
// it cannot be read.
std::string heldTargets(const std::string &file) {
  api::Expected<api::Input> input = api::Input::open(file);
  if (!input)
    return "";
  std::vector<std::string> targets;
  std::unordered_set<std::string> seen;
  for (const api::Bundle &bundle : input->bundles())
    for (const api::Entry &entry : bundle.entries)
      if (std::string target = targetOf(entry); seen.insert(target).second)
        targets.push_back(std::move(target));
  // One error line stays readable even for a file of thousands of targets.
  constexpr size_t kTargetsNamed = 16;
  std::string text;
  for (size_t i = 0; i < targets.size() && i < kTargetsNamed; ++i)
    text += (text.empty() ? "" : ", ") + targets[i];
  if (targets.size() > kTargetsNamed)
    text += " and " + std::to_string(targets.size() - kTargetsNamed) +
            " more (see 'offbundle sizes')";
  return text;
}

} // namespace

Error noEntryError(const std::string &file,
                   const std::vector<std::string> &asked) {
  std::string names;
  for (std::string_view text : targetTexts(asked))
    names += (names.empty() ? "" : ", ") + std::string(text);
  return fileError(file, "holds no entry for " + names +
                             "; its targets: " + heldTargets(file));
}

Result<std::string> extractFile(const ExtractionRequest &request) {
  api::Expected<std::vector<std::string>> written =
      api::extract({request.file, request.outputDirectory, request.targets});
  if (!written)
    return makeError(written.error().message);
  if (written->empty())
    return noEntryError(request.file, request.targets);
  std::string lines;
  for (const std::string &path : *written)
    lines += path + "\n";
  return lines;
}

} // namespace offbundle
