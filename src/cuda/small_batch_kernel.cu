// SPDX-License-Identifier: Apache-2.0
#include <cstdint>

#include "cuda/device_types.cuh"
#include "cuda/skinny_kernels.hpp"
#include "cuda/small_batch_kernel.hpp"
#include "cuda/transpose_walks.cuh"

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

// Blocks per SM that the 4- to 16-byte kernels must keep resident (0: the compiler's choice).
// 8-byte elements: 6 at 40 registers; 16-byte: 5 at 48 (they spill at 40). Left to itself the
// compiler took 47 and 51 once the chunks' partial vectors were handled, a block fewer per SM and
// 2-5 points of memcpy; 4-byte elements take 39 on their own, and bounding them cost 1-3 points
// (H200, same process).
template <typename T>
constexpr int staging_min_blocks() {
  return sizeof(T) >= 16 ? 5 : sizeof(T) == 8 ? 6 : 0;
}

// K whole matrices per block: the input chunk is one run of `span` elements (its matrices
// stride_in apart, their rows ld_in apart: padding included, packed where stride_in = rows x
// ld_in = rows x cols), staged as it lies; the output chunk is one run of count = K x rows x cols.
//
// 4- to 16-byte elements: each thread gathers one output vector from the (skewed) staging.
// 1- and 2-byte elements: the transpose step (TransposeWalks) copies the staged matrices into a
// second buffer in output order, whose run is then stored as whole vectors. Gathering their 8-16
// elements per output vector with per-element index updates took about 1 warp instruction per
// byte (ncu, 14 x 24 u8, H100: issue slots 79% busy, 76 registers) and held u8 batches at 45-61%
// of memcpy.
template <typename T>
__global__ void __launch_bounds__(kThreads, sizeof(T) <= 2 ? kTransposeStepMinBlocks : staging_min_blocks<T>())
    small_batch_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int64_t batch, int ld_in,
                       int stride_in, int per_chunk, TransposeWalks walks) {
  constexpr int V = kVectorBytes / sizeof(T);
  constexpr int kInFlight = 4;  // vectors loaded per thread before any is staged
  constexpr bool kTransposeStep = sizeof(T) <= 2;
  // 1- and 2-byte elements: one vector more in each buffer for the runs' heads.
  __shared__ __align__(16) T staging[staging_elements<T>() + (kTransposeStep ? V : 0)];
  __shared__ __align__(16) T transposed[kTransposeStep ? kStagingBytes / sizeof(T) + V : 1];
  const int matrix = rows * cols, extent = (rows - 1) * ld_in + cols;  // a matrix's input span
  const int64_t chunks = ceil_div(batch, per_chunk);
  for (int64_t chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
    const int64_t first = chunk * per_chunk;
    const int matrices = static_cast<int>(batch - first < per_chunk ? batch - first : per_chunk);
    const int count = matrices * matrix, span = (matrices - 1) * stride_in + extent;
    const T* src = in + first * stride_in;
    T* dst = out + first * matrix;

    if constexpr (kTransposeStep) {
      // Runs anywhere: stage_run and store_run keep element e of each run at its head + e.
      stage_run(src, staging, span);
      __syncthreads();
      transpose_by_walks(staging + vector_head(src), transposed + vector_head(dst), walks, matrices);
      __syncthreads();
      store_run(transposed, dst, count);
      // No barrier here: the next chunk's loads write only `staging`, which the transpose step has
      // finished reading, and `transposed` is written again only after the next barrier.
    } else {
      // The input run into the staging buffer as the whole 16-byte vectors of global memory inside
      // it, several in flight per thread, then the elements before the first and after the last
      // one: a chunk may start anywhere in a vector (matrices of an odd number of f32 elements,
      // views off 16 bytes). Element loads throughout held 7 x 451 f32 batches, whose chunks start
      // off 16 bytes, at 59% of memcpy (H200). The vector loop is the aligned chunks' loop moved
      // by a constant; one loop over all slots, partial vectors staged in its body, cost aligned
      // batches 5-18 points (c128 103 -> 85%, H200).
      const int in_first = min((V - vector_head(src)) % V, span);  // elements before the first whole vector
      const int vectors = (span - in_first) / V, in_tail = in_first + vectors * V;
      const T* in_vectors = src + in_first;
      for (int base = 0; base < vectors; base += kInFlight * kThreads) {
        VectorOf<T> loaded[kInFlight];
#pragma unroll
        for (int k = 0; k < kInFlight; ++k) {
          const int v = base + k * kThreads + threadIdx.x;
          if (v < vectors) loaded[k].v = load_input_vector(reinterpret_cast<const uint4*>(in_vectors) + v);
        }
#pragma unroll
        for (int k = 0; k < kInFlight; ++k) {
          const int v = base + k * kThreads + threadIdx.x;
          if (v >= vectors) continue;
#pragma unroll
          for (int t = 0; t < V; ++t) staging[staged_index<T>(in_first + v * V + t)] = loaded[k].e[t];
        }
      }
      for (int k = threadIdx.x; k < in_first + span - in_tail; k += kThreads) {
        const int e = k < in_first ? k : in_tail + k - in_first;
        staging[staged_index<T>(e)] = src[e];
      }
      __syncthreads();
      // The output run the same way: its whole 16-byte vectors, one per thread and step, then the
      // elements at its ends. Output element o of the chunk is (matrix b, output row j, column i),
      // read from staged element b * stride_in + i * ld_in + j.
      const int out_first = min((V - vector_head(dst)) % V, count);
      const int out_vectors = (count - out_first) / V, out_tail = out_first + out_vectors * V;
      T* out_vectors_start = dst + out_first;
      for (int v = threadIdx.x; v < out_vectors; v += kThreads) {
        const int o = out_first + v * V;
        int b = o / matrix;
        const int r = o - b * matrix;
        int j = r / rows, i = r - j * rows;
        int source = b * stride_in + i * ld_in + j;
        VectorOf<T> packed;
#pragma unroll
        for (int t = 0; t < V; ++t) {
          packed.e[t] = staging[staged_index<T>(source)];
          source += ld_in;
          if (++i == rows) {
            i = 0;
            if (++j == cols) {
              j = 0;
              ++b;
            }
            source = b * stride_in + j;
          }
        }
        reinterpret_cast<uint4*>(out_vectors_start)[v] = packed.v;
      }
      for (int k = threadIdx.x; k < out_first + (count - out_tail); k += kThreads) {
        const int o = k < out_first ? k : out_tail + k - out_first;
        const int b = o / matrix, r = o - b * matrix, j = r / rows, i = r - j * rows;
        dst[o] = staging[staged_index<T>(b * stride_in + i * ld_in + j)];
      }
      __syncthreads();
    }
  }
}

}  // namespace

