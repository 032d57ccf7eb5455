#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the libFuzzer targets (ASan + UBSan, clang 22) into build-fuzz/ and
# runs each for the given number of seconds, two at a time. Inputs that
# crash, hang, leak or exceed the memory limit are kept in
# build-fuzz/findings/ (rerun one with build-fuzz/fuzz/<target> <file>).
# Prints a summary line per target; exits 1 if any target found anything.
#
# Usage: scripts/fuzz.sh [seconds-per-target] [target...]
#   FUZZ_JOBS=n     targets run at once (default 2, the machine's cores)
#   FUZZ_BUILD_DIR=dir  build folder (default build-fuzz); scripts/test.sh
#                   fuzzes from build-asan/, whose one sanitized build holds
#                   the test suite and the fuzz targets
#   FUZZ_SKIP_BUILD=1  use the build folder as it is
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
shift || true
jobs=${FUZZ_JOBS:-2}
llvm=/usr/lib/llvm-22/bin

build=$root/${FUZZ_BUILD_DIR:-build-fuzz}

if [[ ${FUZZ_SKIP_BUILD:-0} != 1 ]]; then
  # -O1 with line tables only, as OSS-Fuzz builds: about twice as quick to
  # compile as -O2 -g, and stack traces still name every line.
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=$llvm/clang -DCMAKE_CXX_COMPILER=$llvm/clang++ \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" \
    -DOFFBUNDLE_FUZZ=ON -DOFFBUNDLE_TESTS=OFF \
    -DOFFBUNDLE_WERROR="${OFFBUNDLE_WERROR:-OFF}" >/dev/null
  cmake --build "$build" -j2 >/dev/null
fi

targets=("$@")
if ((${#targets[@]} == 0)); then
  # Every target CMake builds (tests/fuzz/CMakeLists.txt is the list).
  mapfile -t targets < <(cd "$build/fuzz" && ls fuzz_* | sort)
fi

# Which dictionary helps which target; targets not listed use none.
dictionary_of() {
  case $1 in
    fuzz_text_bundle | fuzz_binary_bundle | fuzz_compressed_bundle | fuzz_bundler_input)
      echo bundle ;;
    fuzz_elf_object) echo elf ;;
    fuzz_coff_object) echo coff ;;
    fuzz_kpack) echo kpack ;;
    fuzz_amdgpu_metadata) echo amdgpu_metadata ;;
    fuzz_ar_archive) echo archive ;;
    fuzz_bitcode_symbols) echo bitcode ;;
    fuzz_offload_target) echo target ;;
    fuzz_offload_binary | fuzz_packager_input) echo offload_binary ;;
    fuzz_command_line) echo command_line ;;
    fuzz_extract_bundle_entry) echo extract_bundle_entry ;;
  esac
}

findings=$build/findings
logs=$build/logs
mkdir -p "$findings" "$logs"

run_target() {
  local target=$1
  local work=$build/corpus/$target
  mkdir -p "$work"
  local options=(
    -max_total_time="$seconds"
    # Any single input taking this long is a hang.
    -timeout=20
    # Well under the machine's memory with two targets at once; an input
    # that needs more is over-allocating.
    -rss_limit_mb=2048 -malloc_limit_mb=1024
    -artifact_prefix="$findings/$target-"
    -print_final_stats=1
  )
  local dict
  dict=$(dictionary_of "$target")
  if [[ -n $dict ]]; then options+=(-dict="$root/tests/fuzz/dict/$dict.dict"); fi
  # New inputs go to the working corpus; the committed seeds are read only.
  local status=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/$target" "${options[@]}" "$work" "$root/tests/fuzz/corpus/$target" \
    </dev/null >"$logs/$target.log" 2>&1 || status=$?
  # A file, not the job's status: waiting for any job (wait -n) to keep two
  # running consumes the statuses.
  echo "$status" >"$logs/$target.status"
}

names=()
start=$(date +%s)
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  rm -f "$logs/$target.status"
  run_target "$target" &
  names+=("$target")
done
wait
failed=0
reports=()

printf '%-26s %12s %8s %8s  %s\n' target runs cov ft result
for i in "${!names[@]}"; do
  target=${names[$i]}
  log=$logs/$target.log
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -ao 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  result=ok
  if [[ $(cat "$logs/$target.status" 2>/dev/null) != 0 ]]; then
    failed=1
    artifact=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log" | head -1)
    result="FINDING ${artifact:-see $log}"
    reports+=("$target")
  fi
  printf '%-26s %12s %8s %8s  %s\n' "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$result"
done
# What each finding was, and the input itself when it is small, so that a
# finding on another machine (CI keeps no files) can be reproduced here.
for target in "${reports[@]}"; do
  log=$logs/$target.log
  echo "--- $target"
  grep -a -m1 -E 'ERROR: |runtime error' "$log" || true
  grep -a -m1 -E '^SUMMARY' "$log" || true
  artifact=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log" | head -1)
  if [[ -n $artifact && -f $artifact && $(stat -c %s "$artifact") -le 8192 ]]; then
    echo "input (base64):"
    base64 -w 100 "$artifact"
  fi
done
echo "fuzzing: ${#names[@]} targets, ${seconds} s each, $(($(date +%s) - start)) s in all"
exit $failed
