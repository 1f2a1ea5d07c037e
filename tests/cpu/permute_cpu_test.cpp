// SPDX-License-Identifier: Apache-2.0
// Every CPU permute kernel ("auto" included) against the reference: every permutation up to rank
// 5 on small odd dims, random permutations up to rank 8, size-1 dims, strided views, every element
// size, unaligned pointers, and shapes large enough for the 2D slices and for threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/permute_check.hpp"

namespace {

using xpose::Device;
using xpose::DType;
using xpose::Permutation;
using xpose::Status;

// Runs `kernel` on `p` and checks the whole output allocation. A named kernel that cannot run the
// shape (copy, transpose2d on other layouts) is skipped; "auto" and the general kernels must run.
void expect_permutes(const std::string& kernel, const Permutation& p, DType type, std::size_t misalign_in = 0,
                     std::size_t misalign_out = 0) {
  SCOPED_TRACE(kernel + " on " + xpose_test::describe(p, type) + " (misalign in " +
               std::to_string(misalign_in) + ", out " + std::to_string(misalign_out) + ")");
  xpose::Plan plan;
  const Status created = xpose::Plan::create_permute(plan, p, type, Device::cpu, {kernel, 0});
  if (created == Status::unsupported && (kernel == "copy" || kernel == "transpose2d" || kernel == "memcpy"))
    return;
  ASSERT_EQ(created, Status::ok) << xpose::last_error_message();
  const auto problem = xpose_test::permute_problem_for(p, type);
  const auto input = xpose_test::make_permute_input(problem, misalign_in);
  auto output = xpose_test::make_permute_output(problem, misalign_out);
  const auto expected =
      xpose_test::expected_permute(input, output, problem, xpose::permute_kernel_permutes(Device::cpu, kernel));
  ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
  EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem))
      << "kernel " << plan.kernel_name();
}

std::vector<std::string> permuting_kernels() {
  std::vector<std::string> names;
  for (const auto& name : xpose::permute_kernel_names(Device::cpu))
    if (name != "reference" && xpose::permute_kernel_permutes(Device::cpu, name)) names.push_back(name);
  return names;
}

class PermuteCpuKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(PermuteCpuKernel, EveryPermutationUpToRank5MatchesReference) {
  const std::vector<int64_t> odd_dims{3, 5, 2, 7, 3};
  for (int rank = 0; rank <= 5; ++rank) {
    std::vector<int64_t> dims(odd_dims.begin(), odd_dims.begin() + rank);
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    int index = 0;
    do {
      // Rotate through the element sizes so that every size sees every rank.
      const DType type = xpose_test::one_dtype_per_size()[(index++ + rank) % 5];
      expect_permutes(GetParam(), {dims, perm, {}, {}}, type);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST_P(PermuteCpuKernel, EveryElementSizeMatchesReference) {
  for (DType type : xpose::all_dtypes()) {
    expect_permutes(GetParam(), {{5, 3, 7}, {2, 0, 1}, {}, {}}, type);
    expect_permutes(GetParam(), {{4, 6, 3, 2}, {0, 2, 1, 3}, {}, {}}, type);  // short stay run
    expect_permutes(GetParam(), {{9, 11}, {1, 0}, {}, {}}, type);
  }
}

TEST_P(PermuteCpuKernel, RandomPermutationsUpToRank8MatchReference) {
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 8);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % (rank > 5 ? 4 : 6));
    const DType type = xpose_test::one_dtype_per_size()[rng() % 5];
    expect_permutes(GetParam(), {dims, xpose_test::random_perm(rank, rng), {}, {}}, type);
  }
}

TEST_P(PermuteCpuKernel, SizeOneDimsAnywhereMatchReference) {
  expect_permutes(GetParam(), {{1, 5, 1, 3, 1}, {4, 3, 2, 1, 0}, {}, {}}, DType::f32);
  expect_permutes(GetParam(), {{1, 1, 1}, {2, 0, 1}, {}, {}}, DType::f64);
  expect_permutes(GetParam(), {{7, 1, 9}, {2, 1, 0}, {}, {}}, DType::u8);
  expect_permutes(GetParam(), {{1, 7, 9, 1}, {3, 2, 0, 1}, {}, {}}, DType::c128);
}

