// SPDX-License-Identifier: Apache-2.0
// In a build without the CUDA backend, asking for Device::cuda fails with a message that says the
// library was built without it (not a guess at why, such as a missing nvcc). Skipped in builds
// that have the backend.
#include <gtest/gtest.h>

#include <string>

#include "xpose/xpose.hpp"

namespace {

void expect_built_without_message(const std::string& message) {
  EXPECT_NE(message.find("no CUDA backend"), std::string::npos) << message;
  EXPECT_NE(message.find("built without it"), std::string::npos) << message;
  EXPECT_EQ(message.find("nvcc"), std::string::npos) << message;
}

TEST(NoCudaBackend, PlanCreateSaysTheLibraryWasBuiltWithoutIt) {
  if (xpose::cuda_compiled()) GTEST_SKIP() << "this build has the CUDA backend";
  xpose::Plan plan;
  xpose::Matrix matrix;
  matrix.rows = 4;
  matrix.cols = 5;
  EXPECT_EQ(xpose::Plan::create(plan, matrix, xpose::DType::f32, xpose::Device::cuda), xpose::Status::unsupported);
  expect_built_without_message(xpose::last_error_message());
}

TEST(NoCudaBackend, PlanCreatePermuteSaysTheLibraryWasBuiltWithoutIt) {
  if (xpose::cuda_compiled()) GTEST_SKIP() << "this build has the CUDA backend";
  xpose::Plan plan;
  const xpose::Permutation permutation{{4, 5, 6}, {2, 0, 1}, {}, {}};
  EXPECT_EQ(xpose::Plan::create_permute(plan, permutation, xpose::DType::f64, xpose::Device::cuda),
            xpose::Status::unsupported);
  expect_built_without_message(xpose::last_error_message());
}

}  // namespace
