// SPDX-License-Identifier: Apache-2.0
// Every transposing CPU kernel ("auto" included) on every DType, over square, odd, skinny, empty,
// padded, batched and unaligned shapes, against the reference with padding and guards checked.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "common/transpose_check.hpp"

namespace {

using xpose::DType;
using xpose::Matrix;
using xpose::Status;
using xpose_test::Transpose2D;

struct KernelAndType {
  std::string kernel;
  DType type;
};

// How gtest prints the parameter in its output ("threaded f32").
void PrintTo(const KernelAndType& c, std::ostream* out) {
  *out << c.kernel << " " << xpose::to_string(c.type);
}

std::vector<KernelAndType> every_kernel_and_type() {
  std::vector<KernelAndType> cases;
  for (const std::string& kernel : xpose_test::transposing_kernels(xpose::Device::cpu))
    for (DType type : xpose::all_dtypes()) cases.push_back({kernel, type});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<KernelAndType>& info) {
  return info.param.kernel + "_" + xpose::to_string(info.param.type);
}

class TransposeCpuKernel : public ::testing::TestWithParam<KernelAndType> {
 protected:
  // Runs the parameter's kernel on `matrix` and checks the whole output allocation.
  void expect_transposes(const Matrix& matrix, std::size_t misalign_in = 0,
                         std::size_t misalign_out = 0) {
    const auto& [kernel, type] = GetParam();
    SCOPED_TRACE(kernel + " on " + xpose_test::describe(matrix, type) + " (misalign in " +
                 std::to_string(misalign_in) + ", out " + std::to_string(misalign_out) + ")");
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, matrix, type, xpose::Device::cpu, {kernel, 0}), Status::ok)
        << xpose::last_error_message();
    const Transpose2D problem = xpose_test::problem_for(matrix, type);
    const auto input = xpose_test::make_input(problem, misalign_in);
    auto output = xpose_test::make_output(problem, misalign_out);
    ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
    EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));
  }
};

// One test per (kernel, DType) for square, odd and skinny shapes together: each CTest test is a
// process, and a process that links xpose pays about 0.1 s to start (it loads cuBLAS).
TEST_P(TransposeCpuKernel, SquareOddAndSkinnyShapesMatchReference) {
  for (int64_t n : {1, 64, 256, 1000}) expect_transposes({n, n});
  for (auto [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{
           {7, 13}, {13, 7}, {33, 65}, {65, 33}, {31, 33}, {1023, 1025}, {1025, 1023}})
    expect_transposes({rows, cols});
  for (int64_t n : {1, 5, 1000, 4097})
    for (Matrix matrix : std::vector<Matrix>{{1, n}, {n, 1}, {2, n}, {n, 2}, {3, n}, {n, 3}})
      expect_transposes(matrix);
}

TEST_P(TransposeCpuKernel, EmptyShapesAreNoOpsEvenWithNullPointers) {
  const auto& [kernel, type] = GetParam();
  const std::vector<Matrix> empties{{0, 5},          {5, 0},       {0, 0},
                                    {7, 9, 0, 0, 0}, {0, 5, 8, 3}, {4, 4, 0, 0, 0, 100, 100}};
  for (const Matrix& matrix : empties) {
    SCOPED_TRACE(kernel + " on " + xpose_test::describe(matrix, type));
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, matrix, type, xpose::Device::cpu, {kernel, 0}), Status::ok)
        << xpose::last_error_message();
    EXPECT_EQ(plan.execute(nullptr, nullptr), Status::ok) << xpose::last_error_message();
    const std::vector<unsigned char> input(64, 0x11);
    xpose_test::GuardedBuffer output(64, 0, xpose_test::kPoison);
    EXPECT_EQ(plan.execute(input.data(), output.view()), Status::ok) << xpose::last_error_message();
    EXPECT_TRUE(xpose_test::untouched(output));
    EXPECT_EQ(xpose::transpose(nullptr, nullptr, matrix, type), Status::ok);
  }
}

TEST_P(TransposeCpuKernel, PaddedRowsAndBatchGapsStayUntouched) {
  // {rows, cols, ld_in, ld_out}: padding on the input only, the output only, and both.
  for (const Matrix& matrix : std::vector<Matrix>{{33, 65, 80, 0},
                                                  {33, 65, 0, 40},
                                                  {33, 65, 67, 37},
                                                  {100, 7, 8, 101},
                                                  {1, 9, 16, 3},
                                                  {9, 1, 5, 16},
                                                  {257, 129, 300, 260}})
    expect_transposes(matrix);
  // Packed batches, batches with gaps between matrices, and gaps plus row padding.
  for (const Matrix& matrix : std::vector<Matrix>{{17, 29, 0, 0, 3},
                                                  {17, 29, 0, 0, 3, 17 * 29 + 5, 29 * 17 + 11},
                                                  {17, 29, 31, 19, 4, 17 * 31 + 2, 29 * 19 + 7},
                                                  {1, 1, 0, 0, 9},
                                                  {64, 64, 0, 0, 2},
                                                  {3, 2, 0, 0, 1000}})
    expect_transposes(matrix);
}

TEST_P(TransposeCpuKernel, UnalignedPointersMatchReference) {
  // Odd offsets matter for 1-byte elements too: vectorised paths must not assume alignment.
  const std::size_t size = xpose::size_of(GetParam().type);
  expect_transposes({33, 65}, 1, 0);
  expect_transposes({33, 65}, 0, 1);
  expect_transposes({65, 33, 40, 70}, 3, size / 2 + 1);
  expect_transposes({300, 200}, 1, 3);
}

INSTANTIATE_TEST_SUITE_P(TransposeCpu, TransposeCpuKernel,
                         ::testing::ValuesIn(every_kernel_and_type()), case_name);

// The threaded kernel splits rows between threads; thread counts that do not divide the rows
// must still cover every row exactly once.
TEST(TransposeCpu, ThreadedKernelWithAnyThreadCountMatchesReference) {
  for (int threads : {1, 2, 3, 4, 7, 16}) {
    for (const Matrix& matrix :
         std::vector<Matrix>{{100, 37}, {1000, 3}, {3, 1000}, {129, 65, 70, 140, 2}}) {
      SCOPED_TRACE(xpose_test::describe(matrix, DType::f32) + ", threads " +
                   std::to_string(threads));
      xpose::Plan plan;
      ASSERT_EQ(
          xpose::Plan::create(plan, matrix, DType::f32, xpose::Device::cpu, {"threaded", threads}),
          Status::ok)
          << xpose::last_error_message();
      const Transpose2D problem = xpose_test::problem_for(matrix, DType::f32);
      const auto input = xpose_test::make_input(problem);
      auto output = xpose_test::make_output(problem);
      ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok);
      EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));
    }
  }
}

}  // namespace
