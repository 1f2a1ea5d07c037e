// SPDX-License-Identifier: Apache-2.0
// The CUDA permute kernels a plan can name. The production choice among them is in
// core/permute_plan.cpp (choose_permute_kernel); docs/permute.md explains it.
#include <memory>
#include <string>

#include "core/permute_registry.hpp"
#include "cuda/gpu_runtime.hpp"
#include "cuda/permute_kernels.hpp"

namespace xpose::detail {
namespace {

gpu::Stream stream_of(const LaunchContext& ctx) { return static_cast<gpu::Stream>(ctx.stream); }

template <typename Params>
const Params& params_of(const PreparedPermute& prepared) {
  return *static_cast<const Params*>(prepared.data.get());
}

// memcpy: the dense input bytes (the roofline every kernel is compared with).
bool prepare_memcpy(const PermuteProblem& problem, const PermuteLayout&, PreparedPermute*, std::string* why) {
  return dense_only(problem, why);
}

Status run_memcpy(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  XPOSE_GPU_TRY(cudaMemcpyAsync(out, in, static_cast<size_t>(prepared.layout.bytes()), cudaMemcpyDeviceToDevice,
                                stream_of(ctx)));
  return Status::ok;
}

// copy: a layout that moves nothing, as one block or as rows of a pitched copy.
bool prepare_copy(const PermuteProblem&, const PermuteLayout& layout, PreparedPermute*, std::string* why) {
  if (layout.is_block_or_rows_copy()) return true;
  if (why) *why = "it copies layouts that move nothing and have at most one strided axis";
  return false;
}

Status run_copy(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  const PermuteLayout& layout = prepared.layout;
  const size_t e = static_cast<size_t>(layout.elem_size);
  if (layout.rank <= 1) {
    XPOSE_GPU_TRY(cudaMemcpyAsync(out, in, static_cast<size_t>(layout.bytes()), cudaMemcpyDeviceToDevice,
                                  stream_of(ctx)));
  } else {
    XPOSE_GPU_TRY(cudaMemcpy2DAsync(out, static_cast<size_t>(layout[0].out_stride) * e, in,
                                    static_cast<size_t>(layout[0].in_stride) * e,
                                    static_cast<size_t>(layout[1].size) * e, static_cast<size_t>(layout[0].size),
                                    cudaMemcpyDeviceToDevice, stream_of(ctx)));
  }
  return Status::ok;
}

bool prepare_tiled(const PermuteProblem&, const PermuteLayout& layout, PreparedPermute* prepared, std::string* why) {
  auto params = std::make_shared<cuda::TiledParams>();
  if (!cuda::make_tiled_params(layout, params.get(), why)) return false;
  prepared->alignment = layout.elem_size;
  prepared->shorter_run_bytes = params->shorter_run_bytes();
  prepared->bytes_per_tile = params->tiles > 0 ? layout.bytes() / params->tiles : 0;
  prepared->data = std::move(params);
  return true;
}

Status run_tiled(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  return cuda::launch_permute_tiled(in, out, params_of<cuda::TiledParams>(prepared), stream_of(ctx));
}

std::string describe_tiled(const PreparedPermute& prepared) {
  return cuda::describe(params_of<cuda::TiledParams>(prepared));
}

bool prepare_packed(const PermuteProblem&, const PermuteLayout& layout, PreparedPermute* prepared, std::string* why) {
  auto params = std::make_shared<cuda::PackedParams>();
  if (!cuda::make_packed_params(layout, params.get(), why)) return false;
  prepared->alignment = layout.elem_size;
  prepared->shorter_run_bytes = params->shorter_run_bytes();
  prepared->bytes_per_tile = params->tiles > 0 ? layout.bytes() / params->tiles : 0;
  prepared->data = std::move(params);
  return true;
}

Status run_packed(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  return cuda::launch_permute_packed(in, out, params_of<cuda::PackedParams>(prepared), stream_of(ctx));
}

std::string describe_packed(const PreparedPermute& prepared) {
  return cuda::describe(params_of<cuda::PackedParams>(prepared));
}

// Two parameter sets: chunks as wide as the strides allow (up to 16 bytes), and chunks of one
// element for pointers that are not aligned to the wide chunk.
struct GatherLaunch {
  cuda::GatherParams wide, narrow;
};

bool prepare_gather(const PermuteProblem&, const PermuteLayout& layout, PreparedPermute* prepared,
                    std::string* why) {
  auto launch = std::make_shared<GatherLaunch>();
  if (!cuda::make_gather_params(layout, 16, &launch->wide, why) ||
      !cuda::make_gather_params(layout, layout.elem_size, &launch->narrow, why))
    return false;
  prepared->alignment = layout.elem_size;
  prepared->shorter_run_bytes = layout[layout.rank - 1].size * layout.elem_size;  // one innermost run
  prepared->access_bytes = launch->wide.shifted ? 16 : launch->wide.chunk_bytes;
  prepared->data = std::move(launch);
  return true;
}

Status run_gather(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  const auto& launch = params_of<GatherLaunch>(prepared);
  const auto chunk = static_cast<uintptr_t>(launch.wide.chunk_bytes);
  const bool wide = reinterpret_cast<uintptr_t>(in) % chunk == 0 && reinterpret_cast<uintptr_t>(out) % chunk == 0;
  return cuda::launch_permute_gather(in, out, wide ? launch.wide : launch.narrow, stream_of(ctx));
}

std::string describe_gather(const PreparedPermute& prepared) {
  const auto& launch = params_of<GatherLaunch>(prepared);
  return cuda::describe(launch.wide, launch.narrow);
}

bool prepare_naive(const PermuteProblem&, const PermuteLayout& layout, PreparedPermute* prepared, std::string*) {
  prepared->alignment = layout.elem_size;
  prepared->data = std::make_shared<cuda::NaiveParams>(cuda::make_naive_params(layout));
  return true;
}

Status run_naive(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  return cuda::launch_permute_naive(in, out, params_of<cuda::NaiveParams>(prepared), prepared.layout.elem_size,
                                    stream_of(ctx));
}

}  // namespace

const std::vector<PermuteKernel>& cuda_permute_kernels() {
  static const std::vector<PermuteKernel> kernels{
      {"memcpy", Device::cuda, false, "cudaMemcpyAsync device-to-device of the same bytes (the roofline)",
       prepare_memcpy, run_memcpy},
      {"copy", Device::cuda, true, "a layout that moves nothing: cudaMemcpyAsync or cudaMemcpy2DAsync",
       prepare_copy, run_copy},
      {"transpose2d", Device::cuda, true,
       "a (batched) 2D layout: the production 2D kernel (tile, interleave, deinterleave, ...)",
       prepare_transpose2d, run_transpose2d, describe_transpose2d},
      {"tiled", Device::cuda, true,
       "the contiguous dim moves: shared-memory tile of the input's and output's inner axes, 16-byte vectors",
       prepare_tiled, run_tiled, describe_tiled},
      {"packed", Device::cuda, true,
       "short axes: a shared-memory box over several axes whose input and output runs are both long",
       prepare_packed, run_packed, describe_packed},
      {"gather", Device::cuda, true,
       "the contiguous dim stays: each output run copied from its input run in chunks of up to 16 bytes",
       prepare_gather, run_gather, describe_gather},
      {"naive", Device::cuda, true, "one element per thread in output order (any layout; the baseline)",
       prepare_naive, run_naive},
  };
  return kernels;
}

}  // namespace xpose::detail
