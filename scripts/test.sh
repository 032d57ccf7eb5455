#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what is missing, builds, and runs every test, in three stages:
#
#   1. fuzz smoke: every fuzz target (scripts/fuzz.sh) for FUZZ_SECONDS
#      seconds each (default 10);
#   2. sanitized suite: the test suite built with AddressSanitizer and
#      UndefinedBehaviorSanitizer, less the long suites of valid inputs
#      (tests/CMakeLists.txt says which);
#   3. the whole test suite on the release build (build/): unit tests and the
#      differential suites against LLVM 22.
#
# Stages 1 and 2 share one sanitized build, build-asan/: clang 22 (as
# libFuzzer needs), -O1 with line tables only, as OSS-Fuzz builds. One build
# instead of two, each compiling in less than half the time GCC takes at
# -O2 -g with the sanitizers.
#
# The release suite runs last, so its ctest summary closes the output.
# OFFBUNDLE_QUICK=1 (or --quick as the first argument) runs stage 3 only, for
# quick local runs; CI runs all three. Other arguments go to ctest. With
# CI=true every build treats compiler warnings as errors (OFFBUNDLE_WERROR).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${OFFBUNDLE_QUICK:-0}
if [[ ${1:-} == --quick ]]; then
  quick=1
  shift
fi

# In CI every build treats warnings as errors (never in users' builds).
if [[ ${CI:-} == true ]]; then
  export OFFBUNDLE_WERROR=ON
fi
# The test builds stop at named steps when a test asks (OFFBUNDLE_KILL_AT,
# support/fault_points.h), to prove what a killed run leaves.
export OFFBUNDLE_FAULT_POINTS=ON

scripts/setup.sh

timings=()
stage_start=0
begin_stage() {
  echo "=== $1"
  stage_start=$(date +%s)
}
end_stage() {
  timings+=("$1: $(($(date +%s) - stage_start)) s")
}

if [[ $quick != 1 ]]; then
  begin_stage "sanitized build (build-asan/: ASan, UBSan, libFuzzer)"
  llvm=/usr/lib/llvm-22/bin
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=$llvm/clang -DCMAKE_CXX_COMPILER=$llvm/clang++ \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    -DOFFBUNDLE_SANITIZE=ON -DOFFBUNDLE_FUZZ=ON \
    -DOFFBUNDLE_FAULT_POINTS=ON \
    -DOFFBUNDLE_WERROR="${OFFBUNDLE_WERROR:-OFF}" >/dev/null
  cmake --build build-asan -j2 >build-asan/build.log 2>&1 || {
    tail -50 build-asan/build.log
    exit 1
  }
  end_stage "sanitized build"

  begin_stage "fuzz smoke (${FUZZ_SECONDS:-10} s per target)"
  FUZZ_SKIP_BUILD=1 FUZZ_BUILD_DIR=build-asan scripts/fuzz.sh "${FUZZ_SECONDS:-10}"
  end_stage "fuzz smoke"

  begin_stage "test suite under ASan and UBSan (build-asan/)"
  (cd build-asan && ctest --output-on-failure -j2 "$@")
  end_stage "sanitized suite"
fi

begin_stage "test suite (build/)"
for timing in "${timings[@]}"; do echo "$timing"; done
cd build
ctest --output-on-failure -j2 "$@"
