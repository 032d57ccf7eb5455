#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the stored inputs of tests/unit/offload_binary_test.cpp with
# LLVM 22's tools (see README.md). Run from this folder.
set -euo pipefail
bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

printf 'hello' > "$scratch/a.o"
printf 'worldxyz1' > "$scratch/b.cubin"
(cd "$scratch" && "$bin/llvm-offload-binary" -o two-images.bin \
  --image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp \
  --image=file=b.cubin,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip,foo=bar,foo=baz)
cp "$scratch/two-images.bin" .

# Tail-sharing strings, an empty value and a key without one.
(cd "$scratch" && "$bin/llvm-offload-binary" -o tails.bin \
  --image=file=a.o,triple=x86_64-unknown-linux-gnu,arch=sm_70,m=m_70,n=70,e=,novalue)
cp "$scratch/tails.bin" .

# Bitcode embedding the two binaries as clang does, plus the shapes LLVM
# passes over.
python3 - "$scratch/two-images.bin" > "$scratch/embedded.ll" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
first, second = data[:0x98], data[0x98:]
as_bytes = lambda b: 'c"' + "".join(f"\\{x:02X}" for x in b) + '"'
as_i32 = ", ".join(f"i32 {v}" for v in struct.unpack(f"<{len(second)//4}i", second))
print(f'@llvm.embedded.object = private constant [{len(first)} x i8] {as_bytes(first)}')
print(f'@other = private constant [{len(second)} x i8] {as_bytes(second)}')
print(f'@words = private constant [{len(second)//4} x i32] [{as_i32}]')
print('define void @f() { ret void }')
print('!llvm.embedded.objects = !{!0, !1, !2, !3, !4}')
print('!0 = !{ptr @llvm.embedded.object, !".llvm.offloading"}')
print('!1 = !{ptr @other, !".llvm.offloading.other"}')
print('!2 = !{ptr @words, !".llvm.offloading"}')
print('!3 = !{ptr @f, !".llvm.offloading"}')
print('!4 = !{ptr @other}')
PY
"$bin/llvm-as" "$scratch/embedded.ll" -o embedded.bc

# A COFF object with the section, as clang's new driver makes it for a
# Windows host: two-images.bin put there by llvm-objcopy.
printf 'int f(void) { return 0; }\n' > "$scratch/f.c"
"$bin/clang" --target=x86_64-pc-windows-msvc -c "$scratch/f.c" -o "$scratch/f.obj"
"$bin/llvm-objcopy" --add-section .llvm.offloading=two-images.bin \
  "$scratch/f.obj" coff.obj
