// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Folders held by descriptor, so that what is done in them cannot be
// redirected by a rename or a symbolic link swapped in on the way.
//
// A run may work in a tree that other users can write, as root: if it went
// by path between checking a file and writing it, another process could
// swap a folder on that path for a symbolic link (renameat2 RENAME_EXCHANGE)
// and have the write land anywhere. So every file a rewrite touches is
// reached through a FolderHandle: a descriptor of its folder, opened once,
// relative to which the file is opened (O_NOFOLLOW), its temporary created
// and renamed (openat, renameat2, unlinkat). A folder opened again later
// (the walk found it, a worker rewrites in it) is opened from its resolved
// path with no symbolic link followed on the way (openat2
// RESOLVE_NO_SYMLINKS, or one component at a time with O_NOFOLLOW on
// kernels before 5.6) and must be the folder the walk saw: same device,
// same inode.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "support/error.h"

namespace offbundle {

// Which folder or file a path named when it was seen: device and inode.
struct NodeIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  bool operator==(const NodeIdentity &) const = default;
};

class FolderHandle {
public:
  // The folder at `path` as the user named it: symbolic links on the way
  // are followed, as the user chose them.
  static Result<std::shared_ptr<const FolderHandle>>
  openNamed(const std::string &path);
  // The folder at `path` as the user named it, held only to work in (an
  // O_PATH descriptor: its entries need not be readable, as creating and
  // renaming files in it needs no more); `error` is errno on failure. For
  // outputs, whose folder the user named.
  static Result<std::shared_ptr<const FolderHandle>>
  openForOutputs(const std::string &path, int &error);
  // The folder at `resolved`, an absolute path as resolvedPath() gave it,
  // following no symbolic link; it must be `expected`, or the error says
  // the folder changed since it was seen.
  static Result<std::shared_ptr<const FolderHandle>>
  openResolved(const std::string &resolved, const NodeIdentity &expected);
  // The folder `name` inside this one, not following a symbolic link.
  Result<std::shared_ptr<const FolderHandle>>
  openChild(const std::string &name) const;

  ~FolderHandle();
  FolderHandle(const FolderHandle &) = delete;
  FolderHandle &operator=(const FolderHandle &) = delete;

  int fd() const { return fd_; }
  // The path to show in messages: the user's spelling.
  const std::string &path() const { return path_; }
  // The absolute path, free of symbolic links, that the kernel gives for
  // the folder when it was opened.
  const std::string &resolvedPath() const { return resolved_; }
  const NodeIdentity &identity() const { return identity_; }
  // The path of `name` in this folder, for messages.
  std::string pathOf(const std::string &name) const;

private:
  FolderHandle(int fd, std::string path);
  // The folder open at `fd` (which it then owns), named `path`, at
  // `resolved` (the kernel's path for it when empty).
  static Result<std::shared_ptr<const FolderHandle>>
  adopt(int fd, const std::string &path, std::string resolved);
  int fd_;
  std::string path_;
  std::string resolved_;
  NodeIdentity identity_;
};

} // namespace offbundle