TEST_P(PermuteCpuKernel, IdentityAndFusableShapesMatchReference) {
  expect_permutes(GetParam(), {{4, 5, 6}, {0, 1, 2}, {}, {}}, DType::f32);
  expect_permutes(GetParam(), {{4, 5, 6, 7}, {2, 3, 0, 1}, {}, {}}, DType::u16);  // a 2D transpose
  expect_permutes(GetParam(), {{3, 4, 5, 6}, {0, 2, 3, 1}, {}, {}}, DType::f32);  // batched 2D
  expect_permutes(GetParam(), {{6}, {0}, {}, {}}, DType::f64);
  expect_permutes(GetParam(), {{}, {}, {}, {}}, DType::f32);  // a scalar
}

TEST_P(PermuteCpuKernel, EmptyTensorsWriteNothing) {
  expect_permutes(GetParam(), {{3, 0, 5}, {2, 1, 0}, {}, {}}, DType::f32);
  expect_permutes(GetParam(), {{0}, {0}, {}, {}}, DType::u8);
}

TEST_P(PermuteCpuKernel, StridedViewsMatchReferenceAndLeavePaddingUntouched) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 30; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % 5);
    const std::vector<int> perm = xpose_test::random_perm(rank, rng);
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
    Permutation p{dims, perm, xpose_test::padded_strides(dims, static_cast<int64_t>(rng() % 3)),
                  xpose_test::padded_strides(out_dims, static_cast<int64_t>(rng() % 3))};
    if (trial % 3 == 0) p.in_strides.clear();
    if (trial % 3 == 1) p.out_strides.clear();
    expect_permutes(GetParam(), p, xpose_test::one_dtype_per_size()[trial % 5]);
  }
}

TEST_P(PermuteCpuKernel, InputViewsInAnyOrderMatchReference) {
  // The input is itself a transposed view: (4, 5, 6) stored as (6, 4, 5), with padding.
  expect_permutes(GetParam(), {{4, 5, 6}, {1, 2, 0}, {6, 1, 24}, {}}, DType::f32);
  expect_permutes(GetParam(), {{4, 5, 6}, {2, 0, 1}, {7, 1, 29}, {}}, DType::u8);
  // Unit stride on no axis at all.
  expect_permutes(GetParam(), {{3, 4, 5}, {2, 1, 0}, {40, 10, 2}, {30, 6, 2}}, DType::f64);
  // The innermost axis stays innermost but not contiguous.
  expect_permutes(GetParam(), {{3, 4, 5}, {1, 0, 2}, {40, 10, 2}, {}}, DType::u16);
}

TEST_P(PermuteCpuKernel, UnalignedPointersMatchReference) {
  for (std::size_t misalign : {1, 3, 8}) {
    expect_permutes(GetParam(), {{6, 5, 7}, {2, 0, 1}, {}, {}}, DType::f64, misalign, 0);
    expect_permutes(GetParam(), {{6, 5, 4}, {1, 0, 2}, {}, {}}, DType::f32, 0, misalign);
    expect_permutes(GetParam(), {{33, 17}, {1, 0}, {}, {}}, DType::c128, misalign, misalign);
  }
}

TEST_P(PermuteCpuKernel, LargerShapesMatchReference) {
  // Enough for whole AVX-512 tiles, several 2D slices, chunks of the slice axis and threads.
  expect_permutes(GetParam(), {{37, 64, 129}, {2, 1, 0}, {}, {}}, DType::f32);
  expect_permutes(GetParam(), {{12, 40, 12, 40}, {3, 0, 2, 1}, {}, {}}, DType::f64);
  expect_permutes(GetParam(), {{9, 31, 30, 16}, {2, 1, 0, 3}, {}, {}}, DType::u8);  // 16-byte runs
  expect_permutes(GetParam(), {{9, 31, 30, 48}, {2, 1, 0, 3}, {}, {}}, DType::u8);  // 48-byte runs
  expect_permutes(GetParam(), {{300, 270, 16}, {1, 0, 2}, {}, {}}, DType::f32);      // > 1 MiB
  expect_permutes(GetParam(), {{5, 5, 8, 5, 8, 4}, {4, 1, 0, 3, 2, 5}, {}, {}}, DType::u16);
}

