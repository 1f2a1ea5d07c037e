// SPDX-License-Identifier: Apache-2.0
// The N-D permute kernels (launchers): tiled (the contiguous dim moves), packed (a tile over
// several short axes), gather (it stays) and naive (one element per thread, any layout; the
// baseline). Parameters come from cuda/permute_params.hpp; each launch checks the pointers'
// alignment for its vector forms.
#pragma once

#include "cuda/gpu_runtime.hpp"
#include "cuda/permute_params.hpp"

namespace xpose::cuda {

Status launch_permute_tiled(const void* in, void* out, const TiledParams& params, gpu::Stream stream);
Status launch_permute_packed(const void* in, void* out, const PackedParams& params, gpu::Stream stream);
Status launch_permute_gather(const void* in, void* out, const GatherParams& params, gpu::Stream stream);
Status launch_permute_naive(const void* in, void* out, const NaiveParams& params, int elem_size,
                            gpu::Stream stream);

}  // namespace xpose::cuda
