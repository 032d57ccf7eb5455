// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// ar archives (archive/ar_reading.h, archive/ar_writing.h) and their members'
// archive symbols (archive/archive_symbols.h).
//
// The archives under tests/data/archive were written by LLVM 22's llvm-ar
// and clang-offload-bundler and by GNU ar, and the member listings were
// taken from llvm-ar (see make_archives.sh there); the tests need none of
// those tools. The error messages expected below are LLVM's, checked
// against llvm-ar 22 when the tests were written.
#include "archive/ar_reading.h"
#include "archive/ar_writing.h"
#include "archive/archive_symbols.h"
#include "formats/coff/coff_symbols.h"
#include "formats/dxcontainer/dxcontainer_symbols.h"
#include "in_memory.h"

#include "test_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace offbundle {
namespace {

using in_memory::writeGnuArchive;

namespace fs = std::filesystem;

fs::path dataDirectory() { return test_files::dataDirectory("archive"); }

using test_files::lines;
using test_files::readFile;

std::vector<std::string> words(const std::string &line) {
  std::vector<std::string> result;
  std::istringstream in(line);
  for (std::string word; in >> word;)
    result.push_back(word);
  return result;
}

// The hash make_archives.sh lists member contents by.
uint64_t fnv1a(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325;
  for (char c : bytes)
    hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3;
  return hash;
}

std::string hex16(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx",
                static_cast<unsigned long long>(value));
  return text;
}

// Where two byte strings first differ, for readable failures.
std::string firstDifference(std::string_view ours, std::string_view expected) {
  size_t at = 0;
  while (at < ours.size() && at < expected.size() && ours[at] == expected[at])
    ++at;
  return "sizes " + std::to_string(ours.size()) + " and " +
         std::to_string(expected.size()) + ", first difference at offset " +
         std::to_string(at);
}

std::vector<std::string> names(const std::vector<ArchiveMember> &members) {
  std::vector<std::string> result;
  for (const ArchiveMember &member : members)
    result.push_back(member.name);
  return result;
}

// A temporary directory, removed with everything in it.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    std::string pattern =
        (fs::temp_directory_path() / "archive-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

void writeFile(const fs::path &path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// ---------------------------------------------------------------------------
// Building archives by hand for the malformed cases.

std::string header(std::string_view name, std::string_view size,
                   std::string_view terminator = "`\n") {
  auto padded = [](std::string_view text, size_t width) {
    std::string field(text);
    field.resize(width, ' ');
    return field;
  };
  return padded(name, 16) + padded("0", 12) + padded("0", 6) + padded("0", 6) +
         padded("644", 8) + padded(size, 10) + std::string(terminator);
}

// A member with a correct header, padded to an even size.
std::string member(std::string_view name, std::string_view contents) {
  std::string bytes = header(name, std::to_string(contents.size()));
  bytes += contents;
  if (contents.size() % 2)
    bytes += '\n';
  return bytes;
}

const std::string kMagic(kArchiveMagic);

// ---------------------------------------------------------------------------
// Reading archives that tools wrote.

std::vector<std::string> readableArchives() {
  std::vector<std::string> result;
  for (const auto &entry : fs::directory_iterator(dataDirectory())) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("read-", 0) == 0 && entry.path().extension() == ".a")
      result.push_back(file);
  }
  std::sort(result.begin(), result.end());
  return result;
}

class ReadCommittedArchive : public testing::TestWithParam<std::string> {};

