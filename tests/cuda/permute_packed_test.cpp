// SPDX-License-Identifier: Apache-2.0
// The packed permute kernel (a tile over several short axes: PackedParams, PackedAgent), emulated
// on the CPU thread by thread and compared with the reference: the box's geometry on the short-
// axis layouts it is for, then random permutations of small odd extents at every element size,
// strided views and pointers off the words. Needs no GPU (the kernel itself runs in
// permute_cuda_test.cpp); here because it is the GPU build's code.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "core/permute_layout.hpp"
#include "cuda/permute_packed.hpp"
#include "cuda/permute_params.hpp"

namespace {

using xpose::DType;
using xpose::Permutation;
namespace cuda = xpose::cuda;

cuda::PackedParams params_for(const Permutation& perm, DType type) {
  cuda::PackedParams p;
  EXPECT_TRUE(cuda::make_packed_params(xpose::detail::normalise(xpose_test::permute_problem_for(perm, type)), &p,
                                       nullptr));
  return p;
}

// Every thread of a block, phase by phase, tile by tile, with the forms the launcher would pick
// for these pointers.
template <int Size>
void emulate(const cuda::PackedParams& p, const uint8_t* in, uint8_t* out) {
  alignas(16) static uint8_t box[cuda::kPackedSharedBytes];
  static uint16_t table[cuda::kPackedTableEntries];
  static cuda::PackedRunTables runs;
  std::memset(box, 0xCD, sizeof(box));  // stale shared memory must never reach the output
  std::memset(&runs, 0xCD, sizeof(runs));
  const auto aligned16 = [](const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; };
  const bool aligned_in = p.in_runs_aligned && aligned16(in), aligned_out = p.out_runs_aligned && aligned16(out);
  const auto agent = [&](int thread) {
    return cuda::PackedAgent<Size>{p, thread, cuda::kPackedThreads, box, table, &runs};
  };
  for (int thread = 0; thread < cuda::kPackedThreads; ++thread) {
    agent(thread).fill_gather_table();
    if (p.run_tables) agent(thread).fill_run_tables();
  }
  for (int64_t t = 0; t < p.tiles; ++t) {
    const cuda::PackedTile tile = cuda::packed_tile(p, t);
    for (int thread = 0; thread < cuda::kPackedThreads; ++thread) {
      if (aligned_in) agent(thread).template load<true>(tile, in);
      else agent(thread).template load<false>(tile, in);
    }
    for (int thread = 0; thread < cuda::kPackedThreads; ++thread) {
      if (aligned_out) agent(thread).template store<true>(tile, out);
      else agent(thread).template store<false>(tile, out);
    }
  }
}

::testing::AssertionResult packed_matches(const Permutation& perm, DType type, std::size_t misalign_in = 0,
                                          std::size_t misalign_out = 0) {
  const auto problem = xpose_test::permute_problem_for(perm, type);
  const xpose::detail::PermuteLayout layout = xpose::detail::normalise(problem);
  cuda::PackedParams p;
  std::string why;
  if (layout.rank < 2) return ::testing::AssertionSuccess();  // a copy: not packed's
  if (!cuda::make_packed_params(layout, &p, &why)) return ::testing::AssertionFailure() << why;
  const auto input = xpose_test::make_permute_input(problem, misalign_in);
  auto output = xpose_test::make_permute_output(problem, misalign_out);
  const auto expected = xpose_test::expected_permute(input, output, problem);
  switch (p.elem_size) {
    case 1: emulate<1>(p, input.view(), output.view()); break;
    case 2: emulate<2>(p, input.view(), output.view()); break;
    case 4: emulate<4>(p, input.view(), output.view()); break;
    case 8: emulate<8>(p, input.view(), output.view()); break;
    default: emulate<16>(p, input.view(), output.view()); break;
  }
  auto result = xpose_test::permute_output_matches(output.data(), expected, output, problem);
  if (!result) result << " (" << xpose_test::describe(perm, type) << " on " << layout.describe() << ")";
  return result;
}

TEST(PermutePacked, BoxJoinsShortAxesIntoLongRunsOnBothSides) {
  // (.., 6, 3) -> (.., 3, 6, ..): the two short axes are 18 contiguous bytes on both sides, and
  // each side's run grows along its next axes (input: 6 then 197; output: 6 * 59 * 20 fused).
  const cuda::PackedParams swap = params_for({{6, 59, 20, 197, 6, 6, 3}, {4, 3, 0, 1, 2, 6, 5}, {}, {}}, DType::u8);
  EXPECT_GE(swap.in_run_span, 108);
  EXPECT_GE(swap.out_run_elements, 64);
  EXPECT_LE(swap.in_runs * swap.pitch, cuda::kPackedSharedBytes);
  EXPECT_EQ(swap.pitch % 4, 0);
  EXPECT_EQ(swap.pitch / 4 % 2, 1);  // an odd number of shared-memory words
  // A short innermost run that stays innermost (25 bytes) is joined with the next axes.
  const cuda::PackedParams stays = params_for({{5, 31, 6, 3, 1599, 5, 25}, {4, 5, 3, 0, 2, 1, 6}, {}, {}}, DType::u8);
  EXPECT_GE(stays.shorter_run_bytes(), 100);
  // Runs on 16 bytes: plain vector loads and stores.
  const cuda::PackedParams aligned = params_for({{64, 64, 16}, {1, 0, 2}, {}, {}}, DType::f32);
  EXPECT_TRUE(aligned.in_runs_aligned);
  EXPECT_TRUE(aligned.out_runs_aligned);
  EXPECT_FALSE(stays.in_runs_aligned);
  EXPECT_LE(stays.out_run_elements, cuda::kPackedTableEntries);
  // An input whose innermost axis is strided by more than two elements has runs of one element.
  const cuda::PackedParams strided = params_for({{40, 30}, {1, 0}, {100, 3}, {}}, DType::f16);
  EXPECT_EQ(strided.in_run_span, 1);
  EXPECT_FALSE(strided.in_runs_aligned);
  EXPECT_GE(strided.out_run_elements, 30);
}

TEST(PermutePacked, InputRunsReadSmallGapsWithTheElements) {
  // A slice of a larger tensor: 4 of every 5 bytes, 3 x 6 of them per 90. The gaps are under a
  // sector, so the run spans the sliced axes and goes on along the next (it was 4 bytes).
  const cuda::PackedParams slice =
      params_for({{4, 100000, 3, 6, 4}, {1, 3, 2, 4, 0}, {9000000, 90, 30, 5, 1}, {}}, DType::u8);
  EXPECT_EQ(slice.in_run_axes, 4);
  EXPECT_GE(slice.in_run_span, 4 * 90);
  EXPECT_LE(slice.in_runs * slice.pitch, cuda::kPackedSharedBytes);
  // Every other element (stride 2), rows one element apart: read whole, at twice the shared memory.
  const cuda::PackedParams every_other = params_for({{40, 30}, {1, 0}, {60, 2}, {}}, DType::f16);
  EXPECT_EQ(every_other.in_run_axes, 2);
  EXPECT_GE(every_other.in_run_span, 59);
  // A gap of a sector or more, or a stride of more than twice the elements before it, ends the run.
  const cuda::PackedParams wide_gap = params_for({{50, 40, 30}, {2, 1, 0}, {2000, 46, 1}, {}}, DType::f32);
  EXPECT_EQ(wide_gap.in_run_axes, 1);
  const cuda::PackedParams sparse = params_for({{50, 40, 3}, {2, 1, 0}, {2000, 7, 1}, {}}, DType::u8);
  EXPECT_EQ(sparse.in_run_axes, 1);
  // A run of 128 bytes or more takes no gaps (23 of every 24 f64: 184-byte runs as they are).
  const cuda::PackedParams long_enough =
      params_for({{3, 7, 1000, 23}, {3, 0, 1, 2}, {504000, 72000, 24, 1}, {}}, DType::f64);
  EXPECT_EQ(long_enough.in_run_axes, 1);
  EXPECT_EQ(long_enough.in_run_span, 23);
}

TEST(PermutePacked, GappedInputRunsMatchReference) {
  for (DType type : xpose_test::one_dtype_per_size()) {
    const std::size_t e = xpose::size_of(type);
    for (std::size_t in : {std::size_t{0}, e, 3 * e % 16}) {
      EXPECT_TRUE(packed_matches({{4, 300, 3, 6, 4}, {1, 3, 2, 4, 0}, {27000, 90, 30, 5, 1}, {}}, type, in));
      EXPECT_TRUE(packed_matches({{7, 260, 3, 6, 25}, {1, 4, 0, 2, 3}, {126360, 486, 162, 27, 1}, {}}, type, in));
      EXPECT_TRUE(packed_matches({{1500, 19, 3}, {1, 2, 0}, {84, 4, 1}, {}}, type, in));
      EXPECT_TRUE(packed_matches({{22, 3, 3, 47, 23}, {2, 4, 0, 3, 1}, {14688, 3672, 1224, 26, 1}, {}}, type, in));
      EXPECT_TRUE(packed_matches({{40, 30}, {1, 0}, {60, 2}, {}}, type, in));
      EXPECT_TRUE(packed_matches({{33, 5, 9}, {2, 0, 1}, {200, 20, 2}, {}}, type, in, 5 * e % 16));
    }
  }
}

TEST(PermutePacked, ShortAxesEveryElementSize) {
  const std::vector<Permutation> cases{
      {{6, 5, 20, 19, 6, 6, 3}, {4, 3, 0, 1, 2, 6, 5}, {}, {}},
      {{5, 3, 6, 3, 15, 5, 25}, {4, 5, 3, 0, 2, 1, 6}, {}, {}},
      {{13, 4, 3, 6, 3, 8, 14, 7}, {4, 0, 1, 5, 6, 3, 7, 2}, {}, {}},
      {{5, 5, 14, 21, 2, 5, 2, 2}, {6, 7, 3, 1, 0, 5, 4, 2}, {}, {}},
      {{22, 19, 5, 9, 5, 4, 17}, {3, 0, 5, 2, 4, 1, 6}, {}, {}},
      {{11, 4, 2, 3, 11, 7, 3, 6}, {3, 2, 6, 5, 4, 1, 7, 0}, {}, {}},
      {{12, 72, 23, 17}, {1, 0, 2, 3}, {}, {}},
      {{45, 9, 5, 77}, {0, 1, 3, 2}, {}, {}},
      {{3, 300, 5}, {1, 2, 0}, {}, {}},
      {{2, 3}, {1, 0}, {}, {}},
      {{1000, 3}, {1, 0}, {}, {}},
      {{3, 1000}, {1, 0}, {}, {}},
      {{129, 131}, {1, 0}, {}, {}},
  };
  for (const Permutation& p : cases)
    for (DType type : xpose_test::one_dtype_per_size()) EXPECT_TRUE(packed_matches(p, type));
}

TEST(PermutePacked, RandomPermutationsOfSmallOddExtents) {
  std::mt19937_64 rng(33);
  for (int trial = 0; trial < 60; ++trial) {
    const int rank = 3 + static_cast<int>(rng() % 6);
    std::vector<int64_t> dims(rank);
    int64_t elements = 1;
    for (auto& d : dims) {
      d = 1 + static_cast<int64_t>(rng() % 9);
      elements *= d;
    }
    if (elements > 300000) continue;
    const Permutation p{dims, xpose_test::random_perm(rank, rng), {}, {}};
    const DType type = xpose_test::one_dtype_per_size()[trial % 5];
    EXPECT_TRUE(packed_matches(p, type));
  }
}

TEST(PermutePacked, StridedViewsAndPointersOffTheWords) {
  for (DType type : xpose_test::one_dtype_per_size()) {
    const std::size_t e = xpose::size_of(type);
    // A slice of a larger tensor (rows of 89 inside 108), a strided innermost axis, padded output.
    EXPECT_TRUE(packed_matches({{15, 6, 4, 89}, {3, 1, 0, 2}, {2592, 432, 108, 1}, {}}, type));
    EXPECT_TRUE(packed_matches({{9, 7, 5}, {2, 0, 1}, {120, 15, 3}, {}}, type));
    EXPECT_TRUE(packed_matches({{7, 6, 5, 3}, {0, 3, 2, 1}, {}, {200, 40, 7, 1}}, type));
    for (std::size_t in : {std::size_t{0}, e, 3 * e % 16})
      for (std::size_t out : {std::size_t{0}, e, 5 * e % 16})
        EXPECT_TRUE(packed_matches({{6, 11, 8, 4, 3}, {2, 0, 4, 3, 1}, {}, {}}, type, in, out));
  }
}

}  // namespace
