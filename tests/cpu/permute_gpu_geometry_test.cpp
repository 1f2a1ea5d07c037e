// SPDX-License-Identifier: Apache-2.0
// The GPU permute kernels' launch geometry and data path, run on the CPU: the tiled kernel's
// phases (tables, vector and element loads, swizzled shared memory, register transposes, vector
// and element stores) are host-device functions, so every thread of every tile is emulated here
// and the result compared with the reference; likewise the gather and naive index functions.
// This is what CI can check without a GPU; tests/cuda runs the kernels themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "core/permute_layout.hpp"
#include "cuda/permute_params.hpp"
#include "cuda/permute_tile.hpp"

namespace {

using xpose::DType;
using xpose::Permutation;
using xpose::detail::PermuteLayout;
namespace cuda = xpose::cuda;

// Every thread of a 256-thread block, phase by phase, tile by tile.
template <int Size>
void emulate_tiled_of_size(const cuda::TiledParams& p, const uint8_t* in, uint8_t* out, bool in_vectors,
                           bool out_vectors) {
  alignas(16) static uint8_t tile[cuda::kTiledSharedBytes];
  static int64_t row_in[cuda::kMaxTileEdge], col_out[cuda::kMaxTileEdge];
  std::memset(tile, 0xCD, sizeof(tile));  // stale shared memory must never reach the output
  for (int64_t t = 0; t < p.tiles; ++t) {
    const cuda::TileOrigin origin = cuda::tile_origin(p, t);
    for (int thread = 0; thread < cuda::kTiledThreads; ++thread)
      cuda::TiledAgent<Size>{p, thread, cuda::kTiledThreads, tile, row_in, col_out}.fill_tables(origin);
    for (int thread = 0; thread < cuda::kTiledThreads; ++thread)
      cuda::TiledAgent<Size>{p, thread, cuda::kTiledThreads, tile, row_in, col_out}.load(origin, in, in_vectors);
    for (int thread = 0; thread < cuda::kTiledThreads; ++thread)
      cuda::TiledAgent<Size>{p, thread, cuda::kTiledThreads, tile, row_in, col_out}.store(origin, out, out_vectors);
  }
}

void emulate_tiled(const cuda::TiledParams& p, const uint8_t* in, uint8_t* out, bool in_vectors, bool out_vectors) {
  switch (p.elem_size) {
    case 1: return emulate_tiled_of_size<1>(p, in, out, in_vectors, out_vectors);
    case 2: return emulate_tiled_of_size<2>(p, in, out, in_vectors, out_vectors);
    case 4: return emulate_tiled_of_size<4>(p, in, out, in_vectors, out_vectors);
    case 8: return emulate_tiled_of_size<8>(p, in, out, in_vectors, out_vectors);
    default: return emulate_tiled_of_size<16>(p, in, out, in_vectors, out_vectors);
  }
}

void emulate_gather(const cuda::GatherParams& p, const uint8_t* in, uint8_t* out) {
  if (p.shifted) {  // each item: the bytes of its output vector that lie inside its run
    for (int64_t item = 0; item < p.items; ++item) {
      int64_t source = 0, target = 0;
      const int64_t first = cuda::gather_shifted_item(p, item, out, &source, &target);
      const int64_t begin = std::max<int64_t>(first, 0), end = std::min(first + 16, p.run_bytes);
      if (begin < end) std::memcpy(out + target + begin, in + source + begin, static_cast<std::size_t>(end - begin));
    }
    return;
  }
  for (int64_t item = 0; item < p.items; ++item) {
    int64_t source = 0, target = 0;
    if (!cuda::gather_offsets(p, item, &source, &target)) continue;
    std::memcpy(out + target * p.chunk_bytes, in + source * p.chunk_bytes, static_cast<std::size_t>(p.chunk_bytes));
  }
}

void emulate_naive(const cuda::NaiveParams& p, int elem_size, const uint8_t* in, uint8_t* out) {
  for (int64_t index = 0; index < p.elements; ++index) {
    int64_t source = 0, target = 0;
    cuda::naive_offsets(p, index, &source, &target);
    std::memcpy(out + target * elem_size, in + source * elem_size, static_cast<std::size_t>(elem_size));
  }
}

// Runs `emulate(in, out)` on an index-encoded input and a poisoned output and checks the whole
// output allocation against the reference.
template <typename Emulate>
void expect_emulation_matches(const std::string& what, const xpose::detail::PermuteProblem& problem,
                              const Emulate& emulate) {
  SCOPED_TRACE(what);
  const auto input = xpose_test::make_permute_input(problem);
  auto output = xpose_test::make_permute_output(problem);
  const auto expected = xpose_test::expected_permute(input, output, problem);
  emulate(input.view(), output.view());
  EXPECT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem));
}

