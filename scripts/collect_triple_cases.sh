#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Collects the expected values for tests/unit/triple_test.cpp from an
# installed LLVM 22 and prints them as C++ table rows.
#
# The values come from LLVM 22's own llvm::Triple, read through a tiny probe
# program linked against the installed libLLVM (the library that
# clang-offload-bundler and clang themselves run on). The probe is needed
# because the tools only show parts of llvm::Triple: the bundler only
# normalises four-field triples, and nothing prints the FIVE_IDENT form. So
# every row the tools *can* show is also checked against them:
#   * FOUR_IDENT / THREE_IDENT normalisation of four-field triples against the
#     entry IDs clang-offload-bundler writes (it uses THREE_IDENT plus '-' for
#     AMDHSA triples and FOUR_IDENT otherwise),
#   * "unknown target triple" errors against the probe's unknown architecture,
#   * normalize(ANY) against `clang --target=X -print-target-triple`,
#   * isCompatibleWith against unbundling an entry with another spelling.
# A disagreement aborts the script.
#
# Usage: scripts/collect_triple_cases.sh [LLVM_PREFIX] > rows.txt
set -euo pipefail

llvm_prefix="${1:-/usr/lib/llvm-22}"
bundler="$llvm_prefix/bin/clang-offload-bundler"
clang="$llvm_prefix/bin/clang"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# --- The probe ---------------------------------------------------------------
cat >"$work/probe.cpp" <<'EOF'
#include "llvm/ADT/Twine.h"
#include "llvm/TargetParser/Triple.h"
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
using llvm::Triple;

static std::string quoted(const std::string &text) {
  return "\"" + text + "\"";
}
static std::vector<std::string> tabFields(const std::string &line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t'))
    fields.push_back(field);
  if (!line.empty() && line.back() == '\t')
    fields.push_back("");
  return fields;
}

