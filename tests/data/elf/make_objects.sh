#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the ELF test data of tests/unit/elf_object_test.cpp: objects
# built from src/ by clang 22 and gcc, and what LLVM 22's llvm-objcopy makes
# of them when the bundler runs it.
#
#   make_objects.sh              rewrites the small committed set here
#   make_objects.sh --wide DIR   builds a large corpus into DIR (every flag
#                                combination on nine architectures, plus
#                                objects with over 65280 sections); run the
#                                unit test with OFFBUNDLE_ELF_CORPUS=DIR to
#                                check it
#
# For each object NAME.o it writes
#   NAME.fat.o      llvm-objcopy --add-section/--set-section-flags for the
#                   three entries below (the bundling command)
#   NAME.host.o     llvm-objcopy --regex --remove-section on NAME.fat.o (the
#                   host extraction command)
#   NAME.rewrite.o  the same removal run on NAME.o itself
# or, where llvm-objcopy refuses, NAME.add-error.txt, NAME.host-error.txt or
# NAME.remove-error.txt with its message.
#
# Needs /usr/lib/llvm-22/bin (clang, llvm-objcopy, yaml2obj) or LLVM_BIN,
# gcc and g++ with -m32 support, and python3.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
out=$here
wide=0
if [ "${1:-}" = --wide ]; then
  wide=1
  out=$(mkdir -p "$2" && cd "$2" && pwd)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The entries of every fat object, in order: the host's section holds one
# zero byte, as LLVM's bundler writes it.
prefix=__CLANG_OFFLOAD_BUNDLE__
entries=(host-x86_64-unknown-linux-gnu hip-amdgcn-amd-amdhsa--gfx906
  hip-amdgcn-amd-amdhsa--gfx90a:xnack+)
payloads=("$work/host.bin" "$here/payload-gfx906.bin" "$here/payload-gfx90a.bin")
printf '\0' >"$work/host.bin"
if [ $wide = 0 ]; then
  # Device images are any bytes; odd sizes check that nothing pads them.
  python3 -c '
import sys
for name, size, seed in (("payload-gfx906.bin", 333, 7), ("payload-gfx90a.bin", 77, 11)):
    with open(sys.argv[1] + "/" + name, "wb") as f:
        f.write(bytes((i * 131 + seed) % 256 for i in range(size)))
' "$here"
fi

add_args=()
for i in "${!entries[@]}"; do
  add_args+=("--add-section=$prefix${entries[$i]}=${payloads[$i]}"
    "--set-section-flags=$prefix${entries[$i]}=readonly,exclude")
done

# llvm-objcopy's message without its "<tool>: error: '<file>': " lead.
message_of() { sed -e "s/^.*error: //" -e "s/^'[^']*': //" "$1"; }

# record NAME OBJECT: stores OBJECT as NAME.o with llvm-objcopy's outputs.
record() {
  local name=$1 object=$2 base="$out/$1"
  rm -f "$base".o "$base".fat.o "$base".host.o "$base".rewrite.o \
    "$base".add-error.txt "$base".host-error.txt "$base".remove-error.txt
  cp "$object" "$base.o"
  if "$llvm/llvm-objcopy" "${add_args[@]}" -- "$base.o" "$base.fat.o" \
    2>"$work/error"; then
    if ! "$llvm/llvm-objcopy" --regex --remove-section="$prefix.*" \
      "$base.fat.o" "$base.host.o" 2>"$work/error"; then
      message_of "$work/error" >"$base.host-error.txt"
    fi
  else
    message_of "$work/error" >"$base.add-error.txt"
  fi
  if ! "$llvm/llvm-objcopy" --regex --remove-section="$prefix.*" "$base.o" \
    "$base.rewrite.o" 2>"$work/error"; then
    message_of "$work/error" >"$base.remove-error.txt"
  fi
}

# compile NAME COMMAND...: runs COMMAND with "-o <object>" and records it.
compile() {
  local name=$1
  shift
  "$@" -o "$work/$name.o"
  record "$name" "$work/$name.o"
}

clang="$llvm/clang"
clangxx="$llvm/clang++"
src="$here/src"