TEST_P(ReadCommittedArchive, ListsWhatLlvmLists) {
  const fs::path path = dataDirectory() / GetParam();
  const std::string bytes = readFile(path);
  Result<std::vector<ArchiveMember>> members =
      readArchive(bytes, path.string());
  ASSERT_TRUE(members.ok()) << members.error().message;
  const std::vector<std::string> expected =
      lines(readFile(path.string() + ".members.txt"));
  ASSERT_EQ(members->size(), expected.size()) << GetParam();
  for (size_t i = 0; i < expected.size(); ++i) {
    const ArchiveMember &member = (*members)[i];
    EXPECT_EQ(member.name + "\t" + std::to_string(member.bytes.size()) + "\t" +
                  hex16(fnv1a(member.bytes)),
              expected[i])
        << GetParam() << " member " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Committed, ReadCommittedArchive, testing::ValuesIn(readableArchives()),
    [](const testing::TestParamInfo<std::string> &info) {
      std::string name = info.param;
      std::replace_if(
          name.begin(), name.end(),
          [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
          '_');
      return name;
    });

TEST(ReadArchive, CommittedSetIsComplete) {
  // GNU, llvm-ar, BSD, Darwin, SYM64, no symbol table, and two thin ones.
  EXPECT_EQ(readableArchives().size(), 8u);
}

TEST(ReadArchive, RegularMembersViewTheArchive) {
  const std::string bytes = readFile(dataDirectory() / "read-gnu.a");
  Result<std::vector<ArchiveMember>> members = readArchive(bytes, "read-gnu.a");
  ASSERT_TRUE(members.ok()) << members.error().message;
  for (const ArchiveMember &member : *members) {
    EXPECT_FALSE(member.externalContents);
    if (member.bytes.empty())
      continue;
    EXPECT_GE(member.bytes.data(), bytes.data());
    EXPECT_LE(member.bytes.data() + member.bytes.size(),
              bytes.data() + bytes.size());
    EXPECT_EQ(bytes.substr(member.headerOffset, 1),
              member.name.size() < 16 ? member.name.substr(0, 1) : "/");
  }
}

TEST(ReadArchive, EmptyArchive) {
  Result<std::vector<ArchiveMember>> members = readArchive(kMagic, "x.a");
  ASSERT_TRUE(members.ok());
  EXPECT_TRUE(members->empty());
  members = readArchive(std::string(kThinArchiveMagic), "x.a");
  ASSERT_TRUE(members.ok());
  EXPECT_TRUE(members->empty());
}

TEST(ReadArchive, IsArchive) {
  EXPECT_TRUE(isArchive("!<arch>\n"));
  EXPECT_TRUE(isArchive("!<thin>\nrest"));
  EXPECT_FALSE(isArchive("!<arch>"));
  EXPECT_FALSE(isArchive("<bigaf>\n"));
  EXPECT_FALSE(isArchive("\x7f"
                         "ELF"));
}

// ---------------------------------------------------------------------------
// Thin archives.

TEST(ThinArchive, MembersAreFoundFromAnyWorkingDirectory) {
  // The committed thin archive names "thin/..." relative to its folder; the
  // test's working directory is elsewhere.
  const fs::path path = dataDirectory() / "read-thin.a";
  const std::string bytes = readFile(path);
  Result<std::vector<ArchiveMember>> members =
      readArchive(bytes, path.string());
  ASSERT_TRUE(members.ok()) << members.error().message;
  ASSERT_EQ(members->size(), 3u);
  EXPECT_EQ((*members)[0].name, "thin/hello.txt");
  EXPECT_EQ((*members)[0].bytes,
            readFile(dataDirectory() / "thin" / "hello.txt"));
  EXPECT_EQ((*members)[2].name, "thin/sub/a-name-of-twenty-chars");
}

TEST(ThinArchive, MembersOwnTheirBytes) {
  const fs::path path = dataDirectory() / "read-thin.a";
  std::optional<ArchiveMember> kept;
  {
    std::string bytes = readFile(path);
    Result<std::vector<ArchiveMember>> members =
        readArchive(bytes, path.string());
    ASSERT_TRUE(members.ok()) << members.error().message;
    kept = (*members)[1];
    bytes.assign(bytes.size(), 'x'); // the archive's bytes are not used
  }
  ASSERT_TRUE(kept->externalContents);
  EXPECT_EQ(kept->bytes,
            readFile(dataDirectory() / "thin" / "symbols-x86_64.o"));
}

// A thin archive naming the given paths (all through the long name table,
// as both ar programs write them).
std::string thinArchive(const std::vector<std::string> &paths) {
  std::string table;
  std::string headers;
  for (const std::string &path : paths) {
    headers += header("/" + std::to_string(table.size()), "1");
    table += path + "/\n";
  }
  return std::string(kThinArchiveMagic) + member("//", table) + headers;
}

TEST(ThinArchive, AbsoluteAndRelativePaths) {
  TemporaryDirectory directory;
  fs::create_directories(directory.path() / "lib");
  writeFile(directory.path() / "lib" / "near.o", "near");
  writeFile(directory.path() / "far.o", "far!");
  const std::string far = (directory.path() / "far.o").string();
  const std::string bytes = thinArchive({"near.o", far});
  const std::string archive = (directory.path() / "lib" / "t.a").string();
  Result<std::vector<ArchiveMember>> members = readArchive(bytes, archive);
  ASSERT_TRUE(members.ok()) << members.error().message;
  EXPECT_EQ(names(*members), (std::vector<std::string>{"near.o", far}));
  EXPECT_EQ((*members)[0].bytes, "near");
  EXPECT_EQ((*members)[1].bytes, "far!");
  // Trailing and doubled slashes in the archive's path do not matter.
  members = readArchive(bytes, (directory.path() / "lib//t.a").string());
  ASSERT_TRUE(members.ok()) << members.error().message;
  EXPECT_EQ((*members)[0].bytes, "near");
}

TEST(ThinArchive, UnreadableMembersNameTheMember) {
  TemporaryDirectory directory;
  fs::create_directories(directory.path() / "a-folder");
  const std::string archive = (directory.path() / "t.a").string();
  Result<std::vector<ArchiveMember>> members =
      readArchive(thinArchive({"missing.o"}), archive);
  ASSERT_FALSE(members.ok());
  EXPECT_EQ(members.error().message, "'missing.o': No such file or directory");
  members = readArchive(thinArchive({"a-folder"}), archive);
  ASSERT_FALSE(members.ok());
  EXPECT_EQ(members.error().message, "'a-folder': Is a directory");
}

TEST(ThinArchive, MembersTogetherStayWithinTheLimit) {
  // Each member fits, but an archive naming the same file many times would
  // hold every copy at once: the limit covers them together.
  TemporaryDirectory directory;
  {
    std::ofstream member(directory.path() / "m.o", std::ios::binary);
    member << std::string(400 << 10, 'm');
  }
  const std::string archive = (directory.path() / "t.a").string();
  Result<std::vector<ArchiveMember>> members =
      readArchive(thinArchive({"m.o", "m.o"}), archive, 1 << 20);
  ASSERT_TRUE(members.ok()) << members.error().message;
  members = readArchive(thinArchive({"m.o", "m.o", "m.o"}), archive, 1 << 20);
  ASSERT_FALSE(members.ok());
  EXPECT_EQ(members.error().message,
            "'m.o': does not fit within 1048576 bytes together with the thin "
            "archive's earlier members (819200 bytes)");
  // One member larger than the whole limit is refused before it is read.
  members = readArchive(thinArchive({"m.o"}), archive, 100 << 10);
  ASSERT_FALSE(members.ok());
  EXPECT_EQ(members.error().message, "'m.o': does not end within 102400 bytes");
}

TEST(ThinArchive, EndlessMembersStopAtTheLimit) {
  // A member naming a stream is read to its end like any file, but one that
  // never ends is refused once it passes the limit instead of filling
  // memory (LLVM's reader aborts with "out of memory").
  Result<std::vector<ArchiveMember>> members =
      readArchive(thinArchive({"/dev/zero"}), "t.a", 1 << 20);
  ASSERT_FALSE(members.ok());
  EXPECT_EQ(members.error().message,
            "'/dev/zero': does not end within 1048576 bytes");
  // A stream that ends is read whole.
  members = readArchive(thinArchive({"/dev/null"}), "t.a", 1 << 20);
  ASSERT_TRUE(members.ok()) << members.error().message;
  EXPECT_EQ((*members)[0].bytes, "");
}

// ---------------------------------------------------------------------------
// Malformed archives: LLVM's messages.

struct MalformedCase {
  const char *label;
  std::string bytes;
  const char *message; // nullptr: reads fine, with `members`
  std::vector<std::string> members;
};

std::vector<MalformedCase> malformedCases() {
  const std::string longNames = member("//", "long-name-member.o/\n");
  return {
      {"bad magic", "!<arc", "file too small to be an archive", {}},
      {"AIX big archive",
       "<bigaf>\n",
       "AIX big archives are not supported",
       {}},
      {"header cut short",
       kMagic + "abc",
       "truncated or malformed archive (remaining size of archive too small "
       "for next archive member header at offset 8)",
       {}},
      {"second header cut short, name readable",
       kMagic + member("a.txt/", "hi") + "b.txt/          0   ",
       "truncated or malformed archive (remaining size of archive too small "
       "for next archive member header for b.txt)",
       {}},
      {"one byte after the last member",
       kMagic + member("a.txt/", "hi") + "\n",
       "truncated or malformed archive (remaining size of archive too small "
       "for next archive member header at offset 70)",
       {}},
      {"bad terminator",
       kMagic + member("a.txt/", "hi") + header("b.txt/", "2", "`x") + "hi",
       "truncated or malformed archive (terminator characters in archive "
       "member \"`x\" not the correct \"`\\n\" values for the archive member "
       "header for b.txt)",
       {}},
      {"unprintable terminator",
       kMagic + header("a.txt/", "2", "\x01\n") + "hi",
       "truncated or malformed archive (terminator characters in archive "
       "member \"\\001\\n\" not the correct \"`\\n\" values for the archive "
       "member header for a.txt)",
       {}},
      {"size not a number",
       kMagic + member("a.txt/", "hi") + header("b.txt/", "1x") + "hi",
       "truncated or malformed archive (characters in size field in archive "
       "member header are not all decimal numbers: '1x' for the archive "
       "member header at offset 70)",
       {}},
      {"size empty",
       kMagic + header("a.txt/", "") + "hi",
       "truncated or malformed archive (characters in size field in archive "
       "member header are not all decimal numbers: '' for the archive member "
       "header at offset 8)",
       {}},
      {"size with a newline (kept on one line)",
       kMagic + header("a.txt/", "2\n") + "hi",
       "truncated or malformed archive (characters in size field in archive "
       "member header are not all decimal numbers: '2\\n' for the archive "
       "member header at offset 8)",
       {}},
      {"last member past the end",
       kMagic + header("a.txt/", "100") + "hi",
       "truncated or malformed archive (offset to next archive member past "
       "the end of the archive after member a.txt)",
       {}},
      {"member past the end before another",
       kMagic + header("a.txt/", "100") + "hi" + member("b.txt/", "xy"),
       "truncated or malformed archive (offset to next archive member past "
       "the end of the archive after member a.txt)",
       {}},
      {"odd member without its padding",
       kMagic + header("a.txt/", "3") + "abc",
       "truncated or malformed archive (offset to next archive member past "
       "the end of the archive after member a.txt)",
       {}},
      {"long name offset past the table",
       kMagic + longNames + member("/40", "xy"),
       "truncated or malformed archive (long name offset 40 past the end of "
       "the string table for archive member header at offset 88)",
       {}},
      {"long name offset not a number",
       kMagic + longNames + member("/4x", "xy"),
       "truncated or malformed archive (long name offset characters after "
       "the '/' are not all decimal numbers: '4x' for archive member header "
       "at offset 88)",
       {}},
      {"long name without its terminator",
       kMagic + member("//", "long-name-member.o\n\n") + member("/0", "xy"),
       "truncated or malformed archive (string table at long name offset 0 "
       "not terminated)",
       {}},
      {"long name without a newline",
       kMagic + member("//", "long-name-member.o/x") + member("/0", "xy"),
       "truncated or malformed archive (string table at long name offset 0 "
       "not terminated)",
       {}},
      {"long name without a table",
       kMagic + member("/0", "xy"),
       "Invalid data was encountered while parsing the file",
       {}},
      {"long name without a table after the symbol table",
       kMagic + member("/", std::string(4, '\0')) + member("/0", "xy"),
       "Invalid data was encountered while parsing the file",
       {}},
      {"BSD name length not a number",
       kMagic + member("#1/1x", "abcd"),
       "truncated or malformed archive (long name length characters after "
       "the #1/ are not all decimal numbers: '1x' for archive member header "
       "at offset 8)",
       {}},
      {"BSD name past the member",
       kMagic + member("#1/10", "abcd"),
       "truncated or malformed archive (long name length: 10 extends past "
       "the end of the member or archive for archive member header at offset "
       "8)",
       {}},
      {"BSD name with a leading space",
       kMagic + member("#1/4", std::string("a.o\0xy", 6)) +
           member(" b.o", "xy"),
       "truncated or malformed archive (name contains a leading space for "
       "archive member header at offset 74)",
       {}},
      // Archives that are fine, with the names LLVM gives their members.
      {"BSD names",
       kMagic + member("#1/8", std::string("a.o\0\0\0\0\0xy", 10)) +
           member("b.o", "zz"),
       nullptr,
       {"a.o", "b.o"}},
      {"GNU name with a space",
       kMagic + member("a b.o", "xy"),
       nullptr,
       {"a b.o"}},
      {"GNU name cut at its first slash",
       kMagic + member("dir/file.o", "xy"),
       nullptr,
       {"dir"}},
      {"sixteen characters without a slash",
       kMagic + member("abcdefghijklmnop", "xy"),
       nullptr,
       {"abcdefghijklmnop"}},
      {"name starting with #",
       kMagic + member("#foo/", "xy"),
       nullptr,
       {"#foo"}},
      {"empty long name",
       kMagic + member("//", "/\n") + member("/0", "xy"),
       nullptr,
       {""}},
      {"blank name after the symbol table",
       kMagic + member("/", std::string(4, '\0')) + member("   ", "xy"),
       nullptr,
       {""}},
      {"symbol table only",
       kMagic + member("/", std::string(4, '\0')),
       nullptr,
       {}},
      {"symbol and long name tables only",
       kMagic + member("/", std::string(4, '\0')) + member("//", "x/\n"),
       nullptr,
       {}},
      {"64-bit symbol table",
       kMagic + member("/SYM64/", std::string(8, '\0')) + longNames +
           member("/0", "xy"),
       nullptr,
       {"long-name-member.o"}},
      {"COFF symbol tables and NUL-terminated long names",
       kMagic + member("/", std::string(4, '\0')) +
           member("/", std::string(8, '\0')) +
           member("//", std::string("long-name-member.o\0", 19)) +
           member("/0", "xy") + member("c.o/", "zz"),
       nullptr,
       {"long-name-member.o", "c.o"}},
      {"a Windows SDK special member first",
       kMagic + member("/<XFGHASHMAP>/", "xy"),
       "Invalid data was encountered while parsing the file",
       {}},
  };
}

TEST(MalformedArchive, LlvmMessages) {
  for (const MalformedCase &test : malformedCases()) {
    Result<std::vector<ArchiveMember>> members =
        readArchive(test.bytes, "malformed.a");
    if (test.message) {
      ASSERT_FALSE(members.ok()) << test.label;
      EXPECT_EQ(members.error().message, test.message) << test.label;
      EXPECT_EQ(members.error().message.find('\n'), std::string::npos);
    } else {
      ASSERT_TRUE(members.ok())
          << test.label << ": " << members.error().message;
      EXPECT_EQ(names(*members), test.members) << test.label;
    }
  }
}

// Every prefix of an archive either fails or, when it ends exactly where a
// member ends, lists the members before that point: never anything else,
// and never a read outside the bytes (the sanitizer build checks that).
void checkEveryTruncation(const fs::path &path) {
  const std::string bytes = readFile(path);
  Result<std::vector<ArchiveMember>> full = readArchive(bytes, path.string());
  ASSERT_TRUE(full.ok()) << full.error().message;
  size_t accepted = 0;
  for (size_t length = 0; length < bytes.size(); ++length) {
    const std::string prefix = bytes.substr(0, length);
    Result<std::vector<ArchiveMember>> members =
        readArchive(prefix, path.string());
    if (!members.ok()) {
      EXPECT_FALSE(members.error().message.empty());
      continue;
    }
    ++accepted;
    const size_t count = members->size();
    ASSERT_LT(count, full->size()) << path << " cut at " << length;
    if (count > 0)
      EXPECT_EQ(length, (*full)[count].headerOffset)
          << path << " cut at " << length;
    else
      EXPECT_LE(length, (*full)[0].headerOffset)
          << path << " cut at " << length;
    for (size_t i = 0; i < count; ++i) {
      EXPECT_EQ((*members)[i].name, (*full)[i].name);
      EXPECT_EQ((*members)[i].bytes, (*full)[i].bytes);
    }
  }
  // Cut at the magic, after the special members, or after a member.
  EXPECT_GE(accepted, 1u);
  EXPECT_LE(accepted, full->size() + 3);
}

TEST(MalformedArchive, EveryTruncationOfGnu) {
  checkEveryTruncation(dataDirectory() / "read-gnu.a");
}
TEST(MalformedArchive, EveryTruncationOfBsd) {
  checkEveryTruncation(dataDirectory() / "read-bsd.a");
}
TEST(MalformedArchive, EveryTruncationOfDarwin) {
  checkEveryTruncation(dataDirectory() / "read-darwin.a");
}
TEST(MalformedArchive, EveryTruncationOfSym64) {
  checkEveryTruncation(dataDirectory() / "read-gnu64.a");
}
TEST(MalformedArchive, EveryTruncationOfThin) {
  checkEveryTruncation(dataDirectory() / "read-thin.a");
}
TEST(MalformedArchive, EveryTruncationOfBundlerOutput) {
  checkEveryTruncation(dataDirectory() / "bundler-gfx906.a");
}

TEST(MalformedArchive, EveryByteOfTheHeadersChanged) {
  // Each header byte of a small archive set to characters that matter to
  // the parser: whatever happens, it is an error or a listing, not a crash.
  const std::string bytes = readFile(dataDirectory() / "read-llvm.a");
  Result<std::vector<ArchiveMember>> full = readArchive(bytes, "read-llvm.a");
  ASSERT_TRUE(full.ok());
  std::vector<uint64_t> headers = {8};
  for (const ArchiveMember &member : *full)
    headers.push_back(member.headerOffset);
  for (uint64_t start : headers)
    for (uint64_t at = start; at < start + 60 && at < bytes.size(); ++at)
      for (char value : std::string("0 9/#`\n\xff\0x", 10)) {
        std::string changed = bytes;
        changed[at] = value;
        Result<std::vector<ArchiveMember>> members =
            readArchive(changed, "read-llvm.a");
        if (!members.ok()) {
          EXPECT_EQ(members.error().message.find('\n'), std::string::npos);
        }
      }
}

// ---------------------------------------------------------------------------
// Writing.

struct WriteCase {
  std::string name;
  std::optional<std::string> sym64Threshold;
  std::vector<std::pair<std::string, std::string>> members; // name, file
};

void PrintTo(const WriteCase &test, std::ostream *out) { *out << test.name; }

std::vector<WriteCase> writeCases() {
  std::vector<WriteCase> cases;
  for (const std::string &line :
       lines(readFile(dataDirectory() / "write-cases.txt"))) {
    std::vector<std::string> fields = words(line);
    if (fields.empty())
      continue;
    WriteCase test;
    test.name = fields[0];
    for (size_t i = 1; i < fields.size(); ++i) {
      const size_t equals = fields[i].find('=');
      const std::string key = fields[i].substr(0, equals);
      const std::string value = fields[i].substr(equals + 1);
      if (key == "SYM64_THRESHOLD")
        test.sym64Threshold = value;
      else
        test.members.emplace_back(key, value);
    }
    cases.push_back(test);
  }
  return cases;
}

// The bitcode member's symbols, as the bitcode module would list them.
Result<BitcodeArchiveSymbols> committedBitcodeSymbols(std::string_view) {
  BitcodeArchiveSymbols symbols;
  symbols.names =
      lines(readFile(dataDirectory() / "symbols-device-gfx906.bc.txt"));
  return symbols;
}

class WriteCommittedArchive : public testing::TestWithParam<WriteCase> {};

TEST_P(WriteCommittedArchive, SameBytesAsLlvm) {
  const WriteCase &test = GetParam();
  std::vector<std::string> contents;
  contents.reserve(test.members.size());
  std::vector<NewArchiveMember> members;
  for (const auto &[name, file] : test.members) {
    contents.push_back(readFile(dataDirectory() / "members" / file));
    members.push_back({name, contents.back()});
  }
  ArchiveWriteOptions options;
  options.sym64Threshold = sym64ThresholdFromValue(
      test.sym64Threshold ? test.sym64Threshold->c_str() : nullptr);
  options.bitcodeSymbols = committedBitcodeSymbols;

  Result<ArchiveWritePlan> plan = planGnuArchive(members, options);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const std::string written = in_memory::render(*plan);
  const std::string expected =
      readFile(dataDirectory() / ("write-" + test.name + ".a"));
  EXPECT_TRUE(written == expected) << firstDifference(written, expected);
  EXPECT_EQ(plan->size(), written.size());

  std::string streamed;
  ASSERT_TRUE(plan->stream([&](std::string_view piece) {
                    streamed += piece;
                    return Status::success();
                  })
                  .ok());
  EXPECT_TRUE(streamed == written);

  // Reading it back gives the members that went in.
  Result<std::vector<ArchiveMember>> back = readArchive(written, "w.a");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->size(), members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    EXPECT_EQ((*back)[i].name, members[i].name);
    EXPECT_EQ((*back)[i].bytes, members[i].bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Committed, WriteCommittedArchive,
                         testing::ValuesIn(writeCases()),
                         [](const testing::TestParamInfo<WriteCase> &info) {
                           std::string name = info.param.name;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(WriteArchive, CommittedSetIsComplete) {
  EXPECT_EQ(writeCases().size(), 14u);
}

TEST(WriteArchive, EmptyArchiveIsTheMagicAlone) {
  Result<std::string> written = writeGnuArchive({});
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(*written, readFile(dataDirectory() / "write-empty.a"));
  EXPECT_EQ(*written, "!<arch>\n");
}

TEST(WriteArchive, BundlerOutputWrittenAgain) {
  // clang-offload-bundler -unbundle -type=a's output, read and written
  // again from its members' names and bytes (two of them share a name).
  const std::string expected = readFile(dataDirectory() / "bundler-gfx906.a");
  Result<std::vector<ArchiveMember>> members =
      readArchive(expected, "bundler-gfx906.a");
  ASSERT_TRUE(members.ok()) << members.error().message;
  ASSERT_EQ(members->size(), 3u);
  EXPECT_EQ((*members)[0].name, "first-hip-amdgcn-amd-amdhsa--gfx906first.bc");
  EXPECT_EQ((*members)[0].name, (*members)[2].name);
  std::vector<NewArchiveMember> again;
  for (const ArchiveMember &member : *members)
    again.push_back({member.name, member.bytes});
  Result<std::string> written = writeGnuArchive(again);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_TRUE(*written == expected) << firstDifference(*written, expected);
}

TEST(WriteArchive, NamesWithSlashesGoToTheLongNameTable) {
  Result<std::string> written = writeGnuArchive({{"dir/x.o", "ab"}});
  ASSERT_TRUE(written.ok());
  // LLVM leaves the long name table's other header fields blank and counts
  // its padding in its size.
  const std::string longNameTable =
      "//" + std::string(46, ' ') + "10        `\n" + "dir/x.o/\n\n";
  EXPECT_EQ(*written, kMagic + longNameTable + member("/0", "ab"));
  Result<std::vector<ArchiveMember>> back = readArchive(*written, "w.a");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(names(*back), std::vector<std::string>{"dir/x.o"});
}

TEST(WriteArchive, MemberErrorsNameTheMember) {
  const std::string object =
      readFile(dataDirectory() / "members" / "symbols-x86_64.o");
  Result<std::string> written =
      writeGnuArchive({{"fine.o", object}, {"cut.o", object.substr(0, 40)}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message,
            "'cut.o': invalid buffer: the size (40) is smaller than an ELF "
            "header (64)");

  const std::string bitcode =
      readFile(dataDirectory() / "members" / "device-gfx906.bc");
  written = writeGnuArchive({{"device.bc", bitcode}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message.substr(0, 14), "'device.bc': c");

  ArchiveWriteOptions options;
  options.bitcodeSymbols =
      [](std::string_view) -> Result<BitcodeArchiveSymbols> {
    return makeError("malformed block");
  };
  written = writeGnuArchive({{"device.bc", bitcode}}, options);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "'device.bc': malformed block");

  // Bitcode LLVM's reader refuses is kept as a plain member with a warning,
  // and (as the only member) leaves the archive without a symbol table.
  options.bitcodeSymbols =
      [](std::string_view) -> Result<BitcodeArchiveSymbols> {
    BitcodeArchiveSymbols unreadable;
    unreadable.unreadableReason = "Invalid bitcode signature";
    return unreadable;
  };
  Result<ArchiveWritePlan> plan =
      planGnuArchive({{"device.bc", bitcode}}, options);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->warnings(),
            std::vector<std::string>{"'device.bc': Invalid bitcode signature"});
  EXPECT_EQ(in_memory::render(*plan).substr(8, 10), "device.bc/");

  // A COFF object for x86-64 cut inside its header: LLVM's message.
  written = writeGnuArchive({{"w.obj", std::string("d\x86\x01\x00", 4)}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message,
            "'w.obj': The end of the file was unexpectedly encountered");
  // Wasm with a section of an unknown type: LLVM's message.
  written = writeGnuArchive(
      {{"w.wasm", std::string("\0asm\1\0\0\0\x0e\x01\x00", 11)}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().message, "'w.wasm': invalid section type: 14");
}

TEST(WriteArchive, Sym64Threshold) {
  EXPECT_EQ(sym64ThresholdFromValue(nullptr), uint64_t(1) << 32);
  EXPECT_EQ(sym64ThresholdFromValue("0"), 0u);
  EXPECT_EQ(sym64ThresholdFromValue("4000"), 4000u);
  EXPECT_EQ(sym64ThresholdFromValue("18446744073709551615"), UINT64_MAX);
  // Anything but plain digits that fit leaves LLVM's default.
  for (const char *value :
       {"", "abc", "12x", " 5", "+5", "-1", "0x10", "18446744073709551616"})
    EXPECT_EQ(sym64ThresholdFromValue(value), uint64_t(1) << 32) << value;
}

// ---------------------------------------------------------------------------
// Member symbols.

TEST(ArchiveSymbols, CommittedMembers) {
  size_t objects = 0;
  for (const auto &entry :
       fs::directory_iterator(dataDirectory() / "members")) {
    const std::string file = entry.path().filename().string();
    const std::string bytes = readFile(entry.path());
    const fs::path expectedPath =
        dataDirectory() / ("symbols-" + file + ".txt");
    Result<ArchiveMemberSymbols> symbols =
        archiveSymbolsOf(bytes, committedBitcodeSymbols);
    ASSERT_TRUE(symbols.ok()) << file << ": " << symbols.error().message;
    // make_archives.sh writes a list exactly for the members LLVM's writer
    // took for object files.
    EXPECT_EQ(symbols->isSymbolicFile, fs::exists(expectedPath)) << file;
    if (!fs::exists(expectedPath))
      continue;
    ++objects;
    EXPECT_EQ(symbols->names, lines(readFile(expectedPath))) << file;
  }
  EXPECT_EQ(objects, 10u);
}

TEST(ArchiveSymbols, SymbolKinds) {
  // symbols.c defines one symbol of each kind LLVM has a rule for.
  Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(
      readFile(dataDirectory() / "members" / "symbols-x86_64.o"));
  ASSERT_TRUE(symbols.ok());
  const std::vector<std::string> expected = {
      "absolute_symbol",    "weak_function",  "hidden_function",
      "protected_function", "uses_undefined", "global_data",
      "thread_data",        "common_data",    "indirect_function"};
  EXPECT_EQ(symbols->names, expected);
}

TEST(ArchiveSymbols, Classification) {
  using Kind = ArchiveMemberKind;
  const std::vector<std::pair<std::string, Kind>> cases = {
      {"", Kind::NotSymbolic},
      {"\x7f"
       "EL",
       Kind::NotSymbolic},
      {"\x7f"
       "ELF" +
           std::string(13, '\0'),
       Kind::NotSymbolic}, // 17 bytes: too short for identify_magic
      {"\x7f"
       "ELF" +
           std::string(14, '\0'),
       Kind::Elf},
      {"BC\xc0\xde", Kind::Bitcode},
      {"\xde\xc0\x17\x0b", Kind::Bitcode},
      {std::string("\x03\x02\x23\x07", 4) + "spir-v", Kind::NotSymbolic},
      {"\x50\xed\x55\xba cuda", Kind::NotSymbolic},
      {"{\"tapi\": 1}", Kind::NotSymbolic},
      {"__CLANG_OFFLOAD_BUNDLE__ and more", Kind::NotSymbolic},
      {"CCOB....", Kind::NotSymbolic},
      {std::string("\xca\xfe\xba\xbe\x00\x00\x00\x02", 8),
       Kind::NotSymbolic}, // Mach-O universal binary
      {std::string("\0\0\0\0\x20\0\0\0\xff\xff\0\0\xff\xff\0\0", 16),
       Kind::NotSymbolic},                            // Windows resource
      {std::string("\0\0\0\0", 4), Kind::CoffObject}, // COFF, machine 0
      {std::string("\0asm\1\0\0\0", 8), Kind::Wasm},
      {std::string("d\x86\0\0", 4), Kind::CoffObject},
      {std::string("L\x01\0\0", 4), Kind::CoffObject},
      {std::string("A\xa6\0\0", 4), Kind::CoffObject}, // ARM64EC
      {std::string("\0\0\xff\xff", 4), Kind::CoffImport},
      {std::string("\0\0\xff\xff", 4) + std::string(40, 'x'), Kind::CoffImport},
      {std::string("\0\0\xff\xff\2\0\0\0\0\0\0\0", 12) +
           std::string("\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6"
                       "\x6a\xa4\xdc\xb8",
                       16),
       Kind::CoffObject}, // big object
      {std::string("\0\0\xff\xff\2\0\0\0\0\0\0\0", 12) +
           std::string("\x38\xfe\xb3\x0c\xa5\xd9\xab\x4d\xac\x9b\xd6\xb6"
                       "\x22\x26\x53\xc2",
                       16),
       Kind::NotSymbolic}, // cl.exe /GL object
      {"L\x03hello", Kind::NotSymbolic},
      {"MZ" + std::string(100, '\0'), Kind::NotSymbolic},
      {"\xfe\xed\xfa\xce" + std::string(8, '\0') +
           std::string("\0\0\0\x01", 4) + std::string(20, '\0'),
       Kind::MachO}, // Mach-O object
      {"\xfe\xed\xfa\xce" + std::string(40, '\0'), Kind::NotSymbolic},
      {"DXBC", Kind::DxContainer},
      {"hello world\n", Kind::NotSymbolic},
  };
  for (const auto &[bytes, kind] : cases)
    EXPECT_EQ(classifyArchiveMember(bytes), kind)
        << testing::PrintToString(bytes);
}

// Offsets into an ELF64 little-endian object, for corrupting it.
uint64_t read64(const std::string &bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | static_cast<uint8_t>(bytes[at + i]);
  return value;
}
void write32(std::string &bytes, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = static_cast<char>(value >> (8 * i));
}
// The section header of the (first) SHT_SYMTAB, and its index.
std::pair<size_t, size_t> symbolTableHeader(const std::string &object) {
  const uint64_t tableOffset = read64(object, 40);
  const size_t count =
      static_cast<uint8_t>(object[60]) | static_cast<uint8_t>(object[61]) << 8;
  for (size_t index = 0; index < count; ++index) {
    const size_t at = tableOffset + index * 64;
    if (object[at + 4] == 2)
      return {at, index};
  }
  ADD_FAILURE() << "no symbol table";
  return {0, 0};
}

TEST(ArchiveSymbols, MalformedElfMessages) {
  const std::string object =
      readFile(dataDirectory() / "members" / "symbols-x86_64.o");
  auto messageFor = [](const std::string &bytes) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(bytes);
    return symbols.ok() ? std::string("no error") : symbols.error().message;
  };
  EXPECT_EQ(messageFor(object.substr(0, 40)),
            "invalid buffer: the size (40) is smaller than an ELF header (64)");
  char shoff[32];
  std::snprintf(shoff, sizeof(shoff), "%llx",
                static_cast<unsigned long long>(read64(object, 40)));
  EXPECT_EQ(messageFor(object.substr(0, 64)),
            std::string("section header table goes past the end of the file: "
                        "e_shoff = 0x") +
                shoff);
  std::string changed = object;
  changed[4] = 3;
  EXPECT_EQ(messageFor(changed), "Invalid ELF class");
  changed = object;
  changed[5] = 0;
  EXPECT_EQ(messageFor(changed), "Invalid ELF data");
  changed = object;
  changed[58] = 63;
  EXPECT_EQ(messageFor(changed), "invalid e_shentsize in ELF header: 63");

  const auto [symtab, index] = symbolTableHeader(object);
  changed = object;
  write32(changed, symtab + 40, 99); // sh_link
  EXPECT_EQ(messageFor(changed), "invalid section index: 99");
  changed = object;
  changed[symtab + 56] = 16; // sh_entsize
  EXPECT_EQ(messageFor(changed), "section [index " + std::to_string(index) +
                                     "] has invalid sh_entsize: expected 24, "
                                     "but got 16");
  changed = object;
  write32(changed, symtab + 40, index); // linked to itself: not SHT_STRTAB
  EXPECT_EQ(messageFor(changed), "invalid sh_type for string table section "
                                 "[index " +
                                     std::to_string(index) +
                                     "]: expected SHT_STRTAB, but got "
                                     "SHT_SYMTAB");
}

TEST(ArchiveSymbols, EveryTruncationOfEveryObject) {
  // No expectations but no crash: LLVM itself aborts on some of these.
  for (const auto &entry :
       fs::directory_iterator(dataDirectory() / "members")) {
    const std::string bytes = readFile(entry.path());
    if (classifyArchiveMember(bytes) != ArchiveMemberKind::Elf)
      continue;
    for (size_t length = 0; length < bytes.size(); ++length) {
      Result<ArchiveMemberSymbols> symbols =
          archiveSymbolsOf(std::string_view(bytes).substr(0, length));
      if (!symbols.ok()) {
        EXPECT_FALSE(symbols.error().message.empty());
      }
    }
  }
}

// A little COFF object writer for the reader's tests: one section, then
// the given symbol records, then the string table.
struct CoffSymbolSpec {
  std::string name;
  int32_t section = 1;
  uint32_t value = 0;
  uint8_t storageClass = 2; // EXTERNAL
  std::vector<std::string> auxiliary = {};
};

// Widths past 8 bytes pad with zeros (a shift by 64 bits or more is
// undefined).
void appendLe(std::string &out, uint64_t value, unsigned width) {
  for (unsigned i = 0; i < width; ++i)
    out += static_cast<char>(i < 8 ? value >> (8 * i) : 0);
}

std::string coffObject(uint16_t machine,
                       const std::vector<CoffSymbolSpec> &symbols,
                       bool bigObject = false) {
  const size_t recordSize = bigObject ? 20 : 18;
  std::string strings;
  std::string records;
  uint32_t count = 0;
  for (const CoffSymbolSpec &symbol : symbols) {
    if (symbol.name.size() > 8) {
      appendLe(records, 0, 4);
      appendLe(records, 4 + strings.size(), 4);
      strings += symbol.name + '\0';
    } else {
      records += symbol.name + std::string(8 - symbol.name.size(), '\0');
    }
    appendLe(records, symbol.value, 4);
    appendLe(records, static_cast<uint32_t>(symbol.section), bigObject ? 4 : 2);
    appendLe(records, 0, 2);
    records += static_cast<char>(symbol.storageClass);
    records += static_cast<char>(symbol.auxiliary.size());
    for (const std::string &aux : symbol.auxiliary)
      records += aux + std::string(recordSize - aux.size(), '\0');
    count += 1 + static_cast<uint32_t>(symbol.auxiliary.size());
  }
  const size_t headerSize = bigObject ? 56 : 20;
  const uint32_t symbolTable = headerSize + 40;
  std::string object;
  if (bigObject) {
    appendLe(object, 0, 2);
    appendLe(object, 0xffff, 2);
    appendLe(object, 2, 2);
    appendLe(object, machine, 2);
    appendLe(object, 0, 4);
    object += std::string("\xc7\xa1\xba\xd1\xee\xba\xa9\x4b\xaf\x20\xfa\xf6"
                          "\x6a\xa4\xdc\xb8",
                          16);
    object += std::string(16, '\0');
    appendLe(object, 1, 4);
    appendLe(object, symbolTable, 4);
    appendLe(object, count, 4);
  } else {
    appendLe(object, machine, 2);
    appendLe(object, 1, 2);
    appendLe(object, 0, 4);
    appendLe(object, symbolTable, 4);
    appendLe(object, count, 4);
    appendLe(object, 0, 4);
  }
  object += ".text" + std::string(35, '\0'); // a section without contents
  object += records;
  appendLe(object, 4 + strings.size(), 4);
  return object + strings;
}

std::string weakAuxiliary(uint32_t characteristics) {
  std::string aux(4, '\0');
  appendLe(aux, characteristics, 4);
  return aux;
}

// Every kind of record, and whether LLVM's writer lists it.
const std::vector<std::pair<CoffSymbolSpec, bool>> &everyKindOfCoffSymbol() {
  static const std::vector<std::pair<CoffSymbolSpec, bool>> kinds = {
      {{"defined"}, true},
      {{"a_name_in_the_string_table"}, true},
      {{"eight_ch"}, true},
      {{"static", 1, 0, 3}, false},
      {{".text", 1, 0, 3, {"\x10"}}, false}, // section definition
      {{".file", -2, 0, 103, {"k.c"}}, false},
      {{"undefined", 0}, false},
      {{"common", 0, 16}, true},
      {{"absolute", -1}, true},
      {{"appdomain", -1, 0, 2, {""}}, false}, // section definition too
      {{"weak_alias", 0, 0, 105, {weakAuxiliary(3)}}, true},
      {{"weak_library", 0, 0, 105, {weakAuxiliary(2)}}, false},
      {{"weak_no_search", 0, 0, 105, {weakAuxiliary(1)}}, false},
      {{"weak_bare", 0, 0, 105}, true},
      {{"label", 1, 0, 6}, false},
  };
  return kinds;
}

TEST(CoffArchiveSymbols, ListsGlobalDefinedRecordsInOrder) {
  std::vector<CoffSymbolSpec> specs;
  std::vector<std::string> expected;
  for (const auto &[spec, listed] : everyKindOfCoffSymbol()) {
    specs.push_back(spec);
    if (listed)
      expected.push_back(spec.name);
  }
  for (uint16_t machine : {0x8664, 0x14c, 0xaa64, 0xa641, 0x0}) {
    for (bool bigObject : {false, true}) {
      const std::string object = coffObject(machine, specs, bigObject);
      Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(object);
      ASSERT_TRUE(symbols.ok()) << symbols.error().message;
      EXPECT_TRUE(symbols->isSymbolicFile);
      EXPECT_EQ(symbols->names, expected) << machine << " " << bigObject;
    }
  }
}

TEST(CoffArchiveSymbols, ShortNames) {
  // Eight bytes without a final NUL are taken whole, NULs inside included.
  const std::string object = coffObject(
      0x8664, {{std::string("ab\0cdefg", 8)}, {std::string("ab\0cdef\0", 8)}});
  Result<std::vector<std::string>> names = coffObjectArchiveSymbols(object);
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names,
            (std::vector<std::string>{std::string("ab\0cdefg", 8), "ab"}));
}

TEST(CoffArchiveSymbols, TablesThatDoNotFitLeaveNoSymbols) {
  std::string object = coffObject(0x8664, {{"defined"}});
  // The symbol count (offset 12) past the end of the file.
  std::string changed = object;
  write32(changed, 12, 100000);
  Result<std::vector<std::string>> names = coffObjectArchiveSymbols(changed);
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_TRUE(names->empty());
  // No symbol table offset, whatever the count.
  changed = object;
  write32(changed, 8, 0);
  names = coffObjectArchiveSymbols(changed);
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_TRUE(names->empty());
  // A string table without its final NUL.
  object = coffObject(0x8664, {{"a_long_defined_name"}});
  changed = object;
  changed.back() = 'x';
  names = coffObjectArchiveSymbols(changed);
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_TRUE(names->empty());
}

TEST(CoffArchiveSymbols, Messages) {
  auto messageFor = [](std::string_view bytes) {
    Result<std::vector<std::string>> names = coffObjectArchiveSymbols(bytes);
    return names.ok() ? std::string("no error") : names.error().message;
  };
  const std::string object = coffObject(0x8664, {{"a_long_defined_name"}});
  EXPECT_EQ(messageFor(object.substr(0, 19)),
            "The end of the file was unexpectedly encountered");
  // The section table cut short.
  EXPECT_EQ(messageFor(object.substr(0, 40)),
            "The end of the file was unexpectedly encountered");
  // The string table's size field says 4: no strings at all.
  std::string changed = object;
  write32(changed, 20 + 40 + 18, 4);
  EXPECT_EQ(messageFor(changed), "string table empty");
  // A name offset past the string table.
  changed = object;
  write32(changed, 20 + 40 + 4, 1000);
  EXPECT_EQ(messageFor(changed),
            "The end of the file was unexpectedly encountered");
  // A weak external whose auxiliary record would run past the file, where
  // LLVM reads past its buffer.
  const std::string weak = coffObject(0x8664, {{"w", 0, 0, 105}});
  changed = weak;
  changed[20 + 40 + 17] = 1; // one auxiliary record, which is not there
  EXPECT_EQ(messageFor(changed), "the auxiliary record of weak external "
                                 "symbol 0 runs past the end of the file");
}

TEST(CoffArchiveSymbols, ImportMembers) {
  auto importMember = [](uint16_t machine, uint16_t type, std::string name) {
    std::string member;
    appendLe(member, 0, 2);
    appendLe(member, 0xffff, 2);
    appendLe(member, 0, 2);
    appendLe(member, machine, 2);
    appendLe(member, 0, 8);
    appendLe(member, 0, 2);
    appendLe(member, type, 2);
    return member + name + '\0' + "x.dll" + '\0';
  };
  using Names = std::vector<std::string>;
  auto namesOf = [](const std::string &member) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(member);
    EXPECT_TRUE(symbols.ok()) << symbols.error().message;
    return symbols.ok() ? symbols->names : Names{"error"};
  };
  EXPECT_EQ(namesOf(importMember(0x8664, 0, "f")), (Names{"__imp_f", "f"}));
  EXPECT_EQ(namesOf(importMember(0x8664, 1, "v")), (Names{"__imp_v"}));
  EXPECT_EQ(namesOf(importMember(0x8664, 2, "c")), (Names{"__imp_c", "c"}));
  EXPECT_EQ(namesOf(importMember(0x8664, 0, "#f")), (Names{"__imp_#f", "#f"}));
  EXPECT_EQ(namesOf(importMember(0xa641, 0, "#f")),
            (Names{"__imp_f", "f", "__imp_aux_f", "#f"}));
  EXPECT_EQ(namesOf(importMember(0xa64e, 0, "?g@@$$hYAXXZ")),
            (Names{"__imp_?g@@YAXXZ", "?g@@YAXXZ", "__imp_aux_?g@@YAXXZ",
                   "?g@@$$hYAXXZ"}));
  EXPECT_EQ(namesOf(importMember(0xa641, 0, "??@00ff@$$h@")),
            (Names{"__imp_??@00ff@", "??@00ff@", "__imp_aux_??@00ff@",
                   "??@00ff@$$h@"}));
  EXPECT_EQ(namesOf(importMember(0xa641, 1, "#v")), (Names{"__imp_v"}));
  EXPECT_EQ(namesOf(importMember(0xa641, 0, "plain")),
            (Names{"__imp_plain", "plain", "__imp_aux_plain", "plain"}));

  // Where LLVM would read past the member.
  const std::string member = importMember(0x8664, 0, "f");
  Result<ArchiveMemberSymbols> cut = archiveSymbolsOf(member.substr(0, 12));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "the import header is truncated");
  cut = archiveSymbolsOf(member.substr(0, 21));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "the import name has no terminating NUL");
}

// Reads every truncation of `member`, and every copy with one byte changed,
// as an archive member: no crash, and every failure says why.
void expectEveryDamageHandled(const std::string &member) {
  for (size_t length = 0; length <= member.size(); ++length)
    (void)archiveSymbolsOf(std::string_view(member).substr(0, length));
  for (size_t at = 0; at < member.size(); ++at) {
    for (uint8_t value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string changed = member;
      changed[at] = static_cast<char>(value);
      Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(changed);
      if (!symbols.ok()) {
        EXPECT_FALSE(symbols.error().message.empty());
      }
    }
  }
}

TEST(CoffArchiveSymbols, EveryTruncationAndByteChange) {
  std::vector<CoffSymbolSpec> specs;
  for (const auto &kind : everyKindOfCoffSymbol())
    specs.push_back(kind.first);
  for (bool bigObject : {false, true}) {
    expectEveryDamageHandled(coffObject(0, specs, bigObject));
  }
}

// A DirectX container of the given parts (name, data).
std::string
dxContainer(const std::vector<std::pair<std::string, std::string>> &parts) {
  std::string body;
  std::string offsets;
  uint64_t position = 32 + 4 * parts.size();
  for (const auto &[name, data] : parts) {
    appendLe(offsets, position, 4);
    std::string part = name;
    appendLe(part, data.size(), 4);
    part += data;
    position += part.size();
    body += part;
  }
  std::string container = "DXBC" + std::string(16, '\0');
  appendLe(container, 1, 4);
  appendLe(container, position, 4);
  appendLe(container, parts.size(), 4);
  return container + offsets + body;
}

TEST(DxContainerArchiveSymbols, SymbolicWithoutSymbols) {
  std::string signature;
  appendLe(signature, 1, 4);  // one parameter
  appendLe(signature, 8, 4);  // right after this header
  appendLe(signature, 0, 4);  // stream
  appendLe(signature, 40, 4); // its name: right after the parameters
  signature += std::string(24, '\0') + "POSITION" + '\0';
  for (const auto &parts :
       std::vector<std::vector<std::pair<std::string, std::string>>>{
           {},
           {{"SFI0", std::string(8, '\0')},
            {"HASH", std::string(20, '\0')},
            {"ISG1", signature},
            {"ABCD", ""}}}) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(dxContainer(parts));
    ASSERT_TRUE(symbols.ok()) << symbols.error().message;
    EXPECT_TRUE(symbols->isSymbolicFile);
    EXPECT_TRUE(symbols->names.empty());
  }
}

TEST(DxContainerArchiveSymbols, Messages) {
  auto messageFor = [](const std::string &bytes) {
    Status status = checkDxContainerForArchive(bytes);
    return status.ok() ? std::string("no error") : status.error().message;
  };
  EXPECT_EQ(messageFor(dxContainer({}).substr(0, 31)),
            "Reading structure out of file bounds");
  EXPECT_EQ(messageFor(dxContainer({{"HASH", std::string(19, '\0')}})),
            "Reading structure out of file bounds");
  EXPECT_EQ(messageFor(dxContainer({{"SFI0", std::string(8, '\0')},
                                    {"SFI0", std::string(8, '\0')}})),
            "More than one SFI0 part is present in the file");
  std::string overlapping = dxContainer({{"ABCD", "12"}, {"EFGH", ""}});
  write32(overlapping, 36, 40); // the second part inside the first
  EXPECT_EQ(messageFor(overlapping),
            "Part offset for part 1 begins before the previous part ends");
  EXPECT_EQ(messageFor(dxContainer({{"PSV0", ""}})),
            "Cannot fully parse pipeline state validation information "
            "without DXIL part.");
  // What this reader does not check as LLVM does.
  EXPECT_EQ(messageFor(dxContainer({{"RTS0", std::string(24, '\0')}})),
            "archive symbol tables for DirectX containers with a RTS0 part "
            "are not supported");
  EXPECT_EQ(messageFor(dxContainer({{"DXIL", std::string(24, '\0')},
                                    {"PSV0", std::string(8, '\0')}})),
            "archive symbol tables for DirectX containers with a PSV0 part "
            "are not supported");
}

TEST(DxContainerArchiveSymbols, EveryTruncationAndByteChange) {
  const std::string container = dxContainer({{"DXIL", std::string(24, '\0')},
                                             {"ISG1", std::string(8, '\0')},
                                             {"HASH", std::string(20, '\0')}});
  for (size_t length = 0; length <= container.size(); ++length)
    (void)archiveSymbolsOf(std::string_view(container).substr(0, length));
  for (size_t at = 4; at < container.size(); ++at) {
    for (uint8_t value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string changed = container;
      changed[at] = static_cast<char>(value);
      Status status = checkDxContainerForArchive(changed);
      if (!status.ok()) {
        EXPECT_FALSE(status.error().message.empty());
      }
    }
  }
}

// A PE image (PE32, or PE32+ when `plus`) with one section at address
// 0x1000 (0x100 bytes at file offset 0x200), sixteen data directories, and
// `tail` after the section's data.
std::string peImage(bool plus,
                    const std::vector<std::pair<uint32_t, uint32_t>> &entries,
                    const std::string &tail = "") {
  std::string image = "MZ" + std::string(0x3a, '\0');
  appendLe(image, 64, 4); // where "PE\0\0" is
  image += std::string("PE\0\0", 4);
  const uint64_t optionalSize = (plus ? 112 : 96) + 16 * 8;
  appendLe(image, plus ? 0x8664 : 0x14c, 2);
  appendLe(image, 1, 2); // one section
  appendLe(image, 0, 12);
  appendLe(image, optionalSize, 2);
  appendLe(image, 0x2022, 2);
  std::string optional(plus ? 112 : 96, '\0');
  optional[0] = 0x0b;
  optional[1] = plus ? 0x02 : 0x01;
  optional[optional.size() - 4] = 16;
  image += optional;
  for (uint32_t index = 0; index < 16; ++index) {
    uint32_t address = 0;
    uint32_t size = 0;
    for (const auto &[entry, where] : entries)
      if (entry == index) {
        address = where;
        size = 0x40;
      }
    appendLe(image, address, 4);
    appendLe(image, size, 4);
  }
  image += ".data" + std::string(3, '\0');
  for (uint32_t field : {0x200u, 0x1000u, 0x200u, 0x200u})
    appendLe(image, field, 4); // sizes, address and offset
  image += std::string(16, '\0');
  image.resize(0x200, '\0');
  return image + tail + std::string(0x200 - tail.size(), '\0');
}

TEST(PeArchiveSymbols, ImagesWithoutSymbolTables) {
  for (bool plus : {false, true}) {
    const std::string image = peImage(plus, {{1, 0x1000}, {0, 0x1100}});
    ASSERT_EQ(classifyArchiveMember(image), ArchiveMemberKind::PeImage);
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(image);
    ASSERT_TRUE(symbols.ok()) << symbols.error().message;
    EXPECT_TRUE(symbols->isSymbolicFile);
    EXPECT_TRUE(symbols->names.empty());
  }
}

TEST(PeArchiveSymbols, Messages) {
  auto messageFor = [](std::string_view bytes) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(bytes);
    return symbols.ok() ? std::string("no error") : symbols.error().message;
  };
  EXPECT_EQ(messageFor(peImage(false, {{1, 0x3000}})),
            "RVA 0x3000 for import table not found");
  EXPECT_EQ(messageFor(peImage(true, {{13, 0x1000000}})),
            "RVA 0x1000000 for delay import table not found");
  std::string image = peImage(false, {});
  image[64 + 4 + 20] = 0x07; // neither PE32 nor PE32+
  EXPECT_EQ(messageFor(image), "incorrect PE magic");
  EXPECT_EQ(messageFor(peImage(false, {}).substr(0, 64 + 4 + 20 + 95)),
            "The end of the file was unexpectedly encountered");
  // LLVM reads a PE32+ header having checked only that a PE32 header fits.
  EXPECT_EQ(messageFor(peImage(true, {}).substr(0, 64 + 4 + 20 + 100)),
            "the PE32+ header of the image is truncated");
  // A load configuration: LLVM reads its size field whatever the
  // directory's size says, and follows the fields it covers.
  // A configuration covering the fields LLVM follows, all zero: accepted;
  // the same with one of them set: refused.
  const std::string followed =
      "archive symbol tables for PE images whose load configuration names a "
      "dynamic relocation table are not supported";
  auto configOf = [](uint32_t size, uint32_t setAt, unsigned width) {
    std::string config;
    appendLe(config, size, 4);
    config += std::string(0x100 - 4, '\0');
    if (width != 0)
      config[setAt + width - 1] = 1; // the field's top byte
    return config;
  };
  for (bool plus : {false, true}) {
    EXPECT_EQ(messageFor(peImage(plus, {{10, 0x1000}}, configOf(0x100, 0, 0))),
              "no error");
  }
  EXPECT_EQ(messageFor(peImage(false, {{10, 0x1000}}, configOf(0x8e, 0x8c, 2))),
            followed);
  // A size that stops short of the field: LLVM does not read it.
  EXPECT_EQ(messageFor(peImage(false, {{10, 0x1000}}, configOf(0x8d, 0x8c, 2))),
            "no error");
  // Hybrid metadata whose address, less the image base, LLVM keeps to 32
  // bits: here 0, in no section.
  EXPECT_EQ(messageFor(peImage(true, {{10, 0x1000}}, configOf(0xd0, 0xc8, 8))),
            "RVA 0x0 for CHPE metadata not found");
  EXPECT_EQ(messageFor(peImage(true, {{10, 0x1000}}, configOf(0xe6, 0xe4, 2))),
            followed);
  // The PE32 CHPE field is not followed.
  EXPECT_EQ(
      messageFor(peImage(false, {{10, 0x1000}}, configOf(0x100, 0x78, 4))),
      "no error");
  // A covered field past the end of the file.
  // A covered field past the end of the file (the directory says the
  // configuration has no bytes).
  std::string shortConfig = peImage(true, {{10, 0x11f0}});
  write32(shortConfig, 64 + 4 + 20 + 112 + 10 * 8 + 4, 0);
  write32(shortConfig, 0x3f0, 0x100);
  EXPECT_EQ(messageFor(shortConfig.substr(0, 0x400)),
            "the load configuration of the image is truncated");
  // A load configuration whose size field is past the end of the file
  // (its directory says it has no bytes).
  image = peImage(false, {{10, 0x11fe}});
  write32(image, 64 + 4 + 20 + 96 + 10 * 8 + 4, 0);
  EXPECT_EQ(messageFor(image.substr(0, 0x3fe + 2)),
            "the load configuration of the image is truncated");
}

