#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Collects the expected values of the R600CanonicalNames test in
# tests/unit/offload_arch_test.cpp from an installed LLVM 22 and prints them
# as C++ table rows.
#
# Every value is an observation of LLVM 22's tools, not of its source:
#   * the processor names: the list clang 22's front end prints when given an
#     unknown r600 CPU ("note: valid target CPU values are: ..."), plus a few
#     names it refuses;
#   * the name each one stands for: the processor macro ("__<name>__") clang
#     22 predefines for "-triple r600-unknown-unknown -target-cpu NAME" (the
#     macro names the primary processor, so "rv630" defines "__r600__"); a
#     refused name defines none;
#   * the entry ID clang-offload-bundler 22 writes for the target
#     "openmp-r600-unknown-unknown--NAME" (read back with -list): whether the
#     processor is kept as a target ID.
#
# Usage: scripts/collect_r600_cases.sh [LLVM_PREFIX] > rows.txt
set -euo pipefail

llvm_prefix="${1:-/usr/lib/llvm-22}"
clang="$llvm_prefix/bin/clang"
bundler="$llvm_prefix/bin/clang-offload-bundler"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The names clang accepts, as it lists them.
: >"$work/empty.c"
# (clang fails here on purpose, hence "|| true".)
valid="$({ "$clang" -cc1 -triple r600-unknown-unknown -target-cpu not-a-cpu \
  -fsyntax-only "$work/empty.c" 2>&1 || true; } |
  sed -n 's/^note: valid target CPU values are: //p' | tr -d ' ' | tr ',' ' ')"
if [ -z "$valid" ]; then
  echo "clang did not list the valid r600 CPUs" >&2
  exit 1
fi
# Names it refuses: other spellings, an amdgcn name, an unknown one.
refused="R600 RV630 rv600 r700 tahiti gfx906 sm_70"

printf 'x\n' >"$work/host"
printf 'y\n' >"$work/device"
for name in $valid $refused; do
  # The processor macro, if any: a predefined "__X__" whose X is a valid name.
  macro=""
  if "$clang" -cc1 -triple r600-unknown-unknown -target-cpu "$name" -E -dM \
    "$work/empty.c" >"$work/macros" 2>/dev/null; then
    for candidate in $valid; do
      if grep -qx "#define __${candidate}__ 1" "$work/macros"; then
        macro="__${candidate}__"
      fi
    done
  fi
  "$bundler" -type=bc -input="$work/host" -input="$work/device" \
    -targets="host-x86_64-unknown-linux-gnu,openmp-r600-unknown-unknown--$name" \
    -output="$work/bundle"
  entry="$("$bundler" -type=bc -list -input="$work/bundle" | grep '^openmp-')"
  printf '    {"%s", "%s", "%s"},\n' "$name" "$macro" "$entry"
done