// Reads "<table>\t<args...>" lines, prints one C++ row (or plain line) each.
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::vector<std::string> f = tabFields(line);
    const std::string &table = f[0];
    if (table == "arch") {
      Triple t(f[1] + "-unknown-linux-gnu");
      std::cout << "    {" << quoted(f[1]) << ", "
                << quoted(Triple::getArchTypeName(t.getArch()).str()) << ", "
                << t.getSubArch() << "},\n";
    } else if (table == "vendor") {
      Triple t("x86_64-" + f[1] + "-linux-gnu");
      std::cout << "    {" << quoted(f[1]) << ", "
                << quoted(Triple::getVendorTypeName(t.getVendor()).str())
                << "},\n";
    } else if (table == "os") {
      Triple t("x86_64-unknown-" + f[1] + "-gnu");
      std::cout << "    {" << quoted(f[1]) << ", "
                << quoted(Triple::getOSTypeName(t.getOS()).str()) << ", "
                << quoted(Triple::getObjectFormatTypeName(t.getObjectFormat())
                              .str())
                << "},\n";
    } else if (table == "env") {
      Triple t("x86_64-unknown-linux-" + f[1]);
      std::cout << "    {" << quoted(f[1]) << ", "
                << quoted(Triple::getEnvironmentTypeName(t.getEnvironment())
                              .str())
                << ", "
                << quoted(Triple::getObjectFormatTypeName(t.getObjectFormat())
                              .str())
                << "},\n";
    } else if (table == "names") {
      Triple t(f[1]);
      std::cout << "    {" << quoted(f[1]) << ", "
                << quoted(t.getArchName().str()) << ", "
                << quoted(t.getVendorName().str()) << ", "
                << quoted(t.getOSName().str()) << ", "
                << quoted(t.getEnvironmentName().str()) << "},\n";
    } else if (table == "normalize") {
      using Form = Triple::CanonicalForm;
      std::cout << "    {" << quoted(f[1]) << ", "
                << quoted(Triple::normalize(f[1], Form::ANY)) << ", "
                << quoted(Triple::normalize(f[1], Form::THREE_IDENT)) << ", "
                << quoted(Triple::normalize(f[1], Form::FOUR_IDENT)) << ", "
                << quoted(Triple::normalize(f[1], Form::FIVE_IDENT))
                << "},\n";
    } else if (table == "pair") {
      Triple a(f[1]), b(f[2]);
      std::cout << "    {" << quoted(f[1]) << ", " << quoted(f[2]) << ", "
                << (a == b ? "true" : "false") << ", "
                << (a.isCompatibleWith(b) ? "true" : "false") << "},\n";
    } else if (table == "four") {
      Triple parts{llvm::Twine(f[1]), llvm::Twine(f[2]), llvm::Twine(f[3]),
                   llvm::Twine(f[4])};
      Triple whole(f[5]);
      std::cout << "    {" << quoted(f[1]) << ", " << quoted(f[2]) << ", "
                << quoted(f[3]) << ", " << quoted(f[4]) << ", "
                << quoted(f[5]) << ", " << (parts == whole ? "true" : "false")
                << "},\n";
    } else if (table == "raw-known") { // for the bundler cross-check
      std::cout << (Triple(f[1]).getArch() != Triple::UnknownArch) << "\n";
    } else if (table == "raw-id") { // entry ID with an empty target ID
      Triple t(f[1]);
      if (t.getOS() == Triple::AMDHSA)
        std::cout << t.normalize(Triple::CanonicalForm::THREE_IDENT) << "--\n";
      else
        std::cout << t.normalize(Triple::CanonicalForm::FOUR_IDENT) << "-\n";
    } else if (table == "raw-any") {
      std::cout << Triple::normalize(f[1]) << "\n";
    } else if (table == "raw-compat") {
      Triple t(f[1]);
      Triple entry(t.normalize(t.getOS() == Triple::AMDHSA
                                   ? Triple::CanonicalForm::THREE_IDENT
                                   : Triple::CanonicalForm::FOUR_IDENT));
      std::cout << entry.isCompatibleWith(Triple(f[2])) << "\n";
    }
    std::cout.flush();
  }
}
EOF
"${CXX:-g++}" -std=c++17 -O1 -I"$llvm_prefix/include" "$work/probe.cpp" \
  -L"$llvm_prefix/lib" -lLLVM -Wl,-rpath,"$llvm_prefix/lib" -o "$work/probe"

probe() { "$work/probe"; }

