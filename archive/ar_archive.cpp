// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading and writing ar archives as LLVM 22 does; see ar_archive.h.
//
// The reader follows the order in which LLVM's object::Archive looks at an
// archive, so that the first problem found is the one LLVM would report:
// the constructor classifies the archive by its leading special members
// (symbol table, long name table), then each regular member's name is read,
// then its contents, then the header of the member after it.
#include "archive/ar_archive.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <limits>
#include <optional>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <unordered_map>

namespace offbundle {
namespace {

// The fixed part of a member header: name (16), timestamp (12), owner (6),
// group (6), mode (8), size (10) and the terminator "`\n".
constexpr uint64_t kMemberHeaderSize = 60;
constexpr uint64_t kNameFieldSize = 16;
constexpr uint64_t kSizeFieldOffset = 48;
constexpr uint64_t kSizeFieldSize = 10;
constexpr uint64_t kTerminatorOffset = 58;
constexpr std::string_view kBigArchiveMagic = "<bigaf>\n";
// The size field has ten decimal digits (Archive::MaxMemberSize).
constexpr uint64_t kMaxMemberSize = 9999999999;

// How LLVM classifies an archive, which decides how names are read.
enum class ArchiveKind { Gnu, Gnu64, Bsd, Darwin64, Coff };

bool isBsdLike(ArchiveKind kind) {
  return kind == ArchiveKind::Bsd || kind == ArchiveKind::Darwin64;
}

std::string_view trimRight(std::string_view text, char pad) {
  while (!text.empty() && text.back() == pad)
    text.remove_suffix(1);
  return text;
}

// StringRef::getAsInteger(10, ...) into a 64-bit value: one or more decimal
// digits and nothing else, without overflow.
std::optional<uint64_t> parseDecimal(std::string_view text) {
  if (text.empty())
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
      return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

// raw_ostream::write_escaped(): backslash escapes for \\, \t, \n and ",
// three-digit octal escapes for anything else that is not printable.
std::string escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\n':
      out += "\\n";
      break;
    case '"':
      out += "\\\"";
      break;
    default:
      if (byte >= 0x20 && byte <= 0x7e) {
        out += c;
      } else {
        out += '\\';
        out += static_cast<char>('0' + ((byte >> 6) & 7));
        out += static_cast<char>('0' + ((byte >> 3) & 7));
        out += static_cast<char>('0' + (byte & 7));
      }
    }
  }
  return out;
}

// Text from the archive quoted in a message (a name, a numeric field): LLVM
// quotes it as it is, but a control character would split the message over
// lines, so those (only) are written as escapes.
std::string quoted(std::string_view text) {
  std::string out;
  for (char c : text) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      out += escaped(std::string_view(&c, 1));
    else
      out += c;
  }
  return out;
}

Error malformed(const std::string &what) {
  return makeError("truncated or malformed archive (" + what + ")");
}

std::string atOffset(uint64_t offset) {
  return "at offset " + std::to_string(offset);
}

// What LLVM's messages say about the number in a special name field.
constexpr std::string_view kLongNameOffsetDigits =
    "long name offset characters after the '/'";
constexpr std::string_view kLongNameLengthDigits =
    "long name length characters after the #1/";

// The number in a special name field ("/<offset>", "#1/<length>"): decimal
// digits padded with spaces. The messages LLVM gives differ only in what
// the number is and in how the digits are shown (`show`: escaped or quoted).
Result<uint64_t> nameFieldNumber(std::string_view field, std::string_view what,
                                 std::string (*show)(std::string_view),
                                 uint64_t offset) {
  const std::string_view digits = trimRight(field, ' ');
  std::optional<uint64_t> value = parseDecimal(digits);
  if (!value)
    return malformed(std::string(what) + " are not all decimal numbers: '" +
                     show(digits) + "' for archive member header at offset " +
                     std::to_string(offset));
  return *value;
}

