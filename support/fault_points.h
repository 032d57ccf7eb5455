// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Named steps at which a build for tests can stop the process dead.
//
// What a run killed at an awkward moment leaves behind is part of what the
// tools promise (support/in_place_output.h): the tests prove it by killing
// the process at each named step. A build configured with
// -DOFFBUNDLE_FAULT_POINTS=ON raises SIGKILL at the step named by the
// environment variable OFFBUNDLE_KILL_AT; in any other build the points
// compile to nothing.
#pragma once

#ifdef OFFBUNDLE_FAULT_POINTS
#include <csignal>
#include <cstdlib>
#include <cstring>
#endif

namespace offbundle {

inline void faultPoint([[maybe_unused]] const char *step) {
#ifdef OFFBUNDLE_FAULT_POINTS
  const char *wanted = std::getenv("OFFBUNDLE_KILL_AT");
  if (wanted != nullptr && std::strcmp(wanted, step) == 0)
    std::raise(SIGKILL);
#endif
}

} // namespace offbundle