# --- Case lists --------------------------------------------------------------
arch_spellings=(
  # x86
  i386 i486 i586 i686 i786 i886 i986 x86 amd64 x86_64 x86_64h x86-64
  x86_64_lfi
  # PowerPC
  powerpc powerpcspe ppc ppc32 powerpcle ppcle ppc32le powerpc64 ppu ppc64
  powerpc64le ppc64le
  # AArch64
  aarch64 aarch64_be aarch64_32 aarch64_lfi arm64 arm64_32 arm64e arm64ec
  arm64x arm64eb aarch64eb aarch64v8 aarch64_bev8 aarch64_32v8 aarch64v6m
  # ARM and Thumb, by target-parser names
  arm armeb thumb thumbeb xscale xscaleeb armx armv armv2 armv2a armv3 armv3m
  armv4 armv4t armv5 armv5e armv5t armv5te armv5tej armv6 armv6j armv6k
  armv6hl armv6kz armv6z armv6zk armv6t2 armv6m armv6sm armv7 armv7a armv7hl
  armv7l armv7r armv7m armv7em armv7ve armv7s armv7k armv8 armv8a armv8l
  armv8.1a armv8.2a armv8.3a armv8.4a armv8.5a armv8.6a armv8.7a armv8.8a
  armv8.9a armv8r armv8m.base armv8m.main armv8.1m.main armv9 armv9a armv9.1a
  armv9.2a armv9.3a armv9.4a armv9.5a armv9.6a armv9.7a armv10 armv7x
  armebv7 armv7eb armebv7eb armebv6m armv6meb thumbv2 thumbv3 thumbv4t thumbv5
  thumbv6 thumbv6m thumbv7 thumbv7a thumbv7m thumbv7em thumbv7s thumbv7k
  thumbv8 thumbv8m.base thumbv8m.main thumbv8.1m.main thumbebv7 thumbv7eb
  thumbebv6m
  # Names that are not architectures but still carry an ARM sub-architecture
  iwmmxt iwmmxt2 v7 v7a v8 m e a
  # MIPS
  mips mipseb mipsallegrex mipsisa32r6 mipsr6 mipsel mipsallegrexel
  mipsisa32r6el mipsr6el mips64 mips64eb mipsn32 mipsisa64r6 mips64r6
  mipsn32r6 mips64el mipsn32el mipsisa64r6el mips64r6el mipsn32r6el mipsfoo
  # GPUs and portable IRs
  amdgcn r600 amdgpu nvptx nvptx64 amdil amdil64 hsail hsail64 spir spir64
  spirv spirv1.0 spirv1.4 spirv1.5 spirv1.6 spirv32 spirv32v1.0 spirv32v1.1
  spirv32v1.2 spirv32v1.3 spirv32v1.4 spirv32v1.5 spirv32v1.6 spirv64
  spirv64v1.0 spirv64v1.1 spirv64v1.2 spirv64v1.3 spirv64v1.4 spirv64v1.5
  spirv64v1.6 spirv64v1.7 spirvx dxil dxilv1.0 dxilv1.1 dxilv1.2 dxilv1.3
  dxilv1.4 dxilv1.5 dxilv1.6 dxilv1.7 dxilv1.8 dxilv1.9 dxilv1.10
  renderscript32 renderscript64
  # Everything else
  riscv32 riscv64 riscv32be riscv64be hexagon s390x systemz sparc sparcel
  sparcv9 sparc64 tce tcele tcele64 xcore kalimba kalimba3 kalimba4 kalimba5
  kalimbax lanai shave ve wasm32 wasm64 wasm csky loongarch32 loongarch64
  xtensa arc avr m68k msp430 bpf bpfel bpfeb bpf_le bpf_be bpfx pe
  unknown foo ""
)
vendor_spellings=(apple pc scei sie fsl ibm img mti nvidia csr amd mesa suse oe
  intel meta unknown w64 Apple AMD amdx nvidia2 "")
os_spellings=(darwin darwin20 dragonfly freebsd freebsd13.1 fuchsia ios ios14.0
  kfreebsd linux linux6 lv2 macos macos10.15 macosx macosx11.0 managarm netbsd
  openbsd solaris solaris2.11 uefi win32 windows windows10 zos haiku rtems aix
  aix7.2 cuda cuda12 nvcl amdhsa amdhsa5 amdhsafoo ps4 ps5 elfiamcu tvos
  watchos bridgeos driverkit xros visionos visionos1 mesa3d amdpal hermit hurd
  wasi wasip1 wasip2 wasip3 wasip4 emscripten shadermodel shadermodel6.3
  liteos serenity vulkan vulkan1.3 cheriotrtos none unknown mingw32 cygwin
  msys firmware opencl chipstar qurt Linux lin "")
env_spellings=(eabihf eabi gnuabin32 gnuabi64 gnueabihft64 gnueabihf gnueabit64
  gnueabi gnuf32 gnuf64 gnusf gnux32 gnu_ilp32 code16 gnut64 gnu android
  android21 androideabi muslabin32 muslabi64 musleabihf musleabi muslf32 muslsf
  muslx32 muslwali musl msvc msvc19 itanium cygnus coreclr simulator macabi
  pixel vertex geometry hull domain compute library raygeneration intersection
  anyhit closesthit miss callable mesh amplification rootsignature opencl ohos
  mlibc pauthtest llvm mtia elf coff xcoff goff macho wasm spirv dxcontainer
  gnu-elf msvc-coff musl-macho gnuelf elfgnu none unknown GNU "")
