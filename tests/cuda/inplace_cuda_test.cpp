// SPDX-License-Identifier: Apache-2.0
// In-place transposes on the GPU, against the out-of-place definition with guard bytes: every
// element size on square, rectangular, prime, skinny and batched shapes; rows too long for shared
// memory (the global-scratch row step); several column strips; a user stream; bad pointers
// refused with the data untouched.
#include <cuda_runtime.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "common/inplace_check.hpp"
#include "core/inplace.hpp"
#include "cuda_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Matrix;
using xpose::Plan;
using xpose::Status;
using xpose_test::cuda_ok;
using xpose_test::first_difference;
using xpose_test::inplace_expected;
using xpose_test::inplace_input;
using xpose_test::kInplaceGuard;

const DType kTypeOfSize[] = {DType::u8, DType::f16, DType::f32, DType::f64, DType::c128};

struct Shape {
  int64_t rows, cols, batch;
};

// The host buffer (guards included) copied to the GPU, transposed there in place on `stream`,
// and copied back.
::testing::AssertionResult transpose_on_gpu(std::vector<unsigned char>& buffer, const Shape& shape, DType type,
                                            cudaStream_t stream, std::string* kernel) {
  void* device = nullptr;
  if (!cuda_ok(cudaMalloc(&device, buffer.size()), "cudaMalloc")) return ::testing::AssertionFailure() << "cudaMalloc";
  auto* bytes = static_cast<unsigned char*>(device);
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  if (!cuda_ok(cudaMemcpy(device, buffer.data(), buffer.size(), cudaMemcpyHostToDevice), "to device")) {
    result = ::testing::AssertionFailure() << "copy to device";
  } else {
    Matrix matrix{shape.rows, shape.cols};
    matrix.batch = shape.batch;
    Plan plan;
    Status s = Plan::create_inplace(plan, matrix, type, Device::cuda);
    if (s == Status::ok) s = plan.execute_inplace(bytes + kInplaceGuard, stream);
    *kernel = plan.kernel_name();
    if (s != Status::ok) result = ::testing::AssertionFailure() << xpose::last_error_message();
    if (!cuda_ok(cudaStreamSynchronize(stream), "synchronize") ||
        !cuda_ok(cudaMemcpy(buffer.data(), device, buffer.size(), cudaMemcpyDeviceToHost), "to host"))
      result = ::testing::AssertionFailure() << "synchronize or copy back";
  }
  cudaFree(device);
  return result;
}

void expect_transposed(const Shape& shape, DType type, cudaStream_t stream = nullptr) {
  const int size = static_cast<int>(xpose::size_of(type));
  std::vector<unsigned char> data = inplace_input(shape.rows, shape.cols, shape.batch, size, 11);
  const std::vector<unsigned char> expected = inplace_expected(data, shape.rows, shape.cols, shape.batch, size);
  std::string kernel;
  ASSERT_TRUE(transpose_on_gpu(data, shape, type, stream, &kernel));
  EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
      << shape.rows << " x " << shape.cols << " batch " << shape.batch << " " << xpose::to_string(type) << " ("
      << kernel << ")";
}

const Shape kShapes[] = {
    {1, 1, 1},    {2, 2, 1},    {31, 31, 1},  {33, 33, 1},  {64, 64, 1},   {100, 100, 1}, {2, 3, 1},
    {3, 2, 1},    {4, 6, 1},    {6, 4, 1},    {12, 18, 1},  {18, 12, 1},   {37, 101, 1},  {101, 37, 1},
    {64, 96, 1},  {96, 64, 1},  {2, 1000, 1}, {1000, 2, 1}, {1, 17, 1},    {17, 1, 1},    {0, 5, 1},
    {5, 7, 3},    {40, 40, 5},  {6, 10, 5},   {30, 2, 7},   {211, 307, 2}, {307, 211, 2},
};

