// SPDX-License-Identifier: Apache-2.0
// The baselines as registry entries, in the order `xpose bench` runs them: the roofline and the
// copy kernels first, then the seeds' transposes in increasing refinement, then cuBLAS.
#include "baselines/baselines.hpp"
#include "baselines/cublas_geam.hpp"
#include "baselines/seed_kernels.hpp"
#include "core/kernel_registry.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::baselines {
namespace {

using detail::Kernel;
using detail::LaunchContext;
using detail::supports_all;
using detail::supports_packed_only;
using detail::Transpose2D;

gpu::Stream stream_of(const LaunchContext& ctx) { return static_cast<gpu::Stream>(ctx.stream); }

Status run_memcpy(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  XPOSE_GPU_TRY(cudaMemcpyAsync(out, in, static_cast<size_t>(p.bytes()), cudaMemcpyDeviceToDevice,
                                stream_of(ctx)));
  return Status::ok;
}

template <SeedKernel Which>
Status run_seed(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return launch_seed_kernel(Which, in, out, p, stream_of(ctx));
}

Status run_cublas_geam(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return launch_cublas_geam(in, out, p, stream_of(ctx));
}

const std::vector<Kernel>& baseline_kernels() {
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
      {"cublas_geam", Device::cuda, true, "cuBLAS geam, op(A) = A^T (f32, f64, c64, c128)",
       cublas_geam_supports, run_cublas_geam},
  };
  return kernels;
}

}  // namespace

Status register_kernels() { return detail::register_kernels(Device::cuda, baseline_kernels()); }

}  // namespace xpose::baselines