// Every GPU kernel that can run `p`, emulated: tiled (on the widened layout where the GPU rule
// widens, with and without vectors), gather (wide and narrow chunks) and naive.
void expect_gpu_kernels_match(const Permutation& p, DType type) {
  const auto problem = xpose_test::permute_problem_for(p, type);
  const std::string name = xpose_test::describe(p, type);
  const PermuteLayout layout = xpose::detail::normalise(problem);
  PermuteLayout work = layout;
  xpose::detail::widen_elements(layout, &work);
  cuda::TiledParams tiled;
  if (cuda::make_tiled_params(work, &tiled, nullptr)) {
    for (int form = 0; form < 2; ++form) {
      const bool vectors = form == 0;
      expect_emulation_matches(name + ": tiled " + (vectors ? "vectors" : "elements") + " on " + work.describe(),
                               problem, [&](const uint8_t* in, uint8_t* out) {
                                 emulate_tiled(tiled, in, out, vectors && tiled.in_vectors, vectors && tiled.out_vectors);
                               });
    }
  }
  for (int chunk : {16, layout.elem_size}) {
    cuda::GatherParams gather;
    if (!cuda::make_gather_params(layout, chunk, &gather, nullptr)) break;
    expect_emulation_matches(name + ": gather, chunks of " + std::to_string(gather.chunk_bytes) + " bytes", problem,
                             [&](const uint8_t* in, uint8_t* out) { emulate_gather(gather, in, out); });
  }
  const cuda::NaiveParams naive = cuda::make_naive_params(layout);
  expect_emulation_matches(name + ": naive", problem, [&](const uint8_t* in, uint8_t* out) {
    emulate_naive(naive, layout.elem_size, in, out);
  });
}

PermuteLayout normalised(const Permutation& p, DType type) {
  return xpose::detail::normalise(xpose_test::permute_problem_for(p, type));
}

// Runs that stay innermost, of 256 bytes or more, whose length or strides allow only chunks of 4
// bytes or fewer: gather copies them as shifted 16-byte vectors (odd lengths, odd pitches, batched
// over one and two axes); wider chunks and shorter runs keep the chunked copy.
TEST(PermuteGpuGeometry, GatherShiftsLongOddRunsIntoVectors) {
  const std::vector<std::pair<Permutation, DType>> shifted{
      {{{29, 14, 301}, {1, 0, 2}, {}, {}}, DType::u8},
      {{{29, 14, 301}, {1, 0, 2}, {}, {}}, DType::f16},
      {{{5, 7, 1001}, {1, 0, 2}, {7 * 1003 + 5, 1003, 1}, {}}, DType::u8},
      {{{3, 4, 5, 263}, {2, 0, 1, 3}, {}, {}}, DType::u8},
      {{{9, 11, 256}, {1, 0, 2}, {11 * 257, 257, 1}, {}}, DType::u8},
      {{{6, 5, 129}, {1, 0, 2}, {}, {6 * 131 + 1, 131, 1}}, DType::f32},
  };
  for (const auto& [p, type] : shifted) {
    const PermuteLayout layout = normalised(p, type);
    cuda::GatherParams params;
    ASSERT_TRUE(cuda::make_gather_params(layout, 16, &params, nullptr));
    EXPECT_TRUE(params.shifted) << layout.describe();
    expect_gpu_kernels_match(p, type);
  }
  cuda::GatherParams params;
  ASSERT_TRUE(cuda::make_gather_params(normalised({{29, 14, 300}, {1, 0, 2}, {}, {}}, DType::f16), 16, &params, nullptr));
  EXPECT_FALSE(params.shifted);  // 600-byte runs: 8-byte chunks
  ASSERT_TRUE(cuda::make_gather_params(normalised({{29, 14, 255}, {1, 0, 2}, {}, {}}, DType::u8), 16, &params, nullptr));
  EXPECT_FALSE(params.shifted);  // under 256 bytes: tiles of runs
  ASSERT_TRUE(cuda::make_gather_params(normalised({{29, 14, 301}, {1, 0, 2}, {}, {}}, DType::u8), 1, &params, nullptr));
  EXPECT_FALSE(params.shifted);  // the narrow set for misaligned pointers is never shifted
}

