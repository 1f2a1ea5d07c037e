// SPDX-License-Identifier: Apache-2.0
// main() of the test programs that reach the benchmark baselines by name (the seeds' kernels,
// copies, cuBLAS geam): they register into the kernel registry first, as `xpose bench` does.
#include <cstdio>

#include <gtest/gtest.h>

#include "baselines/baselines.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (xpose::baselines::register_kernels() != xpose::Status::ok) {
    std::fprintf(stderr, "registering the baselines failed: %s\n", xpose::last_error_message());
    return 1;
  }
  return RUN_ALL_TESTS();
}