TEST(PeArchiveSymbols, EveryTruncationAndByteChange) {
  std::string config;
  appendLe(config, 64, 4);
  for (bool plus : {false, true}) {
    expectEveryDamageHandled(
        peImage(plus, {{1, 0x1000}, {6, 0x1000}, {9, 0x1000}, {10, 0x1000}},
                config)
            .substr(0, 0x240));
  }
  // A configuration covering the hybrid metadata and dynamic relocation
  // fields, the metadata (inside it) naming a code map.
  std::string hybrid;
  appendLe(hybrid, 0x100, 4);
  hybrid += std::string(0x100 - 4, '\0');
  hybrid[0xc8] = 0x10;
  hybrid[0xc9] = 0x10;     // metadata at 0x1010
  hybrid[0x10 + 4] = 0x10; // code map at 0x1010
  hybrid[0x10 + 5] = 0x10;
  hybrid[0x10 + 8] = 2; // two entries
  const std::string image = peImage(true, {{10, 0x1000}}, hybrid);
  EXPECT_TRUE(archiveSymbolsOf(image).ok());
  std::string noCodeMap = image;
  noCodeMap[0x200 + 0x10 + 5] = 0x70; // the code map at 0x7010, in no section
  EXPECT_FALSE(archiveSymbolsOf(noCodeMap).ok());
  expectEveryDamageHandled(image);
}

