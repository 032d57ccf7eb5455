// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle's --target values and the entries they select (see
// target_selection.h for the three forms). A '-' before the first ':' makes an
// entry ID; anything else other than "host" is read as a processor. Targets
// and entries spelled as LLVM after version 22 spells them ("amdgpu9.0a",
// "amdgcn-amd-amdhsa-unknown") are read in LLVM 22's spelling
// (targets/amdgpu_spellings.h), so that each spelling selects the same
// entries.

#include "rewrite/target_selection.h"

#include <algorithm>

#include "targets/amdgpu_spellings.h"

namespace offbundle {

Result<TargetSelector> TargetSelector::parse(std::string_view text) {
  TargetSelector selector;
  selector.text_ = std::string(text);
  if (text == "host") {
    selector.form_ = Form::Host;
    return selector;
  }
  // Features end in '+' or '-' after a ':'; a '-' before any ':' makes an
  // entry ID.
  if (text.substr(0, text.find(':')).find('-') != std::string_view::npos) {
    const std::string spelled = llvm22EntryId(text);
    if (!isWellFormedBundleId(spelled))
      return makeError("'" + std::string(text) +
                       "' is no target: an entry ID has the form "
                       "<kind>-<arch>-<vendor>-<os>-<environment>[-<target "
                       "id>]");
    selector.form_ = Form::EntryId;
    selector.entryId_ = OffloadTarget::parse(spelled);
    if (!selector.entryId_.isOffloadKindValid() ||
        !selector.entryId_.isTripleValid())
      return makeError("'" + std::string(text) +
                       "' is no target: unknown offload kind or triple");
    return selector;
  }
  // "amdgpu9.0a:xnack+" is "gfx90a:xnack+".
  const size_t colon = std::min(text.find(':'), text.size());
  std::string targetId(text);
  if (std::optional<std::string> named =
          processorOfAmdgpuArch(text.substr(0, colon)))
    targetId = *named + std::string(text.substr(colon));
  std::optional<std::string_view> processor =
      parseTargetIdFormat(targetId, &selector.features_);
  if (!processor || processor->empty() || text.back() == ':' ||
      text.find("::") != std::string_view::npos)
    return makeError("'" + std::string(text) +
                     "' is no target: a processor is written like gfx90a "
                     "or gfx90a:xnack+");
  selector.form_ = Form::Processor;
  selector.processor_ = std::string(*processor);
  return selector;
}

bool TargetSelector::selects(std::string_view entryId) const {
  std::optional<OffloadTarget> entry =
      OffloadTarget::parseStored(llvm22EntryId(entryId));
  if (!entry)
    return false;
  switch (form_) {
  case Form::Host:
    return entry->hasHostKind();
  case Form::EntryId:
    return isCodeObjectCompatible(*entry, entryId_,
                                  /*hipOpenmpCompatible=*/false);
  case Form::Processor:
    break;
  }
  if (entry->hasHostKind() || entry->targetId.empty())
    return false;
  TargetFeatureMap entryFeatures;
  std::optional<std::string_view> entryProcessor =
      parseTargetIdFormat(entry->targetId, &entryFeatures);
  if (!entryProcessor || *entryProcessor != processor_)
    return false;
  for (const auto &[feature, enabled] : features_) {
    auto setting = entryFeatures.find(feature);
    if (setting != entryFeatures.end() && setting->second != enabled)
      return false;
  }
  return true;
}

std::vector<std::string_view>
targetTexts(const std::vector<std::string> &values) {
  std::vector<std::string_view> texts;
  for (std::string_view value : values) {
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string_view::npos)
        comma = value.size();
      texts.push_back(value.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return texts;
}

Result<std::vector<TargetSelector>>
parseTargetSelectors(const std::vector<std::string> &values) {
  std::vector<TargetSelector> selectors;
  for (std::string_view text : targetTexts(values)) {
    auto selector = TargetSelector::parse(text);
    if (!selector)
      return selector.takeError();
    selectors.push_back(std::move(*selector));
  }
  return selectors;
}

bool anySelects(const std::vector<TargetSelector> &selectors,
                std::string_view entryId) {
  for (const TargetSelector &selector : selectors)
    if (selector.selects(entryId))
      return true;
  return false;
}

} // namespace offbundle