class InplaceCuda : public ::testing::TestWithParam<std::tuple<Shape, int>> {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_P(InplaceCuda, MatchesTheOutOfPlaceTranspose) {
  const auto [shape, size_index] = GetParam();
  expect_transposed(shape, kTypeOfSize[size_index]);
}

INSTANTIATE_TEST_SUITE_P(Shapes, InplaceCuda, ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Range(0, 5)));

class InplaceCudaLarge : public ::testing::Test {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }
};

TEST_F(InplaceCudaLarge, LongRowsStripsAndPrimes) {
  // 3 x 70001 and 70001 x 3: rows of 2^16 elements and more take the global-scratch row step;
  // 2 x 100003: rows beyond shared memory; 5 x 40009: f32 rows that fit shared memory once but not
  // twice (the forward step scatters to global memory); 3001 x 4999: several column strips.
  const Shape shapes[] = {{3, 70001, 1}, {70001, 3, 1}, {2, 100003, 1}, {100003, 2, 1}, {5, 40009, 1},
                          {40009, 5, 1}, {3001, 4999, 1}, {4999, 3001, 1}, {1000, 1000, 3}};
  for (const Shape& shape : shapes) {
    if (std::getenv("XPOSE_TEST_SMALL") && shape.rows * shape.cols > 2'000'000) continue;
    for (DType type : kTypeOfSize) expect_transposed(shape, type);
  }
}

// square_part forced on every rectangular shape of the table (the plans choose it from 16 MiB per
// matrix), every element size, staging of all rows at once and of 3 rows at a time.
TEST_F(InplaceCudaLarge, SquarePartOnEveryRectangularShape) {
  for (const Shape& shape : kShapes) {
    if (shape.rows == shape.cols || shape.rows < 2 || shape.cols < 2) continue;
    for (DType type : kTypeOfSize) {
      for (bool small_staging : {false, true}) {
        const int size = static_cast<int>(xpose::size_of(type));
        std::vector<unsigned char> data = inplace_input(shape.rows, shape.cols, shape.batch, size, 13);
        const std::vector<unsigned char> expected = inplace_expected(data, shape.rows, shape.cols, shape.batch, size);
        xpose::detail::InplaceProblem p;
        ASSERT_TRUE(xpose_test::forced_inplace_problem(shape.rows, shape.cols, shape.batch, type,
                                                      xpose::detail::InplaceMethod::square_part, small_staging ? 3 : 0, &p));
        void* device = nullptr;
        ASSERT_TRUE(cuda_ok(cudaMalloc(&device, data.size()), "cudaMalloc"));
        ASSERT_TRUE(cuda_ok(cudaMemcpy(device, data.data(), data.size(), cudaMemcpyHostToDevice), "to device"));
        const Status s = xpose::detail::cuda_transpose_inplace(static_cast<unsigned char*>(device) + kInplaceGuard, p, nullptr);
        EXPECT_EQ(s, Status::ok) << xpose::last_error_message();
        EXPECT_TRUE(cuda_ok(cudaMemcpy(data.data(), device, data.size(), cudaMemcpyDeviceToHost), "to host"));
        cudaFree(device);
        EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
            << shape.rows << " x " << shape.cols << " batch " << shape.batch << " " << xpose::to_string(type)
            << (small_staging ? ", 3 staging rows" : "");
      }
    }
  }
}

TEST_F(InplaceCudaLarge, SquarePartChosenForLargeNearSquareMatrices) {
  const struct {
    Shape shape;
    DType type;
  } cases[] = {{{2100, 2203, 1}, DType::f32}, {{2203, 2100, 1}, DType::f32}, {{1500, 1601, 2}, DType::f64},
               {{2900, 3001, 1}, DType::f16}, {{4100, 4099, 1}, DType::u8}};
  for (const auto& c : cases) {
    Plan plan;
    Matrix matrix{c.shape.rows, c.shape.cols};
    matrix.batch = c.shape.batch;
    ASSERT_EQ(Plan::create_inplace(plan, matrix, c.type, Device::cuda), Status::ok) << xpose::last_error_message();
    EXPECT_STREQ(plan.kernel_name(), "inplace_square_part");
    expect_transposed(c.shape, c.type);
  }
}

