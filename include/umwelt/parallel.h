// Sharing a loop's blocks among the cores.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace umwelt {

// How many threads ForEachBlock uses: the cores, at most `max_workers`.
inline unsigned Workers(unsigned max_workers = 8) {
  return std::clamp(std::thread::hardware_concurrency(), 1U, std::max(1U, max_workers));
}

// Calls work(worker, begin, end) for consecutive blocks of `step` items
// covering [0, n), the blocks taken in turn by up to `workers` threads (this
// one among them; `worker` < `workers` tells them apart, for buffers of
// their own). `work` must be safe to run on several blocks at once; what it
// writes for a block is its own. A thread that cannot be made leaves its
// blocks to the others, so the work is done on any number of them.
template <typename Work>
void ForEachBlock(size_t n, size_t step, unsigned workers, Work&& work) {
  step = std::max<size_t>(step, 1);
  std::atomic<size_t> next{0};
  auto run = [&](unsigned worker) {
    for (size_t begin; (begin = next.fetch_add(step)) < n;) work(worker, begin, std::min(n, begin + step));
  };
  std::vector<std::thread> helpers;
  for (unsigned w = 1; w < workers && w * step < n; ++w) {
    try {
      helpers.emplace_back(run, w);
    } catch (const std::system_error&) {
      break;
    }
  }
  run(0);
  for (auto& t : helpers) t.join();
}

}  // namespace umwelt
