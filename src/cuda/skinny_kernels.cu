// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstdint>

#include "core/permute_fast_division.hpp"
#include "cuda/device_types.cuh"
#include "cuda/skinny_kernels.hpp"
#include "cuda/transpose_walks.cuh"
#include "cuda/tuning.hpp"

namespace xpose::cuda {
namespace {

constexpr int kThreads = 256;
// Shared memory per block: the interleave's 16 KiB of staged rows (and as much again in output
// order for 1- and 2-byte elements); the deinterleave's 32 KiB for 4- to 16-byte elements, in
// chunks whose output row segments are whole 128-byte lines (docs/kernels.md v14: 4194304 x 33
// f32 from 89.7 to 93.8% of memcpy on an H100 with the old store loop, against 16 KiB chunks of
// 16-byte multiples, 480-byte segments; 89.6 -> 90.7 with v14's, on another machine), and 16 KiB
// in each order for 1- and 2-byte elements (two 32 KiB buffers exceed a block's 48 KiB of static
// shared memory).
constexpr int kInterleaveStagingBytes = 16384;
// Rows the interleave takes at most (interleave_fits: fewer than the largest tile's rows, 128 for
// u8); each staged row has spare room for its pitch (interleave_pitch, line_pitch).
constexpr int kInterleaveMaxRows = 128;
// Blocks per SM the interleave's registers must allow (4- to 16-byte elements): 5 x 256 threads.
constexpr int kInterleaveMinBlocks = 5;
constexpr int kDeinterleaveStagingBytes = 32768;
constexpr int kDeinterleaveWalkBytes = 16384;
constexpr int kLineBytes = 128;

// Copies `rows` row segments of `count` elements (global rows ld apart) to shared memory rows
// `pitch` apart. All rows at once, so that every thread has work even when segments are short.
template <typename T>
__device__ __forceinline__ void load_rows(const T* __restrict__ src, int64_t ld, T* dst, int pitch, int rows,
                                          int count, bool aligned) {
  constexpr int V = 16 / sizeof(T);
  constexpr int kBatch = 4;  // vectors in flight per thread
  if (aligned) {
    const int vectors = count / V, tail = count - vectors * V;
    const int slots = rows * vectors;
    for (int base = 0; base < slots; base += kBatch * blockDim.x) {
      uint4 loaded[kBatch];
#pragma unroll
      for (int k = 0; k < kBatch; ++k) {
        const int slot = base + k * blockDim.x + threadIdx.x, i = slot / vectors, v = slot % vectors;
        if (slot < slots) loaded[k] = load_input_vector(reinterpret_cast<const uint4*>(src + i * ld) + v);
      }
#pragma unroll
      for (int k = 0; k < kBatch; ++k) {
        const int slot = base + k * blockDim.x + threadIdx.x, i = slot / vectors, v = slot % vectors;
        if (slot < slots) vector_at(dst + i * pitch, v) = loaded[k];
      }
    }
    for (int slot = threadIdx.x; slot < rows * tail; slot += blockDim.x) {
      const int i = slot / tail, e = vectors * V + slot % tail;
      dst[i * pitch + e] = src[i * ld + e];
    }
  } else {
    for (int slot = threadIdx.x; slot < rows * count; slot += blockDim.x) {
      const int i = slot / count, e = slot % count;
      dst[i * pitch + e] = src[i * ld + e];
    }
  }
}

// Where a row segment of the input starts within its 16-byte vector, in elements: `base_mod` is
// the segment of row 0's address mod 16, `ld_mod` the leading dimension's bytes mod 16.
template <typename T>
__device__ __forceinline__ int row_head(int base_mod, int ld_mod, int i) {
  return ((base_mod + i * ld_mod) & 15) / static_cast<int>(sizeof(T));
}

// Vectors of the aligned grid per row that load_shifted_rows walks for segments of `count`
// elements: enough for every whole one, whatever the segment's head.
template <typename T>
__device__ __forceinline__ int shifted_row_vectors(int count) {
  return count / (16 / static_cast<int>(sizeof(T))) + 1;
}

// Copies `rows` row segments of `count` elements (global rows ld apart, anywhere) to shared memory
// rows `pitch` apart (with one vector to spare), each row shifted by its head (row_head) so that
// the global and the shared 16-byte vectors line up: element e of row i lies at
// dst[i * pitch + head_i + e]. Every vector of the aligned grid that lies inside a segment is
// loaded whole, whatever the leading dimension, all rows at once so that every thread has work
// even when segments are short; then the partial ones at the segments' ends element by element
// (never outside a segment), one element per thread, so that no warp waits on a few lanes' element
// loops. With element loads for rows off 16 bytes, 12 x 10612 u8 batches ran at 23% of memcpy on
// an H100; with the ends' element loops inside the vector walk, interleave u8 views took about 8
// instructions per byte more. `vectors` divides slots by shifted_row_vectors<T>(count).
template <typename T>
__device__ __forceinline__ void load_shifted_rows(const T* __restrict__ src, int64_t ld, T* dst, int pitch,
                                                  int rows, int count, const detail::TileDivisor& vectors) {
  constexpr int V = 16 / sizeof(T);
  constexpr int kBatch = 3;  // vectors in flight per thread (4 spill at kInterleaveMinBlocks' 48 registers)
  const int base_mod = static_cast<int>(reinterpret_cast<uintptr_t>(src) & 15);
  const int ld_mod = static_cast<int>((ld * static_cast<int64_t>(sizeof(T))) & 15);
  const int per_row = vectors.divisor();
  const int slots = rows * per_row;  // below 2^16 (kInterleaveMaxRows rows of 16 KiB in all)
  for (int base = 0; base < slots; base += kBatch * blockDim.x) {
    uint4 loaded[kBatch];
    int row[kBatch], start[kBatch];  // the slot's row and its vector's first element
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int slot = base + k * blockDim.x + threadIdx.x;
      const int v = vectors.divide_remainder(slot, &row[k]);
      start[k] = v * V - row_head<T>(base_mod, ld_mod, row[k]);
      if (slot < slots && start[k] >= 0 && start[k] + V <= count)
        loaded[k] = load_input_vector(src + row[k] * ld + start[k]);
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int slot = base + k * blockDim.x + threadIdx.x;
      if (slot < slots && start[k] >= 0 && start[k] + V <= count)
        vector_at(dst + row[k] * pitch, slot - row[k] * per_row) = loaded[k];
    }
  }
  // The ends: per row, slots 0..V-1 are the elements before its first whole vector (`lead` of
  // them), slots V..2V-1 those after its last.
  for (int slot = threadIdx.x; slot < rows * 2 * V; slot += blockDim.x) {
    const int i = slot / (2 * V), t = slot % (2 * V);
    const int head = row_head<T>(base_mod, ld_mod, i);
    const int lead = (V - head) & (V - 1);
    const int tail_start = count <= lead ? count : lead + (count - lead) / V * V;
    const int e = t < V ? (t < lead ? t : count) : tail_start + (t - V);
    if (e < count) dst[i * pitch + head + e] = src[i * ld + e];
  }
}

// The elements a deinterleave chunk stages: its `rows` input rows of `cols` elements, `ld_in` apart,
// as one run from the first row's start to the last row's end.
__device__ __forceinline__ int staged_span(int rows, int cols, int ld_in) { return (rows - 1) * ld_in + cols; }

// Deinterleave reads the staged run with a stride of `ld_in` elements, which would hit few banks;
// one element of padding every 32 spreads those reads (the buffer keeps room for it).
__device__ __forceinline__ int skewed(int e) { return e + e / 32; }

// Elements from one staged interleave row to the next (4- to 16-byte elements): the chunk's n
// rounded up to whole vectors (a whole matrix's n may be any), and one vector to spare for the
// row's shift where rows start anywhere (load_shifted_rows).
template <typename T, bool AnyAlignment>
__device__ __forceinline__ int interleave_pitch(int n) {
  constexpr int V = 16 / sizeof(T);
  return (n + V - 1) / V * V + (AnyAlignment ? V : 0);
}

// Interleave: block = `n` input columns x all `rows` rows; out run = n * rows elements.
//
// 4- to 16-byte elements (interleave_kernel): shared memory holds the rows one after the other,
// interleave_pitch apart, each shifted by its head where rows start anywhere (load_shifted_rows);
// each thread gathers one 16-byte output vector from the staged rows. Two instantiations, so that
// the aligned one keeps its registers and shared memory.
//
// 1- and 2-byte elements (interleave_walks_kernel): the rows are staged at line_pitch (stage_lines)
// and the transpose step (TransposeWalks) copies them into a second buffer in output order, whose
// run is stored as whole vectors. A gather took about 37 instructions per byte (u8, ncu, H100) and
// held these views at 40-55% of memcpy with the issue slots full; a transpose step with a thread
// per row and columns a block's width apart still took about 15 (58 x 282 u8 batches, issue 70%
// busy).
template <typename T, bool AnyAlignment>
__global__ void __launch_bounds__(kThreads, kInterleaveMinBlocks)
    interleave_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m, int n, bool in_aligned,
                      bool out_aligned) {
  constexpr int V = 16 / sizeof(T);
  constexpr int kSpareBytes = 16 + (AnyAlignment ? 16 : 0);  // interleave_pitch
  __shared__ __align__(16) T staging[(kInterleaveStagingBytes + kInterleaveMaxRows * kSpareBytes) / sizeof(T)];
  const int rows = static_cast<int>(m.rows);
  const int pitch = interleave_pitch<T, AnyAlignment>(n);
  const int ld_mod = AnyAlignment ? static_cast<int>((m.ld_in * static_cast<int64_t>(sizeof(T))) & 15) : 0;
  const detail::TileDivisor full_chunk_vectors(AnyAlignment ? shifted_row_vectors<T>(n) : 1);
  const int64_t chunks = ceil_div(m.cols, n);
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (int64_t chunk = blockIdx.x + int64_t(blockIdx.y) * gridDim.x; chunk < chunks;
         chunk += int64_t(gridDim.x) * gridDim.y) {
      const int64_t j0 = chunk * n;
      const int cols_here = static_cast<int>(m.cols - j0 < n ? m.cols - j0 : n);
      const T* segment = in + b * m.stride_in + j0;
      const int base_mod = AnyAlignment ? static_cast<int>(reinterpret_cast<uintptr_t>(segment) & 15) : 0;
      if constexpr (AnyAlignment) {
        const detail::TileDivisor vectors =
            cols_here == n ? full_chunk_vectors : detail::TileDivisor(shifted_row_vectors<T>(cols_here));
        load_shifted_rows(segment, m.ld_in, staging, pitch, rows, cols_here, vectors);
      } else {
        load_rows(segment, m.ld_in, staging, pitch, rows, cols_here, in_aligned);
      }
      __syncthreads();
      // out run element e is (column j0 + e / rows, row e % rows). The run is stored as the
      // 16-byte vectors of the aligned grid: vector v holds elements v * V - head .. + V, where
      // `head` is the run's offset in its first vector; the partial ones at the run's two ends
      // element by element. (Element stores for runs off 16 bytes held 15 x 1149 u8 batches at
      // 16% of memcpy on an H100.)
      T* run = out + b * m.stride_out + j0 * rows;
      const int count = cols_here * rows;
      const int head = out_aligned ? 0 : static_cast<int>((reinterpret_cast<uintptr_t>(run) & 15) / sizeof(T));
      for (int v = threadIdx.x; v * V - head < count; v += blockDim.x) {
        const int first = v * V - head;  // the vector's first element in the run (negative: before it)
        const int from = first < 0 ? 0 : first;
        int j = from / rows, i = from % rows;
        VectorOf<T> packed;
#pragma unroll
        for (int t = 0; t < V; ++t) {
          if (first + t < 0) continue;
          packed.e[t] = j < cols_here ? staging[i * pitch + row_head<T>(base_mod, ld_mod, i) + j] : T{};
          if (++i == rows) i = 0, ++j;
        }
        if (first >= 0 && first + V <= count) {
          vector_at(run - head, v) = packed.v;  // run - head: the run's first vector
        } else {
          for (int t = 0; t < V; ++t)
            if (first + t >= 0 && first + t < count) run[first + t] = packed.e[t];
        }
      }
      __syncthreads();
    }
}

