// SPDX-License-Identifier: Apache-2.0
#include <cstdint>

#include "cuda/device_types.cuh"
#include "cuda/small_batch_kernel.hpp"

namespace xpose::cuda {
namespace {

constexpr int kThreads = 256;
// The staging buffer of a block: 16 KiB of matrices. With up to 8 blocks per SM that is up to
// 128 KiB of loads in flight per SM, well above the ~40 KiB an H100 needs to cover DRAM latency.
constexpr int kStagingBytes = 16384;
constexpr int kVectorBytes = 16;

// Where staged element e lies. The store phase's lanes read elements about V * cols apart (one
// output vector each, V = 16 / sizeof(T)), which for 4- to 16-byte elements would meet few banks;
// one element of padding every 32 spreads them. 1- and 2-byte elements are staged unpadded, so
// that the load phase can store whole vectors.
template <typename T>
__device__ __forceinline__ int staged_index(int e) {
  if constexpr (sizeof(T) >= 4) return e + e / 32;
  return e;
}

// Staging elements: the buffer plus the padding of staged_index.
template <typename T>
constexpr int staging_elements() {
  constexpr int n = kStagingBytes / static_cast<int>(sizeof(T));
  return sizeof(T) >= 4 ? n + n / 32 + 1 : n;
}

// K whole matrices per block, in = out = a run of count = K * rows * cols elements per chunk.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    small_batch_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int64_t batch,
                       int per_chunk, bool in_aligned, bool out_aligned) {
  constexpr int V = kVectorBytes / sizeof(T);
  constexpr int kInFlight = 4;  // vectors loaded per thread before any is staged
  __shared__ __align__(16) T staging[staging_elements<T>()];
  const int matrix = rows * cols;
  const int64_t chunks = ceil_div(batch, per_chunk);
  for (int64_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    const int64_t first = chunk * per_chunk;
    const int matrices = static_cast<int>(batch - first < per_chunk ? batch - first : per_chunk);
    const int count = matrices * matrix;
    const T* src = in + first * matrix;
    T* dst = out + first * matrix;

    // The input run into the staging buffer, several 16-byte vectors in flight per thread.
    const int vectors = in_aligned ? count / V : 0;
    for (int base = 0; base < vectors; base += kInFlight * kThreads) {
      VectorOf<T> loaded[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        const int v = base + k * kThreads + threadIdx.x;
        if (v < vectors) loaded[k].v = load_input_vector(reinterpret_cast<const uint4*>(src) + v);
      }
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) {
        const int v = base + k * kThreads + threadIdx.x;
        if (v >= vectors) continue;
        if constexpr (sizeof(T) >= 4) {
#pragma unroll
          for (int t = 0; t < V; ++t) staging[staged_index<T>(v * V + t)] = loaded[k].e[t];
        } else {
          reinterpret_cast<uint4*>(staging)[v] = loaded[k].v;
        }
      }
    }
    for (int e = vectors * V + threadIdx.x; e < count; e += kThreads) staging[staged_index<T>(e)] = src[e];
    __syncthreads();

    // The output run, one 16-byte vector per thread and step: output element o of the chunk is
    // (matrix b, output row j, column i), read from staged element b * matrix + i * cols + j.
    for (int v = threadIdx.x; v * V < count; v += kThreads) {
      const int o = v * V;
      int b = o / matrix;
      const int r = o - b * matrix;
      int j = r / rows, i = r - j * rows;
      int source = b * matrix + i * cols + j;
      VectorOf<T> packed;
      uint32_t words[4] = {0, 0, 0, 0};  // 1- and 2-byte elements are packed by shifts (a union
                                         // of bytes would live on the stack)
#pragma unroll
      for (int t = 0; t < V; ++t) {
        const T value = o + t < count ? staging[staged_index<T>(source)] : T{};
        if constexpr (sizeof(T) >= 4) {
          packed.e[t] = value;
        } else {
          words[t * sizeof(T) / 4] |= static_cast<uint32_t>(value) << (8 * ((t * sizeof(T)) % 4));
        }
        source += cols;
        if (++i == rows) {
          i = 0;
          if (++j == cols) {
            j = 0;
            ++b;
          }
          source = b * matrix + j;
        }
      }
      if constexpr (sizeof(T) < 4) packed.v = make_uint4(words[0], words[1], words[2], words[3]);
      if (out_aligned && o + V <= count) {
        reinterpret_cast<uint4*>(dst)[v] = packed.v;
      } else {
#pragma unroll
        for (int t = 0; t < V; ++t) {
          if (o + t >= count) break;
          if constexpr (sizeof(T) >= 4) {
            dst[o + t] = packed.e[t];
          } else {
            dst[o + t] = static_cast<T>(words[t * sizeof(T) / 4] >> (8 * ((t * sizeof(T)) % 4)));
          }
        }
      }
    }
    __syncthreads();
  }
}

int64_t matrix_bytes(const detail::Transpose2D& p) { return p.rows * p.cols * p.elem_size; }

// Matrices per chunk: as many as fill the staging buffer, rounded down so that a chunk is a whole
// number of 16-byte vectors where that leaves at least two (chunks then start on vectors).
int matrices_per_chunk(const detail::Transpose2D& p) {
  const int64_t bytes = matrix_bytes(p);
  const int64_t fit = kStagingBytes / bytes;
  int64_t step = 1;
  while ((step * bytes) % kVectorBytes != 0) step *= 2;  // bytes * step: a multiple of 16
  const int64_t rounded = fit / step * step;
  return static_cast<int>(rounded >= 2 ? rounded : fit);
}

}  // namespace

bool small_batch_fits(const detail::Transpose2D& p) {
  const int64_t matrix = p.rows * p.cols;
  return p.batch >= 2 && p.rows > 0 && p.cols > 0 && p.ld_in == p.cols && p.ld_out == p.rows &&
         p.stride_in == matrix && p.stride_out == matrix && matrix_bytes(p) * 2 <= kStagingBytes;
}

Status launch_small_batch(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const int per_chunk = matrices_per_chunk(p);
  const int64_t chunk_bytes = per_chunk * matrix_bytes(p);
  const bool in_aligned = reinterpret_cast<uintptr_t>(in) % kVectorBytes == 0 && chunk_bytes % kVectorBytes == 0;
  const bool out_aligned = reinterpret_cast<uintptr_t>(out) % kVectorBytes == 0 && chunk_bytes % kVectorBytes == 0;
  const dim3 grid = clamped_grid(ceil_div(p.batch, per_chunk), 1, 1);
  dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    small_batch_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                         static_cast<int>(p.rows), static_cast<int>(p.cols),
                                                         p.batch, per_chunk, in_aligned, out_aligned);
  });
  return gpu::check_launch("small_batch");
}

}  // namespace xpose::cuda
