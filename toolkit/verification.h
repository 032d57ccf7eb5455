// What offbundle verify checks beyond reading every bundle (which the
// public API's Input::open does, compressed bundles against their hashes):
// in an executable or shared library, that every HIP fat binary wrapper
// (formats/elf/hip_wrappers.h) is one the runtime can follow, its magic "HIPF"
// and its pointer at the first byte of one of the bundles found in
// .hip_fatbin; and that the file is laid out as the tools run on it after
// linking expect (formats/elf/linked_layout.h), as a rewrite must leave it.
#pragma once

#include <string>
#include <string_view>

#include <offbundle/offbundle.h>

#include "support/error.h"

namespace offbundle {

// The first wrapper of `bytes` (the file `input` was opened from, named
// `file` in messages) the runtime could not follow, or the first layout
// rule it breaks, as an Error; success when there is none, or the file has
// no wrappers.
Status checkLinkedHipFile(const std::string &file, std::string_view bytes,
                          const api::Input &input);

// offbundle verify of one file: every bundle read (compressed ones against
// their hashes), then checkLinkedHipFile. The line it prints ("FILE: ok, N
// bundles (...), M entries"), or the first fault found.
Result<std::string> verifyFile(const std::string &file);

} // namespace offbundle