// One chunk shape's transpose step (1- and 2-byte elements): its walks, and the vectors each of
// its strided lines (interleave: input rows; deinterleave: output rows) touches at most, as a
// divisor (line_slot).
struct ChunkStep {
  TransposeWalks walks;
  detail::TileDivisor line_vectors;
};
// A launch's two chunk shapes: whole chunks and the last of each matrix (its remainder), read in
// place as a __grid_constant__ parameter (selecting one by value spilled to the stack).
struct ChunkSteps {
  ChunkStep whole, last;
};

template <typename T>
__global__ void __launch_bounds__(kThreads, kTransposeStepMinBlocks)
    interleave_walks_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m, int n, int pitch,
                            const __grid_constant__ ChunkSteps steps) {
  constexpr int V = 16 / sizeof(T);
  // line_pitch adds at most V - 1 elements per row, the heads V - 1 more.
  __shared__ __align__(16) T staging[kInterleaveStagingBytes / sizeof(T) + kInterleaveMaxRows * (V - 1) + V];
  __shared__ __align__(16) T transposed[kInterleaveStagingBytes / sizeof(T) + V];
  const int rows = static_cast<int>(m.rows);
  const int64_t chunks = ceil_div(m.cols, n);
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (int64_t chunk = blockIdx.x + int64_t(blockIdx.y) * gridDim.x; chunk < chunks;
         chunk += int64_t(gridDim.x) * gridDim.y) {
      const int64_t j0 = chunk * n;
      const int cols_here = static_cast<int>(m.cols - j0 < n ? m.cols - j0 : n);
      const ChunkStep& step = cols_here == n ? steps.whole : steps.last;
      const T* segment = in + b * m.stride_in + j0;
      T* run = out + b * m.stride_out + j0 * rows;
      stage_lines(segment, m.ld_in, staging, pitch, rows, cols_here, step.line_vectors);
      __syncthreads();
      transpose_by_walks(staging + vector_head(segment), transposed + vector_head(run), step.walks, 1);
      __syncthreads();
      store_run(transposed, run, cols_here * rows);
      // No barrier here: the next chunk's loads write only `staging`, which the transpose step has
      // finished reading, and `transposed` is written again only after the next barrier.
    }
}