TEST(PermuteGpuGeometry, EveryPermutationUpToRank4OnOddDims) {
  const std::vector<int64_t> odd_dims{5, 3, 7, 2};
  int index = 0;
  for (int rank = 1; rank <= 4; ++rank) {
    std::vector<int64_t> dims(odd_dims.begin(), odd_dims.begin() + rank);
    std::vector<int> perm(rank);
    for (int k = 0; k < rank; ++k) perm[k] = k;
    do {
      expect_gpu_kernels_match({dims, perm, {}, {}}, xpose_test::one_dtype_per_size()[index++ % 5]);
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

// Every walk of the tiled kernel (groups of 1 column tile up to all of them, and groups whose last
// one is narrower) visits every tile once: 6 column tiles by 12 row tiles in 3 batches.
TEST(PermuteGpuGeometry, TiledWalksInGroupsOfColumnTilesCoverEveryTile) {
  for (DType type : {DType::u8, DType::f32}) {
    const Permutation perm{{3, 300, 5, 700}, {0, 3, 2, 1}, {}, {}};
    const auto problem = xpose_test::permute_problem_for(perm, type);
    const PermuteLayout layout = xpose::detail::normalise(problem);
    cuda::TiledParams tiled;
    ASSERT_TRUE(cuda::make_tiled_params(layout, &tiled, nullptr));
    EXPECT_EQ(tiled.group_cols, std::min(tiled.col_tiles, cuda::kTiledGroupCols));
    ASSERT_GE(tiled.col_tiles, 3);
    ASSERT_GE(tiled.row_tiles, 3);
    for (int64_t group : {int64_t{1}, int64_t{2}, int64_t{4}, tiled.col_tiles - 1, tiled.col_tiles}) {
      cuda::set_tiled_walk(&tiled, group);
      expect_emulation_matches("tiled walk in groups of " + std::to_string(group) + " column tiles", problem,
                               [&](const uint8_t* in, uint8_t* out) {
                                 emulate_tiled(tiled, in, out, tiled.in_vectors, tiled.out_vectors);
                               });
    }
  }
}

TEST(PermuteGpuGeometry, WholeVectorTilesOfEveryElementSize) {
  // Inner dims that are multiples of every vector length, so the vector forms run on whole tiles,
  // and others that leave partial vectors and partial tiles.
  for (DType type : xpose_test::one_dtype_per_size()) {
    expect_gpu_kernels_match({{3, 64, 48}, {0, 2, 1}, {}, {}}, type);
    expect_gpu_kernels_match({{16, 3, 32}, {2, 1, 0}, {}, {}}, type);
    expect_gpu_kernels_match({{40, 3, 200}, {2, 1, 0}, {}, {}}, type);
    expect_gpu_kernels_match({{33, 5, 70}, {2, 1, 0}, {}, {}}, type);
    expect_gpu_kernels_match({{24, 2, 3, 24}, {3, 1, 2, 0}, {}, {}}, type);
  }
}

TEST(PermuteGpuGeometry, CompositeRowsAndColumnsAndLargeBatches) {
  // Small inner dims: the tile's rows and columns gather several axes each.
  expect_gpu_kernels_match({{6, 5, 4, 3, 8}, {4, 0, 3, 2, 1}, {}, {}}, DType::u8);
  expect_gpu_kernels_match({{7, 9, 5, 11, 3}, {1, 3, 0, 4, 2}, {}, {}}, DType::f16);
  expect_gpu_kernels_match({{15, 4, 8, 5, 8, 4}, {4, 1, 0, 3, 2, 5}, {}, {}}, DType::u8);  // widened runs
  expect_gpu_kernels_match({{3, 4, 8, 3, 3, 8}, {1, 4, 0, 5, 3, 2}, {}, {}}, DType::f32);
  expect_gpu_kernels_match({{2, 3, 2, 3, 2, 3, 2, 3}, {7, 5, 3, 1, 6, 4, 2, 0}, {}, {}}, DType::f64);
}

TEST(PermuteGpuGeometry, ShortRunsWalkedInTilesOfRuns) {
  // Runs of 12 to 160 bytes that stay innermost: tiles of runs with edges on both tile axes.
  expect_gpu_kernels_match({{7, 13, 11, 24}, {2, 1, 0, 3}, {}, {}}, DType::u8);
  expect_gpu_kernels_match({{5, 19, 9, 3, 48}, {1, 3, 2, 0, 4}, {}, {}}, DType::u8);
  expect_gpu_kernels_match({{6, 17, 5, 16}, {2, 0, 1, 3}, {}, {}}, DType::f16);
  expect_gpu_kernels_match({{3, 10, 33, 20}, {2, 1, 0, 3}, {}, {}}, DType::f64);
  expect_gpu_kernels_match({{3, 10, 33, 3}, {2, 1, 0, 3}, {}, {}}, DType::f32);
  cuda::GatherParams p;
  const auto layout = xpose::detail::normalise(xpose_test::permute_problem_for({{30, 40, 50, 32}, {2, 1, 0, 3}, {}, {}}, DType::u8));
  ASSERT_TRUE(cuda::make_gather_params(layout, 16, &p, nullptr));
  EXPECT_EQ(p.log2_tile_a, 3);  // 8 runs of 32 bytes along each side
  EXPECT_EQ(p.log2_tile_b, 3);
  // An axis of 10 runs takes tiles of 2 (8 would leave 6 of 16 items idle); 103 takes 8.
  const auto ttc = xpose::detail::normalise(
      xpose_test::permute_problem_for({{15, 15, 103, 15, 10, 16}, {4, 1, 0, 3, 2, 5}, {}, {}}, DType::f16));
  ASSERT_TRUE(cuda::make_gather_params(ttc, 16, &p, nullptr));
  EXPECT_EQ(p.log2_tile_a, 1);
  EXPECT_EQ(p.log2_tile_b, 3);
  expect_gpu_kernels_match({{3, 5, 13, 3, 10, 16}, {4, 1, 0, 3, 2, 5}, {}, {}}, DType::f16);
}

TEST(PermuteGpuGeometry, RandomPermutationsUpToRank8) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int rank = 2 + static_cast<int>(rng() % 7);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 1 + static_cast<int64_t>(rng() % (rank > 5 ? 4 : 9));
    expect_gpu_kernels_match({dims, xpose_test::random_perm(rank, rng), {}, {}},
                             xpose_test::one_dtype_per_size()[rng() % 5]);
  }
}

TEST(PermuteGpuGeometry, StridedViews) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 25; ++trial) {
    const int rank = 2 + static_cast<int>(rng() % 4);
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = 2 + static_cast<int64_t>(rng() % 6);
    const auto perm = xpose_test::random_perm(rank, rng);
    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) out_dims[i] = dims[perm[i]];
    // Padding of 0 to 16 elements per level: multiples of the vector length keep the vector forms.
    const int64_t in_pad = static_cast<int64_t>(rng() % 3) * 8, out_pad = static_cast<int64_t>(rng() % 3) * 5;
    expect_gpu_kernels_match({dims, perm, xpose_test::padded_strides(dims, in_pad),
                              xpose_test::padded_strides(out_dims, out_pad)},
                             xpose_test::one_dtype_per_size()[trial % 5]);
  }
  // No unit stride anywhere, and an inner axis that stays but is strided.
  expect_gpu_kernels_match({{3, 4, 5}, {2, 1, 0}, {40, 10, 2}, {30, 6, 2}}, DType::f32);
  expect_gpu_kernels_match({{3, 4, 5}, {1, 0, 2}, {40, 10, 2}, {}}, DType::u16);
}

