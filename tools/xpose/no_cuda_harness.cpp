// SPDX-License-Identifier: Apache-2.0
// The GPU side of the harness in a build without the CUDA backend.
#include "bench_device.hpp"

namespace xpose::cli {

std::unique_ptr<BenchDevice> make_cuda_device(bool, std::string* error, std::chrono::milliseconds) {
  *error = "this xpose build has no CUDA backend (it was built without it: XPOSE_WITH_CUDA=OFF, or no nvcc at configure time)";
  return nullptr;
}

}  // namespace xpose::cli