// Deinterleave: block = `n` input rows x all `cols` columns; the input run is the rows' span,
// staged as it lies (staged_span: the short padding between padded rows too, deinterleave_fits).
// Each output row c gets the chunk's elements i0 .. i0 + rows_here (input rows), read from the
// staging at stride `ld_in`, and is stored as the aligned 16-byte vectors of
// that row: they start `head` elements before i0 (the output row's misalignment there), inner
// vectors are stored whole and the two at the segment's ends element by element, so odd leading
// dimensions keep vector stores (they took one store per element before: 2684354 x 100 u8 12%,
// 2796202 x 48 f32 74% of memcpy on an H100).
//
// 4- to 16-byte elements (deinterleave_kernel): the staging is skewed by one element in 32 (the
// column reads, lanes V rows apart, would meet few banks), loaded element by element; lanes take
// one output row's vectors. 4-byte elements with an odd staging pitch (`ld_in`) take rows_xored
// instead (v18b).
// H100, % of memcpy, against 9f6f59d in the same run (docs/kernels.md v14): f32 x 33 89.7 -> 91.8,
// odd rows 81.5 -> 90.0, x 2 100.3 -> 99.7, x 8 98.2 -> 96.5 (and then the loads of load_staged,
// all in flight: x 33 -> 94.9, x 8 -> 98.2, x 2 -> 100.7).
//
// 1- and 2-byte elements (deinterleave_walks_kernel): the run is staged as whole vectors, the
// transpose step (TransposeWalks) copies it into a second buffer whose rows are the output rows
// at line_pitch, and those are stored as whole vectors. Reading 8-16 staged elements per output
// vector (4 output rows side by side per warp, chunks swizzled) took 0.53 warp instructions per
// byte with 79% of the shared-memory wavefronts conflicted (ncu, 17407597 x 36 u8, H100) and
// held u8 views at 50-57% of memcpy.

