// SPDX-License-Identifier: Apache-2.0
// Transposes of more than 2^31 elements on the GPU (issue 6): 64-bit indexing in every production
// path (skinny, aligned tile, unaligned tile). Elements encode their coordinates, so the check
// walks the output once without a reference copy. Skipped when the GPU lacks the memory, and
// under XPOSE_TEST_SMALL (sanitizer runs).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::DType;
using xpose::Device;
using xpose::Matrix;
using xpose::Status;

// Value of input element (i, j): distinct for all elements that fit the type (u32 up to 2^32).
template <typename T>
T encode(int64_t i, int64_t j, int64_t cols) {
  return static_cast<T>(static_cast<uint64_t>(i * cols + j) * 2654435761u >> (sizeof(T) == 1 ? 13 : 0));
}

template <typename T>
void transpose_huge(int64_t rows, int64_t cols, DType type, const char* expected_kernel) {
  XPOSE_SKIP_WITHOUT_CUDA_DEVICE();
  const Matrix m{rows, cols};
  if (xpose_test::env_or("XPOSE_TEST_SMALL", 0) != 0) GTEST_SKIP() << "XPOSE_TEST_SMALL: huge shapes skipped";
  const std::size_t bytes = static_cast<std::size_t>(rows) * cols * sizeof(T);
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_TRUE(xpose_test::cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  if (free_bytes < 2 * bytes + (std::size_t{1} << 30))
    GTEST_SKIP() << "needs " << 2 * bytes / 1e9 << " GB of GPU memory, " << free_bytes / 1e9 << " GB free";

  std::vector<T> host(static_cast<std::size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) host[i * cols + j] = encode<T>(i, j, cols);

  void *d_in = nullptr, *d_out = nullptr;
  ASSERT_TRUE(xpose_test::cuda_ok(cudaMalloc(&d_in, bytes), "cudaMalloc in"));
  ASSERT_TRUE(xpose_test::cuda_ok(cudaMalloc(&d_out, bytes), "cudaMalloc out"));
  ASSERT_TRUE(xpose_test::cuda_ok(cudaMemcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice), "copy in"));
  ASSERT_TRUE(xpose_test::cuda_ok(cudaMemset(d_out, 0xFF, bytes), "poison out"));

  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, m, type, Device::cuda), Status::ok) << xpose::last_error_message();
  EXPECT_STREQ(plan.kernel_name(), expected_kernel);
  ASSERT_EQ(plan.execute(d_in, d_out), Status::ok) << xpose::last_error_message();
  ASSERT_TRUE(xpose_test::cuda_ok(cudaDeviceSynchronize(), "synchronize"));
  ASSERT_TRUE(xpose_test::cuda_ok(cudaMemcpy(host.data(), d_out, bytes, cudaMemcpyDeviceToHost), "copy out"));
  cudaFree(d_in);
  cudaFree(d_out);

  int64_t wrong = 0, first_i = -1, first_j = -1;
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      if (host[j * rows + i] != encode<T>(i, j, cols) && wrong++ == 0) first_i = i, first_j = j;
  EXPECT_EQ(wrong, 0) << wrong << " wrong elements; first: output row " << first_j << ", column " << first_i;
}

// 3 x 2^30 u8 (3.2e9 elements): the skinny interleave path.
TEST(TransposeCudaHuge, ThreeByTwoToThe30BytesInterleave) {
  transpose_huge<uint8_t>(3, int64_t{1} << 30, DType::u8, "interleave");
}

// 49152 x 65536 u8 (3.2e9 elements): the aligned tile path.
TEST(TransposeCudaHuge, SquareishBytesPastTwoToThe31) {
  transpose_huge<uint8_t>(49152, 65536, DType::u8, "tile");
}

// 46341 x 46341 f32 (2^31 + 4633 elements, 8.6 GB): the unaligned tile path (odd leading dimension).
TEST(TransposeCudaHuge, OddSquareFloatsPastTwoToThe31) {
  transpose_huge<uint32_t>(46341, 46341, DType::f32, "tile");
}

}  // namespace
