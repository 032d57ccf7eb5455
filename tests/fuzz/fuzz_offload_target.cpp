// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target strings: entry IDs, triples and target IDs, through every parse,
// normalisation and compatibility check the bundler applies.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_support.h"
#include "targets/offload_target.h"
#include "targets/target_id.h"
#include "targets/triple.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Up to four NUL-separated strings: two entry IDs compared with each
  // other, a triple and a target ID.
  std::vector<std::string> pieces =
      offbundle::fuzz::splitAtNul(offbundle::fuzz::asView(data, size), 4);
  pieces.resize(4);

  std::vector<offbundle::OffloadTarget> targets;
  for (size_t i = 0; i < 2; ++i) {
    // As read from a bundle, three-field triples of earlier releases too.
    if (auto stored = offbundle::OffloadTarget::parseStored(pieces[i]))
      (void)stored->str();
    if (!offbundle::isWellFormedBundleId(pieces[i]))
      continue;
    offbundle::OffloadTarget target =
        offbundle::OffloadTarget::parse(pieces[i]);
    (void)target.isOffloadKindValid();
    (void)target.isTripleValid();
    (void)target.str();
    targets.push_back(std::move(target));
  }
  if (targets.size() == 2) {
    (void)targets[0].sameAs(targets[1]);
    for (bool compatible : {false, true})
      (void)offbundle::isCodeObjectCompatible(targets[0], targets[1],
                                              compatible);
  }

  offbundle::Triple triple(pieces[2]);
  for (auto form :
       {offbundle::TripleForm::Any, offbundle::TripleForm::ThreeIdent,
        offbundle::TripleForm::FourIdent, offbundle::TripleForm::FiveIdent}) {
    (void)triple.normalize(form);
  }
  (void)triple.isCompatibleWith(offbundle::Triple(pieces[0]));
  (void)(triple == offbundle::Triple(pieces[1]));

  offbundle::TargetFeatureMap features;
  (void)offbundle::parseTargetIdFormat(pieces[3], &features);
  offbundle::TargetFeatureMap canonicalFeatures;
  (void)offbundle::parseTargetId(triple, pieces[3], &canonicalFeatures);
  std::set<std::string> ids;
  for (const std::string &piece : pieces)
    ids.insert(piece);
  (void)offbundle::conflictingTargetIds(ids);
  return 0;
}