// Element e of a staged run of 4-byte elements with an odd pitch: its place in its row of 32 words
// XORed with the row's index mod 4. The load phase's lanes hold 4 consecutive elements (words 4
// apart: 8 lanes per row, 4 rows per warp instruction), which the XOR sends to distinct banks; the
// store phase's lanes read words 4 * ld_in apart, which for an odd pitch meet more banks than
// with the skew. Shared-memory wavefronts per warp read, modelled for 256 threads (skew -> XOR; averages,
// docs/design/gpu-tuning-notes.md section 7): x 3 2.01 -> 1.06, x 5 2.12 -> 1.12, x 17
// 1.98 -> 1.18, x 31 8.0 -> 1.0, x 33 2.0 -> 1.41, x 47 2.31 -> 1.58; loads 1.0 either way. For
// an even pitch the XOR is worse (x 8: 8.0, x 32: 32.0). H100 (docs/kernels.md v18b, us, two rounds):
// 4194304 x 31 365.8-365.9 -> 359.4-359.6 (94.5 -> 96.2% of memcpy), 2796203 x 47 412.4-412.5 ->
// 407.4-407.7, 16777216 x 5 230.6 -> 229.7-229.8, 4194304 x 33 388.9-389.0 -> 388.3-388.4, 8388607
// x 17 unchanged, 33554431 x 3 273.6-273.7 -> 274.0-274.1 (0.16% slower).
__device__ __forceinline__ int rows_xored(int e) { return (e & ~31) | ((e & 31) ^ ((e >> 5) & 3)); }

// Where staged element e lies: skewed by one element in 32, or rows_xored for 4-byte elements
// with an odd pitch (`ld_in`: `cols` where rows are packed).
template <typename T>
struct DeinterleaveLayout {
  bool even_pitch;
  __device__ __forceinline__ int index(int e) const {
    if (sizeof(T) == 4 && !even_pitch) return rows_xored(e);
    return skewed(e);
  }
};

