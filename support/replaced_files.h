// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What a file rewritten in place keeps, and what a killed run leaves.
//
// A file is replaced by writing its new bytes to a temporary beside it and
// renaming that over it (support/output_transaction.h), so that it holds its
// old bytes or its new ones, never a mix. The new file is a new inode; for it
// to be the same file to everyone who used the old one, it takes the old one's
// owner and group, permissions (set-user-ID bits included), and extended
// attributes: POSIX ACLs (system.posix_acl_*), file capabilities
// (security.capability), user.* attributes. Hard links are names of the old
// inode; each other name is pointed at the new one in turn, by a link
// beside it renamed over it.
//
// Temporaries are named ".<name>.offbundle-XXXXXX" (six letters or digits),
// and the process writing one holds an exclusive flock on it: one nobody
// holds was left by a run that died, and may be removed.
#pragma once

#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

#include "support/error.h"

namespace offbundle {

// "offbundle-": what the name of every temporary holds after ".<name>.".
inline constexpr std::string_view kTemporaryMarker = "offbundle-";

// The folder a path names a file in ("." for a bare name), and the file's
// name in it.
std::string folderOf(const std::string &path);
std::string baseNameOf(const std::string &path);

// Whether a file name (not a path) is one of our temporaries'.
bool isTemporaryName(std::string_view name);
// The name of the file a temporary of this name was to replace (".x.so.
// offbundle-Ab12Cd" was for "x.so"); empty when it is no temporary's name.
std::string_view temporaryOwnerName(std::string_view name);

// A fresh name for a temporary beside the file named `name` in a folder:
// ".<name>.offbundle-XXXXXX".
std::string temporaryNameFor(const std::string &name);

// A fresh name for a temporary beside `path`: ".<name>.offbundle-XXXXXX",
// the six characters random, so that names are hard to predict and rarely
// collide (O_EXCL settles the rest).
std::string temporaryPathFor(const std::string &path);

// Gives the file open at `fd` the owner, group, permissions and extended
// attributes of the file open at `original`, whose status is `info`; `path`
// names the file in messages. Fails, saying what could not be kept, when
// one cannot be given (a user may not give a file away; only a privileged
// one may set file capabilities).
Status takeMetadataOf(int original, const struct stat &info, int fd,
                      const std::string &path);

} // namespace offbundle