TEST(GoffArchiveSymbols, RecognisedButNeverOpened) {
  const std::string record = "\x03\xf0" + std::string(78, '\0');
  ASSERT_EQ(classifyArchiveMember(record), ArchiveMemberKind::Goff);
  Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(record);
  ASSERT_FALSE(symbols.ok());
  EXPECT_EQ(symbols.error().message,
            "The file was not recognized as a valid object file");
}

// A little-endian 64-bit Mach-O object with only LC_SYMTAB (and `extra`
// load commands before it): symbols given as (name, type, value).
std::string machOObject(
    const std::vector<std::tuple<std::string, uint8_t, uint64_t>> &symbols,
    const std::string &extra = "", uint32_t extraCount = 0) {
  const uint64_t commandsSize = 24 + extra.size();
  const uint64_t symbolsAt = 32 + commandsSize;
  std::string strings(1, '\0');
  std::string records;
  for (const auto &[name, type, value] : symbols) {
    appendLe(records, strings.size(), 4);
    strings += name + '\0';
    records += static_cast<char>(type);
    records += std::string(3, '\0');
    appendLe(records, value, 8);
  }
  std::string object;
  for (uint32_t field : {0xfeedfacfu, 0x01000007u, 3u, 1u, 1u + extraCount,
                         static_cast<uint32_t>(commandsSize), 0u, 0u})
    appendLe(object, field, 4);
  object += extra;
  for (uint64_t field :
       {uint64_t{2}, uint64_t{24}, symbolsAt, uint64_t{symbols.size()},
        symbolsAt + records.size(), uint64_t{strings.size()}})
    appendLe(object, field, 4);
  return object + records + strings;
}

