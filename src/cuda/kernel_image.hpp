// SPDX-License-Identifier: Apache-2.0
// Whether this build has code for the current GPU (cuda/architectures.hpp says what to do if not).
#pragma once

#include "cuda/gpu_runtime.hpp"

namespace xpose::cuda {

// Loads a kernel of this build on the current device: cudaErrorNoKernelImageForDevice (or
// cudaErrorInvalidDeviceFunction) when the build has neither machine code nor PTX for it.
gpu::Error load_kernel_image();

}  // namespace xpose::cuda
