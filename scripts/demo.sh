#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The main job on a small sample shipped in the repo: bundle three device
# images and a host file, list the bundle, unbundle it, and show that every
# image comes back byte for byte. Installs and builds first if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

tool=build/bin/clang-offload-bundler
sample=tests/data/sample
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

targets=host-x86_64-unknown-linux-gnu
targets+=,hip-amdgcn-amd-amdhsa--gfx906
targets+=,hip-amdgcn-amd-amdhsa--gfx90a:xnack+
targets+=,hip-amdgcn-amd-amdhsa--gfx1100
inputs=("$sample/host.bin" "$sample/device-gfx906.bin"
        "$sample/device-gfx90a_xnack+.bin" "$sample/device-gfx1100.bin")

echo "== Bundling a host file and three GPU images"
"$tool" -type=bc -targets="$targets" "${inputs[@]/#/-input=}" \
  -output="$work/sample.bundle" -bundle-align=4096
ls -l "$work/sample.bundle"

echo
echo "== Listing the bundle (in the order LLVM's bundler lists it)"
"$tool" -type=bc -list -input="$work/sample.bundle"

echo
echo "== Unbundling every entry"
outputs=("$work/host.out" "$work/gfx906.out" "$work/gfx90a.out" "$work/gfx1100.out")
"$tool" -type=bc -unbundle -input="$work/sample.bundle" -targets="$targets" \
  "${outputs[@]/#/-output=}"
for i in "${!inputs[@]}"; do
  cmp "${inputs[$i]}" "${outputs[$i]}"
  echo "  ${outputs[$i]##*/}: identical to ${inputs[$i]##*/}"
done

echo
echo "== Asking for a GPU with xnack and sramecc on picks the compatible image"
"$tool" -type=bc -unbundle -input="$work/sample.bundle" \
  -targets=hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+ -output="$work/pick.out"
cmp "$sample/device-gfx90a_xnack+.bin" "$work/pick.out"
echo "  gfx90a:sramecc+:xnack+ -> the gfx90a:xnack+ image"

reference=/usr/lib/llvm-22/bin/clang-offload-bundler
if [[ -x $reference ]]; then
  echo
  echo "== The same bundle made by LLVM 22's clang-offload-bundler"
  "$reference" -type=bc -targets="$targets" "${inputs[@]/#/-input=}" \
    -output="$work/reference.bundle" -bundle-align=4096
  cmp "$work/sample.bundle" "$work/reference.bundle"
  echo "  byte-identical"
fi
echo
echo "Round trip exact."
