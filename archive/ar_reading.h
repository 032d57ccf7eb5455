// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Unix ar archives read the way LLVM 22's object::Archive iterates them, for
// -type=a and for every command that looks into archives (ar_writing.h
// writes them).
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
#include <memory>
#include <string>
#include <string_view>
#include <vector>

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

} // namespace offbundle