name_triples=("" x86_64 x86_64- x86_64-pc x86_64-pc-linux x86_64-pc-linux-gnu
  x86_64-pc-linux-gnu-elf x86_64-pc-linux-gnu-elf-extra -pc-- ---- a-b-c-d-e-f
  amdgcn-amd-amdhsa- amdgcn-amd-amdhsa--gfx906)
normalize_inputs=(
  "" - -- --- x86_64 i686 mips mips64 amdgcn foo foo-bar foo-bar-baz
  foo-bar-baz-qux foo-bar-baz-qux-quux
  x86_64-linux x86_64-linux-gnu x86_64-pc x86_64-pc-linux
  x86_64-pc-linux-gnu x86_64-unknown-linux-gnu-elf x86_64-pc-linux-gnu-elf-foo
  x86_64-pc-linux-gnu-elf-foo-bar linux-x86_64 linux-x86_64-gnu gnu-linux-pc-x86_64
  pc-x86_64 pc-linux pc-linux-x86_64-gnu linux gnu pc a-b-i386 a-pc-b-i386
  i386-a-b-pc i386-pc-gnu i386-gnu-linux x86_64-gnu x86_64--linux-gnu
  x86_64-pc--gnu -pc-linux-gnu x86_64-pc-linux- x86_64--- --linux-
  amdgcn-amd-amdhsa amdgcn-amd-amdhsa-gnu amdgcn-amdhsa amdhsa-amdgcn amd-amdgcn
  amdgcn-amd-amdhsa5 amdgcn-amd-amdpal amdgcn-mesa-mesa3d r600-amd-amdhsa
  nvptx64-nvidia-cuda nvptx64-cuda nvptx-nvidia-cuda nvptx64-nvidia-nvcl
  cuda-nvptx64 spirv64-amd-amdhsa spirv64-intel-unknown spirv-unknown-vulkan1.3
  spirv1.6-unknown-vulkan1.3-compute
  armv7-linux-gnueabihf armv7-unknown-linux-gnueabi arm-none-eabi arm-none-none-eabi
  thumbv7m-none-eabi aarch64-none-elf aarch64-none-linux-gnu riscv64-none-elf
  arm-none-foo armv7a-suse-linux-gnueabi armv7a-suse-linux-gnueabihf
  armv7-linux-androideabi armv7-linux-androideabi21 armv7-none-linux-androideabi
  aarch64-linux-android aarch64-linux-android29 x86_64-linux-android
  x86_64-w64-mingw32 i686-w64-mingw32 x86_64-pc-mingw32 x86_64-mingw32
  i686-pc-cygwin x86_64-pc-cygwin x86_64-pc-msys x86_64-pc-windows
  x86_64-pc-windows-msvc x86_64-pc-win32 x86_64-pc-windows-gnu
  x86_64-pc-windows-elf x86_64-pc-windows-macho x86_64-pc-windows-coff
  x86_64-pc-windows-gnu-elf x86_64-pc-windows-msvc-elf x86_64-w64-mingw32-elf
  x86_64-pc-cygwin-elf x86_64-windows x86_64-pc-windows-foo-elf
  windows-x86_64 i686-win32 x86_64-uefi x86_64-unknown-uefi
  x86_64-apple-macosx10.15 x86_64-apple-darwin arm64-apple-ios14.0
  arm64-apple-ios14.0-simulator x86_64-apple-ios-macabi apple-arm64-macos
  powerpc-ibm-aix powerpc64-ibm-aix7.2 s390x-ibm-zos s390x-ibm-zos-goff
  wasm32-unknown-unknown wasm32-wasi wasm32-unknown-wasip1 wasm64-emscripten
  wasm32-unknown-linux-muslwali
  dxil-unknown-shadermodel6.3-compute dxil-shadermodel6.3-library
  dxil-unknown-shadermodel6.0-pixel dxil-unknown-shadermodel6.9-vertex
  dxil-unknown-shadermodel6.x-hull dxil-unknown-shadermodel6-mesh
  dxil-unknown-shadermodel5.1-compute dxil-unknown-shadermodel6.3.1-compute
  dxil-unknown-shadermodel6.3a-compute dxil-unknown-shadermodel0.0-compute
  dxil-unknown-shadermodel6.3-compute-elf-extra dxilv1.2-unknown-shadermodel6.5-compute
  dxil-unknown-vulkan-compute
  mipsel-linux-gnu mips64-unknown-linux-gnuabi64 mipsisa64r6el-linux-gnuabi64
  powerpc64le-linux-gnu i386-pc-elfiamcu x86_64-scei-ps4 x86_64-sie-ps5
  x86_64-unknown-linux-gnu-unknown-unknown x86_64-pc-linux-elf
  elf-x86_64-linux coff-x86_64 x86_64-elf x86_64-macho-pc
  loongarch64-unknown-linux-gnu hexagon-unknown-linux-musl ve-unknown-linux
  bpf-unknown-none bpfel xtensa-none-elf kalimba3-csr-unknown
  x86_64-pc-linux-gnu-gnu x86_64-linux-linux-linux i386-i386-i386
  pc-pc-pc linux-pc-i386 gnu-pc-linux-i386 msvc-windows-pc-x86_64
  elf-coff-x86_64 x86_64-elf-coff foo-x86_64-pc-linux-gnu
  foo-bar-x86_64-pc-linux-gnu foo-bar-baz-x86_64 foo-pc foo-bar-pc
  foo-linux foo-bar-linux foo-gnu foo-bar-gnu foo-bar-baz-gnu
  none-x86_64 x86_64-none x86_64-none-gnu x86_64-none-linux armv7-none-eabihf
  armv7-none-gnueabi-foo armv7-none armv7-none-none
)
# Permutations of a full triple.
for perm in "x86_64 pc linux gnu" "amdgcn amd amdhsa gnu" "arm apple ios simulator"; do
  read -r a b c d <<<"$perm"
  for p in "$a $b $c $d" "$a $b $d $c" "$a $c $b $d" "$a $c $d $b" \
           "$a $d $b $c" "$a $d $c $b" "$b $a $c $d" "$b $a $d $c" \
           "$b $c $a $d" "$b $c $d $a" "$b $d $a $c" "$b $d $c $a" \
           "$c $a $b $d" "$c $a $d $b" "$c $b $a $d" "$c $b $d $a" \
           "$c $d $a $b" "$c $d $b $a" "$d $a $b $c" "$d $a $c $b" \
           "$d $b $a $c" "$d $b $c $a" "$d $c $a $b" "$d $c $b $a"; do
    normalize_inputs+=("${p// /-}")
  done
