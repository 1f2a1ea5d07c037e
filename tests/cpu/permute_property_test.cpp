// SPDX-License-Identifier: Apache-2.0
// Property test for the CPU permute kernels: random permutations of rank 1..8 (small odd dims,
// size-1 dims, a few empty tensors, any element size, packed and strided views nested in any
// order, unaligned views) on "auto" and every permuting CPU kernel but the reference, each
// compared with the reference with the padding of strided views and the guards checked.
//
// XPOSE_TEST_SEED (default kDefaultPropertySeed) and XPOSE_TEST_CASES (default kDefaultCases)
// override the run; a failure prints the seed, the case number and the permutation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "common/random_problems.hpp"
#include "common/transpose_check.hpp"

namespace {

using xpose::Device;
using xpose::Status;

constexpr uint64_t kDefaultCases = 3000;
constexpr int64_t kMaxElements = int64_t{1} << 15;

std::vector<std::string> kernels_under_test() {
  std::vector<std::string> names;
  for (const auto& name : xpose::permute_kernel_names(Device::cpu))
    if (name != "reference" && xpose::permute_kernel_permutes(Device::cpu, name)) names.push_back(name);
  return names;
}

// Kernels that run only some layouts (copy: nothing moves; transpose2d: a (batched) 2D layout).
bool runs_every_layout(const std::string& kernel) { return kernel != "copy" && kernel != "transpose2d"; }

class RandomPermutationsCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomPermutationsCpu, MatchReference) {
  const std::string kernel = GetParam();
  const uint64_t seed = xpose_test::env_or("XPOSE_TEST_SEED", xpose_test::kDefaultPropertySeed);
  const uint64_t cases = xpose_test::env_or("XPOSE_TEST_CASES", kDefaultCases);
  RecordProperty("seed", std::to_string(seed));
  xpose_test::CaseGenerator random(seed);
  uint64_t ran = 0;
  for (uint64_t k = 0; k < cases && !HasFailure(); ++k) {
    const xpose_test::RandomPermuteCase c = xpose_test::random_permute_case(random, kMaxElements);
    const int elem_size = static_cast<int>(xpose::size_of(c.type));
    const std::size_t misalign_in = random.misalign(elem_size), misalign_out = random.misalign(elem_size);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (XPOSE_TEST_SEED), case " + std::to_string(k) + ": kernel " +
                 kernel + ", " + xpose_test::describe(c.permutation, c.type) + ", misalign in " +
                 std::to_string(misalign_in) + ", out " + std::to_string(misalign_out));
    xpose::Plan plan;
    const Status created = xpose::Plan::create_permute(plan, c.permutation, c.type, Device::cpu, {kernel, 0});
    if (created == Status::unsupported && !runs_every_layout(kernel)) continue;
    ASSERT_EQ(created, Status::ok) << xpose::last_error_message();
    const auto problem = xpose_test::permute_problem_for(c.permutation, c.type);
    const auto input = xpose_test::make_permute_input(problem, misalign_in, /*salt=*/k);
    auto output = xpose_test::make_permute_output(problem, misalign_out);
    const auto expected = xpose_test::expected_permute(input, output, problem);
    ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
    EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem))
        << "kernel " << plan.kernel_name();
    ++ran;
  }
  RecordProperty("cases_run", std::to_string(ran));
  if (runs_every_layout(kernel))
    EXPECT_EQ(ran, cases);
  else
    EXPECT_GT(ran, 0u) << kernel << " ran none of the " << cases << " random permutations";
}

INSTANTIATE_TEST_SUITE_P(PermuteCpu, RandomPermutationsCpu, ::testing::ValuesIn(kernels_under_test()),
                         [](const auto& info) { return info.param; });

}  // namespace