TEST(MachOArchiveSymbols, GlobalDefinedSymbolsInOrder) {
  const std::string object = machOObject({{"_local", 0x0e, 0},
                                          {"_global", 0x0f, 0},
                                          {"_undefined", 0x01, 0},
                                          {"_common", 0x01, 8},
                                          {"_private_extern", 0x1f, 0},
                                          {"_stab", 0x25, 0}});
  ASSERT_EQ(classifyArchiveMember(object), ArchiveMemberKind::MachO);
  Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(object);
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  EXPECT_TRUE(symbols->isSymbolicFile);
  const std::vector<std::string> expected = {"_global", "_common",
                                             "_private_extern"};
  EXPECT_EQ(symbols->names, expected);
}

TEST(MachOArchiveSymbols, Messages) {
  auto messageFor = [](std::string_view bytes) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(bytes);
    return symbols.ok() ? std::string("no error") : symbols.error().message;
  };
  const std::string object = machOObject({{"_g", 0x0f, 0}});
  // LLVM's message: a name that starts past the end of the file.
  std::string changed = object;
  write32(changed, 32 + 24, 1000);
  EXPECT_EQ(messageFor(changed), "truncated or malformed object (bad string "
                                 "index: 1000 for symbol at index 0)");
  // A name without its NUL, which LLVM would read past the member for.
  changed = object.substr(0, object.size() - 1);
  write32(changed, 32 + 20, 3); // the string table without its last NUL
  EXPECT_EQ(messageFor(changed),
            "the name of Mach-O symbol 0 runs past the end of the file");
  EXPECT_EQ(messageFor(object.substr(0, 40)),
            "truncated or malformed object (load commands extend past the end "
            "of the file)");
  changed = object;
  write32(changed, 12, 2); // MH_EXECUTE: listed as an object is
  EXPECT_EQ(messageFor(changed), "no error");
  for (uint32_t dylibType : {6u, 9u}) { // MH_DYLIB, MH_DYLIB_STUB
    write32(changed, 12, dylibType);
    EXPECT_EQ(messageFor(changed),
              "truncated or malformed object (no LC_ID_DYLIB load command in "
              "dynamic library filetype)");
  }
  changed = object;
  write32(changed, 32 + 12, 100); // more symbols than the file holds
  EXPECT_EQ(messageFor(changed),
            "truncated or malformed object (symoff field plus nsyms field "
            "times sizeof(struct nlist_64) of LC_SYMTAB command 0 extends "
            "past the end of the file)");
  changed = object;
  write32(changed, 32 + 8, 0); // the symbols over the headers
  const std::string overlap = "truncated or malformed object (symbol table "
                              "at offset 0 with a size of 16, overlaps "
                              "Mach-O headers at offset 0";
  EXPECT_EQ(messageFor(changed).substr(0, overlap.size()), overlap);
  // An LC_LINKER_OPTION whose count disagrees with its strings.
  std::string linkerOption;
  for (uint32_t field : {0x2du, 16u, 1u, 0u})
    appendLe(linkerOption, field, 4);
  EXPECT_EQ(messageFor(machOObject({}, linkerOption, 1)),
            "truncated or malformed object (load command 0 LC_LINKER_OPTION "
            "string count 1 does not match number of strings)");
  // A command LLVM does not know is passed over.
  std::string unknown;
  for (uint32_t field : {0x7fu, 16u, 0u, 0u})
    appendLe(unknown, field, 4);
  EXPECT_EQ(messageFor(machOObject({{"_g", 0x0f, 0}}, unknown, 1)), "no error");
}

