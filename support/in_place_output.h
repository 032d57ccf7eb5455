// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Replacing a file where it lies, under every name it has, as one unit.
//
// The file may sit in a tree that other users can write, and the run may
// be root's. Nothing is done by path: every name is a folder held by
// descriptor and a name in it (support/folder_handle.h), and every step is
// an *at() call relative to that folder, so a folder swapped for a symbolic
// link meanwhile cannot redirect a write.
//
// The steps:
// 1. Every name is checked to be re-pointable before anything is written:
//    it still names the file read (device and inode), its folder may be
//    written by this user, neither folder nor file is immutable or
//    append-only (chattr +i, +a), and a sticky folder lets this user
//    replace it. Otherwise the file is refused, naming the name that
//    blocks it, and nothing is written.
// 2. The new bytes go to a temporary beside the first name
//    (".<name>.offbundle-XXXXXX", flock held while it is ours), which takes
//    the old file's owner, group, permissions and extended attributes, and
//    is synced to disk.
// 3. The input must still be as it was read (size and times, by fstat on
//    the descriptor read).
// 4. One name: the temporary is swapped with it (renameat2
//    RENAME_EXCHANGE); what came out must be the old file, or it is swapped
//    back. Then the old file's bytes, now under the temporary's name, are
//    removed.
// 5. Several names: the temporary is linked beside each other name (one
//    temporary per folder), then a journal is written beside the first
//    name, a temporary of the same naming whose bytes list the group: from
//    then on a rerun finishes the job (finishJournal). With termination
//    signals held, every name is swapped with its temporary; a failure
//    swaps back those done. Then the old file's names and the journal are
//    removed. A run killed at any moment leaves every name either old
//    (before the journal: the temporaries are removed by the next run) or
//    finishable (after it).
//
// The journal ("offbundle link group 1" and a newline, then "new", "old"
// and one "name" line per name) holds the device and inode of the new and
// the old file, and for each name its folder's resolved path, device and
// inode, its name and its temporary's name; strings are written as
// <length>:<bytes>, so any byte may be in them. A rerun trusts a journal
// only when this user owns it, no one else may read or write it, and it has
// a single name, and acts only on names whose folder and file are those the
// journal records.
#pragma once

#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "support/error.h"
#include "support/folder_handle.h"
#include "support/output_file.h"

namespace offbundle {

// A name of a file: its folder, held by descriptor, and its name there;
// `shown` is how messages name it (the path the user gave or the walk
// found), the folder's path and the name when empty.
struct AnchoredName {
  std::shared_ptr<const FolderHandle> folder;
  std::string name;
  std::string shown;
  std::string path() const {
    return shown.empty() ? folder->pathOf(name) : shown;
  }
};

class InPlaceOutput {
public:
  // Checks every name (step 1) and creates the temporary (step 2) for
  // replacing `original`, which was read from names.front(); the other
  // names must be every other name the file has.
  static Result<std::unique_ptr<InPlaceOutput>>
  create(std::vector<AnchoredName> names, const InputFile &original);
  ~InPlaceOutput(); // removes the temporaries if not committed
  InPlaceOutput(const InPlaceOutput &) = delete;
  InPlaceOutput &operator=(const InPlaceOutput &) = delete;

  // Where the new bytes go.
  OutputFile &output() { return output_; }
  // Steps 2 to 5: the bytes written become the file under every name.
  Status commit();

private:
  InPlaceOutput(std::vector<AnchoredName> names, const InputFile &original);
  Status finishTemporary();
  Status replaceOneName();
  Status replaceEveryName();
  Status linkTemporaries();
  Status writeJournal();
  void removeTemporaries();

  std::vector<AnchoredName> names_;
  const InputFile &original_;
  struct stat originalInfo_;
  // One per name: the temporary beside it ("" until made).
  std::vector<std::string> temporaries_;
  std::vector<SignalRegistration> registrations_;
  std::string journal_;
  int journalFd_ = -1;
  SignalRegistration journalRegistration_;
  NodeIdentity newIdentity_;
  OutputFile output_;
  bool committed_ = false;
};

// What became of a temporary a killed run left.
enum class LeftOver {
  Gone,            // no longer there
  InUse,           // a running process holds it: left alone
  Kept,            // no journal, in the journals' pass: left for the next
  Removed,         // removed
  JournalFinished, // a journal, finished, then removed
};

// Journals are finished before any other temporary is removed: the
// temporaries a journal names hold the new file under its other names.
enum class LeftOverPass { Journals, Everything };

// The temporary `temporary` (".<name>.offbundle-XXXXXX") if no running
// process holds it: a journal of ours is finished (every name it lists
// pointed at the new file, the old file's names and the temporaries
// removed); anything else is removed in the Everything pass.
Result<LeftOver> finishOrRemoveLeftOver(const AnchoredName &temporary,
                                        LeftOverPass pass);

} // namespace offbundle
