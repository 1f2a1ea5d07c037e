// SPDX-License-Identifier: Apache-2.0
#include <cuda_runtime.h>

#include <algorithm>

#include "dist/place_kernel.hpp"

namespace xpose::dist::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;  // independent loads in flight per thread

// Word is the access type (uint4, unsigned int or unsigned char); sizes are in Words.
template <typename Word>
__global__ void __launch_bounds__(kThreads) copy_2d_kernel(Word* __restrict__ dst, int64_t dst_pitch,
                                                           const Word* __restrict__ src, int64_t src_pitch,
                                                           int64_t width, int64_t rows) {
  const int64_t per_block = int64_t{kThreads} * kUnroll;
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const Word* in = src + row * src_pitch;
    Word* out = dst + row * dst_pitch;
    for (int64_t base = blockIdx.x * per_block; base < width; base += int64_t{gridDim.x} * per_block) {
      Word values[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const int64_t i = base + k * kThreads + threadIdx.x;
        if (i < width) values[k] = in[i];
      }
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) {
        const int64_t i = base + k * kThreads + threadIdx.x;
        if (i < width) out[i] = values[k];
      }
    }
  }
}

template <typename Word>
cudaError_t launch(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width_bytes,
                   int64_t rows, cudaStream_t stream) {
  const int64_t width = width_bytes / int64_t{sizeof(Word)};
  const int64_t per_block = int64_t{kThreads} * kUnroll;
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>((width + per_block - 1) / per_block, 1 << 16)),
                  static_cast<unsigned>(std::min<int64_t>(rows, 65535)));

  copy_2d_kernel<Word><<<grid, kThreads, 0, stream>>>(static_cast<Word*>(dst), dst_pitch / int64_t{sizeof(Word)},
                                                      static_cast<const Word*>(src),
                                                      src_pitch / int64_t{sizeof(Word)}, width, rows);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_copy_2d(void* dst, int64_t dst_pitch, const void* src, int64_t src_pitch, int64_t width_bytes,
                           int64_t rows, cudaStream_t stream) {
  if (width_bytes <= 0 || rows <= 0) return cudaSuccess;
  const uint64_t all = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) |
                       static_cast<uint64_t>(dst_pitch) | static_cast<uint64_t>(src_pitch) |
                       static_cast<uint64_t>(width_bytes);
  if (all % 16 == 0) return launch<uint4>(dst, dst_pitch, src, src_pitch, width_bytes, rows, stream);
  if (all % 4 == 0) return launch<unsigned int>(dst, dst_pitch, src, src_pitch, width_bytes, rows, stream);
  return launch<unsigned char>(dst, dst_pitch, src, src_pitch, width_bytes, rows, stream);
}

}  // namespace xpose::dist::detail
