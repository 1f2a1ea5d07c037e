// The CUDA kernels a plan can name, and the production choice among them.
#include "core/kernel_registry.hpp"
#include "cuda/cublas_geam.hpp"
#include "cuda/gpu_runtime.hpp"
#include "cuda/seed_kernels.hpp"
#include "cuda/skinny_kernels.hpp"
#include "cuda/tuning.hpp"
#include "cuda/tile_kernel.hpp"

namespace xpose::detail {
namespace {

gpu::Stream stream_of(const LaunchContext& ctx) { return static_cast<gpu::Stream>(ctx.stream); }

Status run_memcpy(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  XPOSE_GPU_TRY(cudaMemcpyAsync(out, in, static_cast<size_t>(p.bytes()), cudaMemcpyDeviceToDevice,
                                stream_of(ctx)));
  return Status::ok;
}

template <cuda::SeedKernel Which>
Status run_seed(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_seed_kernel(Which, in, out, p, stream_of(ctx));
}

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
  if (why) *why = "it needs fewer columns than the tile kernel's tile and a packed input (ld_in = cols)";
  return false;
}

Status run_interleave(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_interleave(in, out, p, stream_of(ctx));
}

Status run_deinterleave(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_deinterleave(in, out, p, stream_of(ctx));
}

Status run_cublas_geam(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return cuda::launch_cublas_geam(in, out, p, stream_of(ctx));
}

}  // namespace

const std::vector<Kernel>& cuda_kernels() {
  using cuda::SeedKernel;
  static const std::vector<Kernel> kernels{
      {"memcpy", Device::cuda, false, "cudaMemcpyAsync device-to-device of the same bytes (the roofline)",
       supports_packed_only, run_memcpy},
      {"copy", Device::cuda, false, "copy kernel, 32x32 tile by 32x8 threads", supports_packed_only,
       run_seed<SeedKernel::copy>},
      {"copy_shared", Device::cuda, false, "the copy staged through shared memory", supports_packed_only,
       run_seed<SeedKernel::copy_shared>},
      {"naive_read_contiguous", Device::cuda, true, "one element per thread, coalesced reads",
       supports_all, run_seed<SeedKernel::naive_read_contiguous>},
      {"naive_write_contiguous", Device::cuda, true, "one element per thread, coalesced writes",
       supports_all, run_seed<SeedKernel::naive_write_contiguous>},
      {"tiled", Device::cuda, true, "32x32 shared tile, 32x32 threads, no padding", supports_all,
       run_seed<SeedKernel::tiled>},
      {"tiled_padded", Device::cuda, true, "32x33 shared tile, 32x32 threads", supports_all,
       run_seed<SeedKernel::tiled_padded>},
      {"tiled_padded_rows", Device::cuda, true, "32x33 shared tile, 32x8 threads, 4 elements each",
       supports_all, run_seed<SeedKernel::tiled_padded_rows>},
      {"tiled_diagonal", Device::cuda, true, "tiled_padded_rows with diagonal block order",
       supports_all, run_seed<SeedKernel::tiled_diagonal>},
      {"tile", Device::cuda, true,
       "production: 16-byte vectors, swizzled shared tile, small elements transposed in registers",
       supports_all, run_tile},
      {"interleave", Device::cuda, true,
       "production, few rows: a block of columns becomes one contiguous output run",
       interleave_supports, run_interleave},
      {"deinterleave", Device::cuda, true,
       "production, few columns: a contiguous input run becomes a block of output rows",
       deinterleave_supports, run_deinterleave},
      {"contiguous_copy", Device::cuda, true,
       "production, one row or one column: the transpose is a copy (cudaMemcpy2DAsync)",
       contiguous_copy_supports, run_contiguous_copy},
      {"cublas_geam", Device::cuda, true, "cuBLAS geam, op(A) = A^T (f32, f64, c64, c128)",
       cuda::cublas_geam_supports, run_cublas_geam},
  };
  return kernels;
}

// The production rule. Skinny shapes first: a square tile would idle most of its threads there.
const Kernel* choose_cuda_kernel(const Transpose2D& p) {
  if (is_contiguous_copy(p)) return find_kernel(Device::cuda, "contiguous_copy");
  if (cuda::interleave_fits(p)) return find_kernel(Device::cuda, "interleave");
  if (cuda::deinterleave_fits(p) && p.cols <= cuda::deinterleave_max_cols(p.elem_size))
    return find_kernel(Device::cuda, "deinterleave");
  return find_kernel(Device::cuda, "tile");
}

}  // namespace xpose::detail