// An object with one LC_SEGMENT_64 of `sections` one-byte sections, laid
// after the symbol and string tables.
std::string machOObjectWithSections(uint32_t sections) {
  const std::string plain = machOObject({{"_g", 0x0f, 0}});
  const uint64_t commandSize = 72 + 80 * uint64_t{sections};
  const uint64_t contents = plain.size() + commandSize;
  std::string segment;
  appendLe(segment, 0x19, 4);
  appendLe(segment, commandSize, 4);
  segment += std::string(16, '\0');
  for (uint64_t field :
       {uint64_t{0}, uint64_t{sections}, contents, uint64_t{sections}})
    appendLe(segment, field, 8);
  for (uint32_t field : {7u, 7u, sections, 0u})
    appendLe(segment, field, 4);
  for (uint32_t index = 0; index < sections; ++index) {
    segment += std::string(32, '\0');
    appendLe(segment, index, 8);
    appendLe(segment, 1, 8);
    appendLe(segment, contents + index, 4);
    segment += std::string(28, '\0');
  }
  return machOObject({{"_g", 0x0f, 0}}, segment, 1) +
         std::string(sections, '\x90');
}

TEST(MachOArchiveSymbols, RegionsBeyondWhatAnyFileHoldsAreRefused) {
  // The headers and the two tables are regions too.
  Result<ArchiveMemberSymbols> fits =
      archiveSymbolsOf(machOObjectWithSections(16384 - 3));
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  EXPECT_EQ(fits->names, std::vector<std::string>{"_g"});
  Result<ArchiveMemberSymbols> tooMany =
      archiveSymbolsOf(machOObjectWithSections(16384 - 2));
  ASSERT_FALSE(tooMany.ok());
  EXPECT_EQ(tooMany.error().message,
            "archive symbol tables for Mach-O members with more than 16384 "
            "sections and tables are not supported");
}

