// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The fields of a parsed target triple and the parsers of each component:
// the internals behind targets/triple.h, which is the layer's interface,
// shared by the three files of the triple code: triple_arm.cpp (ARM-family
// architecture names), triple_fields.cpp (the spellings of every component,
// the object format a triple implies) and triple.cpp (normalisation and the
// Triple class).
//
// The enumerations keep LLVM's enumerator order so that a parsed field's
// integer is the position of the LLVM enumerator it stands for; the name
// tables keep LLVM's matching order wherever matching is by prefix or
// suffix, because there the first hit wins.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>

namespace offbundle::triple_fields {

// ---------------------------------------------------------------------------
// Field enumerations, in llvm::Triple's order.
// ---------------------------------------------------------------------------

enum class Arch : int {
  Unknown,
  Arm,
  ArmBigEndian,
  AArch64,
  AArch64BigEndian,
  AArch64Ilp32,
  Arc,
  Avr,
  BpfLittleEndian,
  BpfBigEndian,
  Csky,
  Dxil,
  Hexagon,
  LoongArch32,
  LoongArch64,
  M68k,
  Mips,
  MipsLittleEndian,
  Mips64,
  Mips64LittleEndian,
  Msp430,
  PowerPC,
  PowerPCLittleEndian,
  PowerPC64,
  PowerPC64LittleEndian,
  R600,
  AmdGcn,
  RiscV32,
  RiscV64,
  RiscV32BigEndian,
  RiscV64BigEndian,
  Sparc,
  SparcV9,
  SparcLittleEndian,
  SystemZ,
  Tce,
  TceLittleEndian,
  Thumb,
  ThumbBigEndian,
  X86,
  X86_64,
  XCore,
  Xtensa,
  Nvptx,
  Nvptx64,
  AmdIl,
  AmdIl64,
  Hsail,
  Hsail64,
  Spir,
  Spir64,
  SpirV,
  SpirV32,
  SpirV64,
  Kalimba,
  Shave,
  Lanai,
  Wasm32,
  Wasm64,
  RenderScript32,
  RenderScript64,
  Ve,
};

enum class SubArch : int {
  None,
  ArmV9_7a,
  ArmV9_6a,
  ArmV9_5a,
  ArmV9_4a,
  ArmV9_3a,
  ArmV9_2a,
  ArmV9_1a,
  ArmV9,
  ArmV8_9a,
  ArmV8_8a,
  ArmV8_7a,
  ArmV8_6a,
  ArmV8_5a,
  ArmV8_4a,
  ArmV8_3a,
  ArmV8_2a,
  ArmV8_1a,
  ArmV8,
  ArmV8r,
  ArmV8mBaseline,
  ArmV8mMainline,
  ArmV8_1mMainline,
  ArmV7,
  ArmV7em,
  ArmV7m,
  ArmV7s,
  ArmV7k,
  ArmV7ve,
  ArmV6,
  ArmV6m,
  ArmV6k,
  ArmV6t2,
  ArmV5,
  ArmV5te,
  ArmV4t,
  AArch64Arm64e,
  AArch64Arm64ec,
  AArch64Lfi,
  KalimbaV3,
  KalimbaV4,
  KalimbaV5,
  MipsR6,
  PowerPCSpe,
  SpirVV1_0,
  SpirVV1_1,
  SpirVV1_2,
  SpirVV1_3,
  SpirVV1_4,
  SpirVV1_5,
  SpirVV1_6,
  DxilV1_0,
  DxilV1_1,
  DxilV1_2,
  DxilV1_3,
  DxilV1_4,
  DxilV1_5,
  DxilV1_6,
  DxilV1_7,
  DxilV1_8,
  DxilV1_9,
};

enum class Vendor : int {
  Unknown,
  Apple,
  PC,
  Scei,
  Freescale,
  Ibm,
  ImaginationTechnologies,
  MipsTechnologies,
  Nvidia,
  Csr,
  Amd,
  Mesa,
  Suse,
  OpenEmbedded,
  Intel,
  Meta,
};

enum class OS : int {
  Unknown,
  Darwin,
  DragonFly,
  FreeBSD,
  Fuchsia,
  IOS,
  KFreeBSD,
  Linux,
  Lv2,
  MacOSX,
  Managarm,
  NetBSD,
  OpenBSD,
  Solaris,
  Uefi,
  Win32,
  ZOS,
  Haiku,
  Rtems,
  Aix,
  Cuda,
  Nvcl,
  AmdHsa,
  PS4,
  PS5,
  ElfIamcu,
  TvOS,
  WatchOS,
  BridgeOS,
  DriverKit,
  XROS,
  Mesa3D,
  AmdPal,
  HermitCore,
  Hurd,
  Wasi,
  WasiP1,
  WasiP2,
  WasiP3,
  Emscripten,
  ShaderModel,
  LiteOS,
  Serenity,
  Vulkan,
  CheriotRtos,
};

enum class Environment : int {
  Unknown,
  Gnu,
  GnuT64,
  GnuAbiN32,
  GnuAbi64,
  GnuEabi,
  GnuEabiT64,
  GnuEabiHf,
  GnuEabiHfT64,
  GnuF32,
  GnuF64,
  GnuSf,
  GnuX32,
  GnuIlp32,
  Code16,
  Eabi,
  EabiHf,
  Android,
  Musl,
  MuslAbiN32,
  MuslAbi64,
  MuslEabi,
  MuslEabiHf,
  MuslF32,
  MuslSf,
  MuslX32,
  MuslWali,
  Llvm,
  Msvc,
  Itanium,
  Cygnus,
  CoreClr,
  Simulator,
  MacAbi,
  Pixel,
  Vertex,
  Geometry,
  Hull,
  Domain,
  Compute,
  Library,
  RayGeneration,
  Intersection,
  AnyHit,
  ClosestHit,
  Miss,
  Callable,
  Mesh,
  Amplification,
  RootSignature,
  OpenCL,
  OpenHOS,
  Mlibc,
  PAuthTest,
  Mtia,
};

enum class ObjectFormat : int {
  Unknown,
  Coff,
  DXContainer,
  Elf,
  Goff,
  MachO,
  SpirV,
  Wasm,
  XCoff,
};

// ---------------------------------------------------------------------------
// Small string helpers with llvm::StringRef's forgiving semantics (dropping
// more characters than there are yields an empty string instead of throwing).
// ---------------------------------------------------------------------------

inline std::string_view dropFront(std::string_view text, std::size_t count) {
  return text.substr(std::min(count, text.size()));
}

inline std::string_view clampedSubstr(std::string_view text, std::size_t start,
                                      std::size_t length) {
  if (start >= text.size())
    return {};
  return text.substr(start, length);
}

inline bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// A name table entry: the spelling and the field value it parses to.
template <typename Value> struct NameEntry {
  std::string_view name;
  Value value;
};

template <typename Value, std::size_t Count>
std::optional<Value> findExact(const NameEntry<Value> (&table)[Count],
                               std::string_view name) {
  for (const auto &entry : table)
    if (entry.name == name)
      return entry.value;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Component parsers: each reads one component of a triple on its own, as
// llvm::Triple's parse functions do.
// ---------------------------------------------------------------------------

// ARM-family names (triple_arm.cpp).

// The version part of an ARM-family name ("armv7a" -> "v7a"); empty when
// malformed.
std::string_view canonicalArmArchName(std::string_view arch);
// Architecture of a name starting with "arm", "thumb" or "aarch64" that is
// not one of the fixed spellings.
Arch parseArmFamilyArch(std::string_view name);
// The sub-architecture of an ARM architecture name or its version part
// ("armv7-a" or "v7a").
SubArch parseArmSubArch(std::string_view version);

// Each component (triple_fields.cpp).

Arch parseArch(std::string_view name);
// The sub-architecture, read from the architecture component on its own.
SubArch parseSubArch(std::string_view name);
Vendor parseVendor(std::string_view name);
OS parseOS(std::string_view name);
Environment parseEnvironment(std::string_view name);
// The object format named at the end of the environment component.
ObjectFormat parseObjectFormat(std::string_view name);
std::string_view objectFormatName(ObjectFormat format);
// The ABI a single-component triple naming a MIPS architecture implies.
Environment mipsEnvironmentForLoneArch(std::string_view name);
// The object format a triple implies when its environment names none.
ObjectFormat defaultObjectFormat(Arch arch, OS os);

} // namespace offbundle::triple_fields
