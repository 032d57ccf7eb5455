// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The one progress line offbundle draws on standard error while it works
// through many files: files and bytes done of the total, and the rate. Only
// when standard error is a terminal (a log or a pipe gets nothing) and
// --quiet was not given; redrawn at most ten times a second, and erased
// before the report is printed.
#pragma once

#include <chrono>
#include <cstdint>

#include <offbundle/offbundle.h>

namespace offbundle {

class ProgressLine {
public:
  // `fd` is where the line goes; it is drawn only if that is a terminal
  // and `wanted`.
  ProgressLine(const api::FileWalk &walk, bool wanted, int fd = 2);
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  void fileDone(const api::WalkedFile &file);
  // Erases the line, if one was drawn.
  void clear();

private:
  void draw();

  int fd_;
  bool enabled_;
  bool drawn_ = false;
  uint64_t files_ = 0;
  uint64_t totalFiles_ = 0;
  uint64_t bytes_ = 0;
  uint64_t totalBytes_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point lastDrawn_;
};

} // namespace offbundle
