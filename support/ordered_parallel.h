// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Work on many independent items on several threads, with the results
// handed over in the items' order: what a tool prints stays the same
// whatever the number of threads and however long each item takes.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace offbundle {

// Runs work(i) for every i in [0, count) on up to `jobs` threads (the
// calling thread only when `jobs` is 1), and calls emit(i, result) on the
// calling thread in index order, each as soon as it and every earlier one
// are done. Results not yet emitted are held in memory.
template <typename Result, typename Work, typename Emit>
void runInOrder(size_t count, unsigned jobs, Work work, Emit emit) {
  jobs = static_cast<unsigned>(
      std::clamp<size_t>(jobs, 1, std::max<size_t>(count, 1)));
  if (jobs == 1) {
    for (size_t i = 0; i < count; ++i)
      emit(i, work(i));
    return;
  }
  std::vector<std::optional<Result>> done(count);
  std::mutex mutex;
  std::condition_variable finished;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      Result result = work(i);
      {
        std::lock_guard<std::mutex> lock(mutex);
        done[i].emplace(std::move(result));
      }
      finished.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < jobs; ++i)
    threads.emplace_back(worker);
  for (size_t i = 0; i < count; ++i) {
    std::optional<Result> result;
    {
      std::unique_lock<std::mutex> lock(mutex);
      finished.wait(lock, [&] { return done[i].has_value(); });
      result = std::move(done[i]);
      done[i].reset();
    }
    emit(i, std::move(*result));
  }
  for (std::thread &thread : threads)
    thread.join();
}

} // namespace offbundle