// sys::path::parent_path() for the POSIX paths the tool is given: everything
// before the last '/', without the slashes that end it ("/" for the root).
std::string_view parentFolder(std::string_view path) {
  const size_t lastSlash = path.rfind('/');
  if (lastSlash == std::string_view::npos)
    return {};
  size_t end = lastSlash;
  while (end > 0 && path[end - 1] == '/')
    --end;
  return end == 0 ? path.substr(0, 1) : path.substr(0, end);
}

// A member header that passed the checks LLVM's Child constructor makes.
struct ChildHeader {
  uint64_t offset = 0;
  // A member of a thin archive whose contents live in a file (everything
  // but the symbol and long name tables).
  bool isExternal = false;
  // Where the contents start, counted from the header: after the header and
  // a BSD "#1/<length>" name.
  uint64_t contentsStart = kMemberHeaderSize;
};

class ArchiveParser {
public:
  ArchiveParser(std::string_view bytes, bool isThin)
      : bytes_(bytes), isThin_(isThin) {}

  Result<std::vector<ArchiveMember>> readMembers(std::string_view archivePath,
                                                 uint64_t externalLimit,
                                                 ArchiveEnd end);

private:
  std::string_view field(uint64_t offset, uint64_t start, uint64_t size) const {
    return bytes_.substr(offset + start, size);
  }

  // ArchiveMemberHeader::getRawName(). The name field must be readable.
  Result<std::string_view> rawName(uint64_t offset) const {
    const std::string_view nameField = field(offset, 0, kNameFieldSize);
    char terminator = '/';
    if (isBsdLike(kind_)) {
      if (nameField[0] == ' ')
        return malformed("name contains a leading space for archive member "
                         "header at offset " +
                         std::to_string(offset));
      terminator = ' ';
    } else if (nameField[0] == '/' || nameField[0] == '#') {
      terminator = ' ';
    }
    return nameField.substr(0, nameField.find(terminator));
  }

  bool isExternalMember(std::string_view raw) const {
    return isThin_ && raw != "/" && raw != "//" && raw != "/SYM64/";
  }

  // ArchiveMemberHeader::getSize(). The header must be complete.
  Result<uint64_t> sizeField(uint64_t offset) const {
    const std::string_view raw =
        trimRight(field(offset, kSizeFieldOffset, kSizeFieldSize), ' ');
    std::optional<uint64_t> size = parseDecimal(raw);
    if (!size)
      return malformed("characters in size field in archive member header "
                       "are not all decimal numbers: '" +
                       quoted(raw) +
                       "' for the archive member header at offset " +
                       std::to_string(offset));
    return *size;
  }

  // ArchiveMemberHeader::getName(limit), `limit` being how many bytes from
  // the header on belong to the member (or remain in the archive).
  Result<std::string> name(uint64_t offset, uint64_t limit) const;

  // The constructors of ArchiveMemberHeader and Archive::Child.
  Result<ChildHeader> childAt(uint64_t offset) const;

  // Archive::Child::getName(): the name checked against the member's size.
  Result<std::string> childName(const ChildHeader &child) const {
    Result<uint64_t> size = sizeField(child.offset);
    if (!size)
      return size.takeError();
    return name(child.offset, kMemberHeaderSize + *size);
  }

  // Archive::Child::getNext(): the next member, or nullopt at the end. Also
  // what guarantees that this member's contents lie within the archive.
  Result<std::optional<ChildHeader>>
  next(const ChildHeader &child, ArchiveEnd end = ArchiveEnd::Strict) const;

  // The contents of a member that is not external. next(child) must have
  // succeeded.
  Result<std::string_view> embeddedContents(const ChildHeader &child) const {
    Result<uint64_t> size = sizeField(child.offset);
    if (!size)
      return size.takeError();
    const uint64_t end = kMemberHeaderSize + *size;
    if (child.contentsStart > end)
      return malformed("long name length: " +
                       std::to_string(child.contentsStart - kMemberHeaderSize) +
                       " extends past the end of the member or archive for "
                       "archive member header at offset " +
                       std::to_string(child.offset));
    return bytes_.substr(child.offset + child.contentsStart,
                         end - child.contentsStart);
  }

