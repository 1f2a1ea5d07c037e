// Uses the installed xpose with its public header only (no CUDA headers): transposes a 2 x 3
// matrix on the CPU and checks the result. Exits 0 on success.
#include <cstdio>
#include <vector>

#include "xpose/xpose.hpp"

int main() {
  const std::vector<float> in{1, 2, 3, 4, 5, 6};  // 2 x 3
  std::vector<float> out(6, -1.0f);
  const xpose::Status status = xpose::transpose(in.data(), out.data(), {2, 3}, xpose::DType::f32);
  if (status != xpose::Status::ok) {
    std::printf("transpose failed: %s: %s\n", xpose::to_string(status),
                xpose::last_error_message());
    return 1;
  }
  const std::vector<float> expected{1, 4, 2, 5, 3, 6};  // 3 x 2
  if (out != expected) {
    std::printf("wrong result\n");
    return 1;
  }
  std::printf("xpose consumer: ok (CUDA compiled: %s)\n", xpose::cuda_compiled() ? "yes" : "no");
  return 0;
}
