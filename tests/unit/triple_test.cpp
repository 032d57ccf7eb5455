// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Unit tests for targets/triple.h.
//
// Every expected value in these tables was observed from LLVM 22.1, not
// worked out by hand: scripts/collect_triple_cases.sh reads them from LLVM
// 22's own llvm::Triple (a small probe linked against the installed libLLVM,
// the library clang-offload-bundler and clang run on) and prints these rows.
// It also checks every case the tools can show against the tools themselves
// and stops on any disagreement: the entry IDs clang-offload-bundler writes
// (THREE_IDENT plus '-' for AMDHSA, FOUR_IDENT otherwise), its "unknown target
// triple" errors, `clang --target=X -print-target-triple` for normalize(ANY),
// and whether unbundling an entry with another spelling finds it.
//
// The parsed fields are private, so the parse tables are checked through
// operator==: two triples must compare equal exactly when LLVM parsed the
// same field values for them.
#include "targets/triple.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace offbundle {
namespace {

// ---------------------------------------------------------------------------
// Architecture spellings, each parsed as "<spelling>-unknown-linux-gnu".
// llvmArch is llvm::Triple::getArchTypeName(getArch()); llvmSubArch is the
// position of getSubArch() in llvm::Triple::SubArchType.
// ---------------------------------------------------------------------------

struct ArchCase {
  const char *spelling;
  const char *llvmArch;
  int llvmSubArch;
};

constexpr ArchCase archCases[] = {
    {"i386", "i386", 0},
    {"i486", "i386", 0},
    {"i586", "i386", 0},
    {"i686", "i386", 0},
    {"i786", "i386", 0},
    {"i886", "i386", 0},
    {"i986", "i386", 0},
    {"x86", "unknown", 0},
    {"amd64", "x86_64", 0},
    {"x86_64", "x86_64", 0},
    {"x86_64h", "x86_64", 0},
    {"x86-64", "unknown", 0},
    {"x86_64_lfi", "unknown", 0},
    {"powerpc", "powerpc", 0},
    {"powerpcspe", "powerpc", 43},
    {"ppc", "powerpc", 0},
    {"ppc32", "powerpc", 0},
    {"powerpcle", "powerpcle", 0},
    {"ppcle", "powerpcle", 0},
    {"ppc32le", "powerpcle", 0},
    {"powerpc64", "powerpc64", 0},
    {"ppu", "powerpc64", 0},
    {"ppc64", "powerpc64", 0},
    {"powerpc64le", "powerpc64le", 0},
    {"ppc64le", "powerpc64le", 0},
    {"aarch64", "aarch64", 18},
    {"aarch64_be", "aarch64_be", 0},
    {"aarch64_32", "aarch64_32", 0},
    {"aarch64_lfi", "aarch64", 38},
    {"arm64", "aarch64", 18},
    {"arm64_32", "aarch64_32", 0},
    {"arm64e", "aarch64", 36},
    {"arm64ec", "aarch64", 37},
    {"arm64x", "aarch64", 0},
    {"arm64eb", "aarch64_be", 0},
    {"aarch64eb", "unknown", 0},
    {"aarch64v8", "aarch64", 18},
    {"aarch64_bev8", "aarch64_be", 18},
    {"aarch64_32v8", "aarch64", 18},
    {"aarch64v6m", "thumb", 30},
    {"arm", "arm", 0},
    {"armeb", "armeb", 0},
    {"thumb", "thumb", 0},
    {"thumbeb", "thumbeb", 0},
    {"xscale", "arm", 34},
    {"xscaleeb", "armeb", 34},
    {"armx", "arm", 0},
    {"armv", "arm", 0},
    {"armv2", "arm", 0},
    {"armv2a", "arm", 0},
    {"armv3", "arm", 0},
    {"armv3m", "arm", 0},
    {"armv4", "arm", 0},
    {"armv4t", "arm", 35},
    {"armv5", "arm", 33},
    {"armv5e", "arm", 34},
    {"armv5t", "arm", 33},
    {"armv5te", "arm", 34},
    {"armv5tej", "arm", 34},
    {"armv6", "arm", 29},
    {"armv6j", "arm", 29},
    {"armv6k", "arm", 31},
    {"armv6hl", "arm", 31},
    {"armv6kz", "arm", 31},
    {"armv6z", "arm", 31},
    {"armv6zk", "arm", 31},
    {"armv6t2", "arm", 32},
    {"armv6m", "thumb", 30},
    {"armv6sm", "thumb", 30},
    {"armv7", "arm", 23},
    {"armv7a", "arm", 23},
    {"armv7hl", "arm", 23},
    {"armv7l", "arm", 23},
    {"armv7r", "arm", 23},
    {"armv7m", "arm", 25},
    {"armv7em", "arm", 24},
    {"armv7ve", "arm", 28},
    {"armv7s", "arm", 26},
    {"armv7k", "arm", 27},
    {"armv8", "arm", 18},
    {"armv8a", "arm", 18},
    {"armv8l", "arm", 18},
    {"armv8.1a", "arm", 17},
    {"armv8.2a", "arm", 16},
    {"armv8.3a", "arm", 15},
    {"armv8.4a", "arm", 14},
    {"armv8.5a", "arm", 13},
    {"armv8.6a", "arm", 12},
    {"armv8.7a", "arm", 11},
    {"armv8.8a", "arm", 10},
    {"armv8.9a", "arm", 9},
    {"armv8r", "arm", 19},
    {"armv8m.base", "arm", 20},
    {"armv8m.main", "arm", 21},
    {"armv8.1m.main", "arm", 22},
    {"armv9", "arm", 8},
    {"armv9a", "arm", 8},
    {"armv9.1a", "arm", 7},
    {"armv9.2a", "arm", 6},
    {"armv9.3a", "arm", 5},
    {"armv9.4a", "arm", 4},
    {"armv9.5a", "arm", 3},
    {"armv9.6a", "arm", 2},
    {"armv9.7a", "arm", 1},
    {"armv10", "arm", 0},
    {"armv7x", "arm", 0},
    {"armebv7", "armeb", 23},
    {"armv7eb", "armeb", 23},
    {"armebv7eb", "unknown", 0},
    {"armebv6m", "thumbeb", 30},
    {"armv6meb", "thumbeb", 30},
    {"thumbv2", "unknown", 0},
    {"thumbv3", "unknown", 0},
    {"thumbv4t", "thumb", 35},
    {"thumbv5", "thumb", 33},
    {"thumbv6", "thumb", 29},
    {"thumbv6m", "thumb", 30},
    {"thumbv7", "thumb", 23},
    {"thumbv7a", "thumb", 23},
    {"thumbv7m", "thumb", 25},
    {"thumbv7em", "thumb", 24},
    {"thumbv7s", "thumb", 26},
    {"thumbv7k", "thumb", 27},
    {"thumbv8", "thumb", 18},
    {"thumbv8m.base", "thumb", 20},
    {"thumbv8m.main", "thumb", 21},
    {"thumbv8.1m.main", "thumb", 22},
    {"thumbebv7", "thumbeb", 23},
    {"thumbv7eb", "thumbeb", 23},
    {"thumbebv6m", "thumbeb", 30},
    {"iwmmxt", "unknown", 34},
    {"iwmmxt2", "unknown", 34},
    {"v7", "unknown", 23},
    {"v7a", "unknown", 23},
    {"v8", "unknown", 18},
    {"m", "unknown", 30},
    {"e", "unknown", 34},
    {"a", "unknown", 23},
    {"mips", "mips", 0},
    {"mipseb", "mips", 0},
    {"mipsallegrex", "mips", 0},
    {"mipsisa32r6", "mips", 42},
    {"mipsr6", "mips", 42},
    {"mipsel", "mipsel", 0},
    {"mipsallegrexel", "mipsel", 0},
    {"mipsisa32r6el", "mipsel", 42},
    {"mipsr6el", "mipsel", 42},
    {"mips64", "mips64", 0},
    {"mips64eb", "mips64", 0},
    {"mipsn32", "mips64", 0},
    {"mipsisa64r6", "mips64", 42},
    {"mips64r6", "mips64", 42},
    {"mipsn32r6", "mips64", 42},
    {"mips64el", "mips64el", 0},
    {"mipsn32el", "mips64el", 0},
    {"mipsisa64r6el", "mips64el", 42},
    {"mips64r6el", "mips64el", 42},
    {"mipsn32r6el", "mips64el", 42},
    {"mipsfoo", "unknown", 0},
    {"amdgcn", "amdgcn", 0},
    {"r600", "r600", 0},
    {"amdgpu", "unknown", 0},
    {"nvptx", "nvptx", 0},
    {"nvptx64", "nvptx64", 0},
    {"amdil", "amdil", 0},
    {"amdil64", "amdil64", 0},
    {"hsail", "hsail", 0},
    {"hsail64", "hsail64", 0},
    {"spir", "spir", 0},
    {"spir64", "spir64", 0},
    {"spirv", "spirv", 0},
    {"spirv1.0", "unknown", 44},
    {"spirv1.4", "unknown", 48},
    {"spirv1.5", "spirv", 49},
    {"spirv1.6", "spirv", 50},
    {"spirv32", "spirv32", 0},
    {"spirv32v1.0", "spirv32", 44},
    {"spirv32v1.1", "spirv32", 45},
    {"spirv32v1.2", "spirv32", 46},
    {"spirv32v1.3", "spirv32", 47},
    {"spirv32v1.4", "spirv32", 48},
    {"spirv32v1.5", "spirv32", 49},
    {"spirv32v1.6", "spirv32", 50},
    {"spirv64", "spirv64", 0},
    {"spirv64v1.0", "spirv64", 44},
    {"spirv64v1.1", "spirv64", 45},
    {"spirv64v1.2", "spirv64", 46},
    {"spirv64v1.3", "spirv64", 47},
    {"spirv64v1.4", "spirv64", 48},
    {"spirv64v1.5", "spirv64", 49},
    {"spirv64v1.6", "spirv64", 50},
    {"spirv64v1.7", "unknown", 0},
    {"spirvx", "unknown", 0},
    {"dxil", "dxil", 0},
    {"dxilv1.0", "dxil", 51},
    {"dxilv1.1", "dxil", 52},
    {"dxilv1.2", "dxil", 53},
    {"dxilv1.3", "dxil", 54},
    {"dxilv1.4", "dxil", 55},
    {"dxilv1.5", "dxil", 56},
    {"dxilv1.6", "dxil", 57},
    {"dxilv1.7", "dxil", 58},
    {"dxilv1.8", "dxil", 59},
    {"dxilv1.9", "dxil", 60},
    {"dxilv1.10", "unknown", 0},
    {"renderscript32", "renderscript32", 0},
    {"renderscript64", "renderscript64", 0},
    {"riscv32", "riscv32", 0},
    {"riscv64", "riscv64", 0},
    {"riscv32be", "riscv32be", 0},
    {"riscv64be", "riscv64be", 0},
    {"hexagon", "hexagon", 0},
    {"s390x", "s390x", 0},
    {"systemz", "s390x", 0},
    {"sparc", "sparc", 0},
    {"sparcel", "sparcel", 0},
    {"sparcv9", "sparcv9", 0},
    {"sparc64", "sparcv9", 0},
    {"tce", "tce", 0},
    {"tcele", "tcele", 0},
    {"tcele64", "unknown", 0},
    {"xcore", "xcore", 0},
    {"kalimba", "kalimba", 0},
    {"kalimba3", "kalimba", 0},
    {"kalimba4", "kalimba", 0},
    {"kalimba5", "kalimba", 0},
    {"kalimbax", "kalimba", 0},
    {"lanai", "lanai", 0},
    {"shave", "shave", 0},
    {"ve", "ve", 28},
    {"wasm32", "wasm32", 0},
    {"wasm64", "wasm64", 0},
    {"wasm", "unknown", 0},
    {"csky", "csky", 0},
    {"loongarch32", "loongarch32", 0},
    {"loongarch64", "loongarch64", 0},
    {"xtensa", "xtensa", 0},
    {"arc", "arc", 0},
    {"avr", "avr", 0},
    {"m68k", "m68k", 0},
    {"msp430", "msp430", 0},
    {"bpf", "bpfel", 0},
    {"bpfel", "bpfel", 0},
    {"bpfeb", "bpfeb", 0},
    {"bpf_le", "bpfel", 0},
    {"bpf_be", "bpfeb", 0},
    {"bpfx", "unknown", 0},
    {"pe", "unknown", 0},
    {"unknown", "unknown", 0},
    {"foo", "unknown", 0},
    {"", "unknown", 0},
};

// ---------------------------------------------------------------------------
// Vendor spellings, parsed as "x86_64-<spelling>-linux-gnu".
// ---------------------------------------------------------------------------

struct VendorCase {
  const char *spelling;
  const char *llvmVendor;
};

constexpr VendorCase vendorCases[] = {
    {"apple", "apple"},     {"pc", "pc"},           {"scei", "scei"},
    {"sie", "scei"},        {"fsl", "fsl"},         {"ibm", "ibm"},
    {"img", "img"},         {"mti", "mti"},         {"nvidia", "nvidia"},
    {"csr", "csr"},         {"amd", "amd"},         {"mesa", "mesa"},
    {"suse", "suse"},       {"oe", "oe"},           {"intel", "intel"},
    {"meta", "meta"},       {"unknown", "unknown"}, {"w64", "unknown"},
    {"Apple", "unknown"},   {"AMD", "unknown"},     {"amdx", "unknown"},
    {"nvidia2", "unknown"}, {"", "unknown"},
};

// ---------------------------------------------------------------------------
// OS spellings, parsed as "x86_64-unknown-<spelling>-gnu"; the object format
// is the one LLVM derives from the architecture and OS.
// ---------------------------------------------------------------------------

struct OSCase {
  const char *spelling;
  const char *llvmOS;
  const char *llvmObjectFormat;
};

constexpr OSCase osCases[] = {
    {"darwin", "darwin", "macho"},
    {"darwin20", "darwin", "macho"},
    {"dragonfly", "dragonfly", "elf"},
    {"freebsd", "freebsd", "elf"},
    {"freebsd13.1", "freebsd", "elf"},
    {"fuchsia", "fuchsia", "elf"},
    {"ios", "ios", "macho"},
    {"ios14.0", "ios", "macho"},
    {"kfreebsd", "kfreebsd", "elf"},
    {"linux", "linux", "elf"},
    {"linux6", "linux", "elf"},
    {"lv2", "lv2", "elf"},
    {"macos", "macosx", "macho"},
    {"macos10.15", "macosx", "macho"},
    {"macosx", "macosx", "macho"},
    {"macosx11.0", "macosx", "macho"},
    {"managarm", "managarm", "elf"},
    {"netbsd", "netbsd", "elf"},
    {"openbsd", "openbsd", "elf"},
    {"solaris", "solaris", "elf"},
    {"solaris2.11", "solaris", "elf"},
    {"uefi", "uefi", "coff"},
    {"win32", "windows", "coff"},
    {"windows", "windows", "coff"},
    {"windows10", "windows", "coff"},
    {"zos", "zos", "elf"},
    {"haiku", "haiku", "elf"},
    {"rtems", "rtems", "elf"},
    {"aix", "aix", "elf"},
    {"aix7.2", "aix", "elf"},
    {"cuda", "cuda", "elf"},
    {"cuda12", "cuda", "elf"},
    {"nvcl", "nvcl", "elf"},
    {"amdhsa", "amdhsa", "elf"},
    {"amdhsa5", "amdhsa", "elf"},
    {"amdhsafoo", "amdhsa", "elf"},
    {"ps4", "ps4", "elf"},
    {"ps5", "ps5", "elf"},
    {"elfiamcu", "elfiamcu", "elf"},
    {"tvos", "tvos", "macho"},
    {"watchos", "watchos", "macho"},
    {"bridgeos", "bridgeos", "macho"},
    {"driverkit", "driverkit", "macho"},
    {"xros", "xros", "macho"},
    {"visionos", "xros", "macho"},
    {"visionos1", "xros", "macho"},
    {"mesa3d", "mesa3d", "elf"},
    {"amdpal", "amdpal", "elf"},
    {"hermit", "hermit", "elf"},
    {"hurd", "hurd", "elf"},
    {"wasi", "wasi", "elf"},
    {"wasip1", "wasip1", "elf"},
    {"wasip2", "wasip2", "elf"},
    {"wasip3", "wasip3", "elf"},
    {"wasip4", "wasi", "elf"},
    {"emscripten", "emscripten", "elf"},
    {"shadermodel", "shadermodel", "elf"},
    {"shadermodel6.3", "shadermodel", "elf"},
    {"liteos", "liteos", "elf"},
    {"serenity", "serenity", "elf"},
    {"vulkan", "vulkan", "elf"},
    {"vulkan1.3", "vulkan", "elf"},
    {"cheriotrtos", "cheriotrtos", "elf"},
    {"none", "unknown", "elf"},
    {"unknown", "unknown", "elf"},
    {"mingw32", "unknown", "elf"},
    {"cygwin", "unknown", "elf"},
    {"msys", "unknown", "elf"},
    {"firmware", "unknown", "elf"},
    {"opencl", "unknown", "elf"},
    {"chipstar", "unknown", "elf"},
    {"qurt", "unknown", "elf"},
    {"Linux", "unknown", "elf"},
    {"lin", "unknown", "elf"},
    {"", "unknown", "elf"},
};

// ---------------------------------------------------------------------------
// Environment spellings, parsed as "x86_64-unknown-linux-<spelling>"; the
// environment component may also name the object format.
// ---------------------------------------------------------------------------

struct EnvironmentCase {
  const char *spelling;
  const char *llvmEnvironment;
  const char *llvmObjectFormat;
};

constexpr EnvironmentCase environmentCases[] = {
    {"eabihf", "eabihf", "elf"},
    {"eabi", "eabi", "elf"},
    {"gnuabin32", "gnuabin32", "elf"},
    {"gnuabi64", "gnuabi64", "elf"},
    {"gnueabihft64", "gnueabihft64", "elf"},
    {"gnueabihf", "gnueabihf", "elf"},
    {"gnueabit64", "gnueabit64", "elf"},
    {"gnueabi", "gnueabi", "elf"},
    {"gnuf32", "gnuf32", "elf"},
    {"gnuf64", "gnuf64", "elf"},
    {"gnusf", "gnusf", "elf"},
    {"gnux32", "gnux32", "elf"},
    {"gnu_ilp32", "gnu_ilp32", "elf"},
    {"code16", "code16", "elf"},
    {"gnut64", "gnut64", "elf"},
    {"gnu", "gnu", "elf"},
    {"android", "android", "elf"},
    {"android21", "android", "elf"},
    {"androideabi", "android", "elf"},
    {"muslabin32", "muslabin32", "elf"},
    {"muslabi64", "muslabi64", "elf"},
    {"musleabihf", "musleabihf", "elf"},
    {"musleabi", "musleabi", "elf"},
    {"muslf32", "muslf32", "elf"},
    {"muslsf", "muslsf", "elf"},
    {"muslx32", "muslx32", "elf"},
    {"muslwali", "muslwali", "elf"},
    {"musl", "musl", "elf"},
    {"msvc", "msvc", "elf"},
    {"msvc19", "msvc", "elf"},
    {"itanium", "itanium", "elf"},
    {"cygnus", "cygnus", "elf"},
    {"coreclr", "coreclr", "elf"},
    {"simulator", "simulator", "elf"},
    {"macabi", "macabi", "elf"},
    {"pixel", "pixel", "elf"},
    {"vertex", "vertex", "elf"},
    {"geometry", "geometry", "elf"},
    {"hull", "hull", "elf"},
    {"domain", "domain", "elf"},
    {"compute", "compute", "elf"},
    {"library", "library", "elf"},
    {"raygeneration", "raygeneration", "elf"},
    {"intersection", "intersection", "elf"},
    {"anyhit", "anyhit", "elf"},
    {"closesthit", "closesthit", "elf"},
    {"miss", "miss", "elf"},
    {"callable", "callable", "elf"},
    {"mesh", "mesh", "elf"},
    {"amplification", "amplification", "elf"},
    {"rootsignature", "rootsignature", "elf"},
    {"opencl", "opencl", "elf"},
    {"ohos", "ohos", "elf"},
    {"mlibc", "mlibc", "elf"},
    {"pauthtest", "pauthtest", "elf"},
    {"llvm", "llvm", "elf"},
    {"mtia", "mtia", "elf"},
    {"elf", "unknown", "elf"},
    {"coff", "unknown", "coff"},
    {"xcoff", "unknown", "xcoff"},
    {"goff", "unknown", "goff"},
    {"macho", "unknown", "macho"},
    {"wasm", "unknown", "wasm"},
    {"spirv", "unknown", "spirv"},
    {"dxcontainer", "unknown", "elf"},
    {"gnu-elf", "gnu", "elf"},
    {"msvc-coff", "msvc", "coff"},
    {"musl-macho", "musl", "macho"},
    {"gnuelf", "gnu", "elf"},
    {"elfgnu", "unknown", "elf"},
    {"none", "unknown", "elf"},
    {"unknown", "unknown", "elf"},
    {"GNU", "unknown", "elf"},
    {"", "unknown", "elf"},
};

// ---------------------------------------------------------------------------
// llvm::Triple::normalize(text, Form) in the forms ANY, THREE_IDENT,
// FOUR_IDENT and FIVE_IDENT.
// ---------------------------------------------------------------------------

struct NormalizeCase {
  const char *input;
  const char *any;
  const char *threeIdent;
  const char *fourIdent;
  const char *fiveIdent;
};

constexpr NormalizeCase normalizeCases[] = {
    {"", "unknown", "unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown-unknown"},
    {"-", "unknown-unknown", "unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown-unknown"},
    {"--", "unknown-unknown-unknown", "unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown-unknown"},
    {"---", "unknown-unknown-unknown-unknown", "unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown",
     "unknown-unknown-unknown-unknown-unknown"},
    {"x86_64", "x86_64", "x86_64-unknown-unknown",
     "x86_64-unknown-unknown-unknown",
     "x86_64-unknown-unknown-unknown-unknown"},
    {"i686", "i686", "i686-unknown-unknown", "i686-unknown-unknown-unknown",
     "i686-unknown-unknown-unknown-unknown"},
    {"mips", "mips", "mips-unknown-unknown", "mips-unknown-unknown-unknown",
     "mips-unknown-unknown-unknown-unknown"},
    {"mips64", "mips64", "mips64-unknown-unknown",
     "mips64-unknown-unknown-unknown",
     "mips64-unknown-unknown-unknown-unknown"},
    {"amdgcn", "amdgcn", "amdgcn-unknown-unknown",
     "amdgcn-unknown-unknown-unknown",
     "amdgcn-unknown-unknown-unknown-unknown"},
    {"foo", "foo", "foo-unknown-unknown", "foo-unknown-unknown-unknown",
     "foo-unknown-unknown-unknown-unknown"},
    {"foo-bar", "foo-bar", "foo-bar-unknown", "foo-bar-unknown-unknown",
     "foo-bar-unknown-unknown-unknown"},
    {"foo-bar-baz", "foo-bar-baz", "foo-bar-baz", "foo-bar-baz-unknown",
     "foo-bar-baz-unknown-unknown"},
    {"foo-bar-baz-qux", "foo-bar-baz-qux", "foo-bar-baz", "foo-bar-baz-qux",
     "foo-bar-baz-qux-unknown"},
    {"foo-bar-baz-qux-quux", "foo-bar-baz-qux-quux", "foo-bar-baz",
     "foo-bar-baz-qux", "foo-bar-baz-qux-quux"},
    {"x86_64-linux", "x86_64-unknown-linux", "x86_64-unknown-linux",
     "x86_64-unknown-linux-unknown", "x86_64-unknown-linux-unknown-unknown"},
    {"x86_64-linux-gnu", "x86_64-unknown-linux-gnu", "x86_64-unknown-linux",
     "x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu-unknown"},
    {"x86_64-pc", "x86_64-pc", "x86_64-pc-unknown", "x86_64-pc-unknown-unknown",
     "x86_64-pc-unknown-unknown-unknown"},
    {"x86_64-pc-linux", "x86_64-pc-linux", "x86_64-pc-linux",
     "x86_64-pc-linux-unknown", "x86_64-pc-linux-unknown-unknown"},
    {"x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"x86_64-unknown-linux-gnu-elf", "x86_64-unknown-linux-gnu-elf",
     "x86_64-unknown-linux", "x86_64-unknown-linux-gnu",
     "x86_64-unknown-linux-gnu-elf"},
    {"x86_64-pc-linux-gnu-elf-foo", "x86_64-pc-linux-gnu-elf-foo",
     "x86_64-pc-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-elf"},
    {"x86_64-pc-linux-gnu-elf-foo-bar", "x86_64-pc-linux-gnu-elf-foo-bar",
     "x86_64-pc-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-elf"},
    {"linux-x86_64", "x86_64-unknown-linux", "x86_64-unknown-linux",
     "x86_64-unknown-linux-unknown", "x86_64-unknown-linux-unknown-unknown"},
    {"linux-x86_64-gnu", "x86_64-unknown-linux-gnu", "x86_64-unknown-linux",
     "x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu-unknown"},
    {"gnu-linux-pc-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-x86_64", "x86_64-pc", "x86_64-pc-unknown", "x86_64-pc-unknown-unknown",
     "x86_64-pc-unknown-unknown-unknown"},
    {"pc-linux", "unknown-pc-linux", "unknown-pc-linux",
     "unknown-pc-linux-unknown", "unknown-pc-linux-unknown-unknown"},
    {"pc-linux-x86_64-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux", "unknown-unknown-linux", "unknown-unknown-linux",
     "unknown-unknown-linux-unknown", "unknown-unknown-linux-unknown-unknown"},
    {"gnu", "unknown-unknown-unknown-gnu", "unknown-unknown-unknown",
     "unknown-unknown-unknown-gnu", "unknown-unknown-unknown-gnu-unknown"},
    {"pc", "unknown-pc", "unknown-pc-unknown", "unknown-pc-unknown-unknown",
     "unknown-pc-unknown-unknown-unknown"},
    {"a-b-i386", "i386-a-b", "i386-a-b", "i386-a-b-unknown",
     "i386-a-b-unknown-unknown"},
    {"a-pc-b-i386", "i386-pc-a-b", "i386-pc-a", "i386-pc-a-b",
     "i386-pc-a-b-unknown"},
    {"i386-a-b-pc", "i386-pc-a-b", "i386-pc-a", "i386-pc-a-b",
     "i386-pc-a-b-unknown"},
    {"i386-pc-gnu", "i386-pc-unknown-gnu", "i386-pc-unknown",
     "i386-pc-unknown-gnu", "i386-pc-unknown-gnu-unknown"},
    {"i386-gnu-linux", "i386-unknown-linux-gnu", "i386-unknown-linux",
     "i386-unknown-linux-gnu", "i386-unknown-linux-gnu-unknown"},
    {"x86_64-gnu", "x86_64-unknown-unknown-gnu", "x86_64-unknown-unknown",
     "x86_64-unknown-unknown-gnu", "x86_64-unknown-unknown-gnu-unknown"},
    {"x86_64--linux-gnu", "x86_64-unknown-linux-gnu", "x86_64-unknown-linux",
     "x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu-unknown"},
    {"x86_64-pc--gnu", "x86_64-pc-unknown-gnu", "x86_64-pc-unknown",
     "x86_64-pc-unknown-gnu", "x86_64-pc-unknown-gnu-unknown"},
    {"-pc-linux-gnu", "unknown-pc-linux-gnu", "unknown-pc-linux",
     "unknown-pc-linux-gnu", "unknown-pc-linux-gnu-unknown"},
    {"x86_64-pc-linux-", "x86_64-pc-linux-unknown", "x86_64-pc-linux",
     "x86_64-pc-linux-unknown", "x86_64-pc-linux-unknown-unknown"},
    {"x86_64---", "x86_64-unknown-unknown-unknown", "x86_64-unknown-unknown",
     "x86_64-unknown-unknown-unknown",
     "x86_64-unknown-unknown-unknown-unknown"},
    {"--linux-", "unknown-unknown-linux-unknown", "unknown-unknown-linux",
     "unknown-unknown-linux-unknown", "unknown-unknown-linux-unknown-unknown"},
    {"amdgcn-amd-amdhsa", "amdgcn-amd-amdhsa", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-unknown", "amdgcn-amd-amdhsa-unknown-unknown"},
    {"amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdgcn-amdhsa", "amdgcn-unknown-amdhsa", "amdgcn-unknown-amdhsa",
     "amdgcn-unknown-amdhsa-unknown", "amdgcn-unknown-amdhsa-unknown-unknown"},
    {"amdhsa-amdgcn", "amdgcn-unknown-amdhsa", "amdgcn-unknown-amdhsa",
     "amdgcn-unknown-amdhsa-unknown", "amdgcn-unknown-amdhsa-unknown-unknown"},
    {"amd-amdgcn", "amdgcn-amd", "amdgcn-amd-unknown",
     "amdgcn-amd-unknown-unknown", "amdgcn-amd-unknown-unknown-unknown"},
    {"amdgcn-amd-amdhsa5", "amdgcn-amd-amdhsa5", "amdgcn-amd-amdhsa5",
     "amdgcn-amd-amdhsa5-unknown", "amdgcn-amd-amdhsa5-unknown-unknown"},
    {"amdgcn-amd-amdpal", "amdgcn-amd-amdpal", "amdgcn-amd-amdpal",
     "amdgcn-amd-amdpal-unknown", "amdgcn-amd-amdpal-unknown-unknown"},
    {"amdgcn-mesa-mesa3d", "amdgcn-mesa-mesa3d", "amdgcn-mesa-mesa3d",
     "amdgcn-mesa-mesa3d-unknown", "amdgcn-mesa-mesa3d-unknown-unknown"},
    {"r600-amd-amdhsa", "r600-amd-amdhsa", "r600-amd-amdhsa",
     "r600-amd-amdhsa-unknown", "r600-amd-amdhsa-unknown-unknown"},
    {"nvptx64-nvidia-cuda", "nvptx64-nvidia-cuda", "nvptx64-nvidia-cuda",
     "nvptx64-nvidia-cuda-unknown", "nvptx64-nvidia-cuda-unknown-unknown"},
    {"nvptx64-cuda", "nvptx64-unknown-cuda", "nvptx64-unknown-cuda",
     "nvptx64-unknown-cuda-unknown", "nvptx64-unknown-cuda-unknown-unknown"},
    {"nvptx-nvidia-cuda", "nvptx-nvidia-cuda", "nvptx-nvidia-cuda",
     "nvptx-nvidia-cuda-unknown", "nvptx-nvidia-cuda-unknown-unknown"},
    {"nvptx64-nvidia-nvcl", "nvptx64-nvidia-nvcl", "nvptx64-nvidia-nvcl",
     "nvptx64-nvidia-nvcl-unknown", "nvptx64-nvidia-nvcl-unknown-unknown"},
    {"cuda-nvptx64", "nvptx64-unknown-cuda", "nvptx64-unknown-cuda",
     "nvptx64-unknown-cuda-unknown", "nvptx64-unknown-cuda-unknown-unknown"},
    {"spirv64-amd-amdhsa", "spirv64-amd-amdhsa", "spirv64-amd-amdhsa",
     "spirv64-amd-amdhsa-unknown", "spirv64-amd-amdhsa-unknown-unknown"},
    {"spirv64-intel-unknown", "spirv64-intel-unknown", "spirv64-intel-unknown",
     "spirv64-intel-unknown-unknown", "spirv64-intel-unknown-unknown-unknown"},
    {"spirv-unknown-vulkan1.3", "spirv-unknown-vulkan1.3",
     "spirv-unknown-vulkan1.3", "spirv-unknown-vulkan1.3-unknown",
     "spirv-unknown-vulkan1.3-unknown-unknown"},
    {"spirv1.6-unknown-vulkan1.3-compute", "spirv1.6-unknown-vulkan1.3-compute",
     "spirv1.6-unknown-vulkan1.3", "spirv1.6-unknown-vulkan1.3-compute",
     "spirv1.6-unknown-vulkan1.3-compute-unknown"},
    {"armv7-linux-gnueabihf", "armv7-unknown-linux-gnueabihf",
     "armv7-unknown-linux", "armv7-unknown-linux-gnueabihf",
     "armv7-unknown-linux-gnueabihf-unknown"},
    {"armv7-unknown-linux-gnueabi", "armv7-unknown-linux-gnueabi",
     "armv7-unknown-linux", "armv7-unknown-linux-gnueabi",
     "armv7-unknown-linux-gnueabi-unknown"},
    {"arm-none-eabi", "arm-unknown-none-eabi", "arm-unknown-none",
     "arm-unknown-none-eabi", "arm-unknown-none-eabi-unknown"},
    {"arm-none-none-eabi", "arm-none-none-eabi", "arm-none-none",
     "arm-none-none-eabi", "arm-none-none-eabi-unknown"},
    {"thumbv7m-none-eabi", "thumbv7m-unknown-none-eabi",
     "thumbv7m-unknown-none", "thumbv7m-unknown-none-eabi",
     "thumbv7m-unknown-none-eabi-unknown"},
    {"aarch64-none-elf", "aarch64-unknown-none-elf", "aarch64-unknown-none",
     "aarch64-unknown-none-elf", "aarch64-unknown-none-elf-unknown"},
    {"aarch64-none-linux-gnu", "aarch64-none-linux-gnu", "aarch64-none-linux",
     "aarch64-none-linux-gnu", "aarch64-none-linux-gnu-unknown"},
    {"riscv64-none-elf", "riscv64-unknown-none-elf", "riscv64-unknown-none",
     "riscv64-unknown-none-elf", "riscv64-unknown-none-elf-unknown"},
    {"arm-none-foo", "arm-none-foo", "arm-none-foo", "arm-none-foo-unknown",
     "arm-none-foo-unknown-unknown"},
    {"armv7a-suse-linux-gnueabi", "armv7a-suse-linux-gnueabihf",
     "armv7a-suse-linux", "armv7a-suse-linux-gnueabihf",
     "armv7a-suse-linux-gnueabihf-unknown"},
    {"armv7a-suse-linux-gnueabihf", "armv7a-suse-linux-gnueabihf",
     "armv7a-suse-linux", "armv7a-suse-linux-gnueabihf",
     "armv7a-suse-linux-gnueabihf-unknown"},
    {"armv7-linux-androideabi", "armv7-unknown-linux-android",
     "armv7-unknown-linux", "armv7-unknown-linux-android",
     "armv7-unknown-linux-android-unknown"},
    {"armv7-linux-androideabi21", "armv7-unknown-linux-android21",
     "armv7-unknown-linux", "armv7-unknown-linux-android21",
     "armv7-unknown-linux-android21-unknown"},
    {"armv7-none-linux-androideabi", "armv7-none-linux-android",
     "armv7-none-linux", "armv7-none-linux-android",
     "armv7-none-linux-android-unknown"},
    {"aarch64-linux-android", "aarch64-unknown-linux-android",
     "aarch64-unknown-linux", "aarch64-unknown-linux-android",
     "aarch64-unknown-linux-android-unknown"},
    {"aarch64-linux-android29", "aarch64-unknown-linux-android29",
     "aarch64-unknown-linux", "aarch64-unknown-linux-android29",
     "aarch64-unknown-linux-android29-unknown"},
    {"x86_64-linux-android", "x86_64-unknown-linux-android",
     "x86_64-unknown-linux", "x86_64-unknown-linux-android",
     "x86_64-unknown-linux-android-unknown"},
    {"x86_64-w64-mingw32", "x86_64-w64-windows-gnu", "x86_64-w64-windows",
     "x86_64-w64-windows-gnu", "x86_64-w64-windows-gnu-unknown"},
    {"i686-w64-mingw32", "i686-w64-windows-gnu", "i686-w64-windows",
     "i686-w64-windows-gnu", "i686-w64-windows-gnu-unknown"},
    {"x86_64-pc-mingw32", "x86_64-pc-windows-gnu", "x86_64-pc-windows",
     "x86_64-pc-windows-gnu", "x86_64-pc-windows-gnu-unknown"},
    {"x86_64-mingw32", "x86_64-unknown-windows-gnu", "x86_64-unknown-windows",
     "x86_64-unknown-windows-gnu", "x86_64-unknown-windows-gnu-unknown"},
    {"i686-pc-cygwin", "i686-pc-windows-cygnus", "i686-pc-windows",
     "i686-pc-windows-cygnus", "i686-pc-windows-cygnus-unknown"},
    {"x86_64-pc-cygwin", "x86_64-pc-windows-cygnus", "x86_64-pc-windows",
     "x86_64-pc-windows-cygnus", "x86_64-pc-windows-cygnus-unknown"},
    {"x86_64-pc-msys", "x86_64-pc-windows-cygnus", "x86_64-pc-windows",
     "x86_64-pc-windows-cygnus", "x86_64-pc-windows-cygnus-unknown"},
    {"x86_64-pc-windows", "x86_64-pc-windows-msvc", "x86_64-pc-windows",
     "x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-unknown"},
    {"x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc", "x86_64-pc-windows",
     "x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-unknown"},
    {"x86_64-pc-win32", "x86_64-pc-windows-msvc", "x86_64-pc-windows",
     "x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-unknown"},
    {"x86_64-pc-windows-gnu", "x86_64-pc-windows-gnu", "x86_64-pc-windows",
     "x86_64-pc-windows-gnu", "x86_64-pc-windows-gnu-unknown"},
    {"x86_64-pc-windows-elf", "x86_64-pc-windows-elf", "x86_64-pc-windows",
     "x86_64-pc-windows-elf", "x86_64-pc-windows-elf-unknown"},
    {"x86_64-pc-windows-macho", "x86_64-pc-windows-macho", "x86_64-pc-windows",
     "x86_64-pc-windows-macho", "x86_64-pc-windows-macho-unknown"},
    {"x86_64-pc-windows-coff", "x86_64-pc-windows-msvc", "x86_64-pc-windows",
     "x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-unknown"},
    {"x86_64-pc-windows-gnu-elf", "x86_64-pc-windows-gnu-elf",
     "x86_64-pc-windows", "x86_64-pc-windows-gnu", "x86_64-pc-windows-gnu-elf"},
    {"x86_64-pc-windows-msvc-elf", "x86_64-pc-windows-msvc-elf",
     "x86_64-pc-windows", "x86_64-pc-windows-msvc",
     "x86_64-pc-windows-msvc-elf"},
    {"x86_64-w64-mingw32-elf", "x86_64-w64-windows-gnu-elf",
     "x86_64-w64-windows", "x86_64-w64-windows-gnu",
     "x86_64-w64-windows-gnu-elf"},
    {"x86_64-pc-cygwin-elf", "x86_64-pc-windows-cygnus-elf",
     "x86_64-pc-windows", "x86_64-pc-windows-cygnus",
     "x86_64-pc-windows-cygnus-elf"},
    {"x86_64-windows", "x86_64-unknown-windows-msvc", "x86_64-unknown-windows",
     "x86_64-unknown-windows-msvc", "x86_64-unknown-windows-msvc-unknown"},
    {"x86_64-pc-windows-foo-elf", "x86_64-pc-windows-elf", "x86_64-pc-windows",
     "x86_64-pc-windows-elf", "x86_64-pc-windows-elf-unknown"},
    {"windows-x86_64", "x86_64-unknown-windows-msvc", "x86_64-unknown-windows",
     "x86_64-unknown-windows-msvc", "x86_64-unknown-windows-msvc-unknown"},
    {"i686-win32", "i686-unknown-windows-msvc", "i686-unknown-windows",
     "i686-unknown-windows-msvc", "i686-unknown-windows-msvc-unknown"},
    {"x86_64-uefi", "x86_64-unknown-uefi", "x86_64-unknown-uefi",
     "x86_64-unknown-uefi-unknown", "x86_64-unknown-uefi-unknown-unknown"},
    {"x86_64-unknown-uefi", "x86_64-unknown-uefi", "x86_64-unknown-uefi",
     "x86_64-unknown-uefi-unknown", "x86_64-unknown-uefi-unknown-unknown"},
    {"x86_64-apple-macosx10.15", "x86_64-apple-macosx10.15",
     "x86_64-apple-macosx10.15", "x86_64-apple-macosx10.15-unknown",
     "x86_64-apple-macosx10.15-unknown-unknown"},
    {"x86_64-apple-darwin", "x86_64-apple-darwin", "x86_64-apple-darwin",
     "x86_64-apple-darwin-unknown", "x86_64-apple-darwin-unknown-unknown"},
    {"arm64-apple-ios14.0", "arm64-apple-ios14.0", "arm64-apple-ios14.0",
     "arm64-apple-ios14.0-unknown", "arm64-apple-ios14.0-unknown-unknown"},
    {"arm64-apple-ios14.0-simulator", "arm64-apple-ios14.0-simulator",
     "arm64-apple-ios14.0", "arm64-apple-ios14.0-simulator",
     "arm64-apple-ios14.0-simulator-unknown"},
    {"x86_64-apple-ios-macabi", "x86_64-apple-ios-macabi", "x86_64-apple-ios",
     "x86_64-apple-ios-macabi", "x86_64-apple-ios-macabi-unknown"},
    {"apple-arm64-macos", "arm64-apple-macos", "arm64-apple-macos",
     "arm64-apple-macos-unknown", "arm64-apple-macos-unknown-unknown"},
    {"powerpc-ibm-aix", "powerpc-ibm-aix", "powerpc-ibm-aix",
     "powerpc-ibm-aix-unknown", "powerpc-ibm-aix-unknown-unknown"},
    {"powerpc64-ibm-aix7.2", "powerpc64-ibm-aix7.2", "powerpc64-ibm-aix7.2",
     "powerpc64-ibm-aix7.2-unknown", "powerpc64-ibm-aix7.2-unknown-unknown"},
    {"s390x-ibm-zos", "s390x-ibm-zos", "s390x-ibm-zos", "s390x-ibm-zos-unknown",
     "s390x-ibm-zos-unknown-unknown"},
    {"s390x-ibm-zos-goff", "s390x-ibm-zos-goff", "s390x-ibm-zos",
     "s390x-ibm-zos-goff", "s390x-ibm-zos-goff-unknown"},
    {"wasm32-unknown-unknown", "wasm32-unknown-unknown",
     "wasm32-unknown-unknown", "wasm32-unknown-unknown-unknown",
     "wasm32-unknown-unknown-unknown-unknown"},
    {"wasm32-wasi", "wasm32-unknown-wasi", "wasm32-unknown-wasi",
     "wasm32-unknown-wasi-unknown", "wasm32-unknown-wasi-unknown-unknown"},
    {"wasm32-unknown-wasip1", "wasm32-unknown-wasip1", "wasm32-unknown-wasip1",
     "wasm32-unknown-wasip1-unknown", "wasm32-unknown-wasip1-unknown-unknown"},
    {"wasm64-emscripten", "wasm64-unknown-emscripten",
     "wasm64-unknown-emscripten", "wasm64-unknown-emscripten-unknown",
     "wasm64-unknown-emscripten-unknown-unknown"},
    {"wasm32-unknown-linux-muslwali", "wasm32-unknown-linux-muslwali",
     "wasm32-unknown-linux", "wasm32-unknown-linux-muslwali",
     "wasm32-unknown-linux-muslwali-unknown"},
    {"dxil-unknown-shadermodel6.3-compute",
     "dxilv1.3-unknown-shadermodel6.3-compute",
     "dxilv1.3-unknown-shadermodel6.3",
     "dxilv1.3-unknown-shadermodel6.3-compute",
     "dxilv1.3-unknown-shadermodel6.3-compute-unknown"},
    {"dxil-shadermodel6.3-library", "dxilv1.3-unknown-shadermodel6.3-library",
     "dxilv1.3-unknown-shadermodel6.3",
     "dxilv1.3-unknown-shadermodel6.3-library",
     "dxilv1.3-unknown-shadermodel6.3-library-unknown"},
    {"dxil-unknown-shadermodel6.0-pixel",
     "dxilv1.0-unknown-shadermodel6.0-pixel", "dxilv1.0-unknown-shadermodel6.0",
     "dxilv1.0-unknown-shadermodel6.0-pixel",
     "dxilv1.0-unknown-shadermodel6.0-pixel-unknown"},
    {"dxil-unknown-shadermodel6.9-vertex",
     "dxilv1.9-unknown-shadermodel6.9-vertex",
     "dxilv1.9-unknown-shadermodel6.9",
     "dxilv1.9-unknown-shadermodel6.9-vertex",
     "dxilv1.9-unknown-shadermodel6.9-vertex-unknown"},
    {"dxil-unknown-shadermodel6.x-hull", "dxilv1.9-unknown-shadermodel6.x-hull",
     "dxilv1.9-unknown-shadermodel6.x", "dxilv1.9-unknown-shadermodel6.x-hull",
     "dxilv1.9-unknown-shadermodel6.x-hull-unknown"},
    {"dxil-unknown-shadermodel6-mesh", "dxilv1.0-unknown-shadermodel6-mesh",
     "dxilv1.0-unknown-shadermodel6", "dxilv1.0-unknown-shadermodel6-mesh",
     "dxilv1.0-unknown-shadermodel6-mesh-unknown"},
    {"dxil-unknown-shadermodel5.1-compute",
     "dxilv1.0-unknown-shadermodel5.1-compute",
     "dxilv1.0-unknown-shadermodel5.1",
     "dxilv1.0-unknown-shadermodel5.1-compute",
     "dxilv1.0-unknown-shadermodel5.1-compute-unknown"},
    {"dxil-unknown-shadermodel6.3.1-compute",
     "dxilv1.3-unknown-shadermodel6.3.1-compute",
     "dxilv1.3-unknown-shadermodel6.3.1",
     "dxilv1.3-unknown-shadermodel6.3.1-compute",
     "dxilv1.3-unknown-shadermodel6.3.1-compute-unknown"},
    {"dxil-unknown-shadermodel6.3a-compute",
     "dxilv1.0-unknown-shadermodel6.3a-compute",
     "dxilv1.0-unknown-shadermodel6.3a",
     "dxilv1.0-unknown-shadermodel6.3a-compute",
     "dxilv1.0-unknown-shadermodel6.3a-compute-unknown"},
    {"dxil-unknown-shadermodel0.0-compute",
     "dxilv1.0-unknown-shadermodel0.0-compute",
     "dxilv1.0-unknown-shadermodel0.0",
     "dxilv1.0-unknown-shadermodel0.0-compute",
     "dxilv1.0-unknown-shadermodel0.0-compute-unknown"},
    {"dxil-unknown-shadermodel6.3-compute-elf-extra",
     "dxilv1.3-unknown-shadermodel6.3-compute",
     "dxilv1.3-unknown-shadermodel6.3",
     "dxilv1.3-unknown-shadermodel6.3-compute",
     "dxilv1.3-unknown-shadermodel6.3-compute-unknown"},
    {"dxilv1.2-unknown-shadermodel6.5-compute",
     "dxilv1.2-unknown-shadermodel6.5-compute",
     "dxilv1.2-unknown-shadermodel6.5",
     "dxilv1.2-unknown-shadermodel6.5-compute",
     "dxilv1.2-unknown-shadermodel6.5-compute-unknown"},
    {"dxil-unknown-vulkan-compute", "dxil-unknown-vulkan-compute",
     "dxil-unknown-vulkan", "dxil-unknown-vulkan-compute",
     "dxil-unknown-vulkan-compute-unknown"},
    {"mipsel-linux-gnu", "mipsel-unknown-linux-gnu", "mipsel-unknown-linux",
     "mipsel-unknown-linux-gnu", "mipsel-unknown-linux-gnu-unknown"},
    {"mips64-unknown-linux-gnuabi64", "mips64-unknown-linux-gnuabi64",
     "mips64-unknown-linux", "mips64-unknown-linux-gnuabi64",
     "mips64-unknown-linux-gnuabi64-unknown"},
    {"mipsisa64r6el-linux-gnuabi64", "mipsisa64r6el-unknown-linux-gnuabi64",
     "mipsisa64r6el-unknown-linux", "mipsisa64r6el-unknown-linux-gnuabi64",
     "mipsisa64r6el-unknown-linux-gnuabi64-unknown"},
    {"powerpc64le-linux-gnu", "powerpc64le-unknown-linux-gnu",
     "powerpc64le-unknown-linux", "powerpc64le-unknown-linux-gnu",
     "powerpc64le-unknown-linux-gnu-unknown"},
    {"i386-pc-elfiamcu", "i386-pc-elfiamcu", "i386-pc-elfiamcu",
     "i386-pc-elfiamcu-unknown", "i386-pc-elfiamcu-unknown-unknown"},
    {"x86_64-scei-ps4", "x86_64-scei-ps4", "x86_64-scei-ps4",
     "x86_64-scei-ps4-unknown", "x86_64-scei-ps4-unknown-unknown"},
    {"x86_64-sie-ps5", "x86_64-sie-ps5", "x86_64-sie-ps5",
     "x86_64-sie-ps5-unknown", "x86_64-sie-ps5-unknown-unknown"},
    {"x86_64-unknown-linux-gnu-unknown-unknown",
     "x86_64-unknown-linux-gnu-unknown-unknown", "x86_64-unknown-linux",
     "x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu-unknown"},
    {"x86_64-pc-linux-elf", "x86_64-pc-linux-elf", "x86_64-pc-linux",
     "x86_64-pc-linux-elf", "x86_64-pc-linux-elf-unknown"},
    {"elf-x86_64-linux", "x86_64-unknown-linux-elf", "x86_64-unknown-linux",
     "x86_64-unknown-linux-elf", "x86_64-unknown-linux-elf-unknown"},
    {"coff-x86_64", "x86_64-unknown-unknown-coff", "x86_64-unknown-unknown",
     "x86_64-unknown-unknown-coff", "x86_64-unknown-unknown-coff-unknown"},
    {"x86_64-elf", "x86_64-unknown-unknown-elf", "x86_64-unknown-unknown",
     "x86_64-unknown-unknown-elf", "x86_64-unknown-unknown-elf-unknown"},
    {"x86_64-macho-pc", "x86_64-pc-unknown-macho", "x86_64-pc-unknown",
     "x86_64-pc-unknown-macho", "x86_64-pc-unknown-macho-unknown"},
    {"loongarch64-unknown-linux-gnu", "loongarch64-unknown-linux-gnu",
     "loongarch64-unknown-linux", "loongarch64-unknown-linux-gnu",
     "loongarch64-unknown-linux-gnu-unknown"},
    {"hexagon-unknown-linux-musl", "hexagon-unknown-linux-musl",
     "hexagon-unknown-linux", "hexagon-unknown-linux-musl",
     "hexagon-unknown-linux-musl-unknown"},
    {"ve-unknown-linux", "ve-unknown-linux", "ve-unknown-linux",
     "ve-unknown-linux-unknown", "ve-unknown-linux-unknown-unknown"},
    {"bpf-unknown-none", "bpf-unknown-none", "bpf-unknown-none",
     "bpf-unknown-none-unknown", "bpf-unknown-none-unknown-unknown"},
    {"bpfel", "bpfel", "bpfel-unknown-unknown", "bpfel-unknown-unknown-unknown",
     "bpfel-unknown-unknown-unknown-unknown"},
    {"xtensa-none-elf", "xtensa-unknown-none-elf", "xtensa-unknown-none",
     "xtensa-unknown-none-elf", "xtensa-unknown-none-elf-unknown"},
    {"kalimba3-csr-unknown", "kalimba3-csr-unknown", "kalimba3-csr-unknown",
     "kalimba3-csr-unknown-unknown", "kalimba3-csr-unknown-unknown-unknown"},
    {"x86_64-pc-linux-gnu-gnu", "x86_64-pc-linux-gnu-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-gnu"},
    {"x86_64-linux-linux-linux", "x86_64-linux-linux-linux",
     "x86_64-linux-linux", "x86_64-linux-linux-linux",
     "x86_64-linux-linux-linux-unknown"},
    {"i386-i386-i386", "i386-i386-i386", "i386-i386-i386",
     "i386-i386-i386-unknown", "i386-i386-i386-unknown-unknown"},
    {"pc-pc-pc", "pc-pc-pc", "pc-pc-pc", "pc-pc-pc-unknown",
     "pc-pc-pc-unknown-unknown"},
    {"linux-pc-i386", "i386-pc-linux", "i386-pc-linux", "i386-pc-linux-unknown",
     "i386-pc-linux-unknown-unknown"},
    {"gnu-pc-linux-i386", "i386-pc-linux-gnu", "i386-pc-linux",
     "i386-pc-linux-gnu", "i386-pc-linux-gnu-unknown"},
    {"msvc-windows-pc-x86_64", "x86_64-pc-windows-msvc", "x86_64-pc-windows",
     "x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-unknown"},
    {"elf-coff-x86_64", "x86_64-unknown-unknown-elf-coff",
     "x86_64-unknown-unknown", "x86_64-unknown-unknown-elf",
     "x86_64-unknown-unknown-elf-coff"},
    {"x86_64-elf-coff", "x86_64-unknown-unknown-elf-coff",
     "x86_64-unknown-unknown", "x86_64-unknown-unknown-elf",
     "x86_64-unknown-unknown-elf-coff"},
    {"foo-x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-foo", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-foo"},
    {"foo-bar-x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-foo-bar",
     "x86_64-pc-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-foo"},
    {"foo-bar-baz-x86_64", "x86_64-foo-bar-baz", "x86_64-foo-bar",
     "x86_64-foo-bar-baz", "x86_64-foo-bar-baz-unknown"},
    {"foo-pc", "foo-pc", "foo-pc-unknown", "foo-pc-unknown-unknown",
     "foo-pc-unknown-unknown-unknown"},
    {"foo-bar-pc", "foo-pc-bar", "foo-pc-bar", "foo-pc-bar-unknown",
     "foo-pc-bar-unknown-unknown"},
    {"foo-linux", "foo-unknown-linux", "foo-unknown-linux",
     "foo-unknown-linux-unknown", "foo-unknown-linux-unknown-unknown"},
    {"foo-bar-linux", "foo-bar-linux", "foo-bar-linux", "foo-bar-linux-unknown",
     "foo-bar-linux-unknown-unknown"},
    {"foo-gnu", "foo-unknown-unknown-gnu", "foo-unknown-unknown",
     "foo-unknown-unknown-gnu", "foo-unknown-unknown-gnu-unknown"},
    {"foo-bar-gnu", "foo-bar-unknown-gnu", "foo-bar-unknown",
     "foo-bar-unknown-gnu", "foo-bar-unknown-gnu-unknown"},
    {"foo-bar-baz-gnu", "foo-bar-baz-gnu", "foo-bar-baz", "foo-bar-baz-gnu",
     "foo-bar-baz-gnu-unknown"},
    {"none-x86_64", "x86_64-none", "x86_64-none-unknown",
     "x86_64-none-unknown-unknown", "x86_64-none-unknown-unknown-unknown"},
    {"x86_64-none", "x86_64-none", "x86_64-none-unknown",
     "x86_64-none-unknown-unknown", "x86_64-none-unknown-unknown-unknown"},
    {"x86_64-none-gnu", "x86_64-unknown-none-gnu", "x86_64-unknown-none",
     "x86_64-unknown-none-gnu", "x86_64-unknown-none-gnu-unknown"},
    {"x86_64-none-linux", "x86_64-none-linux", "x86_64-none-linux",
     "x86_64-none-linux-unknown", "x86_64-none-linux-unknown-unknown"},
    {"armv7-none-eabihf", "armv7-unknown-none-eabihf", "armv7-unknown-none",
     "armv7-unknown-none-eabihf", "armv7-unknown-none-eabihf-unknown"},
    {"armv7-none-gnueabi-foo", "armv7-unknown-none-gnueabi-foo",
     "armv7-unknown-none", "armv7-unknown-none-gnueabi",
     "armv7-unknown-none-gnueabi-foo"},
    {"armv7-none", "armv7-none", "armv7-none-unknown",
     "armv7-none-unknown-unknown", "armv7-none-unknown-unknown-unknown"},
    {"armv7-none-none", "armv7-none-none", "armv7-none-none",
     "armv7-none-none-unknown", "armv7-none-none-unknown-unknown"},
    {"x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"x86_64-pc-gnu-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"x86_64-linux-pc-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"x86_64-linux-gnu-pc", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"x86_64-gnu-pc-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"x86_64-gnu-linux-pc", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-x86_64-linux-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-x86_64-gnu-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-linux-x86_64-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-linux-gnu-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-gnu-x86_64-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"pc-gnu-linux-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux-x86_64-pc-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux-x86_64-gnu-pc", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux-pc-x86_64-gnu", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux-pc-gnu-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux-gnu-x86_64-pc", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"linux-gnu-pc-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"gnu-x86_64-pc-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"gnu-x86_64-linux-pc", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"gnu-pc-x86_64-linux", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"gnu-pc-linux-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"gnu-linux-x86_64-pc", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"gnu-linux-pc-x86_64", "x86_64-pc-linux-gnu", "x86_64-pc-linux",
     "x86_64-pc-linux-gnu", "x86_64-pc-linux-gnu-unknown"},
    {"amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdgcn-amd-gnu-amdhsa", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdgcn-amdhsa-amd-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdgcn-amdhsa-gnu-amd", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdgcn-gnu-amd-amdhsa", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdgcn-gnu-amdhsa-amd", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amd-amdgcn-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amd-amdgcn-gnu-amdhsa", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amd-amdhsa-amdgcn-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amd-amdhsa-gnu-amdgcn", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amd-gnu-amdgcn-amdhsa", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amd-gnu-amdhsa-amdgcn", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdhsa-amdgcn-amd-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdhsa-amdgcn-gnu-amd", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdhsa-amd-amdgcn-gnu", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdhsa-amd-gnu-amdgcn", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdhsa-gnu-amdgcn-amd", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"amdhsa-gnu-amd-amdgcn", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"gnu-amdgcn-amd-amdhsa", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"gnu-amdgcn-amdhsa-amd", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"gnu-amd-amdgcn-amdhsa", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"gnu-amd-amdhsa-amdgcn", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"gnu-amdhsa-amdgcn-amd", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"gnu-amdhsa-amd-amdgcn", "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa",
     "amdgcn-amd-amdhsa-gnu", "amdgcn-amd-amdhsa-gnu-unknown"},
    {"arm-apple-ios-simulator", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"arm-apple-simulator-ios", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"arm-ios-apple-simulator", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"arm-ios-simulator-apple", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"arm-simulator-apple-ios", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"arm-simulator-ios-apple", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"apple-arm-ios-simulator", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"apple-arm-simulator-ios", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"apple-ios-arm-simulator", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"apple-ios-simulator-arm", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"apple-simulator-arm-ios", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"apple-simulator-ios-arm", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"ios-arm-apple-simulator", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"ios-arm-simulator-apple", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"ios-apple-arm-simulator", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"ios-apple-simulator-arm", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"ios-simulator-arm-apple", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"ios-simulator-apple-arm", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"simulator-arm-apple-ios", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"simulator-arm-ios-apple", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"simulator-apple-arm-ios", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"simulator-apple-ios-arm", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"simulator-ios-arm-apple", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
    {"simulator-ios-apple-arm", "arm-apple-ios-simulator", "arm-apple-ios",
     "arm-apple-ios-simulator", "arm-apple-ios-simulator-unknown"},
};

// ---------------------------------------------------------------------------
// Triple(first) == Triple(second), Triple(first).isCompatibleWith(second).
// ---------------------------------------------------------------------------

struct PairCase {
  const char *first;
  const char *second;
  bool equal;
  bool compatible;
};

constexpr PairCase pairCases[] = {
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", true, true},
    {"x86_64-unknown-linux-gnu", "amd64-unknown-linux-gnu", true, true},
    {"x86_64-unknown-linux-gnu", "x86_64h-unknown-linux-gnu", true, true},
    {"x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu", false, false},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnux32", false, false},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu-elf", true, true},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu-coff", false, false},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux", false, false},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-musl", false, false},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux6-gnu", true, true},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu2.31", true, true},
    {"x86_64-unknown-linux-gnu", "i686-unknown-linux-gnu", false, false},
    {"i386-unknown-linux-gnu", "i686-unknown-linux-gnu", true, true},
    {"i386-pc-linux-gnu", "i986-pc-linux-gnu", true, true},
    {"amdgcn-amd-amdhsa-", "amdgcn-amd-amdhsa-unknown", true, true},
    {"amdgcn-amd-amdhsa-unknown", "amdgcn-amd-amdhsa5-unknown", true, true},
    {"amdgcn-amd-amdhsa-unknown", "amdgcn-unknown-amdhsa-unknown", false,
     false},
    {"amdgcn-amd-amdhsa-unknown", "amdgcn-amd-amdhsa-gnu", false, false},
    {"amdgcn-amd-amdhsa-unknown", "amdgcn-amd-amdhsa-elf", true, true},
    {"amdgcn-amd-amdhsa-unknown", "r600-amd-amdhsa-unknown", false, false},
    {"nvptx64-nvidia-cuda-unknown", "nvptx64-nvidia-cuda12-unknown", true,
     true},
    {"nvptx64-nvidia-cuda-unknown", "nvptx-nvidia-cuda-unknown", false, false},
    {"spirv64-intel-unknown-unknown", "spirv64v1.3-intel-unknown-unknown",
     false, false},
    {"spirv64-amd-amdhsa-unknown", "spirv64-amd-amdhsa-unknown", true, true},
    {"arm-unknown-linux-gnueabihf", "thumb-unknown-linux-gnueabihf", false,
     true},
    {"thumb-unknown-linux-gnueabihf", "arm-unknown-linux-gnueabihf", false,
     true},
    {"armv7-unknown-linux-gnueabihf", "thumbv7-unknown-linux-gnueabihf", false,
     true},
    {"armv7a-unknown-linux-gnueabihf", "thumbv7-unknown-linux-gnueabihf", false,
     true},
    {"armv7-unknown-linux-gnueabihf", "thumbv7m-unknown-linux-gnueabihf", false,
     false},
    {"armv7-unknown-linux-gnueabihf", "thumbv7-unknown-linux-gnueabi", false,
     false},
    {"armv7-unknown-linux-gnueabihf", "thumbv7-pc-linux-gnueabihf", false,
     false},
    {"armv7-unknown-linux-gnueabihf", "thumbv7-unknown-freebsd-gnueabihf",
     false, false},
    {"armv7-unknown-linux-gnueabihf", "thumbv7-unknown-linux-gnueabihf-coff",
     false, false},
    {"armv7-unknown-linux-gnueabihf", "armv7eb-unknown-linux-gnueabihf", false,
     false},
    {"armebv7-unknown-linux-gnueabihf", "thumbebv7-unknown-linux-gnueabihf",
     false, true},
    {"armebv7-unknown-linux-gnueabihf", "thumbv7-unknown-linux-gnueabihf",
     false, false},
    {"thumbv6m-unknown-none-eabi", "armv6m-unknown-none-eabi", true, true},
    {"armv7-apple-ios", "thumbv7-apple-ios", false, true},
    {"armv7-apple-ios", "thumbv7-apple-ios-simulator", false, true},
    {"armv7-apple-ios", "thumbv7-apple-ios9.0", false, true},
    {"armv7-apple-ios", "thumbv7s-apple-ios", false, false},
    {"armv7-apple-ios", "thumbv7-unknown-ios", false, false},
    {"thumbv7-unknown-ios", "armv7-apple-ios", false, false},
    {"armv7-apple-ios", "armv7-apple-ios-simulator", false, true},
    {"arm64-apple-macosx", "arm64-apple-macosx11.0", true, true},
    {"arm64-apple-ios", "arm64-apple-ios-macabi", false, true},
    {"arm64-apple-ios", "arm64-apple-ios-elf", false, true},
    {"arm64-apple-ios", "aarch64-apple-ios", true, true},
    {"arm64-apple-ios", "arm64e-apple-ios", false, false},
    {"arm64-apple-ios", "arm64-pc-ios", false, false},
    {"arm64-pc-ios", "arm64-apple-ios", false, false},
    {"arm64-apple-ios", "arm64-apple-tvos", false, false},
    {"aarch64-unknown-linux-gnu", "arm64-unknown-linux-gnu", true, true},
    {"aarch64-unknown-linux-gnu", "aarch64_be-unknown-linux-gnu", false, false},
    {"aarch64-unknown-linux-gnu", "aarch64v8-unknown-linux-gnu", true, true},
    {"x86_64-w64-windows-gnu", "x86_64-pc-windows-gnu", false, true},
    {"x86_64-pc-windows-gnu", "x86_64-w64-windows-gnu", false, true},
    {"x86_64-w64-windows-gnu", "x86_64-pc-windows-msvc", false, false},
    {"x86_64-pc-windows-msvc", "x86_64-w64-windows-msvc", false, false},
    {"x86_64-pc-windows-msvc", "x86_64-pc-win32-msvc", true, true},
    {"x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-coff", true, true},
    {"x86_64-pc-windows-msvc", "x86_64-pc-windows-msvc-elf", false, false},
    {"x86_64-w64-windows-gnu", "x86_64-w64-windows-gnu-elf", false, false},
    {"armv7-w64-windows-gnu", "thumbv7-pc-windows-gnu", false, true},
    {"x86_64-pc-windows-gnu", "x86_64-pc-windows-gnux32", false, false},
    {"x86_64-unknown-linux-gnu", "x86_64-unknown-linux-gnu", true, true},
    {"mips-unknown-linux-gnu", "mipsr6-unknown-linux-gnu", false, false},
    {"mipsisa32r6-unknown-linux-gnu", "mipsr6-unknown-linux-gnu", true, true},
    {"powerpc-unknown-linux-gnu", "powerpcspe-unknown-linux-gnu", false, false},
    {"powerpc-ibm-aix-unknown", "powerpc-ibm-aix-elf", false, false},
    {"bpf-unknown-none-unknown", "bpfel-unknown-none-unknown", true, true},
    {"spirv1.4-unknown-unknown-unknown", "spirv32v1.4-unknown-unknown-unknown",
     false, false},
    {"foo-unknown-linux-gnu", "bar-unknown-linux-gnu", true, true},
    {"v7-unknown-linux-gnu", "a-unknown-linux-gnu", true, true},
    {"iwmmxt-unknown-linux-gnu", "xscale-unknown-linux-gnu", false, false},
};

// ---------------------------------------------------------------------------
// Triple(arch, vendor, os, environment) == Triple(whole).
// ---------------------------------------------------------------------------

struct FourPartCase {
  const char *arch;
  const char *vendor;
  const char *os;
  const char *environment;
  const char *whole;
  bool equal;
};

constexpr FourPartCase fourPartCases[] = {
    {"x86_64", "pc", "linux", "gnu", "x86_64-pc-linux-gnu", true},
    {"amdgcn", "amd", "amdhsa", "", "amdgcn-amd-amdhsa-", true},
    {"amdgcn", "amd", "amdhsa", "", "amdgcn-amd-amdhsa", true},
    {"mips", "unknown", "linux", "", "mips", false},
    {"mips", "", "", "", "mips", false},
    {"x86_64", "pc", "linux", "gnu-elf", "x86_64-pc-linux-gnu-elf", true},
    {"x86_64", "pc", "linux", "coff", "x86_64-pc-linux-coff", true},
    {"armv7-a", "unknown", "linux", "gnueabihf",
     "armv7a-unknown-linux-gnueabihf", true},
    {"armv7-a", "unknown", "linux", "gnueabihf",
     "armv7-a-unknown-linux-gnueabihf", false},
    {"x86_64", "pc-linux", "gnu", "", "x86_64-pc-linux-gnu", false},
    {"x86_64", "pc", "linux-gnu", "", "x86_64-pc-linux-gnu", false},
    {"", "", "", "", "", true},
    {"x86_64", "", "", "", "x86_64", true},
};

bool containsDash(std::string_view text) {
  return text.find('-') != std::string_view::npos;
}

// Checks that triples[i] == triples[j] exactly when keys[i] == keys[j], which
// is what "parsed to the same fields as LLVM" means through the public API.
template <typename Key>
void expectEqualityFollowsKeys(const std::vector<std::string> &texts,
                               const std::vector<Key> &keys) {
  std::vector<Triple> triples(texts.begin(), texts.end());
  for (std::size_t i = 0; i < triples.size(); ++i)
    for (std::size_t j = 0; j < triples.size(); ++j)
      if ((triples[i] == triples[j]) != (keys[i] == keys[j]))
        ADD_FAILURE() << "'" << texts[i] << "' and '" << texts[j] << "' "
                      << (keys[i] == keys[j] ? "should" : "should not")
                      << " compare equal";
}

TEST(TripleArch, PredicatesMatchLlvm) {
  for (const ArchCase &c : archCases) {
    SCOPED_TRACE(c.spelling);
    const std::string_view arch = c.llvmArch;
    Triple triple(std::string(c.spelling) + "-unknown-linux-gnu");
    EXPECT_EQ(triple.hasKnownArch(), arch != "unknown");
    EXPECT_EQ(triple.isAMDGCN(), arch == "amdgcn");
    EXPECT_EQ(triple.isAMDGPU(), arch == "amdgcn" || arch == "r600");
    EXPECT_FALSE(triple.isOSAMDHSA());
  }
}

TEST(TripleArch, SpellingsParseToLlvmArchAndSubArch) {
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, int>> keys;
  for (const ArchCase &c : archCases) {
    // A dash would shift the other components, so the key would not be the
    // whole story for such a spelling.
    if (containsDash(c.spelling))
      continue;
    texts.push_back(std::string(c.spelling) + "-unknown-linux-gnu");
    keys.emplace_back(c.llvmArch, c.llvmSubArch);
  }
  expectEqualityFollowsKeys(texts, keys);
}

TEST(TripleArch, LoneArchitectureComponent) {
  // A triple that is only an architecture parses the same architecture
  // fields; "mips..." names also imply an environment, so compare only
  // through hasKnownArch here and leave the rest to the normalize table.
  for (const ArchCase &c : archCases) {
    SCOPED_TRACE(c.spelling);
    EXPECT_EQ(Triple(c.spelling).hasKnownArch(),
              std::string_view(c.llvmArch) != "unknown");
  }
}

TEST(TripleVendor, SpellingsParseToLlvmVendor) {
  std::vector<std::string> texts;
  std::vector<std::string> keys;
  for (const VendorCase &c : vendorCases) {
    texts.push_back("x86_64-" + std::string(c.spelling) + "-linux-gnu");
    keys.emplace_back(c.llvmVendor);
  }
  expectEqualityFollowsKeys(texts, keys);
}

TEST(TripleOS, SpellingsParseToLlvmOSAndFormat) {
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, std::string>> keys;
  for (const OSCase &c : osCases) {
    SCOPED_TRACE(c.spelling);
    texts.push_back("x86_64-unknown-" + std::string(c.spelling) + "-gnu");
    keys.emplace_back(c.llvmOS, c.llvmObjectFormat);
    EXPECT_EQ(Triple(texts.back()).isOSAMDHSA(),
              std::string_view(c.llvmOS) == "amdhsa");
  }
  expectEqualityFollowsKeys(texts, keys);
}

TEST(TripleEnvironment, SpellingsParseToLlvmEnvironmentAndFormat) {
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, std::string>> keys;
  for (const EnvironmentCase &c : environmentCases) {
    texts.push_back("x86_64-unknown-linux-" + std::string(c.spelling));
    keys.emplace_back(c.llvmEnvironment, c.llvmObjectFormat);
  }
  expectEqualityFollowsKeys(texts, keys);
}

TEST(TripleNormalize, AllFormsMatchLlvm) {
  for (const NormalizeCase &c : normalizeCases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(Triple(c.input).normalize(TripleForm::Any), c.any);
    EXPECT_EQ(Triple(c.input).normalize(TripleForm::ThreeIdent), c.threeIdent);
    EXPECT_EQ(Triple(c.input).normalize(TripleForm::FourIdent), c.fourIdent);
    EXPECT_EQ(Triple(c.input).normalize(TripleForm::FiveIdent), c.fiveIdent);
  }
}

TEST(TripleNormalize, MemberFormNormalizesTheText) {
  for (const NormalizeCase &c : normalizeCases) {
    SCOPED_TRACE(c.input);
    Triple triple(c.input);
    EXPECT_EQ(triple.normalize(TripleForm::Any), c.any);
    EXPECT_EQ(triple.normalize(TripleForm::ThreeIdent), c.threeIdent);
    EXPECT_EQ(triple.normalize(TripleForm::FourIdent), c.fourIdent);
    EXPECT_EQ(triple.normalize(TripleForm::FiveIdent), c.fiveIdent);
  }
}

TEST(TripleNormalize, UnsupportedShaderModelIsReportedNotExited) {
  // clang-offload-bundler 22 given "host-dxil-unknown-shadermodel6.10-compute"
  // prints "LLVM ERROR: Unsupported Shader Model version" and exits with
  // status 1. The library says so and returns; the tool prints the line.
  EXPECT_TRUE(
      Triple("dxil-unknown-shadermodel6.10-compute").normalizationIsFatal());
  EXPECT_TRUE(Triple("dxil-shadermodel6.12").normalizationIsFatal());
  EXPECT_FALSE(
      Triple("dxil-unknown-shadermodel6.9-compute").normalizationIsFatal());
  EXPECT_FALSE(Triple("dxil-unknown-shadermodel6.x").normalizationIsFatal());
  EXPECT_FALSE(Triple("x86_64-unknown-linux-gnu").normalizationIsFatal());
}

TEST(TripleCompatibility, EqualityAndCompatibilityMatchLlvm) {
  for (const PairCase &c : pairCases) {
    SCOPED_TRACE(std::string(c.first) + " vs " + c.second);
    Triple first(c.first);
    Triple second(c.second);
    EXPECT_EQ(first == second, c.equal);
    EXPECT_EQ(first.isCompatibleWith(second), c.compatible);
  }
}

TEST(TripleConstruction, FourPartConstructorMatchesLlvm) {
  for (const FourPartCase &c : fourPartCases) {
    SCOPED_TRACE(c.whole);
    Triple parts(c.arch, c.vendor, c.os, c.environment);
    EXPECT_EQ(parts == Triple(c.whole), c.equal);
    EXPECT_EQ(parts.str(), std::string(c.arch) + "-" + c.vendor + "-" + c.os +
                               "-" + c.environment);
  }
}

TEST(TripleConstruction, DefaultTripleIsEmptyAndUnknown) {
  Triple empty;
  EXPECT_EQ(empty.str(), "");
  EXPECT_FALSE(empty.hasKnownArch());
  EXPECT_FALSE(empty.isOSAMDHSA());
}

} // namespace
} // namespace offbundle