  // Keeps the contents of the long name table member `child`, cut at the
  // end of the archive (where next() will then fail), for later names.
  Status keepLongNames(const ChildHeader &child) {
    Result<uint64_t> size = sizeField(child.offset);
    if (!size)
      return size.takeError();
    longNames_ = bytes_.substr(child.offset + kMemberHeaderSize, *size);
    return Status::success();
  }

  Result<std::optional<ChildHeader>> findFirstRegular();

  std::string_view bytes_;
  bool isThin_;
  ArchiveKind kind_ = ArchiveKind::Gnu;
  std::string_view longNames_;
};

Result<std::string> ArchiveParser::name(uint64_t offset, uint64_t limit) const {
  if (limit < kNameFieldSize)
    return malformed("archive header truncated before the name field for "
                     "archive member header at offset " +
                     std::to_string(offset));
  Result<std::string_view> rawOrError = rawName(offset);
  if (!rawOrError)
    return rawOrError.takeError();
  const std::string_view raw = *rawOrError;

  if (raw[0] == '/') {
    // The symbol tables, the long name table and two Windows SDK members
    // are named as they are.
    if (raw == "/" || raw == "//" || raw == "/<XFGHASHMAP>/" ||
        raw == "/<ECSYMBOLS>/")
      return std::string(raw);
    // "/<offset>": a name in the long name table.
    Result<uint64_t> nameOffset =
        nameFieldNumber(raw.substr(1), kLongNameOffsetDigits, escaped, offset);
    if (!nameOffset)
      return nameOffset.takeError();
    if (*nameOffset >= longNames_.size())
      return malformed("long name offset " + std::to_string(*nameOffset) +
                       " past the end of the string table for archive "
                       "member header at offset " +
                       std::to_string(offset));
    if (kind_ == ArchiveKind::Gnu || kind_ == ArchiveKind::Gnu64) {
      // GNU long names end with "/\n".
      const size_t end = longNames_.find('\n', *nameOffset);
      if (end == std::string_view::npos || end < 1 ||
          longNames_[end - 1] != '/')
        return malformed("string table at long name offset " +
                         std::to_string(*nameOffset) + " not terminated");
      // A name that is just the terminator is empty.
      if (end - 1 < *nameOffset)
        return std::string();
      return std::string(longNames_.substr(*nameOffset, end - 1 - *nameOffset));
    }
    // COFF long names end with a NUL (LLVM reads up to it even past the
    // table; here it must be inside).
    const size_t end = longNames_.find('\0', *nameOffset);
    if (end == std::string_view::npos)
      return malformed("string table at long name offset " +
                       std::to_string(*nameOffset) + " not terminated");
    return std::string(longNames_.substr(*nameOffset, end - *nameOffset));
  }

  if (raw.substr(0, 3) == "#1/") {
    // BSD: the name follows the header, its length in the name field.
    Result<uint64_t> length =
        nameFieldNumber(raw.substr(3), kLongNameLengthDigits, escaped, offset);
    if (!length)
      return length.takeError();
    if (*length > limit || limit - *length < kMemberHeaderSize)
      return malformed("long name length: " + std::to_string(*length) +
                       " extends past the end of the member or archive for "
                       "archive member header at offset " +
                       std::to_string(offset));
    // The read stops at the end of the archive: a member whose size runs
    // past it fails in next() before its name is used.
    return std::string(
        trimRight(bytes_.substr(offset + kMemberHeaderSize, *length), '\0'));
  }

  // A GNU name ends with '/'; other short names are padded with spaces.
  if (raw.back() != '/')
    return std::string(trimRight(raw, ' '));
  return std::string(raw.substr(0, raw.size() - 1));
}