// The run of `count` elements into the staging as the layout places them, element e at
// layout.index(head + e), head = vector_head(src) (0 where runs start on 16 bytes): 16-byte vectors
// of the aligned grid that lie inside the run are loaded whole, several in flight per thread,
// whatever the run's alignment, and staged element by element at the places of the aligned
// loop; the partial ones at its ends element by element (never outside the run). Element loads
// for runs off 16 bytes held 1345 x 7 f16 batches at 32% of memcpy on an H100; staging at
// layout.index(e) instead of head + e (a vector's elements then fall anywhere in the layout's
// rows of 32) took 90 registers against the aligned loop's 63, and batches whose runs start off
// 16 bytes ran at 71-82% against 99-105% one row longer (3225 x 3 f32, 7635 x 2 f32, 499 x 5 f64).
template <typename T, bool AnyAlignment>
__device__ __forceinline__ void load_staged(const T* __restrict__ src, T* dst, int count,
                                            DeinterleaveLayout<T> layout) {
  constexpr int V = 16 / sizeof(T);
  // Vectors in flight per thread: 8 take all of a 32 KiB chunk's loads in one round trip (ncu,
  // 4194304 x 33 f32 with 4: long-scoreboard stalls first; with 8, 91.7 -> 94.9% of memcpy,
  // 16777216 x 8 96.7 -> 98.2, f64 x 33 90.1 -> 91.9, H100); 16-byte elements keep 4 (c128 x 31
  // 93.4 -> 92.2 with 8).
  constexpr int kBatch = sizeof(T) < 16 ? 8 : 4;
  // The whole vectors, then the elements before the first (head > 0) and after the last, one per
  // thread. Runs known to start on 16 bytes (not AnyAlignment) fold the head's arithmetic away.
  // `lead`: the elements before the first whole vector.
  const int head = AnyAlignment ? vector_head(src) : 0;
  const int lead = AnyAlignment ? min((V - head) % V, count) : 0;
  const int wholes = (count - lead) / V, tail = lead + wholes * V;
  const int whole_offset = head + lead;  // the first whole vector's place in the staging: 0 or V
  const uint4* whole = reinterpret_cast<const uint4*>(src + lead);
  for (int base = 0; base < wholes; base += kBatch * blockDim.x) {
    VectorOf<T> loaded[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int w = base + k * blockDim.x + threadIdx.x;
      if (w < wholes) loaded[k].v = load_input_vector(whole + w);
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int w = base + k * blockDim.x + threadIdx.x;
      if (w >= wholes) continue;
#pragma unroll
      for (int t = 0; t < V; ++t) dst[layout.index(whole_offset + w * V + t)] = loaded[k].e[t];
    }
  }
  for (int k = threadIdx.x; k < lead + count - tail; k += blockDim.x) {
    const int e = k < lead ? k : tail + (k - lead);
    dst[layout.index(head + e)] = src[e];
  }
}

// The deinterleave's stores for one chunk: output rows c = 0..cols-1, each the segment of
// rows_here elements at segment + c * ld_out, from staged element head + i * ld_in + c (head: the
// run's place in its first vector, load_staged). Aligned: every
// output row is 16-byte aligned at its segment's start (no head, no spare vector: the general
// arithmetic cost f32 views of 2 to 17 columns 2-3 points).
template <typename T, bool Aligned>
__device__ __forceinline__ void store_segments(const T* staging, int head_in, T* segment, int64_t ld_out, int cols,
                                               int ld_in, int rows_here, DeinterleaveLayout<T> layout) {
  constexpr int V = 16 / sizeof(T);
  // One more vector per row than the segment's length needs where rows are misaligned.
  const int vectors_per_row = rows_here / V + (rows_here % V != 0) + !Aligned;
  for (int slot = threadIdx.x; slot < cols * vectors_per_row; slot += blockDim.x) {
    const int c = slot / vectors_per_row, v = slot % vectors_per_row;
    T* row = segment + c * ld_out;
    const int head = Aligned ? 0 : vector_head(row);
    const int first = v * V - head;  // the vector's first element, from the segment's start
    if (!Aligned && (first >= rows_here || first + V <= 0)) continue;
    VectorOf<T> packed;
#pragma unroll
    for (int t = 0; t < V; ++t) {
      const int i = first + t;
      packed.e[t] = (Aligned || i >= 0) && i < rows_here ? staging[layout.index(head_in + i * ld_in + c)] : T{};
    }
    if ((Aligned || first >= 0) && first + V <= rows_here) {
      vector_at(row - head, v) = packed.v;
    } else {
#pragma unroll
      for (int t = 0; t < V; ++t)
        if ((Aligned || first + t >= 0) && first + t < rows_here) row[first + t] = packed.e[t];
    }
  }
}

