// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading ar archives as LLVM's object::Archive does (see ar_reading.h).
#include "archive/ar_reading.h"

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

#include "archive/ar_format.h"

namespace offbundle {
namespace {

using namespace ar_format;

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
  return makeError("truncated or malformed archive (" + what + ")",
                   ErrorCode::DamagedInput);
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
    return makeError("AIX big archives are not supported",
                     ErrorCode::Unsupported);
  else if (bytes.substr(0, kArchiveMagic.size()) != kArchiveMagic)
    return makeError("file too small to be an archive");
  ArchiveParser parser(bytes, isThin);
  return parser.readMembers(archivePath, externalMemberLimit, end);
}

} // namespace offbundle
