#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# clang 22 building a small HIP program with offbundle's clang-offload-bundler
# instead of LLVM's: compile for two GPUs, relocatable device code, a device
# link, then the same build with LLVM's bundler, and a byte comparison.
# No ROCm installation is needed (-nogpulib -nogpuinc, lld for device links).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

ours=$PWD/build/bin
llvm_bin=/usr/lib/llvm-22/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/kernel.hip" <<'SOURCE'
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
__attribute__((global)) void scale(float *p, float f) { p[0] *= f; }
int main() { return 0; }
SOURCE
# The HIP runtime functions the host code calls, as stubs.
cat > "$work/hip_stub.c" <<'SOURCE'
void **__hipRegisterFatBinary(const void *d) { (void)d; static void *h; return &h; }
void __hipRegisterFunction(void **m, const void *hf, char *df, const char *dn,
                           int t, void *a, void *b, void *c, void *d, int *e) {}
void __hipUnregisterFatBinary(void **m) {}
int hipLaunchKernel(const void *f) { return 0; }
int __hipPushCallConfiguration(long a, int b, long c, int d, unsigned long e, void *s) { return 0; }
int __hipPopCallConfiguration(void *a, void *b, void *c, void *d) { return 0; }
SOURCE
cd "$work"
gcc -c hip_stub.c -o hip_stub.o && ar rcD libamdhip64.a hip_stub.o

# A wrapper that shows each call clang makes, then runs our bundler.
mkdir wrapped
cat > wrapped/clang-offload-bundler <<WRAPPER
#!/bin/sh
echo "  clang-offload-bundler \$*" | cut -c1-160 >&2
exec "$ours/clang-offload-bundler" "\$@"
WRAPPER
chmod +x wrapped/clang-offload-bundler

build() { # build LABEL [-B folder]
  local label=$1
  shift
  "$llvm_bin/clang++" "$@" -x hip -fgpu-rdc -cuid=demo --offload-arch=gfx906 \
    --offload-arch=gfx90a:xnack+ -nogpulib -nogpuinc -c kernel.hip -o "kernel.$label.o"
  "$llvm_bin/clang++" "$@" --hip-link -fgpu-rdc --offload-arch=gfx906 \
    --offload-arch=gfx90a:xnack+ -fuse-ld=lld -L. "kernel.$label.o" -o "app.$label" \
    2>&1 | grep -v 'argument unused' >&2 || true
}

echo "== clang 22 with offbundle (clang -B$work/wrapped):"
build ours "-B$work/wrapped"
echo
echo "== clang 22 with LLVM's own bundler"
build llvm
echo
echo "== Listing the fat object with offbundle"
"$ours/clang-offload-bundler" -type=o -list -input=kernel.ours.o
cmp kernel.ours.o kernel.llvm.o && echo "fat objects: byte-identical"
cmp app.ours app.llvm && echo "programs: byte-identical"
