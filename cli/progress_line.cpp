// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The progress line (see progress_line.h).
#include "cli/progress_line.h"

#include <cstdio>
#include <string>
#include <unistd.h>

namespace offbundle {
namespace {

// "1.2 GiB", "310.5 MiB", "12 KiB", "100 B".
std::string readableBytes(double bytes) {
  static constexpr const char *kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes,
                kUnits[unit]);
  return text;
}

void writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t count = ::write(fd, text.data() + done, text.size() - done);
    if (count <= 0)
      return; // a progress line is not worth failing for
    done += static_cast<size_t>(count);
  }
}

} // namespace

ProgressLine::ProgressLine(const api::FileWalk &walk, bool wanted, int fd)
    : fd_(fd), enabled_(wanted && ::isatty(fd) == 1),
      totalFiles_(walk.files.size()), start_(std::chrono::steady_clock::now()),
      lastDrawn_(start_) {
  for (const api::WalkedFile &file : walk.files)
    totalBytes_ += file.size;
}

void ProgressLine::fileDone(const api::WalkedFile &file) {
  ++files_;
  bytes_ += file.size;
  if (!enabled_)
    return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - lastDrawn_ < std::chrono::milliseconds(100) &&
      files_ != totalFiles_)
    return;
  lastDrawn_ = now;
  draw();
}

void ProgressLine::draw() {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  std::string line = "\r\033[Koffbundle: " + std::to_string(files_) + "/" +
                     std::to_string(totalFiles_) + " files, " +
                     readableBytes(static_cast<double>(bytes_)) + " of " +
                     readableBytes(static_cast<double>(totalBytes_));
  if (seconds > 0)
    line += ", " + readableBytes(static_cast<double>(bytes_) / seconds) + "/s";
  writeAll(fd_, line);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!drawn_)
    return;
  writeAll(fd_, "\r\033[K");
  drawn_ = false;
}

} // namespace offbundle
