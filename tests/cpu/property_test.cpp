// SPDX-License-Identifier: Apache-2.0
// Property test: thousands of random problems (shape skewed towards 0, 1 and 2, any element size,
// random row padding, batches with random gaps) on "auto" and every transposing CPU kernel but
// the reference itself, each compared with the reference with padding and guards checked.
//
// XPOSE_TEST_SEED (default kDefaultPropertySeed, common/random_problems.hpp) and XPOSE_TEST_CASES
// (default kDefaultCases) override the run; a failure prints the seed and the case so it can be
// replayed. tests/cpu/permute_property_test.cpp does the same for permutations, and
// tests/cuda/property_cuda_test.cpp for the GPU kernels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/random_problems.hpp"
#include "common/transpose_check.hpp"

namespace {

using xpose::Status;

constexpr uint64_t kDefaultCases = 3000;

std::vector<std::string> kernels_under_test() {
  std::vector<std::string> names;
  for (const std::string& name : xpose_test::transposing_kernels(xpose::Device::cpu))
    if (name != "reference") names.push_back(name);
  return names;
}

class RandomProblemsCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomProblemsCpu, MatchReference) {
  const uint64_t seed = xpose_test::env_or("XPOSE_TEST_SEED", xpose_test::kDefaultPropertySeed);
  const uint64_t cases = xpose_test::env_or("XPOSE_TEST_CASES", kDefaultCases);
  RecordProperty("seed", std::to_string(seed));
  xpose_test::CaseGenerator random(seed);
  for (uint64_t k = 0; k < cases && !HasFailure(); ++k) {
    const xpose_test::RandomMatrixCase c = xpose_test::random_matrix_case(random);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (XPOSE_TEST_SEED), case " + std::to_string(k) +
                 ": kernel " + GetParam() + ", " + xpose_test::describe(c.matrix, c.type));
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, c.matrix, c.type, xpose::Device::cpu, {GetParam(), 0}),
              Status::ok)
        << xpose::last_error_message();
    const auto problem = xpose_test::problem_for(c.matrix, c.type);
    const auto input = xpose_test::make_input(problem, 0, /*salt=*/k);
    auto output = xpose_test::make_output(problem);
    ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
    EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));
  }
}

INSTANTIATE_TEST_SUITE_P(TransposeCpu, RandomProblemsCpu, ::testing::ValuesIn(kernels_under_test()),
                         [](const auto& info) { return info.param; });

}  // namespace
