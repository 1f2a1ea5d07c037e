// SPDX-License-Identifier: Apache-2.0
// The benchmark baselines: the seeds' kernels (naive, tiled, padded, diagonal), the copy kernels,
// cudaMemcpy and cuBLAS geam. They are not part of the library; `xpose bench` and the tests
// register them into the CUDA kernel registry, after which plans reach them by name like any
// kernel (kernel_names(Device::cuda) lists them; kernel_transposes() is false for the copies).
#pragma once

#include "xpose/xpose.hpp"

namespace xpose::baselines {

// Registers the baselines once per process (later calls change nothing). Without a CUDA backend
// there are none and it returns ok.
Status register_kernels();

}  // namespace xpose::baselines
