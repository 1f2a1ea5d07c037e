// SPDX-License-Identifier: Apache-2.0
// One permute plan executed by several host threads at once (execute() is const; the CPU
// kernels share one process-wide thread pool): every thread's output must be its own input
// permuted, on the reference, blocked, threaded and 2D routes.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "common/permute_check.hpp"

namespace {

using xpose::Device;
using xpose::DType;
using xpose::Permutation;
using xpose::Status;

TEST(PermuteCpu, OnePlanExecutesConcurrentlyFromFourThreads) {
  constexpr int kThreads = 4;
  constexpr int kRepeats = 3;
  struct Case {
    Permutation permutation;
    std::string kernel;
    int threads;
  };
  // Small (one pool thread per call) and 4 MB (several per call, 1 MiB each), on the general
  // kernels and on "auto", whose choice for a batched 2D layout is the 2D path.
  const std::vector<Case> cases{{{{9, 17, 5, 33}, {3, 1, 0, 2}, {}, {}}, "auto", 0},
                                {{{24, 40, 36, 30}, {3, 1, 0, 2}, {}, {}}, "threaded", 0},
                                {{{24, 40, 36, 30}, {2, 0, 3, 1}, {}, {}}, "threaded", 3},
                                {{{24, 40, 36, 30}, {3, 1, 0, 2}, {}, {}}, "blocked", 0},
                                {{{8, 300, 270}, {0, 2, 1}, {}, {}}, "auto", 0},
                                {{{6, 5, 7, 4}, {1, 3, 0, 2}, {}, {}}, "reference", 0}};
  for (const Case& c : cases) {
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create_permute(plan, c.permutation, DType::f32, Device::cpu, {c.kernel, c.threads}),
              Status::ok)
        << xpose::last_error_message();
    SCOPED_TRACE(xpose_test::describe(c.permutation, DType::f32) + ", kernel " + plan.kernel_name() + ", " +
                 std::to_string(c.threads) + " threads");
    const auto problem = xpose_test::permute_problem_for(c.permutation, DType::f32);
    std::vector<xpose_test::PermuteBuffer> inputs, outputs;
    for (int t = 0; t < kThreads; ++t) {
      inputs.push_back(xpose_test::make_permute_input(problem, 0, /*salt=*/t + 1));
      outputs.push_back(xpose_test::make_permute_output(problem));
    }
    std::vector<Status> statuses(kThreads, Status::ok);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (int r = 0; r < kRepeats && statuses[t] == Status::ok; ++r)
          statuses[t] = plan.execute(inputs[t].view(), outputs[t].view());
      });
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      EXPECT_EQ(statuses[t], Status::ok);
      EXPECT_TRUE(xpose_test::permute_output_matches(
          outputs[t].data(), xpose_test::expected_permute(inputs[t], outputs[t], problem), outputs[t], problem));
    }
  }
}

}  // namespace