// Matrices up to the whole buffer, one per block where only one fits: then too both sides are one
// contiguous run per block, which the skinny and tile kernels' strided sides are not (H100, % of
// memcpy, small_batch against the best of the others: 120 x 70 u8 94 / 79, 80 x 150 u8 91 / 86,
// 127 x 127 u8 87 / 71, 95 x 105 u8 86 / 63, 45 x 80 f32 102 / 80, 64 x 64 f16 97 / 81).
// Input rows padded apart (a slice of a wider tensor), or packed matrices padded apart (a slice
// along the rows), still make one run per chunk, padding included, where the padding is short
// (short_padding) and at most the row or matrix: the deinterleave and tile kernels took one matrix
// per block there (7 x 7 f16 rows 8 apart: 2.8% of memcpy; 138 x 7 u8 matrices 1092 bytes apart,
// H200: 16.6%). Rows and matrices both padded are not one run. Staged as they lie, padding
// included, padded chunks cost what packed ones cost (element-by-element staging, packed, held
// 1-byte batches at 24-44% of memcpy), so every batch that fits is small_batch's.
bool small_batch_fits(const detail::Transpose2D& p) {
  const int64_t matrix = p.rows * p.cols;
  if (p.batch < 2 || p.rows <= 0 || p.cols <= 0 || p.ld_out != p.rows || p.stride_out != matrix ||
      p.stride_in * p.elem_size > kStagingBytes)
    return false;
  const bool packed_rows = p.ld_in == p.cols;
  const bool packed_in = packed_rows && p.stride_in == matrix;
  const bool padded_rows = p.ld_in > p.cols && p.ld_in <= 2 * p.cols && p.stride_in == p.rows * p.ld_in &&
                           short_row_padding(p);
  const bool padded_matrices = packed_rows && p.stride_in > matrix && p.stride_in <= 2 * matrix &&
                               short_padding(p.stride_in - matrix, matrix, p.elem_size);
  return packed_in || padded_rows || padded_matrices;
}

Status launch_small_batch(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const int per_chunk = small_batch_matrices_per_chunk(p.rows, p.cols, p.elem_size, p.stride_in);
  const int rows = static_cast<int>(p.rows), cols = static_cast<int>(p.cols);
  const int ld_in = static_cast<int>(p.ld_in), stride_in = static_cast<int>(p.stride_in);
  const TransposeWalks walks =
      p.elem_size <= 2 ? remembered_transpose_walks({rows, cols, p.elem_size, per_chunk, ld_in, rows, stride_in})
                       : TransposeWalks{};
  const dim3 grid = clamped_grid(ceil_div(p.batch, per_chunk), 1, 1);
  dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    small_batch_kernel<T><<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), rows, cols,
                                                         p.batch, ld_in, stride_in, per_chunk, walks);
  });
  return gpu::check_launch("small_batch");
}

}  // namespace xpose::cuda
