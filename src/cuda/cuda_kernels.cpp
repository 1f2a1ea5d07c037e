// The CUDA kernels a plan can name, and the production choice among them.
#include "core/kernel_registry.hpp"
#include "cuda/gpu_runtime.hpp"

namespace xpose::detail {
namespace {

Status run_memcpy(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  XPOSE_GPU_TRY(cudaMemcpyAsync(out, in, static_cast<size_t>(p.bytes()), cudaMemcpyDeviceToDevice,
                                static_cast<gpu::Stream>(ctx.stream)));
  return Status::ok;
}

}  // namespace

const std::vector<Kernel>& cuda_kernels() {
  static const std::vector<Kernel> kernels{
      {"memcpy", Device::cuda, false, "cudaMemcpyAsync device-to-device (the roofline)",
       supports_packed_only, run_memcpy},
  };
  return kernels;
}

const Kernel* choose_cuda_kernel(const Transpose2D&) { return nullptr; }

}  // namespace xpose::detail
