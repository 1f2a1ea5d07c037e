// SPDX-License-Identifier: Apache-2.0
// Invalid arguments: each returns the right Status and a message that names the argument and its
// value; a failed call writes nothing, and a later success clears the message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/transpose_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Matrix;
using xpose::Status;

constexpr int64_t k2To40 = int64_t{1} << 40;
constexpr int64_t k2To31 = int64_t{1} << 31;

struct InvalidMatrix {
  const char* name;
  Matrix matrix;
  DType type;
  const char* message;
};

std::vector<InvalidMatrix> invalid_matrices() {
  return {
      {"negative_rows", {-1, 4}, DType::f32, "rows (-1) is negative"},
      {"negative_cols", {4, -3}, DType::f32, "cols (-3) is negative"},
      {"negative_batch", {4, 4, 0, 0, -2}, DType::f32, "batch (-2) is negative"},
      {"negative_ld_in", {4, 4, -5, 0}, DType::f32, "ld_in (-5) is negative"},
      {"negative_ld_out", {4, 4, 0, -6}, DType::f32, "ld_out (-6) is negative"},
      {"negative_stride_in", {4, 4, 0, 0, 2, -7, 0}, DType::f32, "stride_in (-7) is negative"},
      {"negative_stride_out", {4, 4, 0, 0, 2, 0, -8}, DType::f32, "stride_out (-8) is negative"},
      {"ld_in_below_cols", {4, 128, 100, 0}, DType::f32, "ld_in (100) is smaller than cols (128)"},
      {"ld_out_below_rows",
       {128, 4, 0, 100},
       DType::f32,
       "ld_out (100) is smaller than rows (128)"},
      {"ld_in_below_cols_when_empty",
       {0, 5, 3, 0},
       DType::u8,
       "ld_in (3) is smaller than cols (5)"},
      {"stride_in_below_one_matrix",
       {4, 8, 0, 0, 2, 31, 0},
       DType::f32,
       "stride_in (31) is smaller than one input matrix (32 elements)"},
      {"stride_out_below_one_matrix",
       {4, 8, 0, 0, 2, 0, 31},
       DType::f32,
       "stride_out (31) is smaller than one output matrix (32 elements)"},
      {"stride_in_below_padded_matrix",
       {4, 8, 10, 0, 3, 37, 0},
       DType::f32,
       "stride_in (37) is smaller than one input matrix (38 elements)"},
      {"element_count_overflows", {k2To40, k2To40}, DType::c128, "overflows 64-bit"},
      {"byte_count_overflows", {k2To31, k2To31}, DType::c128, "overflows 64-bit byte counts"},
      {"batch_byte_count_overflows",
       {1 << 20, 1 << 20, 0, 0, k2To31},
       DType::u8,
       "overflows 64-bit byte counts"},
      {"invalid_dtype", {4, 4}, static_cast<DType>(99), "dtype (99) is not a valid xpose::DType"},
  };
}

class InvalidMatrixCpu : public ::testing::TestWithParam<InvalidMatrix> {};

TEST_P(InvalidMatrixCpu, IsRejectedWithExactMessage) {
  const InvalidMatrix& c = GetParam();
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create(plan, c.matrix, c.type), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr(c.message));
  EXPECT_FALSE(plan.valid());

  // transpose() validates before it touches anything, even with a real output buffer.
  std::vector<unsigned char> input(4096, 0x11), output(4096, xpose_test::kPoison);
  EXPECT_EQ(xpose::transpose(input.data(), output.data(), c.matrix, c.type),
            Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr(c.message));
  EXPECT_TRUE(xpose_test::untouched(output.data(), output.size()));
}

INSTANTIATE_TEST_SUITE_P(TransposeCpu, InvalidMatrixCpu, ::testing::ValuesIn(invalid_matrices()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(TransposeCpu, InvalidDeviceIsRejected) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create(plan, {4, 4}, DType::f32, static_cast<Device>(7)),
            Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("device (7) is not a valid xpose::Device"));
  EXPECT_FALSE(plan.valid());
}

TEST(TransposeCpu, NegativeThreadCountIsRejected) {
  xpose::Plan plan;
  EXPECT_EQ(xpose::Plan::create(plan, {4, 4}, DType::f32, Device::cpu, {"auto", -1}),
            Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("options.threads (-1) is negative"));
}

