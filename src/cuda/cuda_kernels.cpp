// SPDX-License-Identifier: Apache-2.0
// The CUDA kernels of the library a plan can name, and the production choice among them. The
// benchmark baselines (seed kernels, copies, cuBLAS geam) live in baselines/, outside the library.
#include "core/kernel_registry.hpp"
#include "cuda/gpu_runtime.hpp"
#include "cuda/skinny_kernels.hpp"
#include "cuda/small_batch_kernel.hpp"
#include "cuda/tuning.hpp"
#include "cuda/tile_kernel.hpp"

namespace xpose::detail {
namespace {

gpu::Stream stream_of(const LaunchContext& ctx) { return static_cast<gpu::Stream>(ctx.stream); }

Status run_tile(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_tile_transpose(in, out, p, stream_of(ctx));
}

// A transpose that moves nothing: with one row (or one column) and a unit leading dimension on
// the other side, each matrix is the same contiguous run in the input and the output.
bool is_contiguous_copy(const Transpose2D& p) {
  return (p.rows == 1 && p.ld_out == 1) || (p.cols == 1 && p.ld_in == 1);
}

bool contiguous_copy_supports(const Transpose2D& p, std::string* why) {
  if (is_contiguous_copy(p)) return true;
  if (why) *why = "it needs one row (with ld_out 1) or one column (with ld_in 1)";
  return false;
}

Status run_contiguous_copy(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  const size_t run = static_cast<size_t>(p.elements_per_matrix()) * p.elem_size;
  // Matrices back to back on both sides: one block (a pitched copy of short rows runs at a
  // fraction of a copy: 1 x 1 f16 by 53 M was 0.2% of memcpy on an H100).
  if (p.batch == 1 || (p.stride_in == p.elements_per_matrix() && p.stride_out == p.elements_per_matrix())) {
    XPOSE_GPU_TRY(cudaMemcpyAsync(out, in, run * static_cast<size_t>(p.batch), cudaMemcpyDeviceToDevice,
                                  stream_of(ctx)));
    return Status::ok;
  }
  XPOSE_GPU_TRY(cudaMemcpy2DAsync(out, static_cast<size_t>(p.stride_out) * p.elem_size, in,
                                  static_cast<size_t>(p.stride_in) * p.elem_size, run,
                                  static_cast<size_t>(p.batch), cudaMemcpyDeviceToDevice, stream_of(ctx)));
  return Status::ok;
}

bool interleave_supports(const Transpose2D& p, std::string* why) {
  if (cuda::interleave_fits(p)) return true;
  if (why) *why = "it needs fewer rows than the tile kernel's tile and a packed output (ld_out = rows)";
  return false;
}

bool deinterleave_supports(const Transpose2D& p, std::string* why) {
  if (cuda::deinterleave_fits(p)) return true;
  if (why)
    *why = "it needs fewer columns than the tile kernel's tile and input rows padded by under 32 bytes or a "
           "quarter of a row (ld_in = cols: packed)";
  return false;
}

Status run_interleave(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_interleave(in, out, p, stream_of(ctx));
}

bool small_batch_supports(const Transpose2D& p, std::string* why) {
  if (cuda::small_batch_fits(p)) return true;
  if (why)
    *why = "it needs a batch of at least two matrices with packed output, each read from at most 16 KiB of "
           "input (packed, or rows or matrices padded apart by a little)";
  return false;
}

Status run_small_batch(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_small_batch(in, out, p, stream_of(ctx));
}

Status run_deinterleave(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_deinterleave(in, out, p, stream_of(ctx));
}

}  // namespace

const std::vector<Kernel>& cuda_kernels() {
  static const std::vector<Kernel> kernels{
      {"tile", Device::cuda, true,
       "production: 16-byte vectors, swizzled shared tile, small elements transposed in registers",
       supports_all, run_tile, cuda::describe_tile_transpose},
      {"interleave", Device::cuda, true,
       "production, few rows: a block of columns becomes one contiguous output run",
       interleave_supports, run_interleave},
      {"deinterleave", Device::cuda, true,
       "production, few columns: a contiguous input run becomes a block of output rows",
       deinterleave_supports, run_deinterleave},
      {"small_batch", Device::cuda, true,
       "production, batches of small matrices: whole matrices per block, 16-byte vectors in and out",
       small_batch_supports, run_small_batch},
      {"contiguous_copy", Device::cuda, true,
       "production, one row or one column: the transpose is a copy (cudaMemcpy2DAsync)",
       contiguous_copy_supports, run_contiguous_copy},
  };
  return kernels;
}

// The production rule. Skinny shapes first: a square tile would idle most of its threads there.
const Kernel* choose_cuda_kernel(const Transpose2D& p) {
  if (is_contiguous_copy(p)) return find_kernel(Device::cuda, "contiguous_copy");
  if (cuda::small_batch_fits(p)) return find_kernel(Device::cuda, "small_batch");
  if (cuda::interleave_preferred(p)) return find_kernel(Device::cuda, "interleave");
  if (cuda::deinterleave_preferred(p)) return find_kernel(Device::cuda, "deinterleave");
  return find_kernel(Device::cuda, "tile");
}

}  // namespace xpose::detail
