// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Checking a data layout string as LLVM 22 parses it (see data_layout.h).
#include "bitcode/data_layout.h"

#include <cstdint>
#include <set>
#include <vector>

#include "support/number_text.h"
#include "support/string_split.h"

namespace offbundle {
namespace {

using Problem = std::optional<std::string>;

Problem formatProblem(const std::string &form) {
  return "malformed specification, must be of the form \"" + form + "\"";
}

// A number as StringRef::getAsInteger reads one into an unsigned: decimal
// digits only, no sign, no more than 32 bits.
std::optional<uint32_t> decimal(std::string_view text) {
  std::optional<uint64_t> value = parseDigits(text, 10);
  if (!value || *value > UINT32_MAX)
    return std::nullopt;
  return static_cast<uint32_t>(*value);
}

Problem checkAddressSpace(std::string_view text) {
  if (text.empty())
    return "address space component cannot be empty";
  std::optional<uint32_t> value = decimal(text);
  if (!value || *value >= (1u << 24))
    return "address space must be a 24-bit integer";
  return std::nullopt;
}

// A size in bits; `bits` gets it when it is well formed.
Problem checkSize(std::string_view text, const std::string &name,
                  uint32_t *bits = nullptr) {
  if (text.empty())
    return name + " component cannot be empty";
  std::optional<uint32_t> value = decimal(text);
  if (!value || *value == 0 || *value >= (1u << 24))
    return name + " must be a non-zero 24-bit integer";
  if (bits)
    *bits = *value;
  return std::nullopt;
}

// An alignment in bits; `bytes` gets it in bytes (1 for an allowed 0).
Problem checkAlignment(std::string_view text, const std::string &name,
                       uint32_t &bytes, bool zeroAllowed = false) {
  if (text.empty())
    return name + " alignment component cannot be empty";
  std::optional<uint32_t> value = decimal(text);
  if (!value || *value >= (1u << 16))
    return name + " alignment must be a 16-bit integer";
  if (*value == 0) {
    if (!zeroAllowed)
      return name + " alignment must be non-zero";
    bytes = 1;
    return std::nullopt;
  }
  const uint32_t inBytes = *value / 8;
  if (*value % 8 != 0 || (inBytes & (inBytes - 1)) != 0)
    return name + " alignment must be a power of two times the byte width";
  bytes = inBytes;
  return std::nullopt;
}

// The optional preferred alignment after the ABI one, which it may not be
// below.
Problem checkPreferred(const std::vector<std::string_view> &parts, size_t index,
                       uint32_t abiBytes) {
  uint32_t preferredBytes = abiBytes;
  if (parts.size() > index)
    if (Problem problem =
            checkAlignment(parts[index], "preferred", preferredBytes))
      return problem;
  if (preferredBytes < abiBytes)
    return "preferred alignment cannot be less than the ABI alignment";
  return std::nullopt;
}

// A size and the ABI alignment after it, from parts[index] on.
Problem checkSizeAndAbi(const std::vector<std::string_view> &parts,
                        size_t index, const std::string &sizeName,
                        uint32_t &bits, uint32_t &abiBytes) {
  if (Problem problem = checkSize(parts[index], sizeName, &bits))
    return problem;
  return checkAlignment(parts[index + 1], "ABI", abiBytes);
}

// i, f and v: <size>:<abi>[:<pref>].
Problem checkPrimitive(char letter, std::string_view rest) {
  const std::vector<std::string_view> parts = splitOn(rest, ':');
  if (parts.size() < 2 || parts.size() > 3)
    return formatProblem(std::string(1, letter) + "<size>:<abi>[:<pref>]");
  uint32_t bits = 0;
  uint32_t abiBytes = 0;
  if (Problem problem = checkSizeAndAbi(parts, 0, "size", bits, abiBytes))
    return problem;
  if (letter == 'i' && bits == 8 && abiBytes != 1)
    return "i8 must be 8-bit aligned";
  return checkPreferred(parts, 2, abiBytes);
}

// a: [0]:<abi>[:<pref>], the size absent or zero, the ABI alignment
// allowed to be zero.
Problem checkAggregate(std::string_view rest) {
  const std::vector<std::string_view> parts = splitOn(rest, ':');
  if (parts.size() < 2 || parts.size() > 3)
    return formatProblem("a:<abi>[:<pref>]");
  if (!parts[0].empty()) {
    std::optional<uint32_t> size = decimal(parts[0]);
    if (!size || *size != 0)
      return "size must be zero";
  }
  uint32_t abiBytes = 0;
  if (Problem problem = checkAlignment(parts[1], "ABI", abiBytes, true))
    return problem;
  return checkPreferred(parts, 2, abiBytes);
}

// A pointer specification's address space: flags ('e', external state;
// 'u', unstable representation), then an optional number, then an optional
// "(name)"; a name may be given to one address space only.
Problem checkPointerAddressSpace(std::string_view text,
                                 std::set<std::string_view> &names) {
  bool flagged = false;
  while (!text.empty()) {
    const char c = text.front();
    if (c != 'e' && c != 'u') {
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return "'" + std::string(1, c) +
               "' is not a valid pointer specification flag";
      break;
    }
    flagged = true;
    text.remove_prefix(1);
  }
  uint64_t space = 0;
  std::string_view name;
  if (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
      ++digits;
    if (digits != 0) {
      std::optional<uint32_t> value = decimal(text.substr(0, digits));
      if (!value || *value >= (1u << 24))
        return "address space must be a 24-bit integer";
      space = *value;
      text.remove_prefix(digits);
    }
    if (!text.empty()) {
      if (text.front() != '(')
        return "address space must be a 24-bit integer";
      if (text.back() != ')' || text.size() == 2)
        return "Expected `( address space name )`";
      name = text.substr(1, text.size() - 2);
      if (name == "P" || name == "G" || name == "A")
        return "Cannot use predefined address space names P/G/A in data "
               "layout";
    }
  }
  if (space == 0 && flagged)
    return "address space 0 cannot be unstable or have external state";
  if (!name.empty() && !names.insert(name).second)
    return "address space name `" + std::string(name) + "` already used";
  return std::nullopt;
}

// p: [<flags>][<n>][(<name>)]:<size>:<abi>[:<pref>[:<index size>]].
Problem checkPointer(std::string_view rest, std::set<std::string_view> &names) {
  const std::vector<std::string_view> parts = splitOn(rest, ':');
  if (parts.size() < 3 || parts.size() > 5)
    return formatProblem("p[<n>]:<size>:<abi>[:<pref>[:<idx>]]");
  if (Problem problem = checkPointerAddressSpace(parts[0], names))
    return problem;
  uint32_t bits = 0;
  uint32_t abiBytes = 0;
  if (Problem problem =
          checkSizeAndAbi(parts, 1, "pointer size", bits, abiBytes))
    return problem;
  if (Problem problem = checkPreferred(parts, 3, abiBytes))
    return problem;
  uint32_t indexBits = bits;
  if (parts.size() > 4)
    if (Problem problem = checkSize(parts[4], "index size", &indexBits))
      return problem;
  if (indexBits > bits)
    return "index size cannot be larger than the pointer size";
  return std::nullopt;
}

// ni:<address space>[:<address space>]..., none of them 0.
Problem checkNonIntegral(std::string_view rest) {
  if (rest.empty() || rest.front() != ':')
    return formatProblem("ni:<address space>[:<address space>]...");
  for (std::string_view space : splitOn(rest.substr(1), ':')) {
    if (Problem problem = checkAddressSpace(space))
      return problem;
    if (space.find_first_not_of('0') == std::string_view::npos)
      return "address space 0 cannot be non-integral";
  }
  return std::nullopt;
}

Problem checkSpecification(std::string_view spec,
                           std::set<std::string_view> &names) {
  if (spec.substr(0, 2) == "ni")
    return checkNonIntegral(spec.substr(2));
  const char letter = spec.front();
  const std::string_view rest = spec.substr(1);
  switch (letter) {
  case 'i':
  case 'f':
  case 'v':
    return checkPrimitive(letter, rest);
  case 'a':
    return checkAggregate(rest);
  case 'p':
    return checkPointer(rest, names);
  case 's': // obsolete, and ignored whatever follows
    return std::nullopt;
  case 'e':
  case 'E':
    if (!rest.empty())
      return "malformed specification, must be just 'e' or 'E'";
    return std::nullopt;
  case 'n':
    for (std::string_view width : splitOn(rest, ':'))
      if (Problem problem = checkSize(width, "size"))
        return problem;
    return std::nullopt;
  case 'S': {
    if (rest.empty())
      return formatProblem("S<size>");
    uint32_t bytes = 0;
    return checkAlignment(rest, "stack natural", bytes);
  }
  case 'F': {
    if (rest.empty())
      return formatProblem("F<type><abi>");
    if (rest.front() != 'i' && rest.front() != 'n')
      return "unknown function pointer alignment type '" +
             std::string(1, rest.front()) + "'";
    uint32_t bytes = 0;
    return checkAlignment(rest.substr(1), "ABI", bytes);
  }
  case 'P':
  case 'A':
  case 'G':
    if (rest.empty())
      return formatProblem(std::string(1, letter) + "<address space>");
    return checkAddressSpace(rest);
  case 'm':
    if (rest.size() < 2 || rest.front() != ':')
      return formatProblem("m:<mangling>");
    if (rest.size() > 2 ||
        std::string_view("elomwxa").find(rest[1]) == std::string_view::npos)
      return "unknown mangling mode";
    return std::nullopt;
  default:
    return "unknown specifier '" + std::string(1, letter) + "'";
  }
}

} // namespace

std::optional<std::string> dataLayoutError(std::string_view layout) {
  if (layout.empty())
    return std::nullopt;
  // The address space names given so far (views of `layout`).
  std::set<std::string_view> names;
  for (std::string_view spec : splitOn(layout, '-')) {
    if (spec.empty())
      return "empty specification is not allowed";
    if (Problem problem = checkSpecification(spec, names))
      return problem;
  }
  return std::nullopt;
}

} // namespace offbundle
