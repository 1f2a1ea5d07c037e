// SPDX-License-Identifier: Apache-2.0
// The CPU kernels' thread pool: every share runs exactly once, from several callers at once and
// from inside a share.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/kernel_registry.hpp"
#include "cpu/thread_pool.hpp"

namespace {

using xpose::detail::parallel_for;

TEST(ThreadPool, EveryShareRunsOnceWithItsCount) {
  for (int n = 1; n <= 9; ++n) {
    std::vector<std::atomic<int>> runs(n);
    std::atomic<int> wrong_count{0};
    parallel_for(n, [&](int t, int count) {
      if (count != n) ++wrong_count;
      ++runs[t];
    });
    EXPECT_EQ(wrong_count, 0) << "n = " << n;
    for (int t = 0; t < n; ++t) EXPECT_EQ(runs[t], 1) << "share " << t << " of " << n;
  }
}

TEST(ThreadPool, SeveralCallersAtOnceAndNestedCallsFinish) {
  constexpr int kCallers = 4, kRounds = 200;
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&] {
      for (int round = 0; round < kRounds; ++round)
        parallel_for(3, [&](int, int) {
          parallel_for(2, [&](int, int) { ++total; });  // a share that uses the pool itself
        });
    });
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(total, long{kCallers} * kRounds * 3 * 2);
}

TEST(ThreadPool, ThreadsForKeepsSmallJobsOnOneThread) {
  using xpose::detail::kCpuMinBytesPerThread;
  using xpose::detail::threads_for;
  EXPECT_EQ(threads_for(8, 100), 1);
  EXPECT_EQ(threads_for(8, 2 * kCpuMinBytesPerThread - 1), 1);  // a thread's share at least
  EXPECT_EQ(threads_for(8, 2 * kCpuMinBytesPerThread), 2);
  EXPECT_EQ(threads_for(2, int64_t{64} << 20), 2);
  EXPECT_GE(threads_for(0, int64_t{64} << 20), 1);
  EXPECT_EQ(xpose::detail::kCpuThreadedFromBytes, 2 * kCpuMinBytesPerThread);  // plans: a second share
}

}  // namespace
