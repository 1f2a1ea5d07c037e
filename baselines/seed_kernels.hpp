// SPDX-License-Identifier: Apache-2.0
// The seeds' study as named kernels: copy baselines, naive transposes and the shared-memory tiles,
// each handling any shape, element size, leading dimension and batch.
#pragma once

#include "core/problem.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::baselines {

enum class SeedKernel {
  copy,                    // plain copy, 32x32 tile by 32x8 threads (the blog's copy)
  copy_shared,             // the same copy staged through shared memory and a barrier
  naive_read_contiguous,   // reads coalesced, writes strided
  naive_write_contiguous,  // writes coalesced, reads strided
  tiled,                   // 32x32 shared tile, 32x32 threads, no padding (bank conflicts)
  tiled_padded,            // the same tile with one column of padding
  tiled_padded_rows,       // padded 32x32 tile moved by 32x8 threads, 4 elements each
  tiled_diagonal,          // tiled_padded_rows with diagonal block order (cuda-samples)
};

// Launches the kernel on `stream`; copy kernels require a packed problem.
Status launch_seed_kernel(SeedKernel kernel, const void* in, void* out,
                          const detail::Transpose2D& problem, gpu::Stream stream);

}  // namespace xpose::baselines