Result<ChildHeader> ArchiveParser::childAt(uint64_t offset) const {
  const uint64_t remaining = bytes_.size() - offset;
  if (remaining < kMemberHeaderSize) {
    const std::string message = "remaining size of archive too small for "
                                "next archive member header ";
    Result<std::string> nameOrError = name(offset, remaining);
    return malformed(message + (nameOrError ? "for " + quoted(*nameOrError)
                                            : atOffset(offset)));
  }
  const std::string_view terminator = field(offset, kTerminatorOffset, 2);
  if (terminator != "`\n") {
    const std::string message = "terminator characters in archive member \"" +
                                escaped(terminator) +
                                "\" not the correct \"`\\n\" values for the "
                                "archive member header ";
    Result<std::string> nameOrError = name(offset, remaining);
    return malformed(message + (nameOrError ? "for " + quoted(*nameOrError)
                                            : atOffset(offset)));
  }

  ChildHeader child;
  child.offset = offset;
  Result<std::string_view> raw = rawName(offset);
  if (!raw)
    return raw.takeError();
  child.isExternal = isExternalMember(*raw);
  if (!child.isExternal) {
    Result<uint64_t> size = sizeField(offset);
    if (!size)
      return size.takeError();
  }
  if (raw->substr(0, 3) == "#1/") {
    // Checked again, with the name, when the name is read; this is the
    // message LLVM gives first (unescaped).
    Result<uint64_t> length =
        nameFieldNumber(raw->substr(3), kLongNameLengthDigits, quoted, offset);
    if (!length)
      return length.takeError();
    // Larger lengths are refused when the name is read.
    child.contentsStart += std::min<uint64_t>(*length, kMaxMemberSize + 1);
  }
  return child;
}

Result<std::optional<ChildHeader>> ArchiveParser::next(const ChildHeader &child,
                                                       ArchiveEnd end) const {
  uint64_t span = kMemberHeaderSize;
  if (!child.isExternal) {
    Result<uint64_t> size = sizeField(child.offset);
    if (!size)
      return size.takeError();
    span += *size;
  }
  // Members start at even offsets; odd-sized ones are padded. The size
  // field has ten characters, so this cannot overflow.
  const uint64_t nextOffset = child.offset + span + (span & 1);
  if (nextOffset == bytes_.size())
    return std::optional<ChildHeader>();
  // The member is whole; only its padding byte is missing, or what follows
  // is too short to be another member.
  if (end == ArchiveEnd::AsTheBundlerReadsIt &&
      (nextOffset == bytes_.size() + 1 ||
       (nextOffset < bytes_.size() &&
        bytes_.size() - nextOffset < kMemberHeaderSize)))
    return std::optional<ChildHeader>();
  if (nextOffset > bytes_.size()) {
    Result<std::string> nameOrError = childName(child);
    return malformed(
        "offset to next archive member past the end of the archive after "
        "member " +
        (nameOrError ? quoted(*nameOrError) : atOffset(child.offset)));
  }
  Result<ChildHeader> following = childAt(nextOffset);
  if (!following)
    return following.takeError();
  return std::optional<ChildHeader>(*following);
}