// Squares of several tiles a side (tiles of 32-128 elements by element size), rows on 16 bytes
// and off them, batches; and the data pointer off 16 bytes (one element past the guard).
TEST_F(InplaceCudaLarge, SquaresOfSeveralTilesEveryElementSize) {
  const Shape shapes[] = {{129, 129, 1}, {257, 257, 2}, {300, 300, 1}, {515, 515, 1}, {1024, 1024, 1}};
  for (const Shape& shape : shapes)
    for (DType type : kTypeOfSize) expect_transposed(shape, type);
  for (DType type : kTypeOfSize) {
    const int size = static_cast<int>(xpose::size_of(type));
    if (size == 16) continue;  // 16-byte elements keep 16-byte alignment
    for (int64_t n : {int64_t{96}, int64_t{301}}) {
      std::vector<unsigned char> data = inplace_input(n, n, 1, size, 17);
      data.insert(data.begin(), static_cast<std::size_t>(size), xpose_test::kInplaceGuardByte);
      std::vector<unsigned char> expected = inplace_expected(inplace_input(n, n, 1, size, 17), n, n, 1, size);
      expected.insert(expected.begin(), static_cast<std::size_t>(size), xpose_test::kInplaceGuardByte);
      xpose::detail::InplaceProblem p;
      ASSERT_EQ(xpose::detail::make_inplace_problem(Matrix{n, n}, type, Device::cuda, &p), Status::ok);
      void* device = nullptr;
      ASSERT_TRUE(cuda_ok(cudaMalloc(&device, data.size()), "cudaMalloc"));
      ASSERT_TRUE(cuda_ok(cudaMemcpy(device, data.data(), data.size(), cudaMemcpyHostToDevice), "to device"));
      const Status s = xpose::detail::cuda_transpose_inplace(static_cast<unsigned char*>(device) + kInplaceGuard + size, p, nullptr);
      EXPECT_EQ(s, Status::ok) << xpose::last_error_message();
      EXPECT_TRUE(cuda_ok(cudaMemcpy(data.data(), device, data.size(), cudaMemcpyDeviceToHost), "to host"));
      cudaFree(device);
      EXPECT_EQ(data, expected) << n << " x " << n << " " << xpose::to_string(type) << " one element off 16 bytes";
    }
  }
}

TEST_F(InplaceCudaLarge, RunsOnTheCallersStream) {
  cudaStream_t stream = nullptr;
  ASSERT_TRUE(cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"));
  expect_transposed({257, 1031, 2}, DType::f32, stream);
  expect_transposed({513, 513, 2}, DType::f16, stream);
  expect_transposed({2100, 2203, 1}, DType::f32, stream);  // square_part: copies and kernels on the stream
  cudaStreamDestroy(stream);
}

TEST_F(InplaceCudaLarge, RefusesBadPointersAndWritesNothing) {
  const Shape shape{6, 10, 1};
  std::vector<unsigned char> host = inplace_input(shape.rows, shape.cols, 1, 4, 5);
  void* device = nullptr;
  ASSERT_TRUE(cuda_ok(cudaMalloc(&device, host.size()), "cudaMalloc"));
  ASSERT_TRUE(cuda_ok(cudaMemcpy(device, host.data(), host.size(), cudaMemcpyHostToDevice), "to device"));
  auto* bytes = static_cast<unsigned char*>(device);
  Plan plan;
  ASSERT_EQ(Plan::create_inplace(plan, Matrix{6, 10}, DType::f32, Device::cuda), Status::ok);
  EXPECT_EQ(plan.execute_inplace(bytes + kInplaceGuard + 2), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("not aligned to the element size"));
  EXPECT_EQ(plan.execute_inplace(host.data() + kInplaceGuard), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("data ("));
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("host memory"));
  std::vector<unsigned char> after(host.size());
  ASSERT_TRUE(cuda_ok(cudaMemcpy(after.data(), device, host.size(), cudaMemcpyDeviceToHost), "to host"));
  EXPECT_EQ(after, host);
  cudaFree(device);
}

}  // namespace
