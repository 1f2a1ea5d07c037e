// SPDX-License-Identifier: Apache-2.0
// The vendor baseline: cuBLAS geam with op(A) = A^T, alpha 1, beta 0.
#pragma once

#include "core/problem.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::baselines {

// f32, f64, c64 and c128 only: geam computes alpha * A, which would alter integer bit patterns.
bool cublas_geam_supports(const detail::Transpose2D& problem, std::string* why);

// One geam per matrix of the batch (cuBLAS has no batched geam), on a per-thread handle.
Status launch_cublas_geam(const void* in, void* out, const detail::Transpose2D& problem,
                          gpu::Stream stream);

}  // namespace xpose::baselines
