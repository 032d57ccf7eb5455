// The files a command's operands name. A file operand stands for itself,
// and a symlink named on the command line is followed. A folder operand is
// walked recursively, each folder's entries in name order, and the symlinks
// inside it are never followed: a link to a library elsewhere is not that
// library's way in. Of the files found in folders, those whose first bytes
// rule out GPU code (api::mayHoldOffloadCode) are skipped and counted, and
// so are symlinks and special files (FIFOs, sockets, devices), which are
// never opened; our own temporaries are set apart. Nothing is opened for
// writing. A folder or file that cannot be read is one failure in its
// place; the walk goes on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace offbundle {

struct WalkedFile {
  std::string path;
  bool inFolder = false; // found by walking a folder operand
  std::string failure;   // why it could not be read ("" when it could)
  // The file's identity and its number of names (hard links), 0 when it
  // could not be read.
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t links = 0;
  uint64_t size = 0; // bytes, for progress
};

struct SkippedFiles {
  uint64_t noGpuCode = 0; // files in folders that hold no GPU code
  uint64_t symlinks = 0;  // symlinks in folders, not followed
  uint64_t special = 0;   // FIFOs, sockets and devices in folders
};

struct OperandWalk {
  // In operand order; within a folder, in name order.
  std::vector<WalkedFile> files;
  SkippedFiles skipped;
  bool walkedFolder = false; // some operand was a folder
  // Temporaries found in folders (support/replaced_files.h): neither
  // reported nor counted; a run rewriting in place removes those a killed
  // run left.
  std::vector<std::string> temporaries;
};

OperandWalk walkOperands(const std::vector<std::string> &operands);

// "skipped N files holding no GPU code, M symlinks (not followed), K
// special files" with only the counts that are not zero, and a newline; ""
// when nothing was skipped.
std::string skippedText(const SkippedFiles &skipped);

} // namespace offbundle
