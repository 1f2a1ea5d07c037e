// SPDX-License-Identifier: Apache-2.0
#include <cstdint>

#include "cuda/device_types.cuh"
#include "cuda/small_batch_kernel.hpp"
#include "cuda/small_batch_walks.hpp"

namespace xpose::cuda {
namespace {

constexpr int kThreads = kSmallBatchThreads;
constexpr int kStagingBytes = kSmallBatchStagingBytes;
constexpr int kVectorBytes = 16;

// Where staged element e lies (4- to 16-byte elements). The store phase's lanes read elements
// about V * cols apart (one output vector each, V = 16 / sizeof(T)), which would meet few banks;
// one element of padding every 32 spreads them. (1- and 2-byte elements are staged unpadded, so
// that the load phase stores whole vectors, and go through the transpose step.)
template <typename T>
__device__ __forceinline__ int staged_index(int e) {
  return e + e / 32;
}

// Staging elements: the buffer plus the padding of staged_index.
template <typename T>
constexpr int staging_elements() {
  constexpr int n = kStagingBytes / static_cast<int>(sizeof(T));
  return sizeof(T) >= 4 ? n + n / 32 + 1 : n;
}

// Copies the `n` elements of a walk, `from_step` / `to_step` apart, starting at its element
// `start` and wrapping around to its beginning after its last, so that a warp's lanes stay in
// step (two loops, from `start` and from 0, would meet again at 0 after the first).
template <typename T>
__device__ __forceinline__ void copy_walk(const T* from, T* to, int n, int start, int from_step, int to_step) {
  const int from_wrap = n * from_step, to_wrap = n * to_step;
  from += start * from_step, to += start * to_step;
#pragma unroll 4
  for (int k = 0, at = start; k < n; ++k) {
    *to = *from;
    from += from_step, to += to_step;
    if (++at == n) at = 0, from -= from_wrap, to -= to_wrap;
  }
}

// Copies the `n` elements of a walk, `from_step` / `to_step` apart.
template <typename T>
__device__ __forceinline__ void copy_walk(const T* from, T* to, int n, int from_step, int to_step) {
#pragma unroll 4
  for (int k = 0; k < n; ++k, from += from_step, to += to_step) *to = *from;
}

// K whole matrices per block, in = out = a run of count = K * rows * cols elements per chunk.
//
// 4- to 16-byte elements: each thread gathers one output vector from the (skewed) staging.
// 1- and 2-byte elements: the transpose step (SmallBatchWalks) copies the staged matrices into a
// second buffer in output order, whose run is then stored as whole vectors. Gathering their 8-16
// elements per output vector with per-element index updates took about 1 warp instruction per
// byte (ncu, 14 x 24 u8, H100: issue slots 79% busy, 76 registers) and held u8 batches at 45-61%
// of memcpy.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    small_batch_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int64_t batch,
                       int per_chunk, bool in_aligned, bool out_aligned, SmallBatchWalks walks) {
  constexpr int V = kVectorBytes / sizeof(T);
  constexpr int kInFlight = 4;  // vectors loaded per thread before any is staged
  constexpr bool kTransposeStep = sizeof(T) <= 2;
  // 1- and 2-byte elements: one vector more in each buffer for the runs' heads.
  __shared__ __align__(16) T staging[staging_elements<T>() + (kTransposeStep ? V : 0)];
  __shared__ __align__(16) T transposed[kTransposeStep ? kStagingBytes / sizeof(T) + V : 1];
  const int matrix = rows * cols;
  const int64_t chunks = ceil_div(batch, per_chunk);
  for (int64_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    const int64_t first = chunk * per_chunk;
    const int matrices = static_cast<int>(batch - first < per_chunk ? batch - first : per_chunk);
    const int count = matrices * matrix;
    const T* src = in + first * matrix;
    T* dst = out + first * matrix;

    if constexpr (kTransposeStep) {
      // Runs anywhere: element e of the input run is staged at e + in_head and element e of the
      // output run is kept at e + out_head (the runs' offsets in their first 16-byte vectors), so
      // that the vectors of the aligned grid inside each run are loaded and stored whole.
      const int in_head = static_cast<int>((reinterpret_cast<uintptr_t>(src) & 15) / sizeof(T));
      const int out_head = static_cast<int>((reinterpret_cast<uintptr_t>(dst) & 15) / sizeof(T));
      const int in_slots = (count + in_head + V - 1) / V;
      for (int base = 0; base < in_slots; base += kInFlight * kThreads) {
        uint4 loaded[kInFlight];
#pragma unroll
        for (int k = 0; k < kInFlight; ++k) {
          const int e = (base + k * kThreads + threadIdx.x) * V - in_head;
          if (e >= 0 && e + V <= count) loaded[k] = load_input_vector(src + e);
        }
#pragma unroll
        for (int k = 0; k < kInFlight; ++k) {
          const int v = base + k * kThreads + threadIdx.x, e = v * V - in_head;
          if (v >= in_slots) continue;
          if (e >= 0 && e + V <= count) {
            reinterpret_cast<uint4*>(staging)[v] = loaded[k];
          } else {
            for (int t = 0; t < V; ++t)
              if (e + t >= 0 && e + t < count) staging[v * V + t] = src[e + t];
          }
        }
      }
      __syncthreads();
      const int items = matrices * walks.groups.divisor() * walks.segments.divisor();
      for (int w = threadIdx.x; w < items; w += kThreads) {
        const WalkStart start_of = walk_start(walks, w, matrix);
        const int n = start_of.length;
        int from = in_head + start_of.from, to = out_head + start_of.to;
        if (walks.rotation != 0) {
          const int start = walks.rotation * (threadIdx.x & 31) % n;
          copy_walk(staging + from, transposed + to, n, start, walks.from_step, walks.to_step);
        } else if (walks.group == 1) {
          copy_walk(staging + from, transposed + to, n, walks.from_step, walks.to_step);
        } else {
          for (int line = 0; line < walks.group; ++line, from += walks.from_start, to += walks.to_start)
            copy_walk(staging + from, transposed + to, n, walks.from_step, walks.to_step);
        }
      }
      __syncthreads();
      for (int v = threadIdx.x; v * V < count + out_head; v += kThreads) {
        const int e = v * V - out_head;
        if (e >= 0 && e + V <= count) {
          reinterpret_cast<uint4*>(dst + e)[0] = reinterpret_cast<const uint4*>(transposed)[v];
        } else {
          for (int t = 0; t < V; ++t)
            if (e + t >= 0 && e + t < count) dst[e + t] = transposed[v * V + t];
        }
      }
      // No barrier here: the next chunk's loads write only `staging`, which the transpose step has
      // finished reading, and `transposed` is written again only after the next barrier.
    } else {
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
#pragma unroll
          for (int t = 0; t < V; ++t) staging[staged_index<T>(v * V + t)] = loaded[k].e[t];
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
#pragma unroll
        for (int t = 0; t < V; ++t) {
          packed.e[t] = o + t < count ? staging[staged_index<T>(source)] : T{};
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
        if (out_aligned && o + V <= count) {
          reinterpret_cast<uint4*>(dst)[v] = packed.v;
        } else {
#pragma unroll
          for (int t = 0; t < V; ++t) {
            if (o + t >= count) break;
            dst[o + t] = packed.e[t];
          }
        }
      }
      __syncthreads();
    }
  }
}

}  // namespace

