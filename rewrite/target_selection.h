// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The targets a user names on offbundle's command line (--target), and the
// bundle entries each one selects. A target is written in one of three
// forms:
//
//   host                          every host entry
//   <kind>-<triple>[-<target id>] an entry ID, as clang-offload-bundler
//                                 -targets takes it: the entries the bundler
//                                 would unbundle for it (its compatibility
//                                 rules: kind, triple, target ID features)
//   <processor>[:<feature>(+|-)]...
//                                 the GPU entries of that processor whose
//                                 features agree with the ones given: an
//                                 entry that leaves a feature unspecified
//                                 agrees with either setting, so a bare
//                                 processor ("gfx90a") selects every
//                                 feature variant of it; LLVM main's
//                                 name for it ("amdgpu9.0a") is the same
//
// Entry IDs, given or stored, in the spellings of LLVM after version 22
// select as their LLVM 22 spelling (targets/amdgpu_spellings.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"
#include "targets/offload_target.h"
#include "targets/target_id.h"

namespace offbundle {

class TargetSelector {
public:
  // An Error naming the text when it has none of the three forms.
  static Result<TargetSelector> parse(std::string_view text);

  // Whether the entry with this stored ID is selected. IDs the bundler
  // cannot parse are never selected.
  bool selects(std::string_view entryId) const;

  const std::string &text() const { return text_; }
  // Whether it selects host entries only ("host", or a host entry ID).
  bool selectsHostOnly() const {
    return form_ == Form::Host ||
           (form_ == Form::EntryId && entryId_.hasHostKind());
  }

private:
  enum class Form { Host, EntryId, Processor };

  std::string text_;
  Form form_ = Form::Host;
  OffloadTarget entryId_;
  std::string processor_;
  TargetFeatureMap features_;
};

// The targets --target values name, each value listing one or several
// separated by commas, in order.
std::vector<std::string_view>
targetTexts(const std::vector<std::string> &values);

// Selectors from --target values (see targetTexts).
Result<std::vector<TargetSelector>>
parseTargetSelectors(const std::vector<std::string> &values);

// Whether any of `selectors` selects the entry.
bool anySelects(const std::vector<TargetSelector> &selectors,
                std::string_view entryId);

} // namespace offbundle