// The Archive constructor: works out the kind of archive from its first
// members, remembers the long name table and skips the special members.
Result<std::optional<ChildHeader>> ArchiveParser::findFirstRegular() {
  ChildHeader current;
  std::string_view raw;
  // Moves on to `child`: special members are told apart by the raw name.
  auto moveTo = [&](const ChildHeader &child) -> Status {
    current = child;
    Result<std::string_view> rawOrError = rawName(current.offset);
    if (!rawOrError)
      return rawOrError.takeError();
    raw = *rawOrError;
    return Status::success();
  };
  Result<ChildHeader> firstOrError = childAt(kArchiveMagic.size());
  if (!firstOrError)
    return firstOrError.takeError();
  if (Status status = moveTo(*firstOrError); !status.ok())
    return status.takeError();

  if (raw == "__.SYMDEF" || raw == "__.SYMDEF_64") {
    kind_ = raw == "__.SYMDEF" ? ArchiveKind::Bsd : ArchiveKind::Darwin64;
    return next(current);
  }

  if (raw.substr(0, 3) == "#1/") {
    kind_ = ArchiveKind::Bsd;
    Result<std::string> nameOrError = childName(current);
    if (!nameOrError)
      return nameOrError.takeError();
    const std::string &name = *nameOrError;
    if (name == "__.SYMDEF SORTED" || name == "__.SYMDEF")
      return next(current);
    if (name == "__.SYMDEF_64 SORTED" || name == "__.SYMDEF_64") {
      kind_ = ArchiveKind::Darwin64;
      return next(current);
    }
    return std::optional<ChildHeader>(current);
  }

  bool has64BitSymbolTable = false;
  if (raw == "/" || raw == "/SYM64/") {
    has64BitSymbolTable = raw == "/SYM64/";
    Result<std::optional<ChildHeader>> following = next(current);
    if (!following)
      return following.takeError();
    if (!*following)
      return std::optional<ChildHeader>();
    if (Status status = moveTo(**following); !status.ok())
      return status.takeError();
  }

  if (raw == "//") {
    kind_ = has64BitSymbolTable ? ArchiveKind::Gnu64 : ArchiveKind::Gnu;
    // Taken before moving on: the next header's error messages may quote
    // a long name.
    if (Status status = keepLongNames(current); !status.ok())
      return status.takeError();
    return next(current);
  }

  if (raw[0] != '/') {
    kind_ = has64BitSymbolTable ? ArchiveKind::Gnu64 : ArchiveKind::Gnu;
    return std::optional<ChildHeader>(current);
  }

  // A name in the long name table, but no table: object_error::parse_failed.
  if (raw != "/")
    return makeError("Invalid data was encountered while parsing the file");

  // A second "/": a COFF archive's symbol map, then optional "//" and
  // "/<ECSYMBOLS>/" members.
  kind_ = ArchiveKind::Coff;
  Result<std::optional<ChildHeader>> following = next(current);
  if (!following || !*following)
    return following;
  if (Status status = moveTo(**following); !status.ok())
    return status.takeError();
  if (raw == "//") {
    if (Status status = keepLongNames(current); !status.ok())
      return status.takeError();
    following = next(current);
    if (!following || !*following)
      return following;
    if (Status status = moveTo(**following); !status.ok())
      return status.takeError();
  }
  if (raw == "/<ECSYMBOLS>/")
    return next(current);
  return std::optional<ChildHeader>(current);
}

