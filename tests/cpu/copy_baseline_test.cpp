// SPDX-License-Identifier: Apache-2.0
// The CPU copy baselines (kernel_transposes() == false, e.g. memcpy): they copy the packed input
// bytes, and refuse views they cannot copy as one block.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/transpose_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::DType;
using xpose::Matrix;
using xpose::Status;

class CopyBaselineCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(CopyBaselineCpu, CopiesPackedBytesAndNothingElse) {
  for (DType type : {DType::u8, DType::u16, DType::f32, DType::f64, DType::c128}) {
    for (const Matrix& matrix :
         std::vector<Matrix>{{1, 1}, {33, 65}, {1000, 1000}, {7, 13, 0, 0, 3}}) {
      SCOPED_TRACE(GetParam() + " on " + xpose_test::describe(matrix, type));
      xpose::Plan plan;
      ASSERT_EQ(xpose::Plan::create(plan, matrix, type, xpose::Device::cpu, {GetParam(), 0}),
                Status::ok)
          << xpose::last_error_message();
      EXPECT_EQ(plan.kernel_name(), GetParam());
      const auto problem = xpose_test::problem_for(matrix, type);
      const auto input = xpose_test::make_input(problem);
      auto output = xpose_test::make_output(problem);
      ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok);
      EXPECT_TRUE(xpose_test::copied_correctly(input, output, problem));
    }
  }
}

TEST_P(CopyBaselineCpu, PaddedViewIsUnsupported) {
  for (const Matrix& matrix : std::vector<Matrix>{
           {33, 65, 80, 0}, {33, 65, 0, 40}, {7, 13, 0, 0, 3, 100, 0}, {7, 13, 0, 0, 3, 0, 95}}) {
    SCOPED_TRACE(xpose_test::describe(matrix, DType::f32));
    xpose::Plan plan;
    EXPECT_EQ(xpose::Plan::create(plan, matrix, DType::f32, xpose::Device::cpu, {GetParam(), 0}),
              Status::unsupported);
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("kernel '" + GetParam() + "' cannot run"));
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("packed"));
    EXPECT_FALSE(plan.valid());
  }
}

INSTANTIATE_TEST_SUITE_P(TransposeCpu, CopyBaselineCpu,
                         ::testing::ValuesIn(xpose_test::copy_baselines(xpose::Device::cpu)),
                         [](const auto& info) { return info.param; });

}  // namespace