TEST(MachOArchiveSymbols, EveryTruncationAndByteChange) {
  const std::string object = machOObject(
      {{"_local", 0x0e, 0}, {"_global", 0x0f, 0}, {"_common", 0x01, 8}});
  expectEveryDamageHandled(object);
  std::string dylib = object;
  write32(dylib, 12, 6); // MH_DYLIB
  expectEveryDamageHandled(dylib);
}

// A Wasm section: id, size (one LEB128 byte), payload.
std::string wasmSection(char id, const std::string &payload) {
  return std::string(1, id) + static_cast<char>(payload.size()) + payload;
}

// A string as Wasm writes it: its size (one LEB128 byte), then its bytes.
std::string wasmName(const std::string &name) {
  return static_cast<char>(name.size()) + name;
}

// A relocatable Wasm object with two functions, one data segment and a
// linking section listing symbols of every binding.
std::string wasmObject() {
  std::string symbols = std::string("\x05", 1);
  symbols += std::string("\x00\x00\x00", 3) + wasmName("global_f");
  symbols += std::string("\x00\x02\x01", 3) + wasmName("local_f");
  symbols += std::string("\x01\x04", 2) + wasmName("hidden_d") +
             std::string("\x00\x00\x04", 3);
  symbols += std::string("\x01\x10", 2) + wasmName("undefined_d");
  symbols += std::string("\x00\x01\x01", 3) + wasmName("weak_f");
  const std::string linking = wasmName("linking") + '\x02' + '\x08' +
                              static_cast<char>(symbols.size()) + symbols;
  return std::string("\0asm\1\0\0\0", 8) +
         wasmSection(1, std::string("\x01\x60\x00\x00", 4)) +
         wasmSection(3, std::string("\x02\x00\x00", 3)) +
         wasmSection(10, std::string("\x02\x02\x00\x0b\x02\x00\x0b", 7)) +
         wasmSection(11, std::string("\x01\x00\x41\x00\x0b\x04", 6) + "abcd") +
         wasmSection(0, linking);
}

TEST(WasmArchiveSymbols, GlobalDefinedSymbolsInOrder) {
  const std::string object = wasmObject();
  ASSERT_EQ(classifyArchiveMember(object), ArchiveMemberKind::Wasm);
  Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(object);
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  EXPECT_TRUE(symbols->isSymbolicFile);
  const std::vector<std::string> expected = {"global_f", "hidden_d", "weak_f"};
  EXPECT_EQ(symbols->names, expected);
}

TEST(WasmArchiveSymbols, Messages) {
  auto messageFor = [](std::string_view bytes) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(bytes);
    return symbols.ok() ? std::string("no error") : symbols.error().message;
  };
  const std::string object = wasmObject();
  // LLVM's messages.
  EXPECT_EQ(messageFor(object.substr(0, 6)), "missing version number");
  std::string changed = object;
  changed[4] = 2;
  EXPECT_EQ(messageFor(changed), "invalid version number: 2");
  EXPECT_EQ(messageFor(object.substr(0, 12)), "section too large");
  changed = object;
  changed[9] = 0; // the type section's size
  EXPECT_EQ(messageFor(changed.substr(0, 10)), "zero length section");
  changed = object;
  changed[21] = 5; // the code section's function count
  EXPECT_EQ(messageFor(changed), "invalid function count");
  // A start section after the linking section.
  EXPECT_EQ(messageFor(object + wasmSection(8, std::string(1, '\0'))),
            "out of order section type: 8");
  changed = object;
  changed[11] = 0x5d; // neither a function nor a GC type
  EXPECT_EQ(messageFor(changed), "bad form");
  // A function index relocation of a data symbol: LLVM names the symbol.
  auto relocation = [&](char symbol) {
    return object +
           wasmSection(0, wasmName("reloc.CODE") +
                              std::string("\x02\x01\x00\x01", 4) + symbol);
  };
  EXPECT_EQ(messageFor(relocation(2)), "invalid function relocation: hidden_d");
  EXPECT_EQ(messageFor(relocation(0)), "no error");
  // Past the symbols, LLVM's message would read outside its table.
  EXPECT_EQ(messageFor(relocation(9)),
            "archive symbol tables for this Wasm member are not supported: "
            "a relocation's index is past the symbols");
}

