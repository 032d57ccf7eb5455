// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Helpers shared by the fuzz targets: walking a bundle reader the way the
// tool does, splitting fuzz input into pieces, and a scratch folder that
// whole-tool targets run in so that nothing outside it is touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "formats/bundle_format.h"

namespace offbundle::fuzz {

inline std::string_view asView(const uint8_t *data, size_t size) {
  return {reinterpret_cast<const char *>(data), size};
}

// Walks every entry as -list (skip) or -unbundle (read) does, alternating by
// `readMask` bits so both paths meet every entry position. Checks the one
// promise every reader makes: a payload lies inside the container.
inline void walkReader(BundleReader &reader, uint64_t containerSize,
                       uint32_t readMask) {
  // Readers must end on their own; the bound only stops a runaway walk from
  // turning into a timeout that hides where it went wrong.
  for (unsigned step = 0; step < 1u << 20; ++step) {
    auto next = reader.nextEntry();
    if (!next.ok() || !*next)
      return;
    if (readMask & (1u << (step % 32))) {
      auto payload = reader.readEntry();
      if (!payload.ok())
        return;
      if (!payload->rewrittenObject &&
          (payload->offset > containerSize ||
           payload->size > containerSize - payload->offset))
        std::abort();
    } else if (!reader.skipEntry().ok()) {
      return;
    }
  }
  std::abort();
}

// Splits the input at NUL bytes (the separator fuzzers mutate least often
// into something else by accident), at most `limit` pieces.
inline std::vector<std::string> splitAtNul(std::string_view input,
                                           size_t limit) {
  std::vector<std::string> pieces;
  while (pieces.size() + 1 < limit) {
    size_t nul = input.find('\0');
    if (nul == std::string_view::npos)
      break;
    pieces.emplace_back(input.substr(0, nul));
    input.remove_prefix(nul + 1);
  }
  pieces.emplace_back(input);
  return pieces;
}

// A private folder made once per process and made the working directory, so
// whole-tool targets can name files without a '/' and stay inside it.
// Standard input is /dev/null so "-input=-" never waits on a terminal.
class Scratch {
public:
  Scratch() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "offbundle-fuzz-XXXXXX")
            .string();
    if (::mkdtemp(pattern.data()) == nullptr)
      std::abort();
    path_ = pattern;
    if (::chdir(path_.c_str()) != 0)
      std::abort();
    int devNull = ::open("/dev/null", O_RDONLY);
    if (devNull < 0 || ::dup2(devNull, STDIN_FILENO) < 0)
      std::abort();
    ::close(devNull);
  }

  // Writes a file in the folder (the name must not contain '/').
  void put(const std::string &name, std::string_view bytes) const {
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
      std::abort();
    while (!bytes.empty()) {
      ssize_t written = ::write(fd, bytes.data(), bytes.size());
      if (written <= 0)
        std::abort();
      bytes.remove_prefix(static_cast<size_t>(written));
    }
    ::close(fd);
  }

  // Removes everything in the folder, so each run starts from the same state
  // (and outputs of one run cannot become inputs of the next).
  void clear() const {
    std::error_code ignored;
    for (const auto &entry : std::filesystem::directory_iterator(path_)) {
      // Runs may leave the folder's own permissions alone but not those of
      // what they create: make them removable first.
      std::filesystem::permissions(entry.path(),
                                   std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ignored);
      std::filesystem::remove_all(entry.path(), ignored);
    }
  }

private:
  std::string path_;
};

} // namespace offbundle::fuzz
