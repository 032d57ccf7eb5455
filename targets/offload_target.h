// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Bundle entry IDs: "<offload kind>-<arch>-<vendor>-<os>-<env>[-<target id>]".
// Parsing, the normalised spelling written into bundles, and the
// compatibility rules the bundler applies when unbundling.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "targets/triple.h"

namespace offbundle {

// An entry ID splits on '-' into at most six parts; it is well formed when
// there are five or six of them (clang::checkOffloadBundleID).
bool isWellFormedBundleId(std::string_view id);

// An entry ID as read from a bundle, in the form the matching rules take:
// a well-formed ID as it is; one of four parts, "<kind>-<arch>-<vendor>-<os>"
// (the three-field triples earlier releases wrote, such as ROCm 5's
// "host-x86_64-unknown-linux"), with its triple normalised to four fields as
// the bundler writes triples ("host-x86_64-unknown-linux-unknown"). LLVM 22
// refuses the latter ("invalid bundle id read from the bundle"), which made
// such libraries unreadable. nullopt for any other ID.
std::optional<std::string> normalizeStoredBundleId(std::string_view id);

struct OffloadTarget {
  std::string offloadKind;
  Triple triple;
  // Kept only when its processor is a GPU LLVM 22 knows; "" otherwise.
  std::string targetId;

  // Requires isWellFormedBundleId(id).
  static OffloadTarget parse(std::string_view id);
  // An ID read from a bundle, parsed as normalizeStoredBundleId reads it.
  static std::optional<OffloadTarget> parseStored(std::string_view id);

  bool hasHostKind() const { return offloadKind == "host"; }
  bool isOffloadKindValid() const;
  bool isTripleValid() const;
  bool isOffloadKindCompatible(std::string_view otherKind,
                               bool hipOpenmpCompatible) const;
  // Exact match: same kind, compatible triples, same target ID.
  bool sameAs(const OffloadTarget &other) const;
  // The entry ID as the bundler writes it.
  std::string str() const;
};

// Whether a code object with this entry ID may serve the requested target
// (clang's isCodeObjectCompatible).
// A triple as the bundler spells it in entry IDs: AMDHSA ones as
// "<arch>-<vendor>-amdhsa-" (empty environment), others in four fields.
std::string bundlerTripleSpelling(const Triple &triple);

bool isCodeObjectCompatible(const OffloadTarget &codeObject,
                            const OffloadTarget &target,
                            bool hipOpenmpCompatible);

} // namespace offbundle
