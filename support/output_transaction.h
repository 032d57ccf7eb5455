// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Writing outputs atomically. Outputs are written to a temporary file
// beside the destination and renamed into place only when the whole
// operation has succeeded: a failed run leaves every output as it was.
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
#include "support/interrupt_cleanup.h"
#include "support/output_file.h"

namespace offbundle {

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

} // namespace offbundle
