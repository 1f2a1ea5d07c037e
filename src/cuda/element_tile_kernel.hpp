// SPDX-License-Identifier: Apache-2.0
// The tile transpose's form for 8-byte elements, aligned or not: one element per access through a
// padded shared-memory tile (see the .cu for why).
#pragma once

#include "core/problem.hpp"
#include "cuda/gpu_runtime.hpp"
#include "cuda/tile_launch.hpp"

namespace xpose::cuda {

// Needs 8-byte elements (problem.elem_size == 8); any shape, leading dimension, stride and batch.
// `launch`: select_tile_launch's element shape, walk and loads for these pointers.
Status launch_element_tile_transpose(const void* in, void* out, const detail::Transpose2D& problem,
                                     const TileLaunch& launch, gpu::Stream stream);

}  // namespace xpose::cuda
