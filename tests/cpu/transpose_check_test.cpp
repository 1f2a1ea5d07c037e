// SPDX-License-Identifier: Apache-2.0
// The test helpers themselves: inputs differ element by element, and the output check catches
// (and names) a wrong element, a write into row padding, a batch gap and a guard.
#include "common/transpose_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

#include "cpu/reference.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::DType;

TEST(TestHelpers, EncodedElementsDifferAndAvoidZeroAndPoison) {
  for (int size : {1, 2, 4, 8, 16}) {
    std::set<std::string> seen;
    const uint64_t count = size == 1 ? 254 : size == 2 ? 254 * 254 : 100000;
    for (uint64_t index = 0; index < count; ++index) {
      unsigned char bytes[16];
      xpose_test::encode_element(index, 7, size, bytes);
      for (int k = 0; k < size; ++k) {
        ASSERT_NE(bytes[k], 0x00);
        ASSERT_NE(bytes[k], xpose_test::kPoison);
      }
      seen.emplace(reinterpret_cast<const char*>(bytes), size);
    }
    EXPECT_EQ(seen.size(), count) << "element size " << size;
  }
}

// 5 x 3 f32 with ld_out 7 (2 padding elements per output row), batch 2 with a 4-element gap.
class OutputCheckCatches : public ::testing::Test {
 protected:
  const xpose_test::Transpose2D problem =
      xpose_test::problem_for({5, 3, 0, 7, 2, 0, 3 * 7 + 4}, DType::f32);
  const xpose_test::GuardedBuffer input = xpose_test::make_input(problem);
  xpose_test::GuardedBuffer output = xpose_test::make_output(problem);

  void SetUp() override {
    xpose::detail::transpose_reference(input.view(), output.view(), problem);
    ASSERT_TRUE(xpose_test::transposed_correctly(input, output, problem));
  }
  std::string failure_message() {
    const auto result = xpose_test::transposed_correctly(input, output, problem);
    EXPECT_FALSE(result);
    return result.message();
  }
  unsigned char* element(int64_t b, int64_t out_row, int64_t out_col) {
    return output.view() + (b * problem.stride_out + out_row * problem.ld_out + out_col) * 4;
  }
};

TEST_F(OutputCheckCatches, AWrongElementWithItsCoordinates) {
  element(1, 2, 4)[1] ^= 0x40;
  const std::string message = failure_message();
  EXPECT_THAT(message, HasSubstr("1 of 30 elements wrong"));
  EXPECT_THAT(message, HasSubstr("batch 1, input row 4, col 2 (output row 2, col 4)"));
  EXPECT_THAT(message, HasSubstr("expected"));
  EXPECT_THAT(message, HasSubstr("actual"));
}

TEST_F(OutputCheckCatches, AnUnwrittenElement) {
  std::memset(element(0, 0, 0), xpose_test::kPoison, 4);
  EXPECT_THAT(failure_message(), HasSubstr("actual ff ff ff ff"));
}

TEST_F(OutputCheckCatches, AWriteIntoRowPadding) {
  element(0, 1, 6)[0] = 0;
  EXPECT_THAT(failure_message(), HasSubstr("padding of output row 1 of batch 0, column 6"));
}

TEST_F(OutputCheckCatches, AWriteIntoTheGapBetweenBatches) {
  element(0, 3, 1)[3] = 0;
  EXPECT_THAT(failure_message(), HasSubstr("gap after output matrix 0"));
}

TEST_F(OutputCheckCatches, WritesIntoTheGuards) {
  output.data()[3] = 0;
  EXPECT_THAT(failure_message(), HasSubstr("guard before the view"));
  output.data()[3] = xpose_test::kPoison;
  output.data()[output.size() - 1] = 0;
  EXPECT_THAT(failure_message(), HasSubstr("guard after the view"));
}

}  // namespace