// Short inner axes on both sides (tiles over several axes, permute_blocked.cpp): groups of axes cut
// at 128 bytes with partial last tiles, more than 1 MiB (threads), every element size, a strided
// input and output.
TEST_P(PermuteCpuKernel, ShortInnerAxesMatchReference) {
  for (DType type : xpose_test::one_dtype_per_size()) {
    expect_permutes(GetParam(), {{9, 17, 30, 28, 26}, {4, 3, 0, 2, 1}, {}, {}}, type);
    expect_permutes(GetParam(), {{6, 33, 17, 29, 3}, {3, 1, 4, 0, 2}, {}, {}}, type);
  }
  expect_permutes(GetParam(), {{40, 30, 20, 10, 8}, {4, 2, 0, 3, 1}, {}, {}}, DType::f32);  // 3.8 MB
  expect_permutes(GetParam(), {{64, 33, 17, 29, 3}, {3, 1, 4, 0, 2}, {}, {}}, DType::u8);
  // 8- and 16-byte elements: inner axes of 64-255 bytes on both sides take the tiles too.
  expect_permutes(GetParam(), {{9, 11, 13, 7, 9}, {0, 2, 4, 1, 3}, {}, {}}, DType::c128);
  expect_permutes(GetParam(), {{10, 20, 12, 14, 20}, {1, 4, 0, 3, 2}, {}, {}}, DType::f64);
  expect_permutes(GetParam(), {{10, 20, 12, 14, 20}, {1, 4, 0, 3, 2}, {}, {}}, DType::c64);
  expect_permutes(GetParam(),
                  {{7, 11, 13, 5}, {3, 1, 0, 2}, {11 * 13 * 5 * 2 + 3, 13 * 5 * 2, 5 * 2, 2}, {}}, DType::u16);
  expect_permutes(GetParam(), {{7, 11, 13, 5}, {2, 3, 1, 0}, {}, {5 * 11 * 8 + 3, 11 * 8, 8, 1}}, DType::f64);
  // Runs under 512 bytes, not whole cache lines, that an outer axis continues (the tiles, where
  // 2D slices would share those lines): the input's runs, the output's, both, a strided input.
  expect_permutes(GetParam(), {{40, 17, 3, 5}, {0, 3, 2, 1}, {}, {}}, DType::c128);
  expect_permutes(GetParam(), {{30, 100, 3, 20}, {0, 3, 2, 1}, {}, {}}, DType::f32);
  expect_permutes(GetParam(), {{20, 300, 65}, {2, 1, 0}, {}, {}}, DType::f64);
  expect_permutes(GetParam(), {{50, 17, 3, 5}, {0, 3, 2, 1}, {17 * 18 + 1, 18, 6, 1}, {}}, DType::f32);
  // 1- and 2-byte elements with both inner axes short: blocks of 16 bytes a line between the
  // output's inner axes taken together and the input's (several tiles each way, the rows and
  // columns that fill no block, a composite of two output axes, strided views, offset pointers).
  for (DType type : {DType::u8, DType::u16}) {
    expect_permutes(GetParam(), {{35, 1047, 4}, {2, 1, 0}, {}, {}}, type);
    expect_permutes(GetParam(), {{35, 1047, 4}, {2, 1, 0}, {}, {}}, type, 1, 3);
    expect_permutes(GetParam(), {{3, 300, 17, 33}, {3, 1, 2, 0}, {}, {}}, type);
    expect_permutes(GetParam(), {{20, 24, 16, 20, 10}, {4, 2, 0, 3, 1}, {}, {}}, type);
    expect_permutes(GetParam(), {{9, 4, 8, 9, 5}, {4, 3, 1, 0, 2}, {}, {}}, type);
    expect_permutes(GetParam(), {{9, 4, 8, 9, 5}, {4, 3, 1, 0, 2}, {1500, 370, 45, 5, 1}, {}}, type, 2, 0);
    expect_permutes(GetParam(), {{33, 70, 4}, {2, 1, 0}, {}, {70 * 34 + 5, 34, 1}}, type, 0, 1);
    // Columns that fill a block only half or more (37 and 13 of 16 bytes a line), and rows that
    // fill theirs by 11 of 16 bytes under 2D slices of at most 256 bytes: the rest one element at
    // a time.
    expect_permutes(GetParam(), {{3, 300, 16, 37}, {1, 0, 3, 2}, {}, {}}, type);
    expect_permutes(GetParam(), {{30, 50, 24, 13}, {3, 1, 0, 2}, {}, {}}, type, 1, 2);
    expect_permutes(GetParam(), {{2, 4, 3, 11, 8, 5, 5, 4}, {1, 4, 7, 2, 6, 0, 5, 3}, {}, {}}, type);
  }
  // 2D slices of at most a cache line (the tiles' element loop): 4 x 4 and 5 x 4 bytes, strided
  // input, offset pointers, more than 1 MiB.
  for (DType type : {DType::u8, DType::u16}) {
    expect_permutes(GetParam(), {{3, 300, 4, 4, 8, 4}, {2, 4, 1, 0, 5, 3}, {}, {}}, type);
    expect_permutes(GetParam(), {{4, 64, 95, 5}, {2, 1, 3, 0}, {64 * 570 + 7, 570, 6, 1}, {}}, type, 3, 1);
  }
  expect_permutes(GetParam(), {{3, 50, 30, 48}, {3, 1, 2, 0}, {}, {}}, DType::u8);
  expect_permutes(GetParam(), {{3, 50, 30, 24}, {3, 1, 2, 0}, {}, {}}, DType::u16);
  // A short input axis under a long output one (the blocks too): odd long sides, several input
  // axes packed into the columns, a strided input, offset pointers, more than 1 MiB.
  for (DType type : {DType::u8, DType::u16}) {
    expect_permutes(GetParam(), {{269, 57, 3, 4, 4}, {4, 3, 1, 2, 0}, {}, {}}, type);
    expect_permutes(GetParam(), {{301, 200, 7}, {2, 1, 0}, {}, {}}, type, 1, 3);
    expect_permutes(GetParam(), {{80, 90, 40, 3}, {3, 0, 2, 1}, {}, {}}, type);
    expect_permutes(GetParam(), {{65, 30, 6}, {2, 1, 0}, {227, 7, 1}, {}}, type);
  }
}

