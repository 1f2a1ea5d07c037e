// SPDX-License-Identifier: Apache-2.0
// Production kernel for batches of small matrices (each at most the 16 KiB staging buffer), packed
// in the output: every matrix is one contiguous run of rows x cols elements there, and so is every
// group of consecutive matrices; in the input too, or its rows are padded by a little (a slice of
// a wider tensor), and the group's span, padding included, is the run. A block takes whole
// matrices, as many as fill its staging buffer: one input run, loaded with 16-byte vectors, and
// one contiguous output run, stored with 16-byte vectors. The tile and skinny kernels take one
// matrix per block (or less) and move a few dozen bytes per block on such batches.
#pragma once

#include "core/problem.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::cuda {

// Whether the problem is a batch of at least two matrices whose input spans each fit the staging
// buffer, with packed output and packed input, or input rows or whole matrices padded apart by a
// little (small_batch_kernel.cu). The production rule takes every such batch.
bool small_batch_fits(const detail::Transpose2D& problem);

Status launch_small_batch(const void* in, void* out, const detail::Transpose2D& problem, gpu::Stream stream);

}  // namespace xpose::cuda