done
compat_pairs=(
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-gnu"
  "x86_64-unknown-linux-gnu amd64-unknown-linux-gnu"
  "x86_64-unknown-linux-gnu x86_64h-unknown-linux-gnu"
  "x86_64-unknown-linux-gnu x86_64-pc-linux-gnu"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-gnux32"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-gnu-elf"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-gnu-coff"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-musl"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux6-gnu"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-gnu2.31"
  "x86_64-unknown-linux-gnu i686-unknown-linux-gnu"
  "i386-unknown-linux-gnu i686-unknown-linux-gnu"
  "i386-pc-linux-gnu i986-pc-linux-gnu"
  "amdgcn-amd-amdhsa- amdgcn-amd-amdhsa-unknown"
  "amdgcn-amd-amdhsa-unknown amdgcn-amd-amdhsa5-unknown"
  "amdgcn-amd-amdhsa-unknown amdgcn-unknown-amdhsa-unknown"
  "amdgcn-amd-amdhsa-unknown amdgcn-amd-amdhsa-gnu"
  "amdgcn-amd-amdhsa-unknown amdgcn-amd-amdhsa-elf"
  "amdgcn-amd-amdhsa-unknown r600-amd-amdhsa-unknown"
  "nvptx64-nvidia-cuda-unknown nvptx64-nvidia-cuda12-unknown"
  "nvptx64-nvidia-cuda-unknown nvptx-nvidia-cuda-unknown"
  "spirv64-intel-unknown-unknown spirv64v1.3-intel-unknown-unknown"
  "spirv64-amd-amdhsa-unknown spirv64-amd-amdhsa-unknown"
  "arm-unknown-linux-gnueabihf thumb-unknown-linux-gnueabihf"
  "thumb-unknown-linux-gnueabihf arm-unknown-linux-gnueabihf"
  "armv7-unknown-linux-gnueabihf thumbv7-unknown-linux-gnueabihf"
  "armv7a-unknown-linux-gnueabihf thumbv7-unknown-linux-gnueabihf"
  "armv7-unknown-linux-gnueabihf thumbv7m-unknown-linux-gnueabihf"
  "armv7-unknown-linux-gnueabihf thumbv7-unknown-linux-gnueabi"
  "armv7-unknown-linux-gnueabihf thumbv7-pc-linux-gnueabihf"
  "armv7-unknown-linux-gnueabihf thumbv7-unknown-freebsd-gnueabihf"
  "armv7-unknown-linux-gnueabihf thumbv7-unknown-linux-gnueabihf-coff"
  "armv7-unknown-linux-gnueabihf armv7eb-unknown-linux-gnueabihf"
  "armebv7-unknown-linux-gnueabihf thumbebv7-unknown-linux-gnueabihf"
  "armebv7-unknown-linux-gnueabihf thumbv7-unknown-linux-gnueabihf"
  "thumbv6m-unknown-none-eabi armv6m-unknown-none-eabi"
  "armv7-apple-ios thumbv7-apple-ios"
  "armv7-apple-ios thumbv7-apple-ios-simulator"
  "armv7-apple-ios thumbv7-apple-ios9.0"
  "armv7-apple-ios thumbv7s-apple-ios"
  "armv7-apple-ios thumbv7-unknown-ios"
  "thumbv7-unknown-ios armv7-apple-ios"
  "armv7-apple-ios armv7-apple-ios-simulator"
  "arm64-apple-macosx arm64-apple-macosx11.0"
  "arm64-apple-ios arm64-apple-ios-macabi"
  "arm64-apple-ios arm64-apple-ios-elf"
  "arm64-apple-ios aarch64-apple-ios"
  "arm64-apple-ios arm64e-apple-ios"
  "arm64-apple-ios arm64-pc-ios"
  "arm64-pc-ios arm64-apple-ios"
  "arm64-apple-ios arm64-apple-tvos"
  "aarch64-unknown-linux-gnu arm64-unknown-linux-gnu"
  "aarch64-unknown-linux-gnu aarch64_be-unknown-linux-gnu"
  "aarch64-unknown-linux-gnu aarch64v8-unknown-linux-gnu"
  "x86_64-w64-windows-gnu x86_64-pc-windows-gnu"
  "x86_64-pc-windows-gnu x86_64-w64-windows-gnu"
  "x86_64-w64-windows-gnu x86_64-pc-windows-msvc"
  "x86_64-pc-windows-msvc x86_64-w64-windows-msvc"
  "x86_64-pc-windows-msvc x86_64-pc-win32-msvc"
  "x86_64-pc-windows-msvc x86_64-pc-windows-msvc-coff"
  "x86_64-pc-windows-msvc x86_64-pc-windows-msvc-elf"
  "x86_64-w64-windows-gnu x86_64-w64-windows-gnu-elf"
  "armv7-w64-windows-gnu thumbv7-pc-windows-gnu"
  "x86_64-pc-windows-gnu x86_64-pc-windows-gnux32"
  "x86_64-unknown-linux-gnu x86_64-unknown-linux-gnu"
  "mips-unknown-linux-gnu mipsr6-unknown-linux-gnu"
  "mipsisa32r6-unknown-linux-gnu mipsr6-unknown-linux-gnu"
  "powerpc-unknown-linux-gnu powerpcspe-unknown-linux-gnu"
  "powerpc-ibm-aix-unknown powerpc-ibm-aix-elf"
  "bpf-unknown-none-unknown bpfel-unknown-none-unknown"
  "spirv1.4-unknown-unknown-unknown spirv32v1.4-unknown-unknown-unknown"
  "foo-unknown-linux-gnu bar-unknown-linux-gnu"
  "v7-unknown-linux-gnu a-unknown-linux-gnu"
  "iwmmxt-unknown-linux-gnu xscale-unknown-linux-gnu"
)
four_arg_cases=(
  "x86_64|pc|linux|gnu|x86_64-pc-linux-gnu"
  "amdgcn|amd|amdhsa||amdgcn-amd-amdhsa-"
  "amdgcn|amd|amdhsa||amdgcn-amd-amdhsa"
  "mips|unknown|linux||mips"
  "mips||||mips"
  "x86_64|pc|linux|gnu-elf|x86_64-pc-linux-gnu-elf"
  "x86_64|pc|linux|coff|x86_64-pc-linux-coff"
  "armv7-a|unknown|linux|gnueabihf|armv7a-unknown-linux-gnueabihf"
  "armv7-a|unknown|linux|gnueabihf|armv7-a-unknown-linux-gnueabihf"
  "x86_64|pc-linux|gnu||x86_64-pc-linux-gnu"
  "x86_64|pc|linux-gnu||x86_64-pc-linux-gnu"
  "||||"
  "x86_64||||x86_64"
)

