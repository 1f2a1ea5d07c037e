// SPDX-License-Identifier: Apache-2.0
// Plan creation for a rank-6 permutation (validation, normalisation, kernel choice and launch
// parameters): the target is under 50 microseconds. Prints the median; the bound is
// checked only in optimised builds without sanitizers.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "core/permute_layout.hpp"
#include "core/permute_plan.hpp"
#include "xpose/xpose.hpp"

namespace {

#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
constexpr bool kTimingIsMeaningful = true;
#else
constexpr bool kTimingIsMeaningful = false;
#endif

template <typename Create>
double median_micros(const Create& create) {
  std::vector<double> micros;
  for (int k = 0; k < 500; ++k) {
    const auto start = std::chrono::steady_clock::now();
    create();
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(micros.begin(), micros.end());
  return micros[micros.size() / 2];
}

const xpose::Permutation kRank6{{15, 15, 32, 15, 15, 32}, {1, 4, 0, 5, 3, 2}, {}, {}};

TEST(PermutePlanTime, CpuPlanForRank6) {
  const double median = median_micros([] {
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create_permute(plan, kRank6, xpose::DType::f64), xpose::Status::ok);
  });
  std::printf("[ PERF     ] CPU plan creation, rank 6: median %.2f us\n", median);
  if (kTimingIsMeaningful) {
    EXPECT_LT(median, 50.0);
  }
}

// The GPU choice and launch parameters are host code: timed here without a GPU (a GPU plan adds
// the device checks; tests/cuda times the whole of it).
TEST(PermutePlanTime, GpuKernelChoiceForRank6) {
  if (!xpose::cuda_compiled()) GTEST_SKIP() << "no CUDA backend in this build";
  xpose::detail::PermuteProblem problem;
  ASSERT_EQ(xpose::detail::make_permute_problem(kRank6, xpose::DType::f64, &problem), xpose::Status::ok);
  const double median = median_micros([&] {
    xpose::detail::PreparedPermute primary, fallback;
    xpose::detail::choose_permute_kernel(xpose::Device::cuda, problem, xpose::detail::normalise(problem), &primary,
                                         &fallback);
    ASSERT_NE(primary.kernel, nullptr);
  });
  std::printf("[ PERF     ] GPU kernel choice and parameters, rank 6: median %.2f us\n", median);
  if (kTimingIsMeaningful) {
    EXPECT_LT(median, 50.0);
  }
}

}  // namespace
