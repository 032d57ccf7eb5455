// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reading inputs without copying them, and writing outputs atomically.
//
// Inputs are memory-mapped read-only (or read into memory when they are not
// regular files, like "-" for standard input), so a bundle's header can be
// read without touching its payload. Outputs are written to a temporary file
// beside the destination and renamed into place only when the whole operation
// has succeeded: a failed run leaves every output as it was.
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

#include "support/byte_buffer.h"
#include "support/error.h"
#include "support/interrupt_cleanup.h"

namespace offbundle {

class FolderHandle;

class InputFile {
public:
  // "-" reads standard input. Devices are read as streams, as LLVM's tools
  // read them (up to inMemoryInputLimit()), unless refused: /dev/zero would
  // otherwise fill half the machine's memory before the run failed.
  enum class Devices { Read, Refuse };
  static Result<std::unique_ptr<InputFile>>
  open(const std::string &path, Devices devices = Devices::Read);
  // The file `name` in `folder`, opened without following a symbolic link
  // or waiting on a FIFO, and named `path` in messages: for a file to be
  // rewritten where it is. Anything but a regular file is refused.
  static Result<std::unique_ptr<InputFile>> openIn(const FolderHandle &folder,
                                                   const std::string &name,
                                                   const std::string &path);
  // Bytes produced in memory (a decompressed bundle), named after the file
  // they came from.
  static std::unique_ptr<InputFile> fromMemory(const std::string &path,
                                               std::string bytes);
  static std::unique_ptr<InputFile> fromMemory(const std::string &path,
                                               ByteBuffer bytes);
  // A view of bytes [offset, offset + size) of `parent` (which must outlive
  // it) as a file of its own: a bundle found inside an executable, say.
  // Copies from it still go straight from the parent's file. Requires the
  // range to lie within the parent.
  static std::unique_ptr<InputFile> slice(const InputFile &parent,
                                          uint64_t offset, uint64_t size);
  ~InputFile();
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;

  const std::string &path() const { return path_; }
  uint64_t size() const { return size_; }
  // The whole contents; mapped lazily, so pages are read only when touched.
  std::string_view contents() const {
    return {static_cast<const char *>(data_), static_cast<size_t>(size_)};
  }
  // A descriptor positioned anywhere, usable with pread; -1
  // when the contents live only in memory.
  int fd() const { return fd_; }
  // Where contents() starts in the file fd() reads: 0 unless this input is
  // a range of a larger file (a code object URI, a slice).
  uint64_t fileOffset() const { return fileOffset_; }
  // Says that contents() bytes [offset, offset + length) will not be read
  // again soon: their pages leave this process's memory (they stay in the
  // page cache, and a later read brings them back), so that one pass over
  // a large mapped input keeps the memory it holds flat. Does nothing for
  // inputs held in memory, whose bytes would be lost, or for slices.
  void releasePages(uint64_t offset, uint64_t length) const;
  // Says that contents() bytes [offset, offset + length) are about to be
  // read: their pages are mapped in one call rather than fault by fault
  // (MADV_POPULATE_READ, where the kernel has it). Nothing for inputs held
  // in memory.
  void prefetchPages(uint64_t offset, uint64_t length) const;
  // Narrows the input to bytes [offset, offset + size) of what it holds now,
  // under a new name for messages. Requires the range to lie within it.
  void narrow(uint64_t offset, uint64_t size, std::string displayPath);
  // An error when the file was written to since it was opened (its size,
  // or the times of its last change, differ): what was read of it may mix
  // old bytes and new, so nothing made from it may be kept. Success for
  // inputs that are no regular file.
  Status checkUnchanged() const;

private:
  InputFile() = default;
  void advisePages(uint64_t offset, uint64_t length, int advice) const;
  // Maps the regular file open at fd_, whose status is `info`.
  Status mapRegularFile(const struct stat &info);
  // An input in memory: named `path`, its contents the bytes it holds.
  void viewOwnBytes(const std::string &path, const char *data, size_t size);
  std::string path_;
  int fd_ = -1;
  // Slices share their parent's descriptor: an archive of thousands of
  // members must not need a descriptor per member.
  bool ownsFd_ = true;
  const void *data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t fileOffset_ = 0;
  // The whole mapping, which narrowing leaves in place until destruction.
  const void *mapBase_ = nullptr;
  uint64_t mapSize_ = 0;
  // Lets a SIGBUS in the mapping (the file truncated under us) name the
  // file instead of crashing; see interrupt_cleanup.h.
  SignalRegistration mappingRegistration_;
  // A regular file's size and times of its last changes, when opened.
  struct Version {
    off_t size;
    struct timespec modified;
    struct timespec changed;
  };
  std::optional<Version> openedVersion_;
  std::string buffer_; // contents of non-regular inputs
  ByteBuffer decoded_; // contents made in memory by a decoder
};

// An error when the path names a device (see InputFile::Devices).
Status refuseDevice(const std::string &path);

// Which file a path named at some moment: device, inode and file type.
struct FileIdentity {
  uint64_t device;
  uint64_t inode;
  unsigned type; // the S_IFMT bits
  bool operator==(const FileIdentity &) const = default;
};

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

// A set of outputs that appear together on commit() or not at all.
//
// Outputs that replace a file are written to a temporary beside it and put
// in place at commit: an existing destination is swapped with its temporary
// (renameat2 RENAME_EXCHANGE), which keeps the old bytes until every output
// is in place, and a new one is created without replacing anything
// (RENAME_NOREPLACE). A new output's temporary is created with mode 0666
// less the umask, as open(O_CREAT) would create the file; a replaced one
// takes the old file's permissions.
//
// A folder that is append-only (chattr +a) lets files be created in it but
// none be renamed or removed: a temporary there could neither be put in
// place nor cleaned up. Its outputs are written to temporaries without a
// name, and at commit, once every other output is in place, copied over
// their destinations (truncated first, as LLVM's tools write outputs). A
// failure while they are copied can leave them partly written. (Files
// rewritten in place are not written here but by InPlaceOutput,
// in_place_output.h, which refuses such folders, as that copy could lose the
// file it replaces.)
//
// An existing output the user may write, in a folder the user may not
// write to, is written the same way, from a temporary without a name in
// /tmp, as LLVM's bundler opens such a file and writes it. Not with
// renameOverPaths() (LLVM fails there too).
class OutputTransaction {
public:
  // The rename step of commit: renameat2(folder, from, folder, to, flags),
  // `from` and `to` names in the folder open as `folder`, flags being 0,
  // RENAME_EXCHANGE or RENAME_NOREPLACE. Replaceable so that tests can
  // make one step fail, or change the file system in between.
  using RenameFunction = std::function<int(int folder, const char *from,
                                           const char *to, unsigned flags)>;

