// offbundle verify of one file, on the public API: every bundle read
// (Input::open, compressed ones against their hashes), then, in an
// executable or shared library, the HIP fat binary wrappers and the linked
// layout (Input::checkLinkedFile).
#pragma once

#include <string>

#include "support/error.h"

namespace offbundle {

// The line verify prints for a sound file ("FILE: ok, N bundles (...), M
// entries"), or the first fault found.
Result<std::string> verifyFile(const std::string &file);

} // namespace offbundle