for yaml in "$src"/*.yaml; do
  name=$(basename "$yaml" .yaml)
  "$llvm/yaml2obj" "$yaml" -o "$work/$name.o"
  record "$name" "$work/$name.o"
done

if [ $wide = 0 ]; then
  compile clang-x86_64-O0 "$clang" -c -O0 "$src/basic.c"
  compile clang-x86_64-O2-g-sections "$clang" -c -O2 -g -ffunction-sections \
    -fdata-sections "$src/basic.c"
  compile gcc-x86_64-O2-g gcc -c -O2 -g "$src/basic.c"
  compile clangxx-x86_64-comdat "$clangxx" -c -O2 "$src/comdat.cpp"
  compile gxx-x86_64-comdat-sections g++ -c -O1 -ffunction-sections \
    "$src/comdat.cpp"
  compile gxx-i386-comdat-pic g++ -m32 -c -O2 -fPIC -fno-exceptions \
    "$src/comdat.cpp"
  compile clang-i386-O2 "$clang" --target=i386-linux-gnu -ffreestanding -c \
    -O2 "$src/free.c"
  compile clang-aarch64-sections "$clang" --target=aarch64-linux-gnu \
    -ffreestanding -c -O2 -ffunction-sections -fdata-sections "$src/free.c"
  compile clang-mips64el "$clang" --target=mips64el-linux-gnuabi64 \
    -ffreestanding -c -O2 "$src/free.c"
  compile clang-ppc64-big-endian "$clang" --target=powerpc64-linux-gnu \
    -ffreestanding -c -O2 "$src/free.c"
  compile clang-x86_64-gz "$clang" -c -O1 -g1 -gz=zlib "$src/free.c"
  compile clang-x86_64-crel "$clangxx" -c -O2 -fno-exceptions \
    -Wa,--allow-experimental-crel,--crel "$src/comdat.cpp"
  exit 0
fi

# The wide corpus.
for opt in -O0 -O2; do
  for extra in "" "-g" "-ffunction-sections -fdata-sections" \
    "-g -ffunction-sections -fdata-sections -fPIC"; do
    tag=$(echo "$opt $extra" | tr -d ' =-')
    compile "clang-x86_64-basic-$tag" "$clang" -c $opt $extra "$src/basic.c"
    compile "gcc-x86_64-basic-$tag" gcc -c $opt $extra "$src/basic.c"
    compile "gcc-i386-basic-$tag" gcc -m32 -c $opt $extra "$src/basic.c"
    compile "clangxx-x86_64-comdat-$tag" "$clangxx" -c $opt $extra \
      "$src/comdat.cpp"
    compile "gxx-x86_64-comdat-$tag" g++ -c $opt $extra "$src/comdat.cpp"
    compile "gxx-i386-comdat-$tag" g++ -m32 -c $opt $extra -fno-exceptions \
      "$src/comdat.cpp"
    for target in aarch64-linux-gnu i386-linux-gnu powerpc64-linux-gnu \
      s390x-linux-gnu mips64el-linux-gnuabi64 mips-linux-gnu \
      riscv64-linux-gnu armv7-linux-gnueabihf; do
      compile "clang-$target-free-$tag" "$clang" --target=$target \
        -ffreestanding -c $opt $extra "$src/free.c"
      compile "clang-$target-comdat-$tag" "$clangxx" --target=$target \
        -ffreestanding -fno-exceptions -c $opt $extra "$src/comdat.cpp"
    done
  done
done
compile clang-gz-zlib "$clang" -c -O2 -g -gz=zlib "$src/basic.c"
compile clang-gz-zstd "$clangxx" -c -O2 -g -gz=zstd "$src/comdat.cpp"
compile gcc-gz gcc -c -O2 -g -gz "$src/basic.c"
compile clang-split-dwarf "$clang" -c -O2 -gsplit-dwarf=single "$src/basic.c"
compile clang-crel-x86_64 "$clangxx" -c -O2 -g \
  -Wa,--allow-experimental-crel,--crel "$src/comdat.cpp"
compile clang-crel-i386 "$clang" --target=i386-linux-gnu -ffreestanding -c \
  -O2 -g -Wa,--allow-experimental-crel,--crel "$src/free.c"
compile clang-crel-aarch64 "$clangxx" --target=aarch64-linux-gnu \
  -ffreestanding -fno-exceptions -c -O2 -Wa,--allow-experimental-crel,--crel \
  "$src/comdat.cpp"

# Extended section numbering: 65,400 sections each defining a symbol (and so
# SHT_SYMTAB_SHNDX), from both assemblers, and objects just below the limit
# that bundling pushes over it.
sections_source() {
  python3 -c '
import sys
for i in range(int(sys.argv[1])):
    print(f".section .s{i},\"a\",@progbits\n.globl g{i}\ng{i}:\n.byte 1")
' "$1" >"$work/sections.s"
}
sections_source 65400
compile many-sections-llvm "$clang" -c "$work/sections.s"
as "$work/sections.s" -o "$work/many-sections-gnu.o"
record many-sections-gnu "$work/many-sections-gnu.o"
for count in 65274 65276 65277; do
  sections_source $count
  compile "sections-$count" "$clang" -c "$work/sections.s"
done
