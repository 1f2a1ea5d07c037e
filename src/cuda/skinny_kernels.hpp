// SPDX-License-Identifier: Apache-2.0
// Production kernels for skinny and flat matrices, where one side of the transpose is a short
// row: a square tile would leave most of its threads idle.
//   interleave:   few input rows (2 x N, 33 x N) and a packed output: the output of a block of
//                 columns is one contiguous run, written with 16-byte vectors.
//   deinterleave: few input columns (N x 2, N x 33) and a packed input, or rows padded a little:
//                 a block of rows is one contiguous run of the input, read with 16-byte vectors.
#pragma once

#include "core/problem.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::cuda {

// Whether a problem is skinny enough for these kernels (and has the packed side they need).
bool interleave_fits(const detail::Transpose2D& problem);
bool deinterleave_fits(const detail::Transpose2D& problem);
// Whether the production rule takes them over the tile kernel: fits, and the strided side's
// segments per chunk are long enough (skinny_kernels.cu says where each was measured).
bool interleave_preferred(const detail::Transpose2D& problem);
bool deinterleave_preferred(const detail::Transpose2D& problem);
// Whether a kernel may read the span of consecutive input runs of `run` elements, padding
// included: the padding between runs is under one 32-byte sector or at most a quarter of a run.
bool short_padding(int64_t padding, int64_t run, int elem_size);
// short_padding for the input rows (ld_in - cols elements between rows of cols).
bool short_row_padding(const detail::Transpose2D& problem);

Status launch_interleave(const void* in, void* out, const detail::Transpose2D& problem, gpu::Stream stream);
Status launch_deinterleave(const void* in, void* out, const detail::Transpose2D& problem,
                           gpu::Stream stream);

}  // namespace xpose::cuda
