// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Target triple parsing, comparison and normalisation, matching LLVM 22.1's
// llvm::Triple: the Triple class, which reads each component with the
// parsers of triple_fields.h and compares triples by their parsed fields,
// and normalize(), which moves recognisable components into their canonical
// slots and respells some.
#include "targets/triple.h"

#include "support/string_split.h"
#include "targets/triple_fields.h"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace offbundle {

using namespace triple_fields;

namespace {

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