// A linked module (no linking section): two functions, a table, a memory
// and a global, each exported but the second function, and optionally a
// name section or a dylink.0 section.
std::string wasmLinkedModule(bool withNames, bool withDylink) {
  std::string module = std::string("\0asm\1\0\0\0", 8);
  if (withDylink)
    module += wasmSection(0, wasmName("dylink.0") +
                                 std::string("\x01\x04\x00\x00\x00\x00", 6));
  module += wasmSection(1, std::string("\x01\x60\x00\x00", 4)) +
            wasmSection(3, std::string("\x02\x00\x00", 3)) +
            wasmSection(4, std::string("\x01\x70\x00\x01", 4)) +
            wasmSection(5, std::string("\x01\x00\x01", 3)) +
            wasmSection(6, std::string("\x01\x7f\x00\x41\x00\x0b", 6)) +
            wasmSection(7, std::string("\x04", 1) + wasmName("f") +
                               std::string("\x00\x00", 2) + wasmName("mem") +
                               std::string("\x02\x00", 2) + wasmName("g") +
                               std::string("\x03\x00", 2) + wasmName("tab") +
                               std::string("\x01\x00", 2)) +
            wasmSection(10, std::string("\x02\x02\x00\x0b\x02\x00\x0b", 7));
  if (withNames) {
    const std::string functions = std::string("\x02\x00", 2) +
                                  wasmName("f_name") + '\x01' +
                                  wasmName("local_name");
    const std::string globals = std::string("\x01\x00", 2) + wasmName("g_name");
    module += wasmSection(0, wasmName("name") + '\x01' +
                                 static_cast<char>(functions.size()) +
                                 functions + '\x07' +
                                 static_cast<char>(globals.size()) + globals);
  }
  return module + wasmSection(0, wasmName(".debug_info") + "\x01");
}

TEST(WasmArchiveSymbols, LinkedModules) {
  auto namesOf = [](const std::string &bytes) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(bytes);
    return symbols.ok() ? symbols->names
                        : std::vector<std::string>{symbols.error().message};
  };
  // By their exports, memories aside.
  const std::vector<std::string> exports = {"f", "g", "tab"};
  EXPECT_EQ(namesOf(wasmLinkedModule(false, false)), exports);
  // By their name section: exported functions and defined globals.
  const std::vector<std::string> named = {"f_name", "g_name"};
  EXPECT_EQ(namesOf(wasmLinkedModule(true, false)), named);
  // A shared module keeps its exports.
  EXPECT_EQ(namesOf(wasmLinkedModule(true, true)), exports);
}

TEST(WasmArchiveSymbols, LinkedModuleEveryTruncationAndByteChange) {
  expectEveryDamageHandled(wasmLinkedModule(true, false));
}

TEST(WasmArchiveSymbols, EveryTruncationAndByteChange) {
  expectEveryDamageHandled(wasmObject());
}

// An XCOFF object with no sections, symbols given as (name, storage class,
// section number, csect type), each with one csect auxiliary entry; names
// over 8 bytes (all names in 64-bit files) go to the string table.
std::string xcoffObject(
    bool is64Bit,
    const std::vector<std::tuple<std::string, uint8_t, int16_t, uint8_t>>
        &symbols) {
  auto appendBe = [](std::string &out, uint64_t value, unsigned width) {
    for (unsigned i = width; i > 0; --i)
      out += static_cast<char>(value >> (8 * (i - 1)));
  };
  const uint64_t headerSize = is64Bit ? 24 : 20;
  std::string table;
  std::string strings;
  for (const auto &[name, storageClass, section, csectType] : symbols) {
    const bool inline32 = !is64Bit && name.size() <= 8;
    const uint64_t nameOffset = 4 + strings.size();
    if (!inline32)
      strings += name + '\0';
    if (is64Bit) {
      appendBe(table, 0, 8);
      appendBe(table, nameOffset, 4);
    } else if (inline32) {
      table += name + std::string(8 - name.size(), '\0');
      appendBe(table, 0, 4);
    } else {
      appendBe(table, 0, 4);
      appendBe(table, nameOffset, 4);
      appendBe(table, 0, 4);
    }
    appendBe(table, static_cast<uint16_t>(section), 2);
    appendBe(table, 0, 2);
    table += static_cast<char>(storageClass);
    table += '\1';
    std::string aux(18, '\0');
    aux[10] = static_cast<char>(csectType);
    if (is64Bit)
      aux[17] = static_cast<char>(251);
    table += aux;
  }
  std::string object;
  appendBe(object, is64Bit ? 0x01f7 : 0x01df, 2);
  appendBe(object, 0, 2); // sections
  appendBe(object, 0, 4); // time stamp
  if (is64Bit) {
    appendBe(object, headerSize, 8);
    appendBe(object, 0, 4); // optional header size, flags
    appendBe(object, table.size() / 18, 4);
  } else {
    appendBe(object, headerSize, 4);
    appendBe(object, table.size() / 18, 4);
    appendBe(object, 0, 4);
  }
  object += table;
  appendBe(object, 4 + strings.size(), 4);
  return object + strings;
}

const std::vector<std::tuple<std::string, uint8_t, int16_t, uint8_t>>
    kXcoffSymbols = {{"static_symbol", 107, 1, 1},
                     {".global", 2, 1, 2},
                     {"weak", 111, 2, 1},
                     {"undefined", 2, 0, 0},
                     {"common", 2, 3, 3},
                     {"undefined_common", 2, 0, 3},
                     {"", 2, 1, 1}};

TEST(XcoffArchiveSymbols, GlobalDefinedAndCommonSymbolsInOrder) {
  for (bool is64Bit : {false, true}) {
    const std::string object = xcoffObject(is64Bit, kXcoffSymbols);
    ASSERT_EQ(classifyArchiveMember(object), ArchiveMemberKind::Xcoff);
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(object);
    ASSERT_TRUE(symbols.ok()) << symbols.error().message;
    EXPECT_TRUE(symbols->isSymbolicFile);
    const std::vector<std::string> expected = {".global", "weak", "common", ""};
    EXPECT_EQ(symbols->names, expected);
  }
}

TEST(XcoffArchiveSymbols, LlvmMessagesAndRefusals) {
  auto messageFor = [](std::string_view bytes) {
    Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(bytes);
    return symbols.ok() ? std::string("no error") : symbols.error().message;
  };
  // XCOFF is big-endian.
  auto writeBig32 = [](std::string &bytes, size_t at, uint32_t value) {
    for (size_t i = 0; i < 4; ++i)
      bytes[at + i] = static_cast<char>(value >> (8 * (3 - i)));
  };
  const std::string endOfFile =
      "The end of the file was unexpectedly encountered";
  const std::string refusal =
      "archive symbol tables for this XCOFF member are not supported: ";
  const std::string object = xcoffObject(true, {{"f", 2, 1, 1}});
  EXPECT_EQ(messageFor(object.substr(0, 10)), endOfFile);
  EXPECT_EQ(messageFor(object.substr(0, 30)),
            endOfFile + ": symbol table with offset 0x18 and size 0x24 goes "
                        "past the end of the file");
  std::string changed = object;
  writeBig32(changed, 24 + 36, 100); // the string table's size
  EXPECT_EQ(messageFor(changed),
            endOfFile + ": string table with offset 0x3c and size 0x64 goes "
                        "past the end of the file");
  changed = object;
  changed.back() = 'x';
  EXPECT_EQ(messageFor(changed),
            "String table must end with a null terminator");
  changed = object;
  changed[2] = 0;
  changed[3] = 1; // one section header, past the end of the file
  EXPECT_EQ(messageFor(changed), endOfFile + ": section headers with offset "
                                             "0x18 and size 0x48 go past the "
                                             "end of the file");
  changed = object;
  changed[24 + 17] = 0; // no auxiliary entry
  EXPECT_EQ(messageFor(changed),
            refusal + "csect symbol \"f\" with index 0 contains no auxiliary "
                      "entry");
  changed = object;
  changed[24 + 18 + 17] =
      static_cast<char>(254); // an auxiliary entry of another type
  EXPECT_EQ(messageFor(changed),
            refusal + "a csect auxiliary entry has not been found for symbol "
                      "\"f\" with index 0");
  changed = object;
  changed[24 + 17] = 2; // two auxiliary entries, one past the table
  EXPECT_EQ(messageFor(changed), refusal + "the auxiliary entries of symbol "
                                           "0 extend past the symbol table");
  changed = object;
  writeBig32(changed, 24 + 8, 100); // a name past the string table
  EXPECT_EQ(messageFor(changed),
            refusal + "entry with offset 0x64 in a string table with size 0x6 "
                      "is invalid");
  // A symbol table offset LLVM takes for one before the file.
  changed = object;
  changed[8] = '\x80';
  EXPECT_EQ(messageFor(changed),
            refusal + "its symbol table offset 0x8000000000000018 lies before "
                      "the start of the file");
  // Its end wraps into the file: the string table there is read first.
  for (size_t at = 8; at < 16; ++at)
    changed[at] = '\xff';
  EXPECT_EQ(messageFor(changed),
            endOfFile + ": string table with offset 0x23 and size 0x4000100 "
                        "goes past the end of the file");
  // A negative 32-bit symbol count: no symbols, as in LLVM.
  std::string negative = xcoffObject(false, {{"f", 2, 1, 1}});
  writeBig32(negative, 12, 0xfffffff0u);
  Result<ArchiveMemberSymbols> symbols = archiveSymbolsOf(negative);
  ASSERT_TRUE(symbols.ok()) << symbols.error().message;
  EXPECT_TRUE(symbols->names.empty());
}

TEST(XcoffArchiveSymbols, EveryTruncationAndByteChange) {
  for (bool is64Bit : {false, true})
    expectEveryDamageHandled(xcoffObject(is64Bit, kXcoffSymbols));
}

} // namespace
} // namespace offbundle
