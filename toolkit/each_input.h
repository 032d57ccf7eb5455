// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The files of a walk (api::walkFiles) opened through the public API
// and described, on several threads, with what becomes of each handed over
// in walk order: list, sizes and verify print the same whatever the number
// of threads.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <offbundle/offbundle.h>

#include "support/error.h"
#include "support/ordered_parallel.h"

namespace offbundle {

// Told of each file done, in walk order (the CLI's progress line).
using FileDone = std::function<void(const api::WalkedFile &file)>;

// Opens each file of `walk` on up to `jobs` threads and makes
// describe(file, input), a Result<Part>, of it (`file` the WalkedFile, its
// size already known). In walk order, emit(path, part) takes each part and
// fail(message) each failure: a file that cannot be read, opened or described;
// the others go on. A file found in a folder that holds no bundle is counted as
// skipped instead. Whether any failed.
template <typename Part, typename Describe, typename Emit, typename Fail>
bool describeEachInput(api::FileWalk &walk, unsigned jobs, Describe describe,
                       Emit emit, Fail fail, const FileDone &done = {}) {
  struct Outcome {
    std::optional<Part> part;
    std::string failure;
    bool skipped = false;
  };
  bool failed = false;
  runInOrder<Outcome>(
      walk.files.size(), jobs,
      [&](size_t index) {
        const api::WalkedFile &file = walk.files[index];
        Outcome outcome;
        if (!file.failure.empty()) {
          outcome.failure = file.failure;
          return outcome;
        }
        api::Expected<api::Input> input = api::Input::open(file.path);
        if (!input) {
          outcome.failure = input.error().message;
        } else if (file.inFolder && input->bundles().empty()) {
          outcome.skipped = true;
        } else if (Result<Part> part = describe(file, *input); !part) {
          outcome.failure = part.error().message;
        } else {
          outcome.part.emplace(std::move(*part));
        }
        return outcome;
      },
      [&](size_t index, Outcome outcome) {
        const api::WalkedFile &file = walk.files[index];
        if (outcome.skipped)
          ++walk.skipped.noGpuCode;
        else if (outcome.part)
          emit(file.path, std::move(*outcome.part));
        if (!outcome.failure.empty()) {
          fail(outcome.failure);
          failed = true;
        }
        if (done)
          done(file);
      });
  return failed;
}

} // namespace offbundle
