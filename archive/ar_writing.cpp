// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Writing ar archives as LLVM's writeArchive() does (see ar_writing.h).
#include "archive/ar_writing.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "archive/ar_format.h"
#include "formats/file_magic.h"

namespace offbundle {
namespace {

using namespace ar_format;

// printWithSpacePadding(): the text, then spaces up to the field's width.
Status appendField(std::string &out, std::string_view text, size_t width) {
  if (text.size() > width)
    return makeError("archive header field '" + std::string(text) +
                     "' does not fit in " + std::to_string(width) +
                     " characters");
  out += text;
  out.append(width - text.size(), ' ');
  return Status::success();
}

// The header fields after the name, as LLVM prints them for a deterministic
// archive: timestamp, owner and group 0, the mode in octal, the size.
Status appendRestOfHeader(std::string &out, std::string_view octalMode,
                          uint64_t size) {
  const std::pair<std::string, size_t> fields[] = {{"0", 12},
                                                   {"0", 6},
                                                   {"0", 6},
                                                   {std::string(octalMode), 8},
                                                   {std::to_string(size), 10}};
  for (const auto &[text, width] : fields)
    if (Status status = appendField(out, text, width); !status.ok())
      return status;
  out += "`\n";
  return Status::success();
}

void appendBigEndian(std::string &out, uint64_t value, unsigned width) {
  for (unsigned i = 0; i < width; ++i)
    out += static_cast<char>((value >> (8 * (width - 1 - i))) & 0xff);
}

// What each member contributes to the archive.
struct MemberLayout {
  std::string header;
  std::string_view contents;
  bool padded = false;
  // Where each of the member's symbols starts in the symbol names.
  std::vector<uint64_t> symbolNameOffsets;
  uint64_t span() const {
    return header.size() + contents.size() + (padded ? 1 : 0);
  }
};

// The symbol table member's payload size for the given offset width
// (computeSymbolTableSize() for GNU kinds): count, offsets, names, padded
// to an even size.
uint64_t symbolTableSize(uint64_t symbolCount, uint64_t offsetWidth,
                         uint64_t namesSize) {
  const uint64_t size = offsetWidth + symbolCount * offsetWidth + namesSize;
  return size + (size & 1);
}

constexpr std::string_view kMemberPadding = "\n";

// The members laid out one after another, and what the symbol table and the
// long name table before them collect on the way.
struct GnuMemberLayouts {
  std::vector<MemberLayout> layouts;
  // Long names, each recorded once: a repeated name reuses its offset.
  std::string longNames;
  std::unordered_map<std::string, uint64_t> longNameOffsets;
  std::string symbolNames;
  uint64_t symbolCount = 0;
  bool hasSymbolicFile = false;
  std::vector<std::string> warnings;
  // Offsets from the first member's header.
  uint64_t membersEnd = 0;
  uint64_t lastMemberStart = 0;
};

// The name field of a member's header. Names of 16 characters or more, or
// with a '/', go to the long name table; the header then holds "/<offset>".
Status appendMemberName(std::string &header, const std::string &name,
                        GnuMemberLayouts &all) {
  if (name.size() >= 16 || name.find('/') != std::string::npos) {
    auto [entry, inserted] =
        all.longNameOffsets.try_emplace(name, all.longNames.size());
    if (inserted)
      all.longNames += name + "/\n";
    header = "/";
    return appendField(header, std::to_string(entry->second), 15);
  }
  return appendField(header, name + "/", 16);
}

// Lays out one member after those already laid out: its header, and its
// symbols added to the symbol names.
Status layOutMember(const NewArchiveMember &member,
                    const ArchiveWriteOptions &options, GnuMemberLayouts &all) {
  const uint64_t size = member.bytes.size();
  if (size > kMaxMemberSize)
    return makeError("File " + member.name + " exceeds size limit");

  MemberLayout layout;
  if (Status status = appendMemberName(layout.header, member.name, all);
      !status.ok())
    return status;
  if (Status status = appendRestOfHeader(layout.header, "644", size);
      !status.ok())
    return status;

  Result<ArchiveMemberSymbols> symbols =
      archiveSymbolsOf(member.bytes, options.bitcodeSymbols);
  if (!symbols)
    return fileError(member.name, symbols.error());
  if (symbols->unreadableReason)
    all.warnings.push_back(
        fileError(member.name, *symbols->unreadableReason).message);
  all.hasSymbolicFile = all.hasSymbolicFile || symbols->isSymbolicFile;
  for (const std::string &symbol : symbols->names) {
    layout.symbolNameOffsets.push_back(all.symbolNames.size());
    all.symbolNames += symbol;
    all.symbolNames += '\0';
  }
  all.symbolCount += symbols->names.size();

  layout.contents = member.bytes;
  layout.padded = size % 2 != 0;
  all.lastMemberStart = all.membersEnd;
  all.membersEnd += layout.span();
  all.layouts.push_back(std::move(layout));
  return Status::success();
}

Result<GnuMemberLayouts>
layOutMembers(const std::vector<NewArchiveMember> &members,
              const ArchiveWriteOptions &options) {
  GnuMemberLayouts all;
  all.layouts.reserve(members.size());
  for (const NewArchiveMember &member : members)
    if (Status status = layOutMember(member, options, all); !status.ok())
      return status.takeError();
  // An archive of object files without a single symbol still gets a symbol
  // table (for old Solaris tools); its names are three NULs.
  if (all.hasSymbolicFile && all.symbolNames.empty())
    all.symbolNames.assign(3, '\0');
  return all;
}

// The long name table member "//", or nothing when no name needs it.
Result<std::string> longNameTableMember(const std::string &longNames) {
  std::string longNameTable;
  if (longNames.empty())
    return longNameTable;
  const uint64_t padding = longNames.size() % 2;
  if (Status status = appendField(longNameTable, "//", 48); !status.ok())
    return status.takeError();
  if (Status status = appendField(
          longNameTable, std::to_string(longNames.size() + padding), 10);
      !status.ok())
    return status.takeError();
  longNameTable += "`\n";
  longNameTable += longNames;
  if (padding)
    longNameTable += '\n';
  return longNameTable;
}

// Where the first member's header starts when the symbol table's offsets
// are `offsetWidth` bytes wide.
uint64_t firstMemberOffset(const GnuMemberLayouts &all,
                           uint64_t longNameTableSize, uint64_t offsetWidth) {
  return kArchiveMagic.size() + kMemberHeaderSize +
         symbolTableSize(all.symbolCount, offsetWidth, all.symbolNames.size()) +
         longNameTableSize;
}

// The symbol table member, "/" (or "/SYM64/" with 64-bit offsets): the
// count, each symbol's member header offset, the names, padded to an even
// size.
Status appendSymbolTable(std::string &out, const GnuMemberLayouts &all,
                         uint64_t offsetWidth, uint64_t memberOffset) {
  const uint64_t tableSize =
      symbolTableSize(all.symbolCount, offsetWidth, all.symbolNames.size());
  if (Status status = appendField(out, offsetWidth == 8 ? "/SYM64/" : "/", 16);
      !status.ok())
    return status;
  if (Status status = appendRestOfHeader(out, "0", tableSize); !status.ok())
    return status;
  appendBigEndian(out, all.symbolCount, offsetWidth);
  for (const MemberLayout &layout : all.layouts) {
    for (size_t i = 0; i < layout.symbolNameOffsets.size(); ++i)
      appendBigEndian(out, memberOffset, offsetWidth);
    memberOffset += layout.span();
  }
  out += all.symbolNames;
  if ((offsetWidth + all.symbolCount * offsetWidth + all.symbolNames.size()) %
      2)
    out += '\0';
  return Status::success();
}

// What comes before the first member: the magic, the symbol table when
// there are symbols, the long name table.
Result<std::string> archivePrefix(const GnuMemberLayouts &all,
                                  const std::string &longNameTable,
                                  uint64_t sym64Threshold) {
  // The symbol table's offsets are 32-bit unless the last member would
  // start at or past the threshold with them; LLVM decides this even when
  // it will write no symbol table.
  uint64_t offsetWidth = 4;
  if (firstMemberOffset(all, longNameTable.size(), 4) + all.lastMemberStart >=
      sym64Threshold)
    offsetWidth = 8;

  std::string prefix(kArchiveMagic);
  if (!all.symbolNames.empty())
    if (Status status = appendSymbolTable(
            prefix, all, offsetWidth,
            firstMemberOffset(all, longNameTable.size(), offsetWidth));
        !status.ok())
      return status.takeError();
  prefix += longNameTable;
  return prefix;
}

} // namespace

uint64_t sym64ThresholdFromValue(const char *environmentValue) {
  if (environmentValue == nullptr)
    return kDefaultSym64Threshold;
  return parseDecimal(environmentValue).value_or(kDefaultSym64Threshold);
}

ArchiveWriteOptions llvmArchiveWriteOptions(uint64_t sym64Threshold) {
  ArchiveWriteOptions options;
  options.sym64Threshold = sym64Threshold;
  options.bitcodeSymbols = [](std::string_view bitcode) {
    return bitcodeArchiveSymbols(bitcode);
  };
  return options;
}

Status ArchiveWritePlan::stream(
    const std::function<Status(std::string_view)> &write) const {
  for (std::string_view piece : pieces_)
    if (Status status = write(piece); !status.ok())
      return status;
  return Status::success();
}

Result<ArchiveWritePlan>
planGnuArchive(const std::vector<NewArchiveMember> &members,
               const ArchiveWriteOptions &options) {
  Result<GnuMemberLayouts> layouts = layOutMembers(members, options);
  if (!layouts)
    return layouts.takeError();
  Result<std::string> longNameTable = longNameTableMember(layouts->longNames);
  if (!longNameTable)
    return longNameTable.takeError();
  Result<std::string> prefix =
      archivePrefix(*layouts, *longNameTable, options.sym64Threshold);
  if (!prefix)
    return prefix.takeError();

  ArchiveWritePlan plan;
  plan.warnings_ = std::move(layouts->warnings);
  auto addGenerated = [&plan](std::string bytes) {
    plan.generated_.push_back(
        std::make_unique<const std::string>(std::move(bytes)));
    plan.pieces_.push_back(*plan.generated_.back());
  };
  addGenerated(std::move(*prefix));
  for (MemberLayout &layout : layouts->layouts) {
    addGenerated(std::move(layout.header));
    if (!layout.contents.empty())
      plan.pieces_.push_back(layout.contents);
    if (layout.padded)
      plan.pieces_.push_back(kMemberPadding);
  }
  for (std::string_view piece : plan.pieces_)
    plan.size_ += piece.size();
  return plan;
}

} // namespace offbundle