template <typename T, bool AnyAlignment>
__global__ void __launch_bounds__(kThreads)
    deinterleave_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m, int n, bool out_aligned) {
  // deinterleave_chunk leaves room for the skew; the run's head (AnyAlignment) takes up to a
  // vector more, which the skew may move one element further.
  __shared__ __align__(16) T staging[kDeinterleaveStagingBytes / sizeof(T) + (AnyAlignment ? 16 / sizeof(T) + 1 : 0)];
  const int cols = static_cast<int>(m.cols), ld_in = static_cast<int>(m.ld_in);
  const DeinterleaveLayout<T> layout{ld_in % 2 == 0};
  const int64_t chunks = ceil_div(m.rows, n);
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (int64_t chunk = blockIdx.x + int64_t(blockIdx.y) * gridDim.x; chunk < chunks;
         chunk += int64_t(gridDim.x) * gridDim.y) {
      const int64_t i0 = chunk * n;
      const int rows_here = static_cast<int>(m.rows - i0 < n ? m.rows - i0 : n);
      const T* run = in + b * m.stride_in + i0 * ld_in;
      const int head = AnyAlignment ? vector_head(run) : 0;
      load_staged<T, AnyAlignment>(run, staging, staged_span(rows_here, cols, ld_in), layout);
      __syncthreads();
      T* segment = out + b * m.stride_out + i0;
      if (out_aligned)
        store_segments<T, true>(staging, head, segment, m.ld_out, cols, ld_in, rows_here, layout);
      else
        store_segments<T, false>(staging, head, segment, m.ld_out, cols, ld_in, rows_here, layout);
      __syncthreads();
    }
}

// kTransposeStepMinBlocks, but 5 for 2-byte elements, whose kernel spills at 6's 40 registers.
constexpr int deinterleave_walks_min_blocks(size_t size) { return size == 1 ? kTransposeStepMinBlocks : 5; }

template <typename T>
__global__ void __launch_bounds__(kThreads, deinterleave_walks_min_blocks(sizeof(T)))
    deinterleave_walks_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m, int n, int pitch,
                              const __grid_constant__ ChunkSteps steps) {
  constexpr int V = 16 / sizeof(T);
  // deinterleave_walk_chunk leaves room for line_pitch and the heads.
  __shared__ __align__(16) T staging[kDeinterleaveWalkBytes / sizeof(T) + V];
  __shared__ __align__(16) T transposed[kDeinterleaveWalkBytes / sizeof(T) + V];
  const int cols = static_cast<int>(m.cols), ld_in = static_cast<int>(m.ld_in);
  const int64_t chunks = ceil_div(m.rows, n);
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (int64_t chunk = blockIdx.x + int64_t(blockIdx.y) * gridDim.x; chunk < chunks;
         chunk += int64_t(gridDim.x) * gridDim.y) {
      const int64_t i0 = chunk * n;
      const int rows_here = static_cast<int>(m.rows - i0 < n ? m.rows - i0 : n);
      const ChunkStep& step = rows_here == n ? steps.whole : steps.last;
      const T* run = in + b * m.stride_in + i0 * ld_in;
      T* segment = out + b * m.stride_out + i0;
      stage_run(run, staging, staged_span(rows_here, cols, ld_in));
      __syncthreads();
      transpose_by_walks(staging + vector_head(run), transposed + vector_head(segment), step.walks, 1);
      __syncthreads();
      store_lines(transposed, segment, m.ld_out, pitch, cols, rows_here, step.line_vectors);
      // No barrier here: the next chunk's loads write only `staging`, which the transpose step has
      // finished reading, and `transposed` is written again only after the next barrier.
    }
}

// Interleave columns per chunk that fill the staging buffer, a multiple of the vector width.
int most_chunk_columns(int64_t rows, int size) {
  const int per_vector = 16 / size;
  const int64_t n = kInterleaveStagingBytes / size / rows;
  return static_cast<int>(n / per_vector * per_vector);
}

// Interleave columns per chunk: the whole matrix where it fits the staging buffer (its one chunk
// starts where the matrix does: 58 x 282 u8 batches took a chunk of 272 columns and one of 10,
// which cost as much, 53 -> 71% of memcpy on an H100), else most_chunk_columns, a multiple of the
// vector width so that every chunk's output run starts on 16 bytes. (Chunks spread evenly over a
// matrix instead ran 3 x 6516 f16 batches at 80% of memcpy against 92-94%, 24 x 4062 the same.)
int chunk_length(int64_t rows, int64_t cols, int size) {
  if (cols * rows * size <= kInterleaveStagingBytes) return static_cast<int>(cols);
  return most_chunk_columns(rows, size);
}