  OutputTransaction();
  ~OutputTransaction(); // removes every temporary not committed
  OutputTransaction(const OutputTransaction &) = delete;
  OutputTransaction &operator=(const OutputTransaction &) = delete;

  // Opens a new output for the path ("-" means standard output). A new file
  // is created with `newFileMode` less the umask (0755 for a rewritten
  // executable, say). A file named twice (by the same path or another) gets
  // the bytes of its last output, as when each output is written in turn;
  // a symbolic link to nowhere yet gets its target created, as opening it
  // would.
  Result<OutputFile *> create(const std::string &path,
                              unsigned newFileMode = 0666);
  // Opens a new output for a file of that name, "-" included: LLVM's
  // archive writer, which writes -type=a outputs, has no standard output.
  Result<OutputFile *> createFile(const std::string &path,
                                  unsigned newFileMode = 0666);
  // An output that only collects bytes in memory, for a later step (the
  // uncompressed bundle that -compress compresses).
  OutputFile *createInMemory();
  // Ends writing one output before commit: its bytes are flushed and its
  // descriptor closed, so that a transaction of thousands of outputs holds
  // only the descriptors of those still being written. Nothing more may be
  // written to it.
  Status finish(OutputFile &output);
  // Renames every temporary into place, in creation order. If one cannot
  // be put in place, or a destination is no longer what it was when its
  // output was created, those already placed are put back, and every
  // destination is as it was.
  Status commit();

  // From now on, an output replacing a file gets the mode a new one would
  // (newFileMode less the umask) instead of the old file's permissions: for
  // a copy of an input that keeps the input's mode, so that a rewritten
  // program written over a file stays executable.
  void giveReplacedFilesTheNewMode() { replacedFilesTakeNewMode_ = true; }
  // From now on, outputs are put in place as LLVM's FileOutputBuffer and
  // archive writer put theirs, a temporary renamed over the path (the
  // packager's outputs, the bundler's -type=a): a symbolic link there is
  // replaced rather than written through, a file is replaced whatever its
  // permissions, and the output gets the mode a new file gets. The archive
  // writer replaces every link (All); FileOutputBuffer writes through one to
  // a folder or a device, as it writes to those directly (ToFiles).
  enum class LinksReplaced { ToFiles, All };
  void renameOverPaths(LinksReplaced links = LinksReplaced::ToFiles) {
    renamesOverPaths_ = true;
    linksReplaced_ = links;
    replacedFilesTakeNewMode_ = true;
  }

  void setRenameFunctionForTesting(RenameFunction rename) {
    rename_ = std::move(rename);
  }
  // fchmod(fd, mode) for giving a replaced output the old file's
  // permissions; replaceable so that tests can make it fail.
  using ChmodFunction = std::function<int(int fd, unsigned mode)>;
  void setChmodFunctionForTesting(ChmodFunction chmod) {
    chmod_ = std::move(chmod);
  }

private:
  // How commit() put an output in place, which says how to put it back.
  enum class Placement { Swapped, Created, Overwritten };
  struct Placed {
    OutputFile *output;
    Placement how;
  };
  // The steps of commit(). Each placing step records in `placed` what it
  // put in place; when one fails, commit() puts back everything recorded
  // (undoPlacements).
  Status place(OutputFile &output, std::vector<Placed> &placed);
  Result<bool> placeReplacing(OutputFile &output, std::vector<Placed> &placed);
  Status placeNew(OutputFile &output, std::vector<Placed> &placed);
  Result<OutputFile *> createDirect(std::unique_ptr<OutputFile> output);
  Result<OutputFile *> createUnnamed(std::unique_ptr<OutputFile> output,
                                     const std::string &folder);
  Status copyIn(OutputFile &output);
  void undoPlacements(const std::vector<Placed> &placed);

  std::vector<std::unique_ptr<OutputFile>> outputs_;
  // The output last created for each destination file, so that a later one
  // for the same file supersedes it without a search through thousands.
  std::unordered_map<std::string, OutputFile *> byDestination_;
  // The folders outputs are written in, each opened once (folder_handle.h).
  std::unordered_map<std::string, std::shared_ptr<const FolderHandle>>
      foldersByPath_;
  RenameFunction rename_;
  ChmodFunction chmod_;
  bool committed_ = false;
  bool replacedFilesTakeNewMode_ = false;
  bool renamesOverPaths_ = false;
  LinksReplaced linksReplaced_ = LinksReplaced::ToFiles;
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

std::string errnoMessage(int error);

} // namespace offbundle
