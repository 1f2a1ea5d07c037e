// SPDX-License-Identifier: Apache-2.0
// Argument checks of Plan::create_permute and permute(): each error names the argument and its
// value, and a failed call leaves the plan and the output untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/permute_check.hpp"

namespace {

using xpose::Device;
using xpose::DType;
using xpose::Permutation;
using xpose::Status;

// Plan creation fails with `status` and a message containing `text`.
void expect_rejected(const Permutation& p, DType type, Status status, const std::string& text) {
  SCOPED_TRACE(xpose_test::describe(p, type));
  xpose::Plan plan;
  const Status created = xpose::Plan::create_permute(plan, p, type);
  EXPECT_EQ(created, status);
  EXPECT_NE(std::string(xpose::last_error_message()).find(text), std::string::npos)
      << "message: " << xpose::last_error_message();
  EXPECT_FALSE(plan.valid());
}

TEST(PermuteValidation, RejectsBadPermutations) {
  expect_rejected({{2, 3, 4}, {0, 1, 5}, {}, {}}, DType::f32, Status::invalid_argument,
                  "perm[2] (5) is out of range for rank 3");
  expect_rejected({{2, 3, 4}, {0, -1, 2}, {}, {}}, DType::f32, Status::invalid_argument,
                  "perm[1] (-1) is out of range for rank 3");
  expect_rejected({{2, 3, 4}, {1, 0, 1}, {}, {}}, DType::f32, Status::invalid_argument, "perm repeats 1");
  expect_rejected({{2, 3, 4}, {1, 0}, {}, {}}, DType::f32, Status::invalid_argument,
                  "perm has 2 entries for rank 3");
}

TEST(PermuteValidation, RejectsRankAboveSixteen) {
  std::vector<int64_t> dims(17, 1);
  std::vector<int> perm(17);
  for (int k = 0; k < 17; ++k) perm[k] = k;
  expect_rejected({dims, perm, {}, {}}, DType::u8, Status::invalid_argument, "rank 17 exceeds the limit of 16");
  dims.pop_back();
  perm.pop_back();
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create_permute(plan, {dims, perm, {}, {}}, DType::u8), Status::ok);
}

TEST(PermuteValidation, RejectsNegativeDimsAndStrides) {
  expect_rejected({{2, -3, 4}, {2, 1, 0}, {}, {}}, DType::f32, Status::invalid_argument, "dims[1] (-3) is negative");
  expect_rejected({{2, 3, 4}, {2, 1, 0}, {12, -4, 1}, {}}, DType::f32, Status::invalid_argument,
                  "in_strides[1] (-4) is negative");
  expect_rejected({{2, 3, 4}, {2, 1, 0}, {}, {-1, 2, 1}}, DType::f32, Status::invalid_argument,
                  "out_strides[0] (-1) is negative");
}

TEST(PermuteValidation, RejectsStrideCountsThatDoNotMatchTheRank) {
  expect_rejected({{2, 3, 4}, {2, 1, 0}, {12, 4}, {}}, DType::f32, Status::invalid_argument,
                  "in_strides has 2 entries for rank 3");
  expect_rejected({{2, 3}, {1, 0}, {}, {3, 1, 1}}, DType::f32, Status::invalid_argument,
                  "out_strides has 3 entries for rank 2");
}

TEST(PermuteValidation, RejectsStridesThatOverlapElements) {
  // Input row stride 3 for rows of 4: rows would overlap.
  expect_rejected({{2, 4}, {1, 0}, {3, 1}, {}}, DType::f32, Status::invalid_argument,
                  "in_strides[0] (3) is too small");
  // Output dims (4, 2): output dim 0 steps 1 element over dim 1 of stride 1 and size 2.
  expect_rejected({{2, 4}, {1, 0}, {}, {1, 1}}, DType::f32, Status::invalid_argument,
                  "out_strides[1] (1) is too small");
  // Zero stride on a dim of size > 1 (a broadcast): also overlapping.
  expect_rejected({{2, 4}, {1, 0}, {0, 1}, {}}, DType::f32, Status::invalid_argument,
                  "in_strides[0] (0) is too small");
  // Size-1 dims may have any stride.
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{1, 4}, {1, 0}, {0, 1}, {1, 0}}, DType::f32), Status::ok)
      << xpose::last_error_message();
}

TEST(PermuteValidation, RejectsSizesThatOverflow64Bits) {
  const int64_t big = int64_t{1} << 32;
  expect_rejected({{big, big}, {1, 0}, {}, {}}, DType::f32, Status::invalid_argument, "overflow 64-bit byte counts");
  expect_rejected({{big / 4, big / 8}, {1, 0}, {}, {}}, DType::c128, Status::invalid_argument,
                  "overflow 64-bit byte counts");
  expect_rejected({{2, 2}, {1, 0}, {int64_t{1} << 62, 1}, {}}, DType::f64, Status::invalid_argument,
                  "overflows 64-bit byte counts");
  expect_rejected({{3, 2}, {1, 0}, {int64_t{1} << 62, 1}, {}}, DType::u8, Status::invalid_argument,
                  "overflows 64-bit element offsets");
}

