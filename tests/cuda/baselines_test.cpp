// SPDX-License-Identifier: Apache-2.0
// The benchmark baselines live outside the library (baselines/); the test main registers them, as
// `xpose bench` does, after which plans reach them by name. Needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "baselines/baselines.hpp"

namespace {

using xpose::Device;

TEST(Baselines, RegisteredOnceWithTheirKinds) {
  const std::vector<std::string> transposes{"naive_read_contiguous", "naive_write_contiguous", "tiled",
                                            "tiled_padded", "tiled_padded_rows", "tiled_diagonal", "cublas_geam"};
  const std::vector<std::string> copies{"memcpy", "copy", "copy_shared"};
  ASSERT_EQ(xpose::baselines::register_kernels(), xpose::Status::ok) << "registering again changes nothing";
  const auto names = xpose::kernel_names(Device::cuda);
  for (const auto& group : {transposes, copies})
    for (const std::string& name : group)
      EXPECT_EQ(std::count(names.begin(), names.end(), name), 1) << name;
  for (const std::string& name : transposes) EXPECT_TRUE(xpose::kernel_transposes(Device::cuda, name)) << name;
  for (const std::string& name : copies) EXPECT_FALSE(xpose::kernel_transposes(Device::cuda, name)) << name;
  EXPECT_EQ(std::count(names.begin(), names.end(), "tile"), 1) << "the library's own kernels stay listed";
}

}  // namespace
