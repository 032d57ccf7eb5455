// Target triple parsing, comparison and normalisation, matching LLVM 22.1's
// llvm::Triple. The enumerations below keep LLVM's enumerator order so that a
// parsed field's integer is the position of the LLVM enumerator it stands for;
// the name tables keep LLVM's matching order wherever matching is by prefix or
// suffix, because there the first hit wins.
#include "targets/triple.h"

#include "support/string_split.h"

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace offbundle {
namespace {

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

std::string_view dropFront(std::string_view text, std::size_t count) {
  return text.substr(std::min(count, text.size()));
}

std::string_view clampedSubstr(std::string_view text, std::size_t start,
                               std::size_t length) {
  if (start >= text.size())
    return {};
  return text.substr(start, length);
}

bool isAsciiDigit(char c) { return c >= '0' && c <= '9'; }

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
// ARM architecture names (LLVM's ARM target parser, the part llvm::Triple
// uses to read "armv7a", "thumbv8m.main", "aarch64_be", ...).
// ---------------------------------------------------------------------------

enum class ArmArchKind {
  Invalid,
  V4,
  V4t,
  V5t,
  V5te,
  V5tej,
  V6,
  V6k,
  V6t2,
  V6kz,
  V6m,
  V7a,
  V7ve,
  V7r,
  V7m,
  V7em,
  V8a,
  V8_1a,
  V8_2a,
  V8_3a,
  V8_4a,
  V8_5a,
  V8_6a,
  V8_7a,
  V8_8a,
  V8_9a,
  V9a,
  V9_1a,
  V9_2a,
  V9_3a,
  V9_4a,
  V9_5a,
  V9_6a,
  V9_7a,
  V8r,
  V8mBaseline,
  V8mMainline,
  V8_1mMainline,
  Iwmmxt,
  Iwmmxt2,
  XScale,
  V7s,
  V7k,
};

// The target parser's architecture list, in its order: a name is looked up by
// the first entry that *ends with* it, so the order decides short lookups
// such as "m" (armv6-m) or "a" (armv7-a).
constexpr NameEntry<ArmArchKind> armArchitectures[] = {
    {"invalid", ArmArchKind::Invalid},
    {"armv4", ArmArchKind::V4},
    {"armv4t", ArmArchKind::V4t},
    {"armv5t", ArmArchKind::V5t},
    {"armv5te", ArmArchKind::V5te},
    {"armv5tej", ArmArchKind::V5tej},
    {"armv6", ArmArchKind::V6},
    {"armv6k", ArmArchKind::V6k},
    {"armv6t2", ArmArchKind::V6t2},
    {"armv6kz", ArmArchKind::V6kz},
    {"armv6-m", ArmArchKind::V6m},
    {"armv7-a", ArmArchKind::V7a},
    {"armv7ve", ArmArchKind::V7ve},
    {"armv7-r", ArmArchKind::V7r},
    {"armv7-m", ArmArchKind::V7m},
    {"armv7e-m", ArmArchKind::V7em},
    {"armv8-a", ArmArchKind::V8a},
    {"armv8.1-a", ArmArchKind::V8_1a},
    {"armv8.2-a", ArmArchKind::V8_2a},
    {"armv8.3-a", ArmArchKind::V8_3a},
    {"armv8.4-a", ArmArchKind::V8_4a},
    {"armv8.5-a", ArmArchKind::V8_5a},
    {"armv8.6-a", ArmArchKind::V8_6a},
    {"armv8.7-a", ArmArchKind::V8_7a},
    {"armv8.8-a", ArmArchKind::V8_8a},
    {"armv8.9-a", ArmArchKind::V8_9a},
    {"armv9-a", ArmArchKind::V9a},
    {"armv9.1-a", ArmArchKind::V9_1a},
    {"armv9.2-a", ArmArchKind::V9_2a},
    {"armv9.3-a", ArmArchKind::V9_3a},
    {"armv9.4-a", ArmArchKind::V9_4a},
    {"armv9.5-a", ArmArchKind::V9_5a},
    {"armv9.6-a", ArmArchKind::V9_6a},
    {"armv9.7-a", ArmArchKind::V9_7a},
    {"armv8-r", ArmArchKind::V8r},
    {"armv8-m.base", ArmArchKind::V8mBaseline},
    {"armv8-m.main", ArmArchKind::V8mMainline},
    {"armv8.1-m.main", ArmArchKind::V8_1mMainline},
    {"iwmmxt", ArmArchKind::Iwmmxt},
    {"iwmmxt2", ArmArchKind::Iwmmxt2},
    {"xscale", ArmArchKind::XScale},
    {"armv7s", ArmArchKind::V7s},
    {"armv7k", ArmArchKind::V7k},
};

// Short spellings the target parser accepts for its architecture names.
constexpr NameEntry<std::string_view> armArchSynonyms[] = {
    {"v5", "v5t"},
    {"v5e", "v5te"},
    {"v6j", "v6"},
    {"v6hl", "v6k"},
    {"v6m", "v6-m"},
    {"v6sm", "v6-m"},
    {"v6s-m", "v6-m"},
    {"v6z", "v6kz"},
    {"v6zk", "v6kz"},
    {"v7", "v7-a"},
    {"v7a", "v7-a"},
    {"v7hl", "v7-a"},
    {"v7l", "v7-a"},
    {"v7r", "v7-r"},
    {"v7m", "v7-m"},
    {"v7em", "v7e-m"},
    {"v8", "v8-a"},
    {"v8a", "v8-a"},
    {"v8l", "v8-a"},
    {"aarch64", "v8-a"},
    {"arm64", "v8-a"},
    {"v8.1a", "v8.1-a"},
    {"v8.2a", "v8.2-a"},
    {"v8.3a", "v8.3-a"},
    {"v8.4a", "v8.4-a"},
    {"v8.5a", "v8.5-a"},
    {"v8.6a", "v8.6-a"},
    {"v8.7a", "v8.7-a"},
    {"v8.8a", "v8.8-a"},
    {"v8.9a", "v8.9-a"},
    {"v8r", "v8-r"},
    {"v9", "v9-a"},
    {"v9a", "v9-a"},
    {"v9.1a", "v9.1-a"},
    {"v9.2a", "v9.2-a"},
    {"v9.3a", "v9.3-a"},
    {"v9.4a", "v9.4-a"},
    {"v9.5a", "v9.5-a"},
    {"v9.6a", "v9.6-a"},
    {"v9.7a", "v9.7-a"},
    {"v8m.base", "v8-m.base"},
    {"v8m.main", "v8-m.main"},
    {"v8.1m.main", "v8.1-m.main"},
};

std::string_view armArchSynonym(std::string_view arch) {
  return findExact(armArchSynonyms, arch).value_or(arch);
}

// Strips the "arm"/"thumb"/"aarch64"/"arm64..." prefix and any "eb" endian
// marker, leaving the version part ("armv7a" -> "v7a"). Returns the input
// unchanged when nothing follows the prefix, and an empty string for a
// malformed version part. Names without such a prefix (e.g. "xscale") are
// returned as they are, minus a trailing "eb".
std::string_view canonicalArmArchName(std::string_view arch) {
  constexpr std::size_t noPrefix = std::string_view::npos;
  std::size_t prefixLength = noPrefix;
  std::string_view rest = arch;

  if (arch.starts_with("arm64_32"))
    prefixLength = 8;
  else if (arch.starts_with("arm64e"))
    prefixLength = 6;
  else if (arch.starts_with("arm64"))
    prefixLength = 5;
  else if (arch.starts_with("aarch64_32"))
    prefixLength = 10;
  else if (arch.starts_with("arm"))
    prefixLength = 3;
  else if (arch.starts_with("thumb"))
    prefixLength = 5;
  else if (arch.starts_with("aarch64")) {
    prefixLength = 7;
    // AArch64 marks big endian with "_be"; an "eb" anywhere is an error.
    if (arch.find("eb") != std::string_view::npos)
      return {};
    if (clampedSubstr(arch, prefixLength, 3) == "_be")
      prefixLength += 3;
  }

  if (prefixLength != noPrefix && clampedSubstr(arch, prefixLength, 2) == "eb")
    prefixLength += 2; // "armebv7": skip the endian marker after the prefix.
  else if (rest.ends_with("eb"))
    rest.remove_suffix(2); // "armv7eb": drop the trailing endian marker.

  if (prefixLength != noPrefix)
    rest = dropFront(rest, prefixLength);

  if (rest.empty())
    return arch;

  if (prefixLength != noPrefix) {
    // After a prefix only a "v<digit>..." version may follow, once.
    if (rest.size() >= 2 && (rest[0] != 'v' || !isAsciiDigit(rest[1])))
      return {};
    if (rest.find("eb") != std::string_view::npos)
      return {};
  }
  return rest;
}

// Architecture kind for a name; the name is canonicalised first, so both
// "armv7-a" and "v7a" work.
ArmArchKind parseArmArchKind(std::string_view arch) {
  std::string_view synonym = armArchSynonym(canonicalArmArchName(arch));
  for (const auto &entry : armArchitectures)
    if (entry.name.ends_with(synonym))
      return entry.value;
  return ArmArchKind::Invalid;
}

enum class ArmIsa { Invalid, Arm, Thumb, AArch64 };
enum class ArmEndian { Invalid, Little, Big };

ArmIsa parseArmIsa(std::string_view arch) {
  if (arch.starts_with("aarch64") || arch.starts_with("arm64"))
    return ArmIsa::AArch64;
  if (arch.starts_with("thumb"))
    return ArmIsa::Thumb;
  if (arch.starts_with("arm"))
    return ArmIsa::Arm;
  return ArmIsa::Invalid;
}

ArmEndian parseArmEndian(std::string_view arch) {
  if (arch.starts_with("armeb") || arch.starts_with("thumbeb") ||
      arch.starts_with("aarch64_be"))
    return ArmEndian::Big;
  if (arch.starts_with("arm") || arch.starts_with("thumb"))
    return arch.ends_with("eb") ? ArmEndian::Big : ArmEndian::Little;
  if (arch.starts_with("aarch64"))
    return ArmEndian::Little;
  return ArmEndian::Invalid;
}

// Architecture of a name starting with "arm", "thumb" or "aarch64" that is
// not one of the fixed spellings.
Arch parseArmFamilyArch(std::string_view name) {
  ArmIsa isa = parseArmIsa(name);
  ArmEndian endian = parseArmEndian(name);

  Arch arch = Arch::Unknown;
  if (endian == ArmEndian::Little) {
    if (isa == ArmIsa::Arm)
      arch = Arch::Arm;
    else if (isa == ArmIsa::Thumb)
      arch = Arch::Thumb;
    else if (isa == ArmIsa::AArch64)
      arch = Arch::AArch64;
  } else if (endian == ArmEndian::Big) {
    if (isa == ArmIsa::Arm)
      arch = Arch::ArmBigEndian;
    else if (isa == ArmIsa::Thumb)
      arch = Arch::ThumbBigEndian;
    else if (isa == ArmIsa::AArch64)
      arch = Arch::AArch64BigEndian;
  }

  std::string_view version = canonicalArmArchName(name);
  if (version.empty())
    return Arch::Unknown;

  // Thumb did not exist before ARMv4.
  if (isa == ArmIsa::Thumb &&
      (version.starts_with("v2") || version.starts_with("v3")))
    return Arch::Unknown;

  // ARMv6-M has only the Thumb instruction set, whatever the prefix said.
  if (parseArmArchKind(version) == ArmArchKind::V6m)
    return endian == ArmEndian::Big ? Arch::ThumbBigEndian : Arch::Thumb;

  return arch;
}

SubArch armSubArch(ArmArchKind kind) {
  switch (kind) {
  case ArmArchKind::V4:
    return SubArch::None;
  case ArmArchKind::V4t:
    return SubArch::ArmV4t;
  case ArmArchKind::V5t:
    return SubArch::ArmV5;
  case ArmArchKind::V5te:
  case ArmArchKind::Iwmmxt:
  case ArmArchKind::Iwmmxt2:
  case ArmArchKind::XScale:
  case ArmArchKind::V5tej:
    return SubArch::ArmV5te;
  case ArmArchKind::V6:
    return SubArch::ArmV6;
  case ArmArchKind::V6k:
  case ArmArchKind::V6kz:
    return SubArch::ArmV6k;
  case ArmArchKind::V6t2:
    return SubArch::ArmV6t2;
  case ArmArchKind::V6m:
    return SubArch::ArmV6m;
  case ArmArchKind::V7a:
  case ArmArchKind::V7r:
    return SubArch::ArmV7;
  case ArmArchKind::V7ve:
    return SubArch::ArmV7ve;
  case ArmArchKind::V7k:
    return SubArch::ArmV7k;
  case ArmArchKind::V7m:
    return SubArch::ArmV7m;
  case ArmArchKind::V7s:
    return SubArch::ArmV7s;
  case ArmArchKind::V7em:
    return SubArch::ArmV7em;
  case ArmArchKind::V8a:
    return SubArch::ArmV8;
  case ArmArchKind::V8_1a:
    return SubArch::ArmV8_1a;
  case ArmArchKind::V8_2a:
    return SubArch::ArmV8_2a;
  case ArmArchKind::V8_3a:
    return SubArch::ArmV8_3a;
  case ArmArchKind::V8_4a:
    return SubArch::ArmV8_4a;
  case ArmArchKind::V8_5a:
    return SubArch::ArmV8_5a;
  case ArmArchKind::V8_6a:
    return SubArch::ArmV8_6a;
  case ArmArchKind::V8_7a:
    return SubArch::ArmV8_7a;
  case ArmArchKind::V8_8a:
    return SubArch::ArmV8_8a;
  case ArmArchKind::V8_9a:
    return SubArch::ArmV8_9a;
  case ArmArchKind::V9a:
    return SubArch::ArmV9;
  case ArmArchKind::V9_1a:
    return SubArch::ArmV9_1a;
  case ArmArchKind::V9_2a:
    return SubArch::ArmV9_2a;
  case ArmArchKind::V9_3a:
    return SubArch::ArmV9_3a;
  case ArmArchKind::V9_4a:
    return SubArch::ArmV9_4a;
  case ArmArchKind::V9_5a:
    return SubArch::ArmV9_5a;
  case ArmArchKind::V9_6a:
    return SubArch::ArmV9_6a;
  case ArmArchKind::V9_7a:
    return SubArch::ArmV9_7a;
  case ArmArchKind::V8r:
    return SubArch::ArmV8r;
  case ArmArchKind::V8mBaseline:
    return SubArch::ArmV8mBaseline;
  case ArmArchKind::V8mMainline:
    return SubArch::ArmV8mMainline;
  case ArmArchKind::V8_1mMainline:
    return SubArch::ArmV8_1mMainline;
  case ArmArchKind::Invalid:
    break;
  }
  return SubArch::None;
}

// ---------------------------------------------------------------------------
// Component parsers.
// ---------------------------------------------------------------------------

// Every exact architecture spelling llvm::Triple accepts. Spellings outside
// this table may still be ARM-family, BPF or "kalimba..." names.
constexpr NameEntry<Arch> exactArchNames[] = {
    {"i386", Arch::X86},
    {"i486", Arch::X86},
    {"i586", Arch::X86},
    {"i686", Arch::X86},
    {"i786", Arch::X86},
    {"i886", Arch::X86},
    {"i986", Arch::X86},
    {"amd64", Arch::X86_64},
    {"x86_64", Arch::X86_64},
    {"x86_64h", Arch::X86_64},
    {"powerpc", Arch::PowerPC},
    {"powerpcspe", Arch::PowerPC},
    {"ppc", Arch::PowerPC},
    {"ppc32", Arch::PowerPC},
    {"powerpcle", Arch::PowerPCLittleEndian},
    {"ppcle", Arch::PowerPCLittleEndian},
    {"ppc32le", Arch::PowerPCLittleEndian},
    {"powerpc64", Arch::PowerPC64},
    {"ppu", Arch::PowerPC64},
    {"ppc64", Arch::PowerPC64},
    {"powerpc64le", Arch::PowerPC64LittleEndian},
    {"ppc64le", Arch::PowerPC64LittleEndian},
    {"xscale", Arch::Arm},
    {"xscaleeb", Arch::ArmBigEndian},
    {"aarch64", Arch::AArch64},
    {"aarch64_be", Arch::AArch64BigEndian},
    {"aarch64_32", Arch::AArch64Ilp32},
    {"aarch64_lfi", Arch::AArch64},
    {"arc", Arch::Arc},
    {"arm64", Arch::AArch64},
    {"arm64_32", Arch::AArch64Ilp32},
    {"arm64e", Arch::AArch64},
    {"arm64ec", Arch::AArch64},
    {"arm", Arch::Arm},
    {"armeb", Arch::ArmBigEndian},
    {"thumb", Arch::Thumb},
    {"thumbeb", Arch::ThumbBigEndian},
    {"avr", Arch::Avr},
    {"m68k", Arch::M68k},
    {"msp430", Arch::Msp430},
    {"mips", Arch::Mips},
    {"mipseb", Arch::Mips},
    {"mipsallegrex", Arch::Mips},
    {"mipsisa32r6", Arch::Mips},
    {"mipsr6", Arch::Mips},
    {"mipsel", Arch::MipsLittleEndian},
    {"mipsallegrexel", Arch::MipsLittleEndian},
    {"mipsisa32r6el", Arch::MipsLittleEndian},
    {"mipsr6el", Arch::MipsLittleEndian},
    {"mips64", Arch::Mips64},
    {"mips64eb", Arch::Mips64},
    {"mipsn32", Arch::Mips64},
    {"mipsisa64r6", Arch::Mips64},
    {"mips64r6", Arch::Mips64},
    {"mipsn32r6", Arch::Mips64},
    {"mips64el", Arch::Mips64LittleEndian},
    {"mipsn32el", Arch::Mips64LittleEndian},
    {"mipsisa64r6el", Arch::Mips64LittleEndian},
    {"mips64r6el", Arch::Mips64LittleEndian},
    {"mipsn32r6el", Arch::Mips64LittleEndian},
    {"r600", Arch::R600},
    {"amdgcn", Arch::AmdGcn},
    {"riscv32", Arch::RiscV32},
    {"riscv64", Arch::RiscV64},
    {"riscv32be", Arch::RiscV32BigEndian},
    {"riscv64be", Arch::RiscV64BigEndian},
    {"hexagon", Arch::Hexagon},
    {"s390x", Arch::SystemZ},
    {"systemz", Arch::SystemZ},
    {"sparc", Arch::Sparc},
    {"sparcel", Arch::SparcLittleEndian},
    {"sparcv9", Arch::SparcV9},
    {"sparc64", Arch::SparcV9},
    {"tce", Arch::Tce},
    {"tcele", Arch::TceLittleEndian},
    {"xcore", Arch::XCore},
    {"nvptx", Arch::Nvptx},
    {"nvptx64", Arch::Nvptx64},
    {"amdil", Arch::AmdIl},
    {"amdil64", Arch::AmdIl64},
    {"hsail", Arch::Hsail},
    {"hsail64", Arch::Hsail64},
    {"spir", Arch::Spir},
    {"spir64", Arch::Spir64},
    {"spirv", Arch::SpirV},
    {"spirv1.5", Arch::SpirV},
    {"spirv1.6", Arch::SpirV},
    {"spirv32", Arch::SpirV32},
    {"spirv32v1.0", Arch::SpirV32},
    {"spirv32v1.1", Arch::SpirV32},
    {"spirv32v1.2", Arch::SpirV32},
    {"spirv32v1.3", Arch::SpirV32},
    {"spirv32v1.4", Arch::SpirV32},
    {"spirv32v1.5", Arch::SpirV32},
    {"spirv32v1.6", Arch::SpirV32},
    {"spirv64", Arch::SpirV64},
    {"spirv64v1.0", Arch::SpirV64},
    {"spirv64v1.1", Arch::SpirV64},
    {"spirv64v1.2", Arch::SpirV64},
    {"spirv64v1.3", Arch::SpirV64},
    {"spirv64v1.4", Arch::SpirV64},
    {"spirv64v1.5", Arch::SpirV64},
    {"spirv64v1.6", Arch::SpirV64},
    {"lanai", Arch::Lanai},
    {"renderscript32", Arch::RenderScript32},
    {"renderscript64", Arch::RenderScript64},
    {"shave", Arch::Shave},
    {"ve", Arch::Ve},
    {"wasm32", Arch::Wasm32},
    {"wasm64", Arch::Wasm64},
    {"csky", Arch::Csky},
    {"loongarch32", Arch::LoongArch32},
    {"loongarch64", Arch::LoongArch64},
    {"dxil", Arch::Dxil},
    {"dxilv1.0", Arch::Dxil},
    {"dxilv1.1", Arch::Dxil},
    {"dxilv1.2", Arch::Dxil},
    {"dxilv1.3", Arch::Dxil},
    {"dxilv1.4", Arch::Dxil},
    {"dxilv1.5", Arch::Dxil},
    {"dxilv1.6", Arch::Dxil},
    {"dxilv1.7", Arch::Dxil},
    {"dxilv1.8", Arch::Dxil},
    {"dxilv1.9", Arch::Dxil},
    {"xtensa", Arch::Xtensa},
};

Arch parseBpfArch(std::string_view name) {
  if (name == "bpf") // Plain "bpf" means the host's byte order.
    return std::endian::native == std::endian::little ? Arch::BpfLittleEndian
                                                      : Arch::BpfBigEndian;
  if (name == "bpf_be" || name == "bpfeb")
    return Arch::BpfBigEndian;
  if (name == "bpf_le" || name == "bpfel")
    return Arch::BpfLittleEndian;
  return Arch::Unknown;
}

Arch parseArch(std::string_view name) {
  if (auto arch = findExact(exactArchNames, name))
    return *arch;
  if (name.starts_with("kalimba"))
    return Arch::Kalimba;
  if (name.starts_with("arm") || name.starts_with("thumb") ||
      name.starts_with("aarch64"))
    return parseArmFamilyArch(name);
  if (name.starts_with("bpf"))
    return parseBpfArch(name);
  return Arch::Unknown;
}

// Sub-architecture from a version suffix, first match wins.
template <std::size_t Count>
SubArch subArchFromVersionSuffix(const NameEntry<SubArch> (&suffixes)[Count],
                                 std::string_view name) {
  for (const auto &entry : suffixes)
    if (name.ends_with(entry.name))
      return entry.value;
  return SubArch::None;
}

constexpr NameEntry<SubArch> spirvVersionSuffixes[] = {
    {"v1.0", SubArch::SpirVV1_0}, {"v1.1", SubArch::SpirVV1_1},
    {"v1.2", SubArch::SpirVV1_2}, {"v1.3", SubArch::SpirVV1_3},
    {"v1.4", SubArch::SpirVV1_4}, {"v1.5", SubArch::SpirVV1_5},
    {"v1.6", SubArch::SpirVV1_6},
};

constexpr NameEntry<SubArch> dxilVersionSuffixes[] = {
    {"v1.0", SubArch::DxilV1_0}, {"v1.1", SubArch::DxilV1_1},
    {"v1.2", SubArch::DxilV1_2}, {"v1.3", SubArch::DxilV1_3},
    {"v1.4", SubArch::DxilV1_4}, {"v1.5", SubArch::DxilV1_5},
    {"v1.6", SubArch::DxilV1_6}, {"v1.7", SubArch::DxilV1_7},
    {"v1.8", SubArch::DxilV1_8}, {"v1.9", SubArch::DxilV1_9},
};

constexpr NameEntry<SubArch> kalimbaVersionSuffixes[] = {
    {"kalimba3", SubArch::KalimbaV3},
    {"kalimba4", SubArch::KalimbaV4},
    {"kalimba5", SubArch::KalimbaV5},
};

// The sub-architecture is read from the architecture component on its own,
// independently of the architecture, so even a name of unknown architecture
// can carry one (e.g. "spirv1.4", or "v7" read as ARMv7).
SubArch parseSubArch(std::string_view name) {
  if (name.starts_with("mips") &&
      (name.ends_with("r6el") || name.ends_with("r6")))
    return SubArch::MipsR6;
  if (name == "powerpcspe")
    return SubArch::PowerPCSpe;
  if (name == "arm64e")
    return SubArch::AArch64Arm64e;
  if (name == "arm64ec")
    return SubArch::AArch64Arm64ec;
  if (name == "aarch64_lfi")
    return SubArch::AArch64Lfi;
  if (name.starts_with("spirv"))
    return subArchFromVersionSuffix(spirvVersionSuffixes, name);
  if (name.starts_with("dxil"))
    return subArchFromVersionSuffix(dxilVersionSuffixes, name);

  std::string_view armVersion = canonicalArmArchName(name);
  if (armVersion.empty())
    return subArchFromVersionSuffix(kalimbaVersionSuffixes, name);
  return armSubArch(parseArmArchKind(armVersion));
}

constexpr NameEntry<Vendor> vendorNames[] = {
    {"apple", Vendor::Apple},
    {"pc", Vendor::PC},
    {"scei", Vendor::Scei},
    {"sie", Vendor::Scei},
    {"fsl", Vendor::Freescale},
    {"ibm", Vendor::Ibm},
    {"img", Vendor::ImaginationTechnologies},
    {"mti", Vendor::MipsTechnologies},
    {"nvidia", Vendor::Nvidia},
    {"csr", Vendor::Csr},
    {"amd", Vendor::Amd},
    {"mesa", Vendor::Mesa},
    {"suse", Vendor::Suse},
    {"oe", Vendor::OpenEmbedded},
    {"intel", Vendor::Intel},
    {"meta", Vendor::Meta},
};

Vendor parseVendor(std::string_view name) {
  return findExact(vendorNames, name).value_or(Vendor::Unknown);
}

// OS names match by prefix, so a version may follow ("macos10.15",
// "amdhsa5"); a name that is a prefix of another must come after it.
constexpr NameEntry<OS> osPrefixes[] = {
    {"darwin", OS::Darwin},
    {"dragonfly", OS::DragonFly},
    {"freebsd", OS::FreeBSD},
    {"fuchsia", OS::Fuchsia},
    {"ios", OS::IOS},
    {"kfreebsd", OS::KFreeBSD},
    {"linux", OS::Linux},
    {"lv2", OS::Lv2},
    {"macos", OS::MacOSX},
    {"managarm", OS::Managarm},
    {"netbsd", OS::NetBSD},
    {"openbsd", OS::OpenBSD},
    {"solaris", OS::Solaris},
    {"uefi", OS::Uefi},
    {"win32", OS::Win32},
    {"windows", OS::Win32},
    {"zos", OS::ZOS},
    {"haiku", OS::Haiku},
    {"rtems", OS::Rtems},
    {"aix", OS::Aix},
    {"cuda", OS::Cuda},
    {"nvcl", OS::Nvcl},
    {"amdhsa", OS::AmdHsa},
    {"ps4", OS::PS4},
    {"ps5", OS::PS5},
    {"elfiamcu", OS::ElfIamcu},
    {"tvos", OS::TvOS},
    {"watchos", OS::WatchOS},
    {"bridgeos", OS::BridgeOS},
    {"driverkit", OS::DriverKit},
    {"xros", OS::XROS},
    {"visionos", OS::XROS},
    {"mesa3d", OS::Mesa3D},
    {"amdpal", OS::AmdPal},
    {"hermit", OS::HermitCore},
    {"hurd", OS::Hurd},
    {"wasip1", OS::WasiP1},
    {"wasip2", OS::WasiP2},
    {"wasip3", OS::WasiP3},
    {"wasi", OS::Wasi},
    {"emscripten", OS::Emscripten},
    {"shadermodel", OS::ShaderModel},
    {"liteos", OS::LiteOS},
    {"serenity", OS::Serenity},
    {"vulkan", OS::Vulkan},
    {"cheriotrtos", OS::CheriotRtos},
};

// Environment names match by prefix too ("android21", "gnueabihf"), so the
// longer names sharing a stem are listed before the stem.
constexpr NameEntry<Environment> environmentPrefixes[] = {
    {"eabihf", Environment::EabiHf},
    {"eabi", Environment::Eabi},
    {"gnuabin32", Environment::GnuAbiN32},
    {"gnuabi64", Environment::GnuAbi64},
    {"gnueabihft64", Environment::GnuEabiHfT64},
    {"gnueabihf", Environment::GnuEabiHf},
    {"gnueabit64", Environment::GnuEabiT64},
    {"gnueabi", Environment::GnuEabi},
    {"gnuf32", Environment::GnuF32},
    {"gnuf64", Environment::GnuF64},
    {"gnusf", Environment::GnuSf},
    {"gnux32", Environment::GnuX32},
    {"gnu_ilp32", Environment::GnuIlp32},
    {"code16", Environment::Code16},
    {"gnut64", Environment::GnuT64},
    {"gnu", Environment::Gnu},
    {"android", Environment::Android},
    {"muslabin32", Environment::MuslAbiN32},
    {"muslabi64", Environment::MuslAbi64},
    {"musleabihf", Environment::MuslEabiHf},
    {"musleabi", Environment::MuslEabi},
    {"muslf32", Environment::MuslF32},
    {"muslsf", Environment::MuslSf},
    {"muslx32", Environment::MuslX32},
    {"muslwali", Environment::MuslWali},
    {"musl", Environment::Musl},
    {"msvc", Environment::Msvc},
    {"itanium", Environment::Itanium},
    {"cygnus", Environment::Cygnus},
    {"coreclr", Environment::CoreClr},
    {"simulator", Environment::Simulator},
    {"macabi", Environment::MacAbi},
    {"pixel", Environment::Pixel},
    {"vertex", Environment::Vertex},
    {"geometry", Environment::Geometry},
    {"hull", Environment::Hull},
    {"domain", Environment::Domain},
    {"compute", Environment::Compute},
    {"library", Environment::Library},
    {"raygeneration", Environment::RayGeneration},
    {"intersection", Environment::Intersection},
    {"anyhit", Environment::AnyHit},
    {"closesthit", Environment::ClosestHit},
    {"miss", Environment::Miss},
    {"callable", Environment::Callable},
    {"mesh", Environment::Mesh},
    {"amplification", Environment::Amplification},
    {"rootsignature", Environment::RootSignature},
    {"opencl", Environment::OpenCL},
    {"ohos", Environment::OpenHOS},
    {"mlibc", Environment::Mlibc},
    {"pauthtest", Environment::PAuthTest},
    {"llvm", Environment::Llvm},
    {"mtia", Environment::Mtia},
};

template <typename Value, std::size_t Count>
Value findByPrefix(const NameEntry<Value> (&table)[Count],
                   std::string_view name, Value fallback) {
  for (const auto &entry : table)
    if (name.starts_with(entry.name))
      return entry.value;
  return fallback;
}

OS parseOS(std::string_view name) {
  return findByPrefix(osPrefixes, name, OS::Unknown);
}

Environment parseEnvironment(std::string_view name) {
  return findByPrefix(environmentPrefixes, name, Environment::Unknown);
}

// The object format is named at the *end* of the environment component
// ("gnu-elf", "msvc-coff", "elf"). "xcoff" must be tried before "coff".
constexpr NameEntry<ObjectFormat> objectFormatSuffixes[] = {
    {"xcoff", ObjectFormat::XCoff}, {"coff", ObjectFormat::Coff},
    {"elf", ObjectFormat::Elf},     {"goff", ObjectFormat::Goff},
    {"macho", ObjectFormat::MachO}, {"wasm", ObjectFormat::Wasm},
    {"spirv", ObjectFormat::SpirV},
};

ObjectFormat parseObjectFormat(std::string_view name) {
  for (const auto &entry : objectFormatSuffixes)
    if (name.ends_with(entry.name))
      return entry.value;
  return ObjectFormat::Unknown;
}

std::string_view objectFormatName(ObjectFormat format) {
  switch (format) {
  case ObjectFormat::Unknown:
    return "";
  case ObjectFormat::Coff:
    return "coff";
  case ObjectFormat::DXContainer:
    return "dxcontainer";
  case ObjectFormat::Elf:
    return "elf";
  case ObjectFormat::Goff:
    return "goff";
  case ObjectFormat::MachO:
    return "macho";
  case ObjectFormat::SpirV:
    return "spirv";
  case ObjectFormat::Wasm:
    return "wasm";
  case ObjectFormat::XCoff:
    return "xcoff";
  }
  return "";
}

// A single-component triple naming a MIPS architecture implies its ABI.
Environment mipsEnvironmentForLoneArch(std::string_view name) {
  if (name.starts_with("mipsn32"))
    return Environment::GnuAbiN32;
  if (name.starts_with("mips64") || name.starts_with("mipsisa64"))
    return Environment::GnuAbi64;
  if (name.starts_with("mipsisa32"))
    return Environment::Gnu;
  if (name == "mips" || name == "mipsel" || name == "mipsr6" ||
      name == "mipsr6el")
    return Environment::Gnu;
  return Environment::Unknown;
}

bool isDarwinOS(OS os) {
  switch (os) {
  case OS::Darwin:
  case OS::MacOSX:
  case OS::IOS:
  case OS::TvOS:
  case OS::WatchOS:
  case OS::DriverKit:
  case OS::XROS:
  case OS::BridgeOS:
    return true;
  default:
    return false;
  }
}

// The object format a triple implies when its environment names none.
ObjectFormat defaultObjectFormat(Arch arch, OS os) {
  switch (arch) {
  case Arch::Unknown:
  case Arch::AArch64:
  case Arch::AArch64Ilp32:
  case Arch::Arm:
  case Arch::Thumb:
  case Arch::X86:
  case Arch::X86_64:
    if (os == OS::Win32 || os == OS::Uefi)
      return ObjectFormat::Coff;
    return isDarwinOS(os) ? ObjectFormat::MachO : ObjectFormat::Elf;
  case Arch::MipsLittleEndian:
    return os == OS::Win32 ? ObjectFormat::Coff : ObjectFormat::Elf;
  case Arch::PowerPC64:
  case Arch::PowerPC:
    if (os == OS::Aix)
      return ObjectFormat::XCoff;
    return isDarwinOS(os) ? ObjectFormat::MachO : ObjectFormat::Elf;
  case Arch::SystemZ:
    return os == OS::ZOS ? ObjectFormat::Goff : ObjectFormat::Elf;
  case Arch::Wasm32:
  case Arch::Wasm64:
    return ObjectFormat::Wasm;
  case Arch::SpirV:
  case Arch::SpirV32:
  case Arch::SpirV64:
    return ObjectFormat::SpirV;
  case Arch::Dxil:
    return ObjectFormat::DXContainer;
  default:
    return ObjectFormat::Elf;
  }
}

// ---------------------------------------------------------------------------
// DXIL: "dxil-...-shadermodel6.N-..." normalises to "dxilv1.N-...".
// ---------------------------------------------------------------------------

// A dotted version "major[.minor[.subminor[.build]]]" read the way
// llvm::VersionTuple::tryParse reads it; nullopt where it would fail.
struct DottedVersion {
  std::uint32_t major = 0;
  std::optional<std::uint32_t> minor;
  bool isAllZero = true;
};

std::optional<DottedVersion> parseDottedVersion(std::string_view text) {
  DottedVersion version;
  std::array<std::uint32_t, 4> numbers{};
  std::size_t count = 0;
  while (true) {
    if (text.empty() || !isAsciiDigit(text.front()))
      return std::nullopt;
    std::uint32_t value = 0; // wraps like LLVM's unsigned arithmetic
    while (!text.empty() && isAsciiDigit(text.front())) {
      value = value * 10 + static_cast<std::uint32_t>(text.front() - '0');
      text.remove_prefix(1);
    }
    numbers[count++] = value;
    if (text.empty())
      break;
    if (count == numbers.size() || text.front() != '.')
      return std::nullopt;
    text.remove_prefix(1);
  }
  // VersionTuple keeps the parts after the major one in 31-bit fields.
  constexpr std::uint32_t low31Bits = 0x7fffffffu;
  version.major = numbers[0];
  if (count > 1)
    version.minor = numbers[1] & low31Bits;
  // The build number is dropped before LLVM asks whether the version is empty.
  version.isAllZero = numbers[0] == 0 && (numbers[1] & low31Bits) == 0 &&
                      (numbers[2] & low31Bits) == 0;
  return version;
}

// LLVM stops the whole tool on a shader model 6.N with N > 9
// (report_fatal_error "Unsupported Shader Model version"); here `fatal` is set
// instead and the caller, which must check it, reports it.
std::string dxilArchNameForShaderModel(std::string_view osComponent,
                                       bool &fatal) {
  constexpr std::string_view latestDxil = "dxilv1.9";
  std::string_view versionText = dropFront(osComponent, 11); // "shadermodel"
  std::optional<DottedVersion> version = parseDottedVersion(versionText);
  if (version && !version->isAllZero) {
    if (version->major == 6 && version->minor) {
      if (*version->minor > 9)
        fatal = true;
      return "dxilv1." + std::to_string(*version->minor);
    }
  } else if (osComponent == "shadermodel6.x") {
    return std::string(latestDxil);
  }
  return "dxilv1.0";
}

// ---------------------------------------------------------------------------
// normalize(): move recognisable components into their canonical slots.
// ---------------------------------------------------------------------------

constexpr std::size_t slotCount = 4; // arch, vendor, OS, environment

// What each slot currently holds. The fields mirror LLVM's local variables:
// they keep whatever the *last* parse attempt produced, which the special
// cases at the end rely on.
struct SlotValues {
  Arch arch = Arch::Unknown;
  Vendor vendor = Vendor::Unknown;
  OS os = OS::Unknown;
  Environment environment = Environment::Unknown;
  ObjectFormat objectFormat = ObjectFormat::Unknown;
  bool isCygwin = false;
  bool isMinGW32 = false;

  void readOS(std::string_view component) {
    os = parseOS(component);
    isCygwin = component.starts_with("cygwin") || component.starts_with("msys");
    isMinGW32 = component.starts_with("mingw");
  }

  // Parses `candidate` as the kind of `slot` and says whether it is one.
  bool fits(std::size_t slot, std::string_view candidate) {
    switch (slot) {
    case 0:
      arch = parseArch(candidate);
      return arch != Arch::Unknown;
    case 1:
      vendor = parseVendor(candidate);
      return vendor != Vendor::Unknown;
    case 2:
      readOS(candidate);
      return os != OS::Unknown || isCygwin || isMinGW32;
    default:
      environment = parseEnvironment(candidate);
      if (environment != Environment::Unknown)
        return true;
      objectFormat = parseObjectFormat(candidate);
      return objectFormat != ObjectFormat::Unknown;
    }
  }
};

// The components of a triple and which of the four slots already hold a
// component of their kind; components past the slots are never fixed.
struct SlotLayout {
  std::vector<std::string> components;
  std::array<bool, slotCount> fixed{};

  bool isFixed(std::size_t index) const {
    return index < slotCount && fixed[index];
  }

  // Moves the component at `index` left into `slot`; what was there shifts
  // one free (non-fixed) place right, and so on, until an empty place (the
  // one just vacated, at the latest) absorbs the shift.
  void moveLeft(std::size_t index, std::size_t slot) {
    std::string carried = std::exchange(components[index], std::string());
    for (std::size_t place = slot; !carried.empty(); ++place) {
      while (isFixed(place))
        ++place;
      std::swap(carried, components[place]);
    }
  }

  // Moves the component at `index` right by inserting empty components in
  // front of it, one free place at a time, until it reaches `slot`.
  void moveRight(std::size_t index, std::size_t slot) {
    do {
      std::string carried;
      for (std::size_t place = index; place < components.size();) {
        std::swap(carried, components[place]);
        if (carried.empty())
          break;
        do
          ++place;
        while (isFixed(place));
      }
      if (!carried.empty())
        components.push_back(std::move(carried));
      do
        ++index;
      while (isFixed(index));
    } while (index < slot);
  }
};

// A component already valid in its own slot stays put; this keeps, e.g., an
// arch that also looks like an OS from being moved.
SlotLayout readComponentsInPlace(std::string_view text, SlotValues &values) {
  SlotLayout layout;
  for (std::string_view piece : splitOnDash(text))
    layout.components.emplace_back(piece);
  const std::vector<std::string> &components = layout.components;
  if (components.size() > 0)
    values.arch = parseArch(components[0]);
  if (components.size() > 1)
    values.vendor = parseVendor(components[1]);
  if (components.size() > 2)
    values.readOS(components[2]);
  if (components.size() > 3)
    values.environment = parseEnvironment(components[3]);
  if (components.size() > 4)
    values.objectFormat = parseObjectFormat(components[4]);
  layout.fixed = {values.arch != Arch::Unknown,
                  values.vendor != Vendor::Unknown, values.os != OS::Unknown,
                  values.environment != Environment::Unknown};
  return layout;
}

// Fills each empty slot with the first free component of its kind, in slot
// order, moving components left or right as LLVM does.
void moveComponentsIntoSlots(SlotLayout &layout, SlotValues &values) {
  for (std::size_t slot = 0; slot < slotCount; ++slot) {
    if (layout.fixed[slot])
      continue;
    for (std::size_t index = 0; index < layout.components.size(); ++index) {
      if (layout.isFixed(index))
        continue; // never re-read a component that already found its slot
      const std::string candidate = layout.components[index];
      if (!values.fits(slot, candidate))
        continue;
      if (slot < index)
        layout.moveLeft(index, slot);
      else if (slot > index)
        layout.moveRight(index, slot);
      layout.fixed[slot] = true;
      break;
    }
  }
}

// The environment spellings LLVM rewrites: "androideabi<N>" is the
// historical spelling of "android<N>", and SUSE spells the hard-float ABI
// "gnueabi".
void respellEnvironment(std::vector<std::string> &components,
                        const SlotValues &values) {
  if (values.environment == Environment::Android &&
      components[3].starts_with("androideabi"))
    components[3] = "android" + components[3].substr(11);
  if (values.vendor == Vendor::Suse &&
      values.environment == Environment::GnuEabi)
    components[3] = "gnueabihf";
}

// Windows triples always get the "windows" OS and an environment (and an
// object format other than COFF in a fifth component).
void normalizeWindows(std::vector<std::string> &components,
                      const SlotValues &values) {
  if (values.os == OS::Win32) {
    components.resize(4);
    components[2] = "windows";
    if (values.environment == Environment::Unknown) {
      if (values.objectFormat == ObjectFormat::Unknown ||
          values.objectFormat == ObjectFormat::Coff)
        components[3] = "msvc";
      else
        components[3] = objectFormatName(values.objectFormat);
    }
  } else if (values.isMinGW32) {
    components.resize(4);
    components[2] = "windows";
    components[3] = "gnu";
  } else if (values.isCygwin) {
    components.resize(4);
    components[2] = "windows";
    components[3] = "cygnus";
  }
  if (values.isMinGW32 || values.isCygwin ||
      (values.os == OS::Win32 && values.environment != Environment::Unknown)) {
    if (values.objectFormat != ObjectFormat::Unknown &&
        values.objectFormat != ObjectFormat::Coff) {
      components.resize(5);
      components[4] = objectFormatName(values.objectFormat);
    }
  }
}

std::string normalizeComponents(std::string_view text, TripleForm form,
                                bool &fatal) {
  SlotValues values;
  SlotLayout layout = readComponentsInPlace(text, values);
  moveComponentsIntoSlots(layout, values);
  std::vector<std::string> &components = layout.components;
  const std::array<bool, slotCount> &fixed = layout.fixed;

  // "arch-none-env": "none" is a missing OS, not an unknown vendor.
  if (fixed[0] && !fixed[1] && !fixed[2] && fixed[3] &&
      components[1] == "none" && components[2].empty())
    std::swap(components[1], components[2]);

  for (std::string &component : components)
    if (component.empty())
      component = "unknown";

  respellEnvironment(components, values);
  normalizeWindows(components, values);

  if (components[0] == "dxil") {
    if (components.size() > 4)
      components.resize(4);
    if (values.os == OS::ShaderModel)
      components[0] = dxilArchNameForShaderModel(components[2], fatal);
  }

  switch (form) {
  case TripleForm::Any:
    break;
  case TripleForm::ThreeIdent:
    components.resize(3, "unknown");
    break;
  case TripleForm::FourIdent:
    components.resize(4, "unknown");
    break;
  case TripleForm::FiveIdent:
    components.resize(5, "unknown");
    break;
  }

  std::string normalized;
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (i != 0)
      normalized += '-';
    normalized += components[i];
  }
  return normalized;
}

template <typename Enum> Enum as(int value) { return static_cast<Enum>(value); }
template <typename Enum> int asInt(Enum value) {
  return static_cast<int>(value);
}

} // namespace

