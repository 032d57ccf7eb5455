// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The checks Input::checkLinkedFile makes of an executable or shared library
// with HIP code, beyond reading every bundle: that every HIP fat binary
// wrapper (formats/elf/hip_wrappers.h) is one the runtime can follow, its
// magic "HIPF" and its pointer at the first byte of one of the bundles found
// in .hip_fatbin; and that the file is laid out as the tools run on it after
// linking expect (rewrite/elf/linked_layout.h), as a rewrite must leave it.
// A PE image's wrappers (formats/coff/pe_hip_wrappers.h) must reach a bundle in
// .hip_fat, and be fixed up by a base relocation when the image can move.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <offbundle/offbundle.h>

#include "support/error.h"

namespace offbundle::api {

// The first wrapper of `bytes` (the contents of `file`, whose bundles are
// `bundles`) the runtime could not follow, or the first layout rule it
// breaks, as an Error; success when there is none, or the file has no
// wrappers.
offbundle::Status checkLinkedHipFile(const std::string &file,
                                     std::string_view bytes,
                                     const std::vector<Bundle> &bundles);

} // namespace offbundle::api
