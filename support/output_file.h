// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Where output bytes go: a temporary file (or memory for standard output)
// that an OutputTransaction (output_transaction.h) makes the real output on
// commit; written in large blocks, pieces of inputs copied by the kernel or
// with pread, several outputs at once on both cores.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>
#include <vector>

#include "support/error.h"
#include "support/input_file.h"
#include "support/interrupt_cleanup.h"

namespace offbundle {

class FolderHandle;

// Which file a path named at some moment: device, inode and file type.
struct FileIdentity {
  uint64_t device;
  uint64_t inode;
  unsigned type; // the S_IFMT bits
  bool operator==(const FileIdentity &) const = default;
};

// The size of the blocks outputs are written in (see OutputFile::gather_).
// Measured on ext4: 2 MiB blocks were as fast as 8 or 32 MiB ones, and
// several outputs being written at once stay within a few MiB each.
inline constexpr size_t kGatherCapacity = 2 << 20;

// Writes all of `data` to `fd`; `path` names the file in errors.
Status writeAll(int fd, const char *data, size_t size, const std::string &path);

// The error of an output that could not get the memory it writes through.
Error outOfMemory(const std::string &path);

// Where output bytes go: a temporary file (or memory for stdout) that
// becomes the real output on commit.
class OutputFile {
public:
  Status write(std::string_view bytes);
  Status writeZeros(uint64_t count);
  // Copies [offset, offset + length) of an input: read with pread into the
  // gathered block, so the output is written in large blocks.
  Status copyFrom(const InputFile &input, uint64_t offset, uint64_t length);
  // Room for this many bytes in an in-memory output, so that growing it
  // never copies (and never holds two copies at once). Refuses more than
  // inMemoryInputLimit() (memory_limit.h) up front, rather than failing
  // part of the way.
  Status reserveMemory(uint64_t bytes);
  // Replaces bytes already written, counted from the start of the output.
  Status overwrite(uint64_t offset, std::string_view bytes);
  // Whether ranges can be left to fill later, from other threads (skip,
  // writeAt): a regular file, not memory, standard output or a device.
  bool writesInPlace() const {
    return !inMemory_ && fd_ >= 0 && writesTemporary();
  }
  // Leaves the next `count` bytes for writeAt to fill: what write() adds
  // next goes after them. Only where writesInPlace().
  Status skip(uint64_t count);
  // Writes `bytes` at `offset`, inside a range skip() left. Safe to call
  // from several threads at once, and beside write().
  Status writeAt(uint64_t offset, std::string_view bytes) const;
  uint64_t bytesWritten() const { return written_; }
  // What an in-memory output holds (see OutputTransaction::createInMemory).
  std::string_view memoryContents() const { return memoryBytes_; }
  const std::string &path() const { return path_; }

private:
  friend class OutputTransaction;
  friend class InPlaceOutput;
  Status flush();        // writes out what is gathered
  std::string path_;     // the destination as the user named it
  std::string tempPath_; // where the bytes go until commit; "" if direct
  // In a folder that is append-only (chattr +a), where nothing can be
  // renamed or removed, the bytes go to a temporary without a name
  // (O_TMPFILE) that vanishes with its descriptor, and commit copies them
  // over the destination, as LLVM's tools write outputs; see
  // OutputTransaction.
  bool copiedInAtCommit_ = false;
  unsigned newFileMode_ = 0666;
  bool writesTemporary() const {
    return !tempPath_.empty() || copiedInAtCommit_;
  }
  std::string destination_; // the file the temporary replaces on commit
  // The destination's folder, held from creation to commit, and the names
  // of the destination and of the temporary in it: every step after
  // creation goes through that descriptor (folder_handle.h).
  std::shared_ptr<const FolderHandle> folder_;
  std::string destinationName_;
  std::string tempName_;
  int folderFd() const;
  int fd_ = -1;
  // Bytes kept in memory: for standard output (written on commit) or for a
  // buffer the caller reads back (memoryOnly_).
  bool inMemory_ = false;
  bool memoryOnly_ = false;
  // Bytes gathered before a system call: small writes, and copies read
  // from their input. Writing in large blocks lets the kernel fill the page
  // cache a large folio at a time: 512 MiB of archive members took 0.20 s
  // this way and 0.29 s with copy_file_range, which splices page by page
  // (ext4, Linux 6.18). Allocated on first use, released when the output
  // ends.
  std::unique_ptr<char[]> gather_;
  size_t gathered_ = 0;
  Status gather(std::string_view bytes);
  std::string memoryBytes_;
  uint64_t written_ = 0;
  // The file found at destination_ when the output was created (its device
  // and inode), or nothing when there was none. At commit the destination
  // must still be that file, or still be absent: whatever took its place
  // meanwhile (a folder, another file) is the user's and is left alone.
  std::optional<FileIdentity> replaced_;
  // The temporary itself, so that undoing a commit removes only it.
  std::optional<FileIdentity> temporaryIdentity_;
  // Set when a later output of the same transaction names the same file:
  // that one is put in place and this one is dropped at commit, as the
  // later of two writes to one file is what the file keeps.
  bool superseded_ = false;
  // Lets a termination signal remove the temporary.
  SignalRegistration temporaryRegistration_;
};

// One piece of an input destined for one output.
struct PendingCopy {
  OutputFile *output;
  uint64_t offset;
  uint64_t size;
};

// Carries out copies whose outputs are all different, on both cores when
// there is more than one: each output gets the same bytes as if the copies
// ran one after another. Returns the first error in list order.
Status runCopies(const InputFile &input,
                 const std::vector<PendingCopy> &copies);

} // namespace offbundle
