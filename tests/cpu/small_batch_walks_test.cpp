// SPDX-License-Identifier: Apache-2.0
// The small_batch kernel's transpose-step walks (1- and 2-byte elements), checked on the CPU: for
// every chunk the model's walks visit each staged element once and send it to its transposed
// place; and the model picks rotations where plain walks would meet few banks. tests/cuda runs the
// kernel itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda/small_batch_walks.hpp"

namespace {

namespace cuda = xpose::cuda;

// Every walk of a chunk of `matrices` rows x cols matrices, as the kernel's threads take them: the
// staged (input-order) element each step reads and the output-order element it writes.
void expect_walks_transpose(int64_t rows, int64_t cols, int elem_size) {
  const int matrices = cuda::small_batch_matrices_per_chunk(rows, cols, elem_size);
  const cuda::SmallBatchWalks w = cuda::choose_small_batch_walks(rows, cols, elem_size, matrices);
  const std::string shape = std::to_string(rows) + " x " + std::to_string(cols) + " size " + std::to_string(elem_size);
  ASSERT_GE(w.group, 1) << shape;
  const int matrix = static_cast<int>(rows * cols), count = matrices * matrix;
  std::vector<int> read(static_cast<size_t>(count), 0);
  const int items = matrices * w.groups.divisor() * w.segments.divisor();
  for (int item = 0; item < items; ++item) {
    const cuda::WalkStart start = cuda::walk_start(w, item, matrix);
    for (int line = 0; line < w.group; ++line)
      for (int k = 0; k < start.length; ++k) {
        const int from = start.from + line * w.from_start + k * w.from_step;
        const int to = start.to + line * w.to_start + k * w.to_step;
        ASSERT_TRUE(from >= 0 && from < count) << shape << ": walk " << item << " reads " << from;
        const int b = from / matrix, i = from % matrix / static_cast<int>(cols), j = from % static_cast<int>(cols);
        ASSERT_EQ(to, b * matrix + j * static_cast<int>(rows) + i) << shape << ": walk " << item << " step " << k;
        ++read[static_cast<size_t>(from)];
      }
  }
  for (int e = 0; e < count; ++e) ASSERT_EQ(read[static_cast<size_t>(e)], 1) << shape << ": element " << e;
}

TEST(SmallBatchWalks, EveryElementIsMovedOnceToItsTransposedPlace) {
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

TEST(SmallBatchWalks, ChunksAreWholeVectorsWhereTheyCanBe) {
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(32, 32, 1), 16);  // 1 KiB matrices, 16 KiB
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(5, 3, 1), 1088);   // 15 bytes: 16 at a time
  EXPECT_EQ(cuda::small_batch_matrices_per_chunk(41, 182, 1), 2);   // no whole-vector group fits
}

TEST(SmallBatchWalks, PowerOfTwoSidesAreRotatedAndTinyMatricesWalkedWhole) {
  // Plain walks of a 64 x 64 u8 matrix put a warp's strided accesses 64 bytes apart: 2 banks.
  const cuda::SmallBatchWalks square = cuda::choose_small_batch_walks(64, 64, 1, 4);
  EXPECT_NE(square.rotation, 0);
  // Odd sides already spread over the banks: no rotation.
  EXPECT_EQ(cuda::choose_small_batch_walks(70, 15, 1, cuda::small_batch_matrices_per_chunk(70, 15, 1)).rotation, 0);
  // 5 x 3: walks of 3 elements cost more per walk than per element; one walk per matrix.
  const cuda::SmallBatchWalks tiny = cuda::choose_small_batch_walks(5, 3, 1, 1088);
  EXPECT_EQ(tiny.groups.divisor(), 1);
}

}  // namespace