TEST(PermuteGpuGeometry, TtcShapesGetVectorsOnBothSides) {
  // The packed TTC cases whose contiguous dim moves: the tile must use 16-byte vectors on both
  // sides for every element size (else the benchmark would read the element forms).
  const std::vector<Permutation> cases{{{75, 96, 75, 96}, {3, 0, 2, 1}, {}, {}},
                                       {{28, 48, 28, 4, 352}, {4, 0, 3, 2, 1}, {}, {}},
                                       {{15, 15, 32, 15, 15, 32}, {1, 4, 0, 5, 3, 2}, {}, {}},
                                       {{112, 15, 15, 15, 5, 32}, {5, 4, 3, 2, 1, 0}, {}, {}}};
  for (const Permutation& p : cases)
    for (DType type : xpose_test::one_dtype_per_size()) {
      SCOPED_TRACE(xpose_test::describe(p, type));
      const PermuteLayout layout = xpose::detail::normalise(xpose_test::permute_problem_for(p, type));
      cuda::TiledParams tiled;
      ASSERT_TRUE(cuda::make_tiled_params(layout, &tiled, nullptr));
      EXPECT_TRUE(tiled.in_vectors);
      EXPECT_TRUE(tiled.out_vectors);
      // The tile holds at least half of the tuned shape's elements.
      const auto tuning = cuda::tiled_tuning(layout.elem_size);
      EXPECT_GE(int64_t{2} << (tiled.log2_tile_rows + tiled.log2_tile_cols), int64_t{tuning.rows} * tuning.cols);
    }
}