// ---------------------------------------------------------------------------
// Triple
// ---------------------------------------------------------------------------

Triple::Triple(std::string_view text) : text_(text) {
  // At most four components: the environment keeps any further dashes
  // ("x86_64-pc-linux-gnu-elf" has environment "gnu-elf").
  std::vector<std::string_view> parts = splitOnDash(text_, 4);
  const std::size_t count = parts.size();
  parts.resize(4);
  parseFields(parts[0], parts[1], parts[2], parts[3], count > 1, count > 2,
              count > 3);
}

Triple::Triple(std::string_view arch, std::string_view vendor,
               std::string_view os, std::string_view environment) {
  text_.append(arch).append("-").append(vendor).append("-").append(os);
  text_.append("-").append(environment);
  parseFields(arch, vendor, os, environment, true, true, true);
}

void Triple::parseFields(std::string_view arch, std::string_view vendor,
                         std::string_view os, std::string_view environment,
                         bool hasVendor, bool hasOs, bool hasEnvironment) {
  Arch parsedArch = parseArch(arch);
  Vendor parsedVendor = Vendor::Unknown;
  OS parsedOS = OS::Unknown;
  Environment parsedEnvironment = Environment::Unknown;
  ObjectFormat parsedFormat = ObjectFormat::Unknown;

  if (hasVendor) {
    parsedVendor = parseVendor(vendor);
    if (hasOs) {
      parsedOS = parseOS(os);
      if (hasEnvironment) {
        parsedEnvironment = parseEnvironment(environment);
        parsedFormat = parseObjectFormat(environment);
      }
    }
  } else {
    parsedEnvironment = mipsEnvironmentForLoneArch(arch);
  }
  if (parsedFormat == ObjectFormat::Unknown)
    parsedFormat = defaultObjectFormat(parsedArch, parsedOS);

  arch_ = asInt(parsedArch);
  subArch_ = asInt(parseSubArch(arch));
  vendor_ = asInt(parsedVendor);
  os_ = asInt(parsedOS);
  environment_ = asInt(parsedEnvironment);
  objectFormat_ = asInt(parsedFormat);
}