# --- Emit rows ---------------------------------------------------------------
emit() { # table, then one argument per field
  local IFS=$'\t'
  printf '%s\n' "$*"
}
section() { printf '\n// ---- %s ----\n' "$1"; }

{
  section arch
  for s in "${arch_spellings[@]}"; do emit arch "$s"; done | probe
  section vendor
  for s in "${vendor_spellings[@]}"; do emit vendor "$s"; done | probe
  section os
  for s in "${os_spellings[@]}"; do emit os "$s"; done | probe
  section environment
  for s in "${env_spellings[@]}"; do emit env "$s"; done | probe
  section names
  for s in "${name_triples[@]}"; do emit names "$s"; done | probe
  section normalize
  for s in "${normalize_inputs[@]}"; do emit normalize "$s"; done | probe
  section compatibility
  for p in "${compat_pairs[@]}"; do
    read -r a b <<<"$p"
    emit pair "$a" "$b"
  done | probe
  section four-argument
  for c in "${four_arg_cases[@]}"; do
    IFS='|' read -r a b o e whole <<<"$c"
    emit four "$a" "$b" "$o" "$e" "$whole"
  done | probe
}

# --- Cross-checks against the tools -----------------------------------------
disagreements=0
disagree() {
  echo "DISAGREEMENT: $*" >&2
  disagreements=$((disagreements + 1))
}
printf x >"$work/input"