// A first axis that would leave much of its last tile empty is joined with the next one: 96
// columns in tiles of 64 become 96 x 75 = 7200 (f32); 48 x 28 = 1344 is a whole number of tiles
// and stops there; 112 x 5 = 560 in tiles of 128 (u8) leaves exactly 1/8 empty and stops too.
TEST(PermuteGpuGeometry, CompositesGrowPastTheTileWhenItsLastTileIsMostlyEmpty) {
  struct Expect {
    Permutation p;
    DType type;
    int64_t rows, cols;
  };
  const std::vector<Expect> cases{
      {{{96, 75, 75, 96}, {3, 2, 1, 0}, {}, {}}, DType::f32, 96 * 75, 96 * 75},
      {{{75, 96, 75, 96}, {2, 0, 3, 1}, {}, {}}, DType::f32, 96, 96 * 75},
      {{{75, 75, 96, 96}, {1, 0, 3, 2}, {}, {}}, DType::f32, 96, 96},  // the next axes are the other side's
      {{{48, 28, 28, 28, 48}, {4, 3, 2, 1, 0}, {}, {}}, DType::f32, 48 * 28, 48 * 28},
      {{{15, 15, 15, 32, 5, 112}, {2, 0, 4, 1, 5, 3}, {}, {}}, DType::u8, 32, 112 * 5},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(xpose_test::describe(c.p, c.type));
    const PermuteLayout layout = xpose::detail::normalise(xpose_test::permute_problem_for(c.p, c.type));
    cuda::TiledParams tiled;
    ASSERT_TRUE(cuda::make_tiled_params(layout, &tiled, nullptr));
    EXPECT_EQ(tiled.rows, c.rows);
    EXPECT_EQ(tiled.cols, c.cols);
  }
}

// What Plan::describe() reports for the N-D kernels: the tile or box, the tiles and the access
// forms, from the same parameters the launch uses.
TEST(PermuteGpuGeometry, DescriptionsStateTheLaunch) {
  const auto layout_of = [](const Permutation& p, DType type) {
    return xpose::detail::normalise(xpose_test::permute_problem_for(p, type));
  };
  cuda::TiledParams tiled;
  ASSERT_TRUE(cuda::make_tiled_params(layout_of({{38, 75, 19, 14, 158}, {1, 0, 4, 2, 3}, {}, {}}, DType::f16),
                                      &tiled, nullptr));
  EXPECT_EQ(cuda::describe(tiled),
            "tile 64x128 (rows 266 over 1 axis, cols 158 over 1 axis), 28500 tiles, loads shifted, stores shifted");
  ASSERT_TRUE(cuda::make_tiled_params(layout_of({{30, 5, 941860}, {2, 1, 0}, {}, {}}, DType::f32), &tiled, nullptr));
  EXPECT_EQ(cuda::describe(tiled),
            "tile 64x64 (rows 150 over 2 axes, cols 941860 over 1 axis), 44151 tiles, loads vectors (shifted for "
            "pointers off 16 bytes), stores elements");

  cuda::PackedParams packed;
  ASSERT_TRUE(cuda::make_packed_params(layout_of({{30, 5, 941860}, {2, 1, 0}, {}, {}}, DType::f32), &packed, nullptr));
  EXPECT_EQ(cuda::describe(packed),
            "box 64x2x30 of axes 941860x5x30, 44151 tiles, 60 runs in of 64 elements, 64 runs out of 60 elements, "
            "output runs off 16 bytes, run tables");
  ASSERT_TRUE(cuda::make_packed_params(layout_of({{3, 2219, 9, 3, 13, 61}, {3, 1, 5, 0, 2, 4}, {}, {}}, DType::f16),
                                       &packed, nullptr));
  EXPECT_EQ(cuda::describe(packed),
            "box 61x13x9 of axes 61x13x9, 19971 tiles, 9 runs in of 793 elements over 2 axes, 61 runs out of 117 "
            "elements, input runs off 16 bytes, output runs off 16 bytes, run tables");

  cuda::GatherParams wide, narrow;
  const PermuteLayout stays = layout_of({{8, 9, 100, 33}, {1, 0, 2, 3}, {}, {}}, DType::f32);
  ASSERT_TRUE(cuda::make_gather_params(stays, 16, &wide, nullptr));
  ASSERT_TRUE(cuda::make_gather_params(stays, 4, &narrow, nullptr));
  EXPECT_EQ(cuda::describe(wide, narrow), "16-byte chunks (4-byte chunks for pointers off 16 bytes), 59400 items");
  EXPECT_EQ(cuda::describe(wide, wide), "16-byte chunks, 59400 items");
}

}  // namespace
