// SPDX-License-Identifier: Apache-2.0
// The production 2D transpose: 16-byte vector accesses on both sides of a swizzled shared-memory
// tile, small elements transposed in registers, any shape, stride and batch in one launch
// (unaligned views of 8-byte elements: the element form, element_tile_kernel.hpp).
#pragma once

#include <string>

#include "core/problem.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::cuda {

Status launch_tile_transpose(const void* in, void* out, const detail::Transpose2D& problem,
                             gpu::Stream stream);

// The launch launch_tile_transpose makes for `problem` on the current device with pointers as
// cudaMalloc returns them (on 256 bytes), and, where it differs, with pointers one element off
// 16 bytes (describe_tile_launches).
std::string describe_tile_transpose(const detail::Transpose2D& problem);

}  // namespace xpose::cuda
