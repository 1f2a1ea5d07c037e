// SPDX-License-Identifier: Apache-2.0
// Device::cuda where no GPU can run it (no device visible, or a build without CUDA): a clear
// error, never a crash, and nothing written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/transpose_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Status;

// The status a CUDA request gets here: no backend compiled, or compiled but no device.
Status expected_cuda_status() {
  return xpose::cuda_compiled() ? Status::device_error : Status::unsupported;
}

class CudaUnavailable : public ::testing::Test {
 protected:
  void SetUp() override {
    if (xpose::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is visible";
  }
};

TEST_F(CudaUnavailable, PlanCreateReturnsAnErrorWithAMessage) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create(plan, {64, 32}, DType::f32, Device::cuda), expected_cuda_status());
  EXPECT_THAT(xpose::last_error_message(),
              HasSubstr(xpose::cuda_compiled() ? "no CUDA device is visible" : "no CUDA backend"));
  EXPECT_FALSE(plan.valid());
}

TEST_F(CudaUnavailable, EveryCudaKernelNameReturnsTheSameError) {
  for (const std::string& name : xpose::kernel_names(Device::cuda)) {
    xpose::Plan plan;
    EXPECT_EQ(xpose::Plan::create(plan, {64, 32}, DType::f64, Device::cuda, {name, 0}),
              expected_cuda_status())
        << name;
    EXPECT_STRNE(xpose::last_error_message(), "");
  }
}

TEST_F(CudaUnavailable, TransposeReturnsAnErrorAndWritesNothing) {
  std::vector<float> input(64 * 32, 1.0f);
  xpose_test::GuardedBuffer output(input.size() * sizeof(float), 0, xpose_test::kPoison);
  EXPECT_EQ(xpose::transpose(input.data(), output.view(), {64, 32}, DType::f32, Device::cuda),
            expected_cuda_status());
  EXPECT_STRNE(xpose::last_error_message(), "");
  EXPECT_TRUE(xpose_test::untouched(output));
}

TEST(CudaBuild, KernelListMatchesTheBuild) {
  const auto names = xpose::kernel_names(Device::cuda);
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "auto");
  if (!xpose::cuda_compiled()) {
    EXPECT_EQ(names.size(), 1u) << "a build without CUDA has no CUDA kernels";
    EXPECT_EQ(xpose::cuda_device_count(), 0);
  }
}

}  // namespace
