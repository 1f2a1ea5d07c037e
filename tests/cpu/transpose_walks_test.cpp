// SPDX-License-Identifier: Apache-2.0
// The transpose-step walks of the small_batch, interleave and deinterleave kernels (1- and 2-byte
// elements), checked on the CPU: for every chunk the model's walks visit each staged element once
// and send it to its transposed place, packed or at a line pitch; and the model picks rotations
// where plain walks would meet few banks. tests/cuda runs the kernels themselves.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda/transpose_walks.hpp"

namespace {

namespace cuda = xpose::cuda;

// Every walk of a block's transpose step, as the kernel's threads take them: the staged
// (input-order) element each step reads and the output-order element it writes.
void expect_walks_transpose(const cuda::WalkProblem& p) {
  const cuda::TransposeWalks w = cuda::choose_transpose_walks(p);
  const std::string shape = std::to_string(p.rows) + " x " + std::to_string(p.cols) + " size " +
                            std::to_string(p.elem_size) + " pitches " + std::to_string(p.from_pitch) + ", " +
                            std::to_string(p.to_pitch);
  ASSERT_GE(w.group, 1) << shape;
  const int matrix = p.rows * p.cols;
  const int from_count = (p.matrices - 1) * p.from_matrix + (p.rows - 1) * p.from_pitch + p.cols;
  std::vector<int> read(static_cast<size_t>(from_count), 0);
  const int items = p.matrices * w.groups.divisor() * w.segments.divisor();
  for (int item = 0; item < items; ++item) {
    const cuda::WalkStart start = cuda::walk_start(w, item);
    for (int line = 0; line < w.group; ++line)
      for (int k = 0; k < start.length; ++k) {
        const int from = start.from + line * w.from_start + k * w.from_step;
        const int to = start.to + line * w.to_start + k * w.to_step;
        ASSERT_TRUE(from >= 0 && from < from_count) << shape << ": walk " << item << " reads " << from;
        const int b = from / p.from_matrix;
        const int in_matrix = from - b * p.from_matrix;
        const int i = in_matrix / p.from_pitch, j = in_matrix % p.from_pitch;
        ASSERT_LT(i, p.rows) << shape << ": walk " << item << " reads the gap after a matrix";
        ASSERT_LT(j, p.cols) << shape << ": walk " << item << " reads the gap after a row";
        ASSERT_EQ(to, b * matrix + j * p.to_pitch + i) << shape << ": walk " << item << " step " << k;
        ++read[static_cast<size_t>(from)];
      }
  }
  for (int e = 0; e < from_count; ++e) {
    const int in_matrix = e % p.from_matrix;
    if (in_matrix / p.from_pitch >= p.rows || in_matrix % p.from_pitch >= p.cols) continue;  // a gap
    ASSERT_EQ(read[static_cast<size_t>(e)], 1) << shape << ": element " << e;
  }
}

// A small_batch chunk of rows x cols matrices, input rows ld_in apart and matrices stride_in
// apart (0: packed).
void expect_walks_transpose(int64_t rows, int64_t cols, int elem_size, int64_t ld_in = 0, int64_t stride_in = 0) {
  const int r = static_cast<int>(rows), c = static_cast<int>(cols);
  const int ld = ld_in == 0 ? c : static_cast<int>(ld_in);
  const int stride = stride_in == 0 ? r * ld : static_cast<int>(stride_in);
  expect_walks_transpose(
      {r, c, elem_size, cuda::small_batch_matrices_per_chunk(rows, cols, elem_size, stride), ld, r, stride});
}

TEST(TransposeWalks, EveryElementIsMovedOnceToItsTransposedPlace) {
  for (int size : {1, 2})
    for (int64_t rows = 1; rows <= 40; ++rows)
      for (int64_t cols = 1; cols <= 40; ++cols) expect_walks_transpose(rows, cols, size);
  // Larger sides up to the kernel's limit (2 matrices per 16 KiB chunk), powers of two among them.
  std::mt19937 rng(5);
  std::vector<std::pair<int64_t, int64_t>> shapes{{64, 64}, {128, 64}, {64, 128}, {128, 32}, {41, 182},
                                                  {2, 584}, {4, 368}, {1, 4096}, {4096, 1}, {90, 91}};
  for (int k = 0; k < 60; ++k) {
    const int64_t rows = 1 + rng() % 128, cols = 1 + rng() % (8192 / rows);
    shapes.push_back({rows, cols});
  }
  for (int size : {1, 2})
    for (auto [rows, cols] : shapes)
      if (rows * cols * size * 2 <= cuda::kSmallBatchStagingBytes) expect_walks_transpose(rows, cols, size);
}

// Chunks staged as they lie: input rows padded apart, or packed matrices padded apart.
TEST(TransposeWalks, PaddedRowsAndMatricesAreMovedOnceToTheirPlace) {
  std::mt19937 rng(7);
  for (int size : {1, 2})
    for (int k = 0; k < 120; ++k) {
      const int64_t rows = 1 + rng() % 64, cols = 1 + rng() % 64, pad = 1 + rng() % 9;
      if (k % 2 == 0)
        expect_walks_transpose(rows, cols, size, cols + pad, 0);
      else
        expect_walks_transpose(rows, cols, size, cols, rows * cols + pad);
    }
}

// One matrix whose strided side keeps its lines at a pitch: the interleave's rows (from_pitch) and
// the deinterleave's output rows (to_pitch), at every pitch line_pitch gives.
TEST(TransposeWalks, LinesAtAPitchAreMovedOnceToTheirPlace) {
  std::mt19937 rng(9);
  for (int size : {1, 2})
    for (int k = 0; k < 200; ++k) {
      const int rows = 1 + static_cast<int>(rng() % 128), cols = 1 + static_cast<int>(rng() % 300);
      const int64_t ld = (k % 2 == 0 ? cols : rows) + rng() % 40;
      const int from_pitch = cuda::line_pitch(cols, ld, size);
      if (k % 2 == 0)
        expect_walks_transpose({rows, cols, size, 1, from_pitch, rows, rows * from_pitch});
      else
        expect_walks_transpose({rows, cols, size, 1, cols, cuda::line_pitch(rows, ld, size), rows * cols});
    }
}

TEST(TransposeWalks, LinePitchIsTheLeastThatLinesUpTheVectors) {
  EXPECT_EQ(cuda::line_pitch(100, 100, 1), 100);
  EXPECT_EQ(cuda::line_pitch(100, 17407597, 1), 109);  // 17407597 = 100 + 9 mod 16
  EXPECT_EQ(cuda::line_pitch(96, 97, 2), 97);
  EXPECT_EQ(cuda::line_pitch(96, 95, 2), 103);          // 95 = 96 + 7 mod 8
  for (int64_t ld = 300; ld < 340; ++ld)
    for (int size : {1, 2}) {
      const int pitch = cuda::line_pitch(300, ld, size);
      EXPECT_GE(pitch, 300);
      EXPECT_LT(pitch, 300 + 16 / size);
      EXPECT_EQ((ld - pitch) % (16 / size), 0);
    }
}

TEST(SmallBatchWalks, ChunksAreWholeVectorsWhereTheyCanBe) {
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(32, 32, 1, 32 * 32), 16);  // 1 KiB matrices, 16 KiB
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(5, 3, 1, 15), 1088);        // 15 bytes: 16 at a time
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(41, 182, 1, 41 * 182), 2);  // no whole-vector group fits
  // Matrices padded apart: chunks of whole vectors on both sides (966 and 1092 bytes: 8 at a time).
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(138, 7, 1, 1092), 8);
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(5, 3, 1, 16), 1024);  // 16 x 15 bytes: every 16
}

