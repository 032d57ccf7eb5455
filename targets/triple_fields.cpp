// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The spellings llvm::Triple (LLVM 22.1) accepts for each component of a
// target triple but ARM-family architectures (triple_arm.cpp), the parsers
// that read one component against them, and the object format a triple
// implies. Tables matched by prefix or suffix keep LLVM's order: the first
// hit wins.
#include "targets/triple_fields.h"

#include <bit>

namespace offbundle::triple_fields {
namespace {

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

// The object format is named at the *end* of the environment component
// ("gnu-elf", "msvc-coff", "elf"). "xcoff" must be tried before "coff".
constexpr NameEntry<ObjectFormat> objectFormatSuffixes[] = {
    {"xcoff", ObjectFormat::XCoff}, {"coff", ObjectFormat::Coff},
    {"elf", ObjectFormat::Elf},     {"goff", ObjectFormat::Goff},
    {"macho", ObjectFormat::MachO}, {"wasm", ObjectFormat::Wasm},
    {"spirv", ObjectFormat::SpirV},
};

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

} // namespace

// ---------------------------------------------------------------------------
// Component parsers.
// ---------------------------------------------------------------------------

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
  return parseArmSubArch(armVersion);
}

Vendor parseVendor(std::string_view name) {
  return findExact(vendorNames, name).value_or(Vendor::Unknown);
}

OS parseOS(std::string_view name) {
  return findByPrefix(osPrefixes, name, OS::Unknown);
}

Environment parseEnvironment(std::string_view name) {
  return findByPrefix(environmentPrefixes, name, Environment::Unknown);
}

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

} // namespace offbundle::triple_fields
