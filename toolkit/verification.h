// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// offbundle verify of one file, on the public API: given the file opened
// (Input::open reads every bundle, compressed ones as far as their
// headers), Input::verify checks, in an executable or shared library, the
// HIP fat binary wrappers and the linked layout (Input::checkLinkedFile),
// then decompresses every compressed bundle against its hash
// (Input::checkCompressedBundles). prune, compress, decompress and
// unpack-kpack check their input the same way (api/input_check.h) and
// refuse what this refuses.
#pragma once

#include <string>

#include <offbundle/offbundle.h>

#include "support/error.h"

namespace offbundle {

// The line verify prints for a sound file ("FILE: ok, N bundles (...), M
// entries"), or the first fault found.
Result<std::string> verifyInput(const api::Input &input);

} // namespace offbundle
