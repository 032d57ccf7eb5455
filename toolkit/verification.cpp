// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle verify (see verification.h).
#include "toolkit/verification.h"

#include <offbundle/offbundle.h>

#include "toolkit/reports.h"

namespace offbundle {

Result<std::string> verifyInput(const api::Input &input) {
  if (api::Outcome verified = input.verify(); !verified)
    return makeError(verified.error().message);
  uint64_t entries = 0;
  uint64_t compressed = 0;
  for (const api::Bundle &bundle : input.bundles()) {
    entries += bundle.entries.size();
    compressed += bundle.compression ? 1 : 0;
  }
  return input.path() + ": ok, " +
         counted(input.bundles().size(), "bundle", "bundles") + " (" +
         std::to_string(compressed) + " compressed, " +
         (compressed == 0 ? "no hashes to check" : "hashes match") + "), " +
         counted(entries, "entry", "entries") + "\n";
}

} // namespace offbundle
