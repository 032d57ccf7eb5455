// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ARM-family architecture names in target triples ("armv7a",
// "thumbv8m.main", "aarch64_be", "arm64e", ...): the part of LLVM 22.1's ARM
// target parser that llvm::Triple uses to find a triple's architecture and
// sub-architecture. The tables keep the target parser's order, which decides
// lookups by suffix.
#include "targets/triple_fields.h"

namespace offbundle::triple_fields {
namespace {

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

} // namespace

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

SubArch parseArmSubArch(std::string_view version) {
  return armSubArch(parseArmArchKind(version));
}

} // namespace offbundle::triple_fields