bool small_batch_fits(const detail::Transpose2D& p) {
  const int64_t matrix = p.rows * p.cols;
  return p.batch >= 2 && p.rows > 0 && p.cols > 0 && p.ld_in == p.cols && p.ld_out == p.rows &&
         p.stride_in == matrix && p.stride_out == matrix && p.rows * p.cols * p.elem_size * 2 <= kStagingBytes;
}

namespace {

// choose_small_batch_walks for the launch, remembered per host thread for the last 8 shapes it
// launched, so that a plan executed again does not pay for the model.
SmallBatchWalks walks_for(const detail::Transpose2D& p, int matrices) {
  struct Remembered {
    int64_t rows = -1, cols = -1;
    int elem_size = 0, matrices = 0;
    SmallBatchWalks walks{};
  };
  constexpr int kRemembered = 8;
  thread_local Remembered last[kRemembered];
  thread_local int next = 0;
  for (const Remembered& r : last)
    if (r.rows == p.rows && r.cols == p.cols && r.elem_size == p.elem_size && r.matrices == matrices) return r.walks;
  Remembered& slot = last[next];
  next = (next + 1) % kRemembered;
  slot = Remembered{p.rows, p.cols, p.elem_size, matrices,
                    choose_small_batch_walks(p.rows, p.cols, p.elem_size, matrices)};
  return slot.walks;
}

}  // namespace

Status launch_small_batch(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const int per_chunk = small_batch_matrices_per_chunk(p.rows, p.cols, p.elem_size);
  const SmallBatchWalks walks = p.elem_size <= 2 ? walks_for(p, per_chunk) : SmallBatchWalks{};
  const int64_t chunk_bytes = per_chunk * p.rows * p.cols * p.elem_size;
  const bool in_aligned = reinterpret_cast<uintptr_t>(in) % kVectorBytes == 0 && chunk_bytes % kVectorBytes == 0;
  const bool out_aligned = reinterpret_cast<uintptr_t>(out) % kVectorBytes == 0 && chunk_bytes % kVectorBytes == 0;
  const dim3 grid = clamped_grid(ceil_div(p.batch, per_chunk), 1, 1);
  dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    small_batch_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                         static_cast<int>(p.rows), static_cast<int>(p.cols),
                                                         p.batch, per_chunk, in_aligned, out_aligned, walks);
  });
  return gpu::check_launch("small_batch");
}

}  // namespace xpose::cuda
