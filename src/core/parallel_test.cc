#include "umwelt/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace umwelt {
namespace {

// Every item is visited once, by blocks no longer than the step, each worker
// with its own index, for any count, step and number of workers.
TEST(ForEachBlock, VisitsEachItemOnceInBlocks) {
  for (size_t n : {0, 1, 7, 64, 1000}) {
    for (size_t step : {0, 1, 7, 64, 5000}) {
      for (unsigned workers : {1U, 2U, 4U}) {
        std::vector<std::atomic<int>> seen(n);
        std::atomic<bool> bad_block{false}, bad_worker{false};
        ForEachBlock(n, step, workers, [&](unsigned worker, size_t begin, size_t end) {
          if (begin >= end || end - begin > std::max<size_t>(step, 1) || end > n) bad_block = true;
          if (worker >= workers) bad_worker = true;
          for (size_t i = begin; i < end; ++i) ++seen[i];
        });
        EXPECT_FALSE(bad_block) << n << " " << step << " " << workers;
        EXPECT_FALSE(bad_worker) << n << " " << step << " " << workers;
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << i << " of " << n << ", step " << step;
      }
    }
  }
  EXPECT_GE(Workers(), 1U);
  EXPECT_LE(Workers(2), 2U);
}

}  // namespace
}  // namespace umwelt
