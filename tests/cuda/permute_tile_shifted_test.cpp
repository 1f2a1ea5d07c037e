// SPDX-License-Identifier: Apache-2.0
// The tiled permute kernel's shifted forms (TiledAgent::load_shifted and store_shifted: runs off
// 16 bytes), emulated on the CPU thread by thread and compared with the reference: odd extents,
// every element size, strided views and pointers off 16 bytes. Needs no GPU (the kernels
// themselves are in permute_cuda_test.cpp); here because these are the forms the GPU build adds.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "core/permute_layout.hpp"
#include "cuda/permute_params.hpp"
#include "cuda/permute_tile.hpp"

namespace {

using xpose::DType;
using xpose::Permutation;
namespace cuda = xpose::cuda;

// Every thread of a 256-thread block, phase by phase, tile by tile, with the forms the launcher
// would pick for these pointers.
template <int Size>
void emulate(const cuda::TiledParams& p, const uint8_t* in, uint8_t* out, bool shifted_in, bool shifted_out) {
  alignas(16) static uint8_t tile[cuda::kTiledSharedBytes];
  static int64_t row_in[cuda::kMaxTileEdge], col_out[cuda::kMaxTileEdge];
  std::memset(tile, 0xCD, sizeof(tile));  // stale shared memory must never reach the output
  const bool in_vectors = p.in_vectors && reinterpret_cast<uintptr_t>(in) % 16 == 0;
  const bool out_vectors = p.out_vectors && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  const auto agent = [&](int thread) { return cuda::TiledAgent<Size>{p, thread, cuda::kTiledThreads, tile, row_in, col_out}; };
  for (int64_t t = 0; t < p.tiles; ++t) {
    const cuda::TileOrigin origin = cuda::tile_origin(p, t);
    for (int thread = 0; thread < cuda::kTiledThreads; ++thread) agent(thread).fill_tables(origin);
    for (int thread = 0; thread < cuda::kTiledThreads; ++thread) {
      if (shifted_in)
        agent(thread).load_shifted(origin, in);
      else
        agent(thread).load(origin, in, in_vectors);
    }
    for (int thread = 0; thread < cuda::kTiledThreads; ++thread) {
      if (shifted_out)
        agent(thread).store_shifted(origin, out);
      else
        agent(thread).store(origin, out, out_vectors);
    }
  }
}

// Emulates the shifted forms that `p` allows (each alone and both) with the given misalignments;
// returns how many forms ran.
int expect_shifted_forms_match(const Permutation& perm, DType type, std::size_t misalign_in,
                               std::size_t misalign_out) {
  const auto problem = xpose_test::permute_problem_for(perm, type);
  const xpose::detail::PermuteLayout layout = xpose::detail::normalise(problem);
  cuda::TiledParams p;
  if (!cuda::make_tiled_params(layout, &p, nullptr)) return 0;
  int ran = 0;
  for (int form = 1; form < 4; ++form) {
    const bool shifted_in = form & 1, shifted_out = form & 2;
    if ((shifted_in && !p.in_shifted) || (shifted_out && !p.out_shifted)) continue;
    SCOPED_TRACE(xpose_test::describe(perm, type) + " on " + layout.describe() + ", shifted " +
                 (shifted_in ? "loads " : "") + (shifted_out ? "stores" : "") + " (misalign in " +
                 std::to_string(misalign_in) + ", out " + std::to_string(misalign_out) + ")");
    const auto input = xpose_test::make_permute_input(problem, misalign_in);
    auto output = xpose_test::make_permute_output(problem, misalign_out);
    const auto expected = xpose_test::expected_permute(input, output, problem);
    const auto* in = input.view();
    auto* out = output.view();
    switch (p.elem_size) {
      case 1: emulate<1>(p, in, out, shifted_in, shifted_out); break;
      case 2: emulate<2>(p, in, out, shifted_in, shifted_out); break;
      case 4: emulate<4>(p, in, out, shifted_in, shifted_out); break;
      default: emulate<8>(p, in, out, shifted_in, shifted_out); break;
    }
    EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem));
    ++ran;
  }
  return ran;
}

