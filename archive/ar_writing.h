// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Unix ar archives written byte for byte as LLVM 22's writeArchive() writes
// them when clang-offload-bundler calls it for each target's device archive
// (GNU format, deterministic, not thin, with a symbol table), and as
// llvm-ar rcD writes them when a rewrite writes an archive again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive_symbols.h"
#include "support/error.h"

namespace offbundle {

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
