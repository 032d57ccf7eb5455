// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Unix ar archives for -type=a: reading the input archive the way LLVM 22's
// object::Archive iterates it, and writing each target's device archive
// byte for byte as LLVM's writeArchive() does when clang-offload-bundler
// calls it (GNU format, deterministic, not thin, with a symbol table).
//
// Reading accepts what GNU ar and llvm-ar write: GNU archives ("/"-terminated
// names, long names in the "//" table), their 64-bit symbol table "/SYM64/",
// BSD and Darwin archives ("#1/<length>" names, "__.SYMDEF" symbol tables),
// COFF import-library style archives, and thin archives ("!<thin>\n"), whose
// members are files on disk named relative to the archive's folder. AIX big
// archives ("<bigaf>\n") are refused.
//
// Every header is checked and nothing is read outside the given bytes. Where
// LLVM's reader trusts the archive, this one refuses it:
//   * a member whose size runs past the end of the archive is an error even
//     when it is the last member (LLVM reads past its buffer there);
//   * any malformed header is an error, even after the first member (LLVM's
//     child iteration stops quietly there, and clang-offload-bundler then
//     writes outputs from the members before it).
// The messages are LLVM's where it has one ("truncated or malformed archive
// (...)").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive_symbols.h"
#include "formats/file_magic.h"
#include "support/error.h"
#include "support/memory_limit.h"

namespace offbundle {

// Whether the bytes start like an archive LLVM would open (regular or thin).
bool isArchive(std::string_view bytes);

// A member as LLVM's child iteration yields it, symbol tables and the long
// name table left out.
struct ArchiveMember {
  // As Archive::Child::getName() returns it: the GNU name without its '/',
  // the long name for "/<offset>", the BSD "#1/<length>" name, or the path a
  // thin archive records.
  std::string name;
  // The member's contents: a view into the archive's bytes, or, for a member
  // of a thin archive, into `externalContents`.
  std::string_view bytes;
  // Where the member's header starts in the archive.
  uint64_t headerOffset = 0;
  // The file a thin archive's member names, read when the archive was read.
  // Shared so that members stay cheap to copy and `bytes` stays valid for as
  // long as any copy lives.
  std::shared_ptr<const std::string> externalContents;
};

// Reads every member, in order. `archivePath` is the archive's file name as
// the user gave it: thin archives' relative member paths are resolved
// against its folder (as LLVM does with the buffer's name), and thin members
// that cannot be read give "'<member name>': <reason>". A thin archive's
// members are read whole, to their end even when they are streams
// (/dev/zero), but all of them together no further than
// `externalMemberLimit` bytes. The regular members' `bytes` view `bytes`,
// which must outlive them.
// How the end of an archive is read. Strict: as LLVM's archive reader
// (llvm-ar, llvm-offload-binary), which refuses a last member without its
// padding byte and bytes after the last member too few for another.
// AsTheBundlerReadsIt: as clang-offload-bundler -type=a, which stops there
// without a word, having every member. (It also stops at any later error,
// dropping the members after it; that is still refused here.)
enum class ArchiveEnd { Strict, AsTheBundlerReadsIt };

Result<std::vector<ArchiveMember>>
readArchive(std::string_view bytes, std::string_view archivePath,
            uint64_t externalMemberLimit = inMemoryInputLimit(),
            ArchiveEnd end = ArchiveEnd::Strict);

// A member to write: its name as the archive should record it, and its
// contents (which must outlive any plan made from it).
struct NewArchiveMember {
  std::string name;
  std::string_view bytes;
};

inline constexpr uint64_t kDefaultSym64Threshold = uint64_t(1) << 32;

struct ArchiveWriteOptions {
  // LLVM switches to the 64-bit symbol table "/SYM64/" when the last
  // member's header would start at or past this offset. LLVM's writer takes
  // it from the SYM64_THRESHOLD environment variable when set (a test hook),
  // which the tools' command lines read (sym64ThresholdFromValue()).
  uint64_t sym64Threshold = kDefaultSym64Threshold;
  // Lists the archive symbols of LLVM bitcode members; see
  // archive_symbols.h. Without it a bitcode member is an error.
  BitcodeSymbolLister bitcodeSymbols;
};

// The threshold LLVM's writer uses for SYM64_THRESHOLD's value (nullptr when
// unset): the value when it is a plain decimal number that fits in 64 bits,
// 2^32 otherwise.
uint64_t sym64ThresholdFromValue(const char *environmentValue);

// What LLVM's writer does: bitcode members' symbols listed as
// bitcodeArchiveSymbols lists them, and the given threshold.
ArchiveWriteOptions llvmArchiveWriteOptions(uint64_t sym64Threshold);

// An archive to write, as the pieces to write one after another: headers
// and tables made here, and views of the members' bytes.
class ArchiveWritePlan {
public:
  uint64_t size() const { return size_; }
  // Hands the pieces to `write` in order, stopping at the first error.
  Status stream(const std::function<Status(std::string_view)> &write) const;
  // What LLVM's writer warns about while planning, in order, each as
  // "'<member name>': <reason>" (bitcode it cannot read, kept unindexed).
  const std::vector<std::string> &warnings() const { return warnings_; }

private:
  friend Result<ArchiveWritePlan>
  planGnuArchive(const std::vector<NewArchiveMember> &members,
                 const ArchiveWriteOptions &options);
  uint64_t size_ = 0;
  std::vector<std::string_view> pieces_;
  // Bytes made here that pieces view; each string is allocated once and
  // never moves, so the plan itself can be moved freely.
  std::vector<std::unique_ptr<const std::string>> generated_;
  std::vector<std::string> warnings_;
};

// What llvm::writeArchive(Name, Members, SymtabWritingMode::NormalSymtab,
// Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false) writes, which is
// what clang-offload-bundler -unbundle -type=a writes for each target:
//
//   "!<arch>\n"
//   the symbol table "/" (or "/SYM64/"), when any member is an object file:
//     a big-endian count, each symbol's member header offset, the names
//   the long name table "//", when a name has 16 characters or more or a '/'
//   each member: a 60-byte header (timestamp, owner and group 0, mode 644),
//     its bytes, and a '\n' when its size is odd
//
// An empty member list gives "!<arch>\n" alone. Errors: a member of 10^10
// bytes or more ("File <name> exceeds size limit"), and members whose
// symbols cannot be listed ("'<name>': <reason>").
Result<ArchiveWritePlan>
planGnuArchive(const std::vector<NewArchiveMember> &members,
               const ArchiveWriteOptions &options = {});

} // namespace offbundle