TEST(PermuteTileShifted, ParamsAllowShiftedFormsOnContiguousRunsOnly) {
  const auto params = [](const Permutation& perm, DType type) {
    cuda::TiledParams p;
    EXPECT_TRUE(cuda::make_tiled_params(xpose::detail::normalise(xpose_test::permute_problem_for(perm, type)), &p,
                                        nullptr));
    return p;
  };
  const cuda::TiledParams odd = params({{7, 665, 589, 7}, {0, 3, 2, 1}, {}, {}}, DType::u8);
  EXPECT_FALSE(odd.in_vectors);
  EXPECT_FALSE(odd.out_vectors);
  EXPECT_TRUE(odd.in_shifted);
  EXPECT_TRUE(odd.out_shifted);
  EXPECT_EQ(odd.in_span_bytes, 7 * 665 * 589 * 7);
  const cuda::TiledParams strided = params({{5, 9, 3}, {2, 1, 0}, {64, 7, 2}, {}}, DType::f16);
  EXPECT_FALSE(strided.in_shifted);  // tile rows are not contiguous
  EXPECT_EQ(strided.in_span_bytes, (4 * 64 + 8 * 7 + 2 * 2 + 1) * 2);
  EXPECT_FALSE(params({{64, 64}, {1, 0}, {}, {}}, DType::c128).in_shifted);  // always aligned
}

TEST(PermuteTileShifted, OddExtentsEveryElementSize) {
  const std::vector<Permutation> cases{{{7, 65, 59, 7}, {0, 3, 2, 1}, {}, {}},
                                       {{2, 4, 4, 23, 2, 3, 31, 13}, {1, 5, 3, 0, 4, 7, 6, 2}, {}, {}},
                                       {{37, 41}, {1, 0}, {}, {}},
                                       {{3, 129, 131}, {0, 2, 1}, {}, {}},
                                       {{6, 11, 3, 11, 9, 13, 3}, {0, 6, 2, 1, 4, 5, 3}, {}, {}},
                                       {{300, 5, 3}, {1, 2, 0}, {}, {}},
                                       {{17, 19, 2}, {2, 1, 0}, {}, {}}};
  int ran = 0;
  for (const Permutation& p : cases)
    for (DType type : {DType::u8, DType::f16, DType::f32, DType::f64}) ran += expect_shifted_forms_match(p, type, 0, 0);
  EXPECT_GT(ran, 30);
}

TEST(PermuteTileShifted, PointersOffSixteenBytes) {
  int ran = 0;
  for (DType type : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    const std::size_t e = xpose::size_of(type);
    for (std::size_t in : {std::size_t{0}, e, 3 * e, 16 - e})
      for (std::size_t out : {std::size_t{0}, e, 5 * e % 16})
        ran += expect_shifted_forms_match({{64, 65, 66}, {2, 0, 1}, {}, {}}, type, in, out) +
               expect_shifted_forms_match({{33, 47, 9}, {1, 2, 0}, {}, {}}, type, in, out);
  }
  EXPECT_GT(ran, 50);
}

TEST(PermuteTileShifted, StridedViews) {
  int ran = 0;
  for (DType type : {DType::u8, DType::f16, DType::f32, DType::f64}) {
    // Rows of 89 inside rows of 108 (the view's last row ends at its span).
    ran += expect_shifted_forms_match({{15, 63, 4, 89}, {3, 1, 0, 2}, {27216, 432, 108, 1}, {}}, type, 0, 0);
    ran += expect_shifted_forms_match({{75, 29, 2, 7, 29}, {4, 0, 3, 1, 2}, {16000, 544, 272, 34, 1}, {}}, type, 0, 0);
    ran += expect_shifted_forms_match({{313, 42, 3}, {1, 2, 0}, {168, 4, 1}, {}}, type, 0, 0);
    ran += expect_shifted_forms_match({{50, 70}, {1, 0}, {}, {71, 1}}, type, 0, 0);
    ran += expect_shifted_forms_match({{9, 50, 70}, {0, 2, 1}, {50 * 73, 73, 1}, {3600, 51, 1}}, type,
                                      xpose::size_of(type), 0);
  }
  EXPECT_GT(ran, 20);
}

}  // namespace
