// SPDX-License-Identifier: Apache-2.0
// Uses the installed xpose with its public header only (no CUDA headers): transposes a 2 x 3
// matrix on the CPU, checks the result and the version macros, and that a bad call is reported
// as a value. Exits 0 on success.
#include <cstdio>
#include <cstring>
#include <vector>

#include "xpose/xpose.hpp"

int main() {
#ifdef EXPECTED_VERSION
  if (std::strcmp(XPOSE_VERSION_STRING, EXPECTED_VERSION) != 0) {
    std::printf("XPOSE_VERSION_STRING is %s, the package says %s\n", XPOSE_VERSION_STRING, EXPECTED_VERSION);
    return 1;
  }
#endif
  static_assert(XPOSE_VERSION == XPOSE_VERSION_MAJOR * 10000 + XPOSE_VERSION_MINOR * 100 + XPOSE_VERSION_PATCH);

  const std::vector<float> in{1, 2, 3, 4, 5, 6};  // 2 x 3
  std::vector<float> out(6, -1.0f);
  const xpose::Status status = xpose::transpose(in.data(), out.data(), {2, 3}, xpose::DType::f32);
  if (status != xpose::Status::ok) {
    std::printf("transpose failed: %s: %s\n", xpose::to_string(status), xpose::last_error_message());
    return 1;
  }
  const std::vector<float> expected{1, 4, 2, 5, 3, 6};  // 3 x 2
  if (out != expected) {
    std::printf("wrong result\n");
    return 1;
  }
  if (xpose::transpose(in.data(), out.data(), {-2, 3}, xpose::DType::f32) != xpose::Status::invalid_argument ||
      std::strlen(xpose::last_error_message()) == 0) {
    std::printf("a negative row count was not reported as invalid_argument with a message\n");
    return 1;
  }
  std::printf("xpose %s consumer: ok (CUDA compiled: %s)\n", XPOSE_VERSION_STRING,
              xpose::cuda_compiled() ? "yes" : "no");
  return 0;
}
