#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the compressed bundles in this folder with LLVM 22's
# clang-offload-bundler (see README.md). The inputs are made by a seeded
# generator, so the same files come out on every machine.
set -euo pipefail

bundler=${1:-/usr/lib/llvm-22/bin/clang-offload-bundler}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
rng = random.Random(20240522)
words = [bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(2, 9)))
         for _ in range(400)]

def code_like(size, seed, noise=0.08):
    # Tokens from a shared vocabulary with some raw random bytes mixed in:
    # compressible, but not trivially.
    local = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        if local.random() < noise:
            out += bytes(local.getrandbits(8) for _ in range(local.randint(4, 24)))
        else:
            out += local.choice(words) + b" "
    return bytes(out[:size])

open(f"{work}/host", "wb").write(code_like(2000, 1))
open(f"{work}/small-gfx906", "wb").write(code_like(14000, 2))
# Two device images of 160 KiB that share most of their content (as
# images of one program for two GPUs do), so the bundle spans several zstd
# blocks and has long-distance matches.
base = bytearray(code_like(160 * 1024, 3, noise=0.01))
variant = bytearray(base)
local = random.Random(4)
for _ in range(500):
    position = local.randrange(len(variant))
    variant[position] = local.getrandbits(8)
open(f"{work}/large-gfx906", "wb").write(bytes(base))
open(f"{work}/large-gfx90a", "wb").write(bytes(variant))
PY

small_targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906
large_targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a
small=(-type=bc "-targets=$small_targets" "-input=$work/host" "-input=$work/small-gfx906")
large=(-type=bc "-targets=$large_targets" "-input=$work/host" "-input=$work/large-gfx906" "-input=$work/large-gfx90a")

"$bundler" "${small[@]}" "-output=$here/small.bundle"
for level in 1 3 19 -5; do
  "$bundler" "${small[@]}" -compress "-compression-level=$level" \
    "-output=$here/small.v3.level$level.ccob"
done
COMPRESSED_BUNDLE_FORMAT_VERSION=2 "$bundler" "${small[@]}" -compress \
  "-output=$here/small.v2.level3.ccob"
"$bundler" "${large[@]}" -compress "-output=$here/large.v3.level3.ccob"
COMPRESSED_BUNDLE_FORMAT_VERSION=2 "$bundler" "${large[@]}" -compress \
  -compression-level=9 "-output=$here/large.v2.level9.ccob"