TEST(PermuteValidation, RejectsUnknownKernelsAndDevices) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{2, 3}, {1, 0}, {}, {}}, DType::f32, Device::cpu, {"tile", 0}),
            Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("unknown permute kernel 'tile'"), std::string::npos);
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{2, 3}, {1, 0}, {}, {}}, DType::f32, static_cast<Device>(7)),
            Status::invalid_argument);
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{2, 3}, {1, 0}, {}, {}}, DType::f32, Device::cpu, {"auto", -2}),
            Status::invalid_argument);
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{2, 3}, {1, 0}, {}, {}}, static_cast<DType>(99)),
            Status::invalid_argument);
  EXPECT_FALSE(plan.valid());
}

TEST(PermuteValidation, NamedKernelThatCannotRunTheShapeSaysWhy) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{2, 3, 4}, {2, 0, 1}, {}, {}}, DType::f32, Device::cpu,
                                        {"copy", 0}),
            Status::unsupported);
  EXPECT_NE(std::string(xpose::last_error_message()).find("permute kernel 'copy' cannot run"), std::string::npos)
      << xpose::last_error_message();
}

TEST(PermuteValidation, FailedCreateLeavesThePlanUnchanged) {
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create_permute(plan, {{4, 5}, {1, 0}, {}, {}}, DType::f32), Status::ok);
  EXPECT_NE(xpose::Plan::create_permute(plan, {{4, 5}, {1, 1}, {}, {}}, DType::f32), Status::ok);
  ASSERT_TRUE(plan.valid());
  EXPECT_EQ(plan.permutation().dims, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(plan.permutation().out_strides, (std::vector<int64_t>{4, 1}));
}

TEST(PermuteValidation, NullAndOverlappingPointersLeaveTheOutputUntouched) {
  const Permutation p{{4, 6}, {1, 0}, {}, {}};
  std::vector<float> in(24, 1.0f);
  std::vector<unsigned char> out(24 * sizeof(float), xpose_test::kPermutePoison);
  EXPECT_EQ(xpose::permute(nullptr, out.data(), p, DType::f32), Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("in is a null pointer"), std::string::npos);
  EXPECT_EQ(xpose::permute(in.data(), nullptr, p, DType::f32), Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("out is a null pointer"), std::string::npos);
  EXPECT_TRUE(xpose_test::all_poison(out.data(), out.size()));

  std::vector<unsigned char> shared(48 * sizeof(float), xpose_test::kPermutePoison);
  EXPECT_EQ(xpose::permute(shared.data(), shared.data() + 16 * sizeof(float), p, DType::f32),
            Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("in and out overlap"), std::string::npos);
  EXPECT_TRUE(xpose_test::all_poison(shared.data(), shared.size()));
  // Adjacent views are fine.
  EXPECT_EQ(xpose::permute(shared.data(), shared.data() + 24 * sizeof(float), p, DType::f32), Status::ok);
}

TEST(PermuteValidation, EmptyTensorsAcceptNullPointers) {
  EXPECT_EQ(xpose::permute(nullptr, nullptr, {3, 0, 2}, {2, 1, 0}, DType::f64), Status::ok)
      << xpose::last_error_message();
}

TEST(PermuteValidation, SuccessClearsTheLastError) {
  xpose::Plan plan;
  EXPECT_NE(xpose::Plan::create_permute(plan, {{2}, {1}, {}, {}}, DType::f32), Status::ok);
  EXPECT_STRNE(xpose::last_error_message(), "");
  std::vector<float> in(6, 2.0f), out(6);
  EXPECT_EQ(xpose::permute(in.data(), out.data(), {2, 3}, {1, 0}, DType::f32), Status::ok);
  EXPECT_STREQ(xpose::last_error_message(), "");
}

TEST(PermuteValidation, CudaDeviceWithoutCudaIsReportedAfterTheShape) {
  if (xpose::cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is visible";
  xpose::Plan plan;
  // The shape is checked first: a bad one is reported as such on any machine.
  EXPECT_EQ(xpose::Plan::create_permute(plan, {{2, 3}, {0, 0}, {}, {}}, DType::f32, Device::cuda),
            Status::invalid_argument);
  const Status s = xpose::Plan::create_permute(plan, {{2, 3}, {1, 0}, {}, {}}, DType::f32, Device::cuda);
  EXPECT_TRUE(s == Status::unsupported || s == Status::device_error) << xpose::to_string(s);
}

}  // namespace