TEST(TransposeCpu, NullPointersWithNonEmptyShapeAreRejected) {
  const Matrix matrix{8, 8};
  std::vector<float> input(64, 1.0f);
  xpose_test::GuardedBuffer output(64 * sizeof(float), 0, xpose_test::kPoison);

  EXPECT_EQ(xpose::transpose(nullptr, output.view(), matrix, DType::f32), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(),
              HasSubstr("in is a null pointer for a non-empty matrix"));
  EXPECT_TRUE(xpose_test::untouched(output));

  EXPECT_EQ(xpose::transpose(input.data(), nullptr, matrix, DType::f32), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(),
              HasSubstr("out is a null pointer for a non-empty matrix"));
}

TEST(TransposeCpu, OverlappingInputAndOutputAreRejected) {
  const Matrix matrix{8, 16};
  const auto problem = xpose_test::problem_for(matrix, DType::f32);
  auto buffer = xpose_test::make_input(problem);
  const std::vector<unsigned char> before(buffer.data(), buffer.data() + buffer.size());

  // The same buffer, then a partial overlap (output starts 2 elements into the input).
  for (std::size_t shift : {std::size_t{0}, 2 * sizeof(float), 127 * sizeof(float)}) {
    SCOPED_TRACE("output starts " + std::to_string(shift) + " bytes after the input");
    EXPECT_EQ(xpose::transpose(buffer.view(), buffer.view() + shift, matrix, DType::f32),
              Status::invalid_argument);
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("in and out overlap"));
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("out-of-place"));
  }
  // Output ending inside the input.
  EXPECT_EQ(xpose::transpose(buffer.view() + 4, buffer.view(), matrix, DType::f32),
            Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("in and out overlap"));
  EXPECT_EQ(std::vector<unsigned char>(buffer.data(), buffer.data() + buffer.size()), before)
      << "a rejected in-place call changed the buffer";
}

TEST(TransposeCpu, AdjacentInputAndOutputDoNotCountAsOverlap) {
  const Matrix matrix{8, 16};
  const auto problem = xpose_test::problem_for(matrix, DType::f32);
  auto input = xpose_test::make_input(problem);
  std::vector<float> storage(2 * 128);
  std::memcpy(storage.data(), input.view(), 128 * sizeof(float));
  EXPECT_EQ(xpose::transpose(storage.data(), storage.data() + 128, matrix, DType::f32), Status::ok)
      << xpose::last_error_message();
  EXPECT_EQ(xpose::transpose(storage.data() + 128, storage.data(), matrix, DType::f32), Status::ok)
      << xpose::last_error_message();
}

TEST(TransposeCpu, FailedCallLeavesOutputUntouchedAndLaterSuccessClearsMessage) {
  const Matrix bad{4, 128, 100, 0};
  const Matrix good{4, 128};
  const auto problem = xpose_test::problem_for(good, DType::f32);
  const auto input = xpose_test::make_input(problem);
  auto output = xpose_test::make_output(problem);

  EXPECT_EQ(xpose::transpose(input.view(), output.view(), bad, DType::f32),
            Status::invalid_argument);
  EXPECT_TRUE(xpose_test::untouched(output));
  EXPECT_STRNE(xpose::last_error_message(), "");

  ASSERT_EQ(xpose::transpose(input.view(), output.view(), good, DType::f32), Status::ok);
  EXPECT_STREQ(xpose::last_error_message(), "");
  EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));

  // A failed execute on a valid plan, then a successful one.
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, good, DType::f32), Status::ok);
  auto second = xpose_test::make_output(problem);
  EXPECT_EQ(plan.execute(nullptr, second.view()), Status::invalid_argument);
  EXPECT_TRUE(xpose_test::untouched(second));
  EXPECT_STRNE(xpose::last_error_message(), "");
  EXPECT_EQ(plan.execute(input.view(), second.view()), Status::ok);
  EXPECT_STREQ(xpose::last_error_message(), "");
}

TEST(TransposeCpu, ErrorMessagesAreKeptPerThread) {
  EXPECT_EQ(xpose::transpose(nullptr, nullptr, {-1, 4}, DType::f32), Status::invalid_argument);
  std::string other_thread_message = "not run";
  std::thread([&] { other_thread_message = xpose::last_error_message(); }).join();
  EXPECT_EQ(other_thread_message, "");
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("rows (-1) is negative"));
}

}  // namespace