# Writes one bundle with "openmp-<triple>" next to the host; prints the ID the
# bundler wrote, or "unknown" when it rejected the triple's architecture.
bundled_id() {
  local target="openmp-$1"
  if ! "$bundler" -type=ll -targets="host-x86_64-unknown-linux-gnu,$target" \
    -input="$work/input" -input="$work/input" -output="$work/bundle" \
    2>"$work/error"; then
    if grep -q "unknown target triple" "$work/error"; then
      echo unknown
    else
      echo "error: $(cat "$work/error")"
    fi
    return
  fi
  grep -o 'START__ openmp-.*' "$work/bundle" | sed 's/^START__ openmp-//'
}

checked=0
# Every architecture spelling, and four-field normalisation of every OS and
# environment spelling, through the bundler's written entry IDs.
four_field_triples=()
for s in "${arch_spellings[@]}"; do
  [[ -n "$s" && "$s" != *-* ]] && four_field_triples+=("$s-unknown-linux-gnu")
done
for s in "${os_spellings[@]}"; do
  [[ -n "$s" ]] && four_field_triples+=("x86_64-pc-$s-gnu" "amdgcn-amd-$s-gnu")
done
for s in "${env_spellings[@]}"; do
  [[ -n "$s" && "$s" != *-* ]] && four_field_triples+=("x86_64-pc-linux-$s")