TEST(TransposeWalks, PowerOfTwoSidesAreRotatedAndTinyMatricesWalkedWhole) {
  // Plain walks of a 64 x 64 u8 matrix put a warp's strided accesses 64 bytes apart: 2 banks.
  const cuda::TransposeWalks square = cuda::choose_transpose_walks({64, 64, 1, 4, 64, 64, 64 * 64});
  EXPECT_NE(square.rotation, 0);
  // Odd sides already spread over the banks: no rotation.
  const int odd_chunk = cuda::small_batch_matrices_per_chunk(70, 15, 1, 70 * 15);
  EXPECT_EQ(cuda::choose_transpose_walks({70, 15, 1, odd_chunk, 15, 70, 70 * 15}).rotation, 0);
  // 12 x 3: walks of 3 elements cost more per walk than per element; one walk per matrix.
  const cuda::TransposeWalks tiny = cuda::choose_transpose_walks({12, 3, 1, 452, 3, 12, 36});
  EXPECT_EQ(tiny.groups.divisor(), 1);
}

TEST(TransposeWalks, FewLongLinesAreInterleavedOverOneRoundOfABlock) {
  // An interleave chunk of 3 rows (NCHW -> NHWC, 3 channels): 85 interleaved segments per row give
  // 255 walks, one round of a block's 256 threads (128 left a second round half idle).
  const int pitch = cuda::line_pitch(5456, 50176, 1);
  const cuda::TransposeWalks w = cuda::choose_transpose_walks({3, 5456, 1, 1, pitch, 3, 3 * pitch});
  EXPECT_TRUE(w.interleaved);
  EXPECT_EQ(w.segments.divisor(), 85);
  EXPECT_EQ(w.from_step, 85);  // neighbouring lanes read neighbouring bytes of a row
}

}  // namespace