std::string kernel_case_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(PermuteCpu, PermuteCpuKernel, ::testing::ValuesIn(permuting_kernels()),
                         kernel_case_name);

TEST(PermuteCpu, MemcpyBaselineCopiesDenseBytes) {
  expect_permutes("memcpy", {{5, 6, 7}, {2, 0, 1}, {}, {}}, DType::f32);
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{5, 6}, {1, 0}, {7, 1}, {}}, DType::f32, Device::cpu,
                                        {"memcpy", 0}),
            Status::unsupported);
}

TEST(PermuteCpu, ThreadCountsGiveTheSameResult) {
  // Each shape is large enough (> 8 MiB) that 8 threads get a share each: 2D slices with chunks
  // of the slice axis, runs that stay innermost, and a strided view on the generic tiles.
  const std::vector<Permutation> shapes{{{24, 70, 40, 33}, {3, 1, 2, 0}, {}, {}},
                                        {{40, 50, 33, 36}, {2, 1, 0, 3}, {}, {}},
                                        {{130, 120, 140}, {2, 0, 1}, {120 * 280 + 3, 280, 2}, {}}};
  for (const Permutation& p : shapes)
    for (int threads : {2, 3, 8}) {
      SCOPED_TRACE(xpose_test::describe(p, DType::f32) + ", threads " + std::to_string(threads));
      xpose::Plan plan;
      ASSERT_EQ(xpose::Plan::create_permute(plan, p, DType::f32, Device::cpu, {"threaded", threads}), Status::ok);
      const auto problem = xpose_test::permute_problem_for(p, DType::f32);
      const auto input = xpose_test::make_permute_input(problem);
      auto output = xpose_test::make_permute_output(problem);
      const auto expected = xpose_test::expected_permute(input, output, problem);
      ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok);
      EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem));
    }
}

}  // namespace