bool Triple::hasKnownArch() const { return as<Arch>(arch_) != Arch::Unknown; }

bool Triple::isOSAMDHSA() const { return as<OS>(os_) == OS::AmdHsa; }

bool Triple::isAMDGPU() const {
  return as<Arch>(arch_) == Arch::R600 || isAMDGCN();
}

bool Triple::isAMDGCN() const { return as<Arch>(arch_) == Arch::AmdGcn; }

std::string Triple::normalize(TripleForm form) const {
  bool fatal = false;
  return normalizeComponents(text_, form, fatal);
}

bool Triple::normalizationIsFatal() const {
  bool fatal = false;
  (void)normalizeComponents(text_, TripleForm::Any, fatal);
  return fatal;
}

bool Triple::operator==(const Triple &other) const {
  return arch_ == other.arch_ && subArch_ == other.subArch_ &&
         vendor_ == other.vendor_ && os_ == other.os_ &&
         environment_ == other.environment_ &&
         objectFormat_ == other.objectFormat_;
}

bool Triple::isCompatibleWith(const Triple &other) const {
  // MinGW code is built with various vendors ("w64", "pc"), so the vendor
  // does not matter there.
  const bool ignoreVendor = as<OS>(os_) == OS::Win32 &&
                            as<Environment>(environment_) == Environment::Gnu;
  const bool sameVendor = vendor_ == other.vendor_ || ignoreVendor;
  const bool isApple = as<Vendor>(vendor_) == Vendor::Apple;

  // ARM and Thumb code of the same sub-architecture link together.
  const Arch thisArch = as<Arch>(arch_);
  const Arch otherArch = as<Arch>(other.arch_);
  const bool armThumbPair =
      (thisArch == Arch::Thumb && otherArch == Arch::Arm) ||
      (thisArch == Arch::Arm && otherArch == Arch::Thumb) ||
      (thisArch == Arch::ThumbBigEndian && otherArch == Arch::ArmBigEndian) ||
      (thisArch == Arch::ArmBigEndian && otherArch == Arch::ThumbBigEndian);

  if (armThumbPair) {
    if (isApple)
      return subArch_ == other.subArch_ && vendor_ == other.vendor_ &&
             os_ == other.os_;
    return subArch_ == other.subArch_ && sameVendor && os_ == other.os_ &&
           environment_ == other.environment_ &&
           objectFormat_ == other.objectFormat_;
  }

  // Apple triples carry OS versions in the environment slot, and the object
  // format follows from the OS, so neither takes part.
  if (isApple)
    return arch_ == other.arch_ && subArch_ == other.subArch_ && sameVendor &&
           os_ == other.os_;

  return arch_ == other.arch_ && subArch_ == other.subArch_ && sameVendor &&
         os_ == other.os_ && environment_ == other.environment_ &&
         objectFormat_ == other.objectFormat_;
}

} // namespace offbundle
