#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Rebuilds the bitcode files in this folder from src/ with LLVM 22's clang,
# and records for each the archive symbol table LLVM's archive writer makes
# for it (<file>.symbols, one name per line, in llvm-ar's order).
#
# Usage: tests/data/bitcode/make_data.sh [--wide DIR] [LLVM_BIN_DIR]
#   --wide DIR  instead compile the sources for many targets, optimisation
#               levels and offload languages into DIR (not committed); point
#               OFFBUNDLE_BITCODE_CORPUS at DIR to have the unit test check
#               them all.
# LLVM_BIN_DIR defaults to /usr/lib/llvm-22/bin. clang 14 from
# /usr/lib/llvm-14/bin is used for one file when present.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=$here
wide=
if [ "${1:-}" = --wide ]; then
  [ $# -ge 2 ] || { echo "usage: $0 [--wide DIR] [LLVM_BIN_DIR]" >&2; exit 2; }
  mkdir -p "$2"
  out=$(cd "$2" && pwd)
  wide=1
  shift 2
fi
llvm=${1:-/usr/lib/llvm-22/bin}
clang14=/usr/lib/llvm-14/bin/clang
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Compile from inside src/ so the files record relative source names, not
# this machine's paths.
cd "$here/src"
cc="$llvm/clang -c -emit-llvm"
hip="$llvm/clang++ -x hip -nogpulib -nogpuinc --cuda-device-only -c -emit-llvm"

if [ -z "$wide" ]; then
  $cc --target=x86_64-pc-linux-gnu -fcommon globals.c \
    -o "$out/globals.x86_64.bc"
  $cc --target=x86_64-pc-linux-gnu -O2 -x c++ cxx.cpp -o "$out/cxx.x86_64-O2.bc"
  $cc --target=x86_64-pc-linux-gnu module_asm.c -o "$out/module_asm.x86_64.bc"
  $cc --target=amdgcn-amd-amdhsa -mcpu=gfx906 -nogpulib device.c \
    -o "$out/device.gfx906.bc"
  $hip --offload-arch=gfx906 -fgpu-rdc device.hip \
    -o "$out/device-hip.gfx906.bc"
  # Darwin bitcode comes behind a bitcode wrapper header and its names carry
  # the Mach-O underscore.
  $cc --target=x86_64-apple-macosx10.15 -O2 -x c++ cxx.cpp \
    -o "$out/cxx.darwin-wrapper.bc"
  # ThinLTO with a split LTO unit: two modules, one symbol table.
  $llvm/clang++ --target=x86_64-pc-linux-gnu -O2 -flto=thin -fsplit-lto-unit \
    -fwhole-program-vtables -fvisibility=hidden -c cxx.cpp \
    -o "$out/cxx.split-lto.bc"
  # A symbol table written by "another" LLVM: LLVM 22 rebuilds it from the
  # IR and arrives at the same list.
  LLVM_OVERRIDE_PRODUCER="OtherLLVM 1.0" $cc --target=x86_64-pc-linux-gnu \
    -fcommon globals.c -o "$out/globals.other-producer.bc"
  if [ -x "$clang14" ]; then
    $clang14 --target=x86_64-pc-linux-gnu -c -emit-llvm -fcommon globals.c \
      -o "$out/globals.clang14.bc"
  fi
  # Binary concatenation leaves no symbol table at all.
  $llvm/llvm-cat -b -o "$out/concatenated.bc" "$out/globals.x86_64.bc" \
    "$out/module_asm.x86_64.bc"
else
  for triple in x86_64-pc-linux-gnu i386-pc-linux-gnu aarch64-linux-gnu \
    riscv64-linux-gnu x86_64-apple-macosx10.15 x86_64-pc-windows-msvc \
    x86_64-w64-windows-gnu powerpc64-ibm-aix wasm32-unknown-unknown; do
    for opt in -O0 -O2; do
      $cc --target=$triple $opt -fcommon globals.c \
        -o "$out/globals.$triple$opt.bc"
      $cc --target=$triple $opt -x c++ cxx.cpp -o "$out/cxx.$triple$opt.bc"
      case $triple in
      x86_64-apple*) ;;
      x86_64* | i386*)
        $cc --target=$triple $opt module_asm.c \
          -o "$out/module_asm.$triple$opt.bc"
        ;;
      esac
    done
  done
  for mode in -flto=thin -flto; do
    $llvm/clang -O2 $mode -fcommon -c globals.c -o "$out/globals$mode.bc"
    $llvm/clang++ -O2 $mode -c cxx.cpp -o "$out/cxx$mode.bc"
  done
  $llvm/clang++ -O2 -flto=thin -fsanitize=cfi -fvisibility=hidden -c cxx.cpp \
    -o "$out/cxx.cfi.bc"
  LLVM_OVERRIDE_PRODUCER="OtherLLVM 1.0" $cc -fcommon globals.c \
    -o "$out/globals.other-producer.bc"
  LLVM_OVERRIDE_PRODUCER="OtherLLVM 1.0" $cc -x c++ cxx.cpp \
    -o "$out/cxx.other-producer.bc"
  if [ -x "$clang14" ]; then
    $clang14 -c -emit-llvm -fcommon globals.c -o "$out/globals.clang14.bc"
    $clang14 -c -emit-llvm -x c++ cxx.cpp -o "$out/cxx.clang14.bc"
  fi
  for mcpu in gfx906 gfx90a gfx1100; do
    for opt in -O0 -O3; do
      $cc --target=amdgcn-amd-amdhsa -mcpu=$mcpu -nogpulib $opt device.c \
        -o "$out/device.$mcpu$opt.bc"
    done
  done
  for arch in gfx906 gfx90a:xnack+ gfx1030; do
    for opt in -O0 -O3; do
      name=device-hip.$(echo $arch | tr : _)$opt
      $hip --offload-arch=$arch $opt -fgpu-rdc device.hip -o "$out/$name.rdc.bc"
      $hip --offload-arch=$arch $opt device.hip -o "$out/$name.bc"
    done
  done
  $llvm/clang++ -x cuda --cuda-gpu-arch=sm_70 -nocudalib -nocudainc \
    --cuda-device-only -fgpu-rdc -c -emit-llvm device.hip \
    -o "$out/device-cuda.sm_70.bc"
  $cc --target=nvptx64-nvidia-cuda -march=sm_70 device.c \
    -o "$out/device.nvptx.bc"
fi

# The archive symbol table llvm-ar writes for one member: a big-endian count,
# that many member offsets, then NUL-terminated names.
cd "$out"
for bitcode in *.bc; do
  archive="$work/one.a"
  rm -f "$archive"
  "$llvm/llvm-ar" --format=gnu rcD "$archive" "$bitcode"
  python3 - "$archive" >"$bitcode.symbols" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'!<arch>\n'
if data[8:24].decode().strip() == '/':
    size = int(data[56:66].decode())
    body = data[68:68 + size]
    count = struct.unpack('>I', body[:4])[0]
    names = body[4 + 4 * count:].split(b'\0')[:count]
    sys.stdout.write(''.join(name.decode() + '\n' for name in names))
EOF
done
echo "made $(ls *.bc | wc -l) bitcode files in $out"
