#!/bin/bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Rebuilds the small linked HIP files here (see README.md) with clang 22
# from /usr/lib/llvm-22/bin. No ROCm is needed: the files call no runtime.
set -euo pipefail
cd "$(dirname "$0")"
bin=/usr/lib/llvm-22/bin
scratch=$(mktemp -d)
trap 'rm -rf -- "$scratch"' EXIT
arches=(--offload-arch=gfx906 --offload-arch=gfx90a)
for label in plain compressed; do
  extra=()
  [[ $label == plain ]] || extra=(--offload-compress)
  "$bin/clang++" -x hip -c -fPIC -O1 -nogpulib -nogpuinc unit.hip \
    -o "$scratch/unit-$label.o" -cuid=unit "${arches[@]}" "${extra[@]}"
  "$bin/clang++" -shared -fuse-ld=lld -nostdlib "$scratch/unit-$label.o" \
    -o "unit-$label.so"
done
"$bin/clang++" -fuse-ld=lld -nostdlib -no-pie -Wl,-e,0 \
  -Wl,--unresolved-symbols=ignore-all "$scratch/unit-plain.o" -o unit-nopie
# An object of the new offloading driver: offload binaries in
# .llvm.offloading.
"$bin/clang++" -x hip --offload-new-driver -fgpu-rdc -c -O1 -nogpulib \
  -nogpuinc unit.hip -o unit-new-driver.o -cuid=unit "${arches[@]}"
