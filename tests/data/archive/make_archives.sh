#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Regenerates the archive test data of tests/unit/archive_test.cpp: member
# files built from src/, archives written by LLVM 22's llvm-ar and
# clang-offload-bundler and by GNU ar, and the listings the test compares
# with. See README.md for what each file is.
#
# Needs /usr/lib/llvm-22/bin (clang, llvm-ar, llvm-objcopy,
# clang-offload-bundler) or LLVM_BIN, GNU ar, and python3.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
llvm=${LLVM_BIN:-/usr/lib/llvm-22/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"
rm -rf members thin ./*.a ./*.txt
mkdir -p members thin

# Member files. Objects for several machines and both byte orders, built
# small (-O1, no unwind tables) so the data stays small.
flags=(-O1 -fcommon -fno-asynchronous-unwind-tables -fno-ident -c)
for target in x86_64-linux-gnu i386-linux-gnu powerpc64-linux-gnu \
  aarch64-linux-gnu riscv64-linux-gnu armv7-linux-gnueabihf; do
  "$llvm/clang" --target=$target "${flags[@]}" src/symbols.c \
    -o "members/symbols-${target%%-*}.o"
done
"$llvm/clang" --target=x86_64-linux-gnu "${flags[@]}" src/no_globals.c \
  -o members/no-globals.o
"$llvm/llvm-objcopy" --strip-all members/no-globals.o members/stripped.o
"$llvm/clang" --target=amdgcn-amd-amdhsa -mcpu=gfx906 -nogpulib \
  "${flags[@]}" src/device.c -o members/device-gfx906.o
"$llvm/clang" --target=amdgcn-amd-amdhsa -mcpu=gfx906 -nogpulib \
  "${flags[@]}" -emit-llvm src/device.c -o members/device-gfx906.bc
printf 'hello\n' >members/hello.txt
printf 'odd' >members/odd.txt
: >members/empty.txt
# Starts like ELF but is too short for LLVM to open: not an object.
head -c 17 members/no-globals.o >members/short-elf.bin

# The symbols LLVM's archive writer lists for each member, read back from
# the symbol table of a one-member archive written by llvm-ar. Members it
# does not take for object files get no symbol table, and no file here.
symtab_names() {
  python3 - "$1" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
assert data.startswith(b'!<arch>\n')
if data[8:10] != b'/ ':
    sys.exit(1)
size = int(data[8 + 48:8 + 58])
table = data[68:68 + size]
count = int.from_bytes(table[:4], 'big')
names = table[4 + 4 * count:].split(b'\0')[:count]
for name in names:
    print(name.decode())
EOF
}
for member in members/*; do
  name=$(basename "$member")
  rm -f "$work/one.a"
  "$llvm/llvm-ar" qcsD --format=gnu "$work/one.a" "$member"
  if symtab_names "$work/one.a" >"$work/names.txt"; then
    cp "$work/names.txt" "symbols-$name.txt"
  fi
done

# Archives written by llvm-ar as clang-offload-bundler's writer would write
# them. Each line of write-cases.txt is a case name, optionally
# SYM64_THRESHOLD=<n>, then <member name>=<file in members/> pairs; llvm-ar
# takes member names from file names, so each file is copied under its name.
cat >write-cases.txt <<'EOF'
text-only hello.txt=hello.txt odd.txt=odd.txt
names-15-and-16 abcdefghijk.txt=odd.txt abcdefghijkl.txt=odd.txt
long-names-repeated a-long-member-name-1.o=device-gfx906.o short.o=hello.txt a-long-member-name-1.o=odd.txt a-long-member-name-2.o=empty.txt a-long-member-name-1.o=hello.txt
short-names-repeated x.o=device-gfx906.o x.o=device-gfx906.o
empty-member e.txt=empty.txt e.o=no-globals.o
objects symbols-x86_64.o=symbols-x86_64.o symbols-i386.o=symbols-i386.o symbols-powerpc64.o=symbols-powerpc64.o symbols-aarch64.o=symbols-aarch64.o symbols-riscv64.o=symbols-riscv64.o symbols-armv7.o=symbols-armv7.o odd.txt=odd.txt
objects-without-symbols no-globals.o=no-globals.o stripped.o=stripped.o hello.txt=hello.txt
not-objects short-elf.bin=short-elf.bin odd.txt=odd.txt
bundler-names lib-hip-amdgcn-amd-amdhsa--gfx906lib.bc=device-gfx906.o other-hip-amdgcn-amd-amdhsa--gfx90a_xnack+other.bc=symbols-x86_64.o
bitcode device-gfx906.bc=device-gfx906.bc odd.txt=odd.txt
sym64-at-0 SYM64_THRESHOLD=0 symbols-x86_64.o=symbols-x86_64.o hello.txt=hello.txt device-gfx906.o=device-gfx906.o
sym64-at-3000 SYM64_THRESHOLD=3000 symbols-x86_64.o=symbols-x86_64.o symbols-i386.o=symbols-i386.o device-gfx906.o=device-gfx906.o
sym64-just-above SYM64_THRESHOLD=4000 symbols-x86_64.o=symbols-x86_64.o symbols-i386.o=symbols-i386.o device-gfx906.o=device-gfx906.o
sym64-without-symbols SYM64_THRESHOLD=0 hello.txt=hello.txt odd.txt=odd.txt
EOF
while read -r case rest; do
  threshold=()
  read -ra pairs <<<"$rest"
  if [[ ${pairs[0]} == SYM64_THRESHOLD=* ]]; then
    threshold=("${pairs[0]}")
    pairs=("${pairs[@]:1}")
  fi
  files=()
  for i in "${!pairs[@]}"; do
    mkdir -p "$work/$case/$i"
    cp "members/${pairs[$i]#*=}" "$work/$case/$i/${pairs[$i]%%=*}"
    files+=("$work/$case/$i/${pairs[$i]%%=*}")
  done
  env "${threshold[@]}" "$llvm/llvm-ar" qcsD --format=gnu "write-$case.a" \
    "${files[@]}"
done <write-cases.txt
# What the bundler writes for a target with no code objects under
# -allow-missing-bundles: an empty archive.
"$llvm/llvm-ar" qcsD --format=gnu write-empty.a

# End to end: fat objects in an archive, unbundled by the reference bundler.
# The test reads bundler-gfx906.a back and writes it again.
host_targets=host-x86_64-unknown-linux-gnu
printf 'int host_function(void) { return 1; }\n' >"$work/host.c"
"$llvm/clang" --target=x86_64-linux-gnu "${flags[@]}" "$work/host.c" \
  -o "$work/host.o"
bundle() {
  "$llvm/clang-offload-bundler" -type=o \
    -targets=$host_targets,hip-amdgcn-amd-amdhsa--gfx906 \
    -input="$work/host.o" -input="$1" -output="$2"
}
bundle members/device-gfx906.o "$work/first.o"
bundle members/no-globals.o "$work/second_with_a_long_name.o"
rm -f "$work/fat.a"
"$llvm/llvm-ar" qc "$work/fat.a" "$work/first.o" \
  "$work/second_with_a_long_name.o" "$work/first.o"
"$llvm/clang-offload-bundler" -unbundle -type=a -input="$work/fat.a" \
  -targets=hip-amdgcn-amd-amdhsa--gfx906 -output=bundler-gfx906.a

# Archives to read, each with <archive>.members.txt listing what LLVM's
# reader gives: name, size and FNV-1a hash of the contents, in order.
readable=(hello.txt odd.txt symbols-x86_64.o empty.txt device-gfx906.o)
long_copy() { cp "members/$1" "$work/$2"; }
long_copy hello.txt "a-name-of-twenty-chars"
long_copy odd.txt "with space.txt"
mkdir -p "$work/plain"
for f in "${readable[@]}"; do cp "members/$f" "$work/plain/$f"; done
plain=("${readable[@]/#/$work/plain/}")
extra=("$work/a-name-of-twenty-chars" "$work/with space.txt")
rm -f read-*.a
ar rc read-gnu.a "${plain[@]}" "${extra[@]}"
# (Repeated names are fine in archives; these two end with one.)
"$llvm/llvm-ar" qcD read-llvm.a "${plain[@]}" "${extra[@]}" "${plain[0]}"
"$llvm/llvm-ar" qcD --format=bsd read-bsd.a "${plain[@]}" "${extra[@]}" \
  "${plain[0]}"
"$llvm/llvm-ar" qcD --format=darwin read-darwin.a "${plain[@]}" "${extra[@]}"
SYM64_THRESHOLD=0 "$llvm/llvm-ar" qcD read-gnu64.a "${plain[@]}" "${extra[@]}"
"$llvm/llvm-ar" qcSD read-no-symbol-table.a "${plain[@]}" "${extra[@]}"
cp members/hello.txt members/symbols-x86_64.o thin/
mkdir -p thin/sub
cp members/odd.txt "thin/sub/a-name-of-twenty-chars"
ar rcT read-thin.a thin/hello.txt thin/symbols-x86_64.o \
  "thin/sub/a-name-of-twenty-chars"
"$llvm/llvm-ar" qcD --thin read-llvm-thin.a thin/hello.txt \
  thin/symbols-x86_64.o "thin/sub/a-name-of-twenty-chars"
for archive in read-*.a; do
  python3 - "$archive" "$llvm/llvm-ar" >"$archive.members.txt" <<'EOF'
import subprocess, sys
archive, llvm_ar = sys.argv[1], sys.argv[2]
# 'p' prints the members one after the other; 'tv' gives their sizes (for
# thin archives the sizes of the files), so the output can be cut apart.
names = subprocess.run([llvm_ar, 't', archive], check=True,
                       capture_output=True).stdout.decode().split('\n')[:-1]
contents = subprocess.run([llvm_ar, 'p', archive], check=True,
                          capture_output=True).stdout
sizes = [int(line.split()[2]) for line in subprocess.run(
    [llvm_ar, 'tv', archive], check=True,
    capture_output=True).stdout.decode().split('\n')[:-1]]
assert sum(sizes) == len(contents), (archive, sizes, len(contents))
def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return h
offset = 0
for name, size in zip(names, sizes):
    data = contents[offset:offset + size]
    offset += size
    # llvm-ar t shows thin members with the archive's folder in front.
    print('%s\t%d\t%016x' % (name, size, fnv1a(data)))
EOF
done