// Deinterleave's staging holds the rows' span, at most n * ld_in elements (plus one in 32 where it
// is skewed; `ld_in` is `cols` where rows are packed): half
// the buffer where that already gives output segments of 1 KiB (few columns: 67108864 x 2 f32 96.9
// -> 98.2% of memcpy, 16777216 x 8 94.5 -> 95.2, H100), else all of it with n a multiple of a
// 128-byte line where that many rows fit. Every size keeps the skew's room, rows_xored's views
// too (measured so), though the XOR needs none: it keeps each element inside its own row of 32
// words, and the run ends at least 31 words before the buffer does.
int deinterleave_chunk(int64_t ld_in, int size) {
  const int per_vector = 16 / size;
  const int64_t half = (kDeinterleaveStagingBytes / 2 / size) * 32 / 33 / ld_in;
  if (half * size >= 1024) return static_cast<int>(half / per_vector * per_vector);
  const int64_t n = (kDeinterleaveStagingBytes / size) * 32 / 33 / ld_in;
  const int round = n >= kLineBytes / size ? kLineBytes / size : per_vector;
  return static_cast<int>(n / round * round);
}

// Deinterleave rows per chunk for 1- and 2-byte elements: as many as fit the walk buffers, the
// staged span (n x ld_in elements at most) and the output rows at line_pitch (cols x (n + V - 1)),
// a multiple of a 128-byte line where that leaves less than an eighth unused, else of a vector.
int deinterleave_walk_chunk(int64_t ld_in, int size) {
  const int per_vector = 16 / size;
  const int64_t n = kDeinterleaveWalkBytes / size / ld_in - (per_vector - 1);
  const int round = n >= 8 * kLineBytes / size ? kLineBytes / size : per_vector;
  return static_cast<int>(n / round * round);
}

// The transpose step of chunks of rows x cols elements of `size` bytes (1 or 2) whose strided
// lines have `line_length` elements.
ChunkStep chunk_step(int rows, int cols, int size, int from_pitch, int to_pitch, int line_length) {
  return {remembered_transpose_walks({rows, cols, size, 1, from_pitch, to_pitch, rows * from_pitch}),
          detail::TileDivisor(line_length / (16 / size) + 2)};
}

// The large tile of the tile kernel's aligned views (8-byte elements: the element form's square
// shape, which the interleave and deinterleave cut-overs were measured against).
int tile_rows_for(int size) {
  switch (size) {
    case 1: return TileTuning<1, false>::kRows;
    case 2: return TileTuning<2, false>::kRows;
    case 4: return TileTuning<4, false>::kRows;
    case 8: return ElementTileTuning<ElementShape::square>::kRows;
    default: return TileTuning<16, false>::kRows;
  }
}

int tile_cols_for(int size) {
  switch (size) {
    case 1: return TileTuning<1, false>::kCols;
    case 2: return TileTuning<2, false>::kCols;
    case 4: return TileTuning<4, false>::kCols;
    case 8: return ElementTileTuning<ElementShape::square>::kCols;
    default: return TileTuning<16, false>::kCols;
  }
}

dim3 chunk_grid(int64_t chunks, int64_t batch) {
  // Chunks spread over x and y so that any count fits the launch limits.
  const int64_t x = chunks < kMaxGridYZ ? chunks : kMaxGridYZ;
  return clamped_grid(x, ceil_div(chunks, x), batch);
}

}  // namespace

bool interleave_fits(const detail::Transpose2D& p) {
  return p.rows > 0 && p.cols > 0 && p.rows < tile_rows_for(p.elem_size) && p.rows <= kInterleaveMaxRows &&
         p.ld_out == p.rows &&
         most_chunk_columns(p.rows, p.elem_size) >= 16 / p.elem_size;
}

// Whether the deinterleave may stage the span of a chunk's input rows, padding included: where the
// padding between rows is under one 32-byte sector (the rows' own loads fetch most of those sectors
// anyway) or at most a quarter of a row. Then a padded view reads as a packed one, with vectors.
bool short_padding(int64_t padding, int64_t run, int elem_size) {
  return padding * elem_size < 32 || 4 * padding <= run;
}

bool short_row_padding(const detail::Transpose2D& p) { return short_padding(p.ld_in - p.cols, p.cols, p.elem_size); }

bool deinterleave_fits(const detail::Transpose2D& p) {
  if (p.rows <= 0 || p.cols <= 0 || p.cols >= tile_cols_for(p.elem_size) || !short_row_padding(p)) return false;
  const int n =
      p.elem_size <= 2 ? deinterleave_walk_chunk(p.ld_in, p.elem_size) : deinterleave_chunk(p.ld_in, p.elem_size);
  return n >= 16 / p.elem_size;
}

