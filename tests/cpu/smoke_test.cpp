#include <gtest/gtest.h>
#include <vector>
#include "xpose/xpose.hpp"
TEST(Smoke, Transposes) {
  std::vector<float> in{1, 2, 3, 4, 5, 6}, out(6);
  ASSERT_EQ(xpose::transpose(in.data(), out.data(), {2, 3}, xpose::DType::f32), xpose::Status::ok);
  EXPECT_EQ(out, (std::vector<float>{1, 4, 2, 5, 3, 6}));
}
