// SPDX-License-Identifier: Apache-2.0
// A kernel that does nothing, compiled for the same architectures as every other kernel of the
// library: whether the current GPU can load it tells whether the build has code for that GPU.
#include "cuda/kernel_image.hpp"

namespace xpose::cuda {
namespace {

__global__ void kernel_image_probe() {}

}  // namespace

gpu::Error load_kernel_image() {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, kernel_image_probe);
}

}  // namespace xpose::cuda