// Against the tile kernel (H100 sweeps of column and row counts, docs/kernels.md): the 1- and
// 2-byte deinterleave wins while a chunk writes each output row a segment of at least 160 bytes
// (u8 x 92, 160-byte segments: 89 against the tile's 78% of memcpy; u8 x 96, 152 bytes: 78 against
// 46 but x 100, 144 bytes: 76 against 81; f16 x 92 / x 96: 96 / 74 against 77 / 79) or whole
// packed matrices (77 x 64 f16 batches: 86 against 40); the 1-byte interleave while it reads
// segments of at least 224 bytes of each input row (u8 72 rows: 75 against 64; 80 rows, 192
// bytes: 67 against 77) or whole packed matrices. Other sizes: deinterleave_max_cols.
bool deinterleave_preferred(const detail::Transpose2D& p) {
  if (!deinterleave_fits(p)) return false;
  if (p.elem_size > 2) return p.cols <= deinterleave_max_cols(p.elem_size);
  const int64_t n = deinterleave_walk_chunk(p.ld_in, p.elem_size);
  return (n >= p.rows && p.ld_out == p.rows) || n * p.elem_size >= 160;
}

bool interleave_preferred(const detail::Transpose2D& p) {
  if (!interleave_fits(p)) return false;
  if (p.elem_size > 2) return true;
  const int64_t n = chunk_length(p.rows, p.cols, p.elem_size);
  return (n == p.cols && p.ld_in == p.cols) || n * p.elem_size >= 224;
}

Status launch_interleave(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const int n = chunk_length(p.rows, p.cols, p.elem_size);
  const dim3 grid = chunk_grid(ceil_div(p.cols, n), p.batch);
  const bool in_aligned = input_rows_start_on(16, in, p);
  // Every later chunk starts n * rows elements further, a multiple of 16 bytes since n then is.
  const bool out_aligned = rows_start_on(16, out, 0, p.batch > 1 ? p.stride_out : 0, p.elem_size);
  dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    if constexpr (sizeof(T) <= 2) {
      const int rows = static_cast<int>(p.rows), last = static_cast<int>(p.cols - (ceil_div(p.cols, n) - 1) * n);
      const int pitch = line_pitch(n, p.ld_in, p.elem_size);
      interleave_walks_kernel<T><<<grid, kThreads, 0, stream>>>(
          static_cast<const T*>(in), static_cast<T*>(out), view_of(p), n, pitch,
          ChunkSteps{chunk_step(rows, n, p.elem_size, pitch, rows, n),
                     chunk_step(rows, last, p.elem_size, pitch, rows, last)});
    } else {
      const auto kernel = in_aligned ? interleave_kernel<T, false> : interleave_kernel<T, true>;
      kernel<<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), view_of(p), n,
                                            in_aligned, out_aligned);
    }
  });
  return gpu::check_launch("interleave");
}

Status launch_deinterleave(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const int ld_in = static_cast<int>(p.ld_in);
  if (p.elem_size <= 2) {
    const int n = static_cast<int>(std::min<int64_t>(deinterleave_walk_chunk(ld_in, p.elem_size), p.rows));
    const int cols = static_cast<int>(p.cols), last = static_cast<int>(p.rows - (ceil_div(p.rows, n) - 1) * n);
    const dim3 grid = chunk_grid(ceil_div(p.rows, n), p.batch);
    dispatch_size(p.elem_size, [&](auto size) {
      using T = typename Element<decltype(size)::value>::type;
      if constexpr (sizeof(T) <= 2) {
        const int pitch = line_pitch(n, p.ld_out, p.elem_size);
        deinterleave_walks_kernel<T><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(in), static_cast<T*>(out), view_of(p), n, pitch,
            ChunkSteps{chunk_step(n, cols, p.elem_size, ld_in, pitch, n),
                       chunk_step(last, cols, p.elem_size, ld_in, pitch, last)});
      }
    });
    return gpu::check_launch("deinterleave");
  }
  const int n = deinterleave_chunk(ld_in, p.elem_size);
  const dim3 grid = chunk_grid(ceil_div(p.rows, n), p.batch);
  // Every chunk starts n * ld_in elements further, a multiple of 16 bytes since n is.
  const bool in_aligned = rows_start_on(16, in, 0, p.batch > 1 ? p.stride_in : 0, p.elem_size);
  const bool out_aligned = output_rows_start_on(16, out, p);
  dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    if constexpr (sizeof(T) >= 4) {
      const auto kernel = in_aligned ? deinterleave_kernel<T, false> : deinterleave_kernel<T, true>;
      kernel<<<grid, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out), view_of(p), n,
                                            out_aligned);
    }
  });
  return gpu::check_launch("deinterleave");
}

}  // namespace xpose::cuda