// The whole of a thin member's file, with LLVM's message when it cannot be
// read: "'<name as the archive has it>': <strerror>".
// `limit` is what is left of the budget for all of a thin archive's
// members together; `budgetMessage` says why a member that does not fit in
// it is refused.
Result<std::shared_ptr<const std::string>>
readExternalMember(const std::string &path, const std::string &memberName,
                   uint64_t limit, const std::string &budgetMessage) {
  auto failure = [&](int error) {
    return fileError(quoted(memberName),
                     std::generic_category().message(error));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failure(errno);
  auto contents = std::make_shared<std::string>();
  struct stat status {};
  int error = 0;
  if (::fstat(fd, &status) != 0)
    error = errno;
  else if (S_ISDIR(status.st_mode))
    error = EISDIR;
  else if (S_ISREG(status.st_mode) &&
           static_cast<uint64_t>(status.st_size) > limit) {
    ::close(fd);
    return fileError(quoted(memberName), budgetMessage);
  } else if (S_ISREG(status.st_mode) && status.st_size > 0)
    contents->reserve(static_cast<size_t>(status.st_size));
  // A member naming a device or a pipe (/dev/zero) is read as LLVM reads
  // it, to its end, but not past what memory can hold.
  bool endless = false;
  char buffer[1 << 16];
  while (error == 0) {
    const ssize_t count = ::read(fd, buffer, sizeof(buffer));
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      error = errno;
    else if (count == 0)
      break;
    else if (contents->size() + static_cast<uint64_t>(count) > limit) {
      endless = true;
      break;
    } else
      contents->append(buffer, static_cast<size_t>(count));
  }
  ::close(fd);
  if (endless)
    return fileError(quoted(memberName), budgetMessage);
  if (error != 0)
    return failure(error);
  return std::shared_ptr<const std::string>(std::move(contents));
}

Result<std::vector<ArchiveMember>>
ArchiveParser::readMembers(std::string_view archivePath, uint64_t externalLimit,
                           ArchiveEnd end) {
  std::vector<ArchiveMember> members;
  if (bytes_.size() == kArchiveMagic.size())
    return members;
  uint64_t externalRead = 0;
  Result<std::optional<ChildHeader>> current = findFirstRegular();
  if (!current)
    return current.takeError();
  while (*current) {
    const ChildHeader child = **current;
    Result<std::string> nameOrError = childName(child);
    if (!nameOrError)
      return nameOrError.takeError();
    ArchiveMember member;
    member.name = std::move(*nameOrError);
    member.headerOffset = child.offset;
    if (child.isExternal) {
      // Relative paths are relative to the archive's folder.
      // (sys::path::append(): an empty name adds nothing, so it names the
      // folder itself.)
      std::string path = member.name;
      const std::string_view folder = parentFolder(archivePath);
      if (member.name.empty())
        path = std::string(folder);
      else if (member.name[0] != '/' && !folder.empty())
        path = std::string(folder) + (folder.back() == '/' ? "" : "/") +
               member.name;
      // The members of a thin archive are all held at once: one budget
      // covers them together, or an archive naming one large file a
      // thousand times would need a thousand copies of it.
      const std::string budgetMessage =
          externalRead == 0
              ? "does not end within " + std::to_string(externalLimit) +
                    " bytes"
              : "does not fit within " + std::to_string(externalLimit) +
                    " bytes together with the thin archive's earlier "
                    "members (" +
                    std::to_string(externalRead) + " bytes)";
      Result<std::shared_ptr<const std::string>> contents = readExternalMember(
          path, member.name, externalLimit - externalRead, budgetMessage);
      if (!contents)
        return contents.takeError();
      externalRead += (*contents)->size();
      member.externalContents = std::move(*contents);
      member.bytes = *member.externalContents;
    }
    current = next(child, end);
    if (!current)
      return current.takeError();
    if (!child.isExternal) {
      Result<std::string_view> contents = embeddedContents(child);
      if (!contents)
        return contents.takeError();
      member.bytes = *contents;
    }
    members.push_back(std::move(member));
  }
  return members;
}

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
    return fileError(member.name, symbols.error().message);
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

bool isArchive(std::string_view bytes) {
  return isArchive(identifyFile(bytes));
}

Result<std::vector<ArchiveMember>> readArchive(std::string_view bytes,
                                               std::string_view archivePath,
                                               uint64_t externalMemberLimit,
                                               ArchiveEnd end) {
  bool isThin = false;
  if (bytes.substr(0, kThinArchiveMagic.size()) == kThinArchiveMagic)
    isThin = true;
  else if (bytes.substr(0, kBigArchiveMagic.size()) == kBigArchiveMagic)
    return makeError("AIX big archives are not supported");
  else if (bytes.substr(0, kArchiveMagic.size()) != kArchiveMagic)
    return makeError("file too small to be an archive");
  ArchiveParser parser(bytes, isThin);
  return parser.readMembers(archivePath, externalMemberLimit, end);
}

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