done
for s in "${normalize_inputs[@]}"; do
  IFS=- read -r -a parts <<<"$s"
  if [[ "$s" != -* && "$s" != *- && "$s" != *--* && ${#parts[@]} -eq 4 ]]; then
    four_field_triples+=("$s")
  fi
done
for t in "${four_field_triples[@]}"; do
  known=$(emit raw-known "$t" | probe)
  id=$(bundled_id "$t-")
  if [[ "$known" == 0 ]]; then
    [[ "$id" == unknown ]] || disagree "bundler accepted $t: $id"
  else
    expected="$(emit raw-id "$t" | probe)"
    [[ "$id" == "$expected" ]] || disagree "bundler wrote $id for $t, probe $expected"
  fi
  checked=$((checked + 1))
done

# normalize(ANY) through clang's -print-target-triple, where clang accepts
# the triple and leaves it alone: it rejects some OS versions, rewrites Darwin
# triples, and reads "-pc-gnu" / "-unknown-gnu" as GNU Hurd before
# normalising.
for s in "${normalize_inputs[@]}"; do
  [[ -z "$s" || "$s" == *apple* || "$s" == *darwin* || "$s" == *macos* ]] && continue
  [[ "$s" == *-pc-gnu* || "$s" == *-unknown-gnu* ]] && continue
  if out=$("$clang" --target="$s" -print-target-triple 2>/dev/null); then
    expected=$(emit raw-any "$s" | probe)
    [[ "$out" == "$expected" ]] || disagree "clang printed $out for $s, probe $expected"
    checked=$((checked + 1))
  fi
done

# isCompatibleWith through unbundling the first triple's entry with the
# second spelling. AMDHSA pairs are left out: the bundler drops the
# environment of AMDHSA targets on both sides before comparing, so it does
# not show isCompatibleWith there.
for p in "${compat_pairs[@]}"; do
  read -r a b <<<"$p"
  [[ "$a" == *amdhsa* || "$b" == *amdhsa* ]] && continue
  IFS=- read -r -a fields_a <<<"$a"
  IFS=- read -r -a fields_b <<<"$b"
  [[ ${#fields_a[@]} -eq 4 && ${#fields_b[@]} -eq 4 ]] || continue
  [[ "$a" != *- && "$b" != *- ]] || continue
  [[ "$(bundled_id "$a-")" != unknown && "$(bundled_id "$b-")" != unknown ]] || continue
  bundled_id "$a-" >/dev/null
  rm -f "$work/out"
  "$bundler" -type=ll -unbundle -targets="openmp-$b-" -input="$work/bundle" \
    -output="$work/out" -allow-missing-bundles 2>/dev/null || true
  if [[ -s "$work/out" ]]; then seen=1; else seen=0; fi
  expected=$(emit raw-compat "$a" "$b" | probe)
  [[ "$seen" == "$expected" ]] || disagree "unbundling $a as $b gave $seen, probe $expected"
  checked=$((checked + 1))
done

echo "cross-checked $checked cases against the tools, $disagreements disagreements" >&2
[[ $disagreements -eq 0 ]]
