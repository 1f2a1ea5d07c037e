// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <cstdint>

#include "core/permute_fast_division.hpp"
#include "cuda/device_types.cuh"
#include "cuda/small_batch_kernel.hpp"

namespace xpose::cuda {
namespace {

constexpr int kThreads = 256;
// The staging buffer of a block: 16 KiB of matrices (1- and 2-byte elements: as much again for
// the transpose step's output). With 6-8 blocks per SM that is 96-128 KiB of loads in flight per
// SM, well above the ~40 KiB an H100 needs to cover DRAM latency.
constexpr int kStagingBytes = 16384;
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

// The transpose step's walks (1- and 2-byte elements): each thread copies runs of elements from
// the staging (input order) to a second buffer in output order, `from_step` and `to_step` apart,
// with no index arithmetic per element. A matrix has `lines` lines of `length` elements: along its
// input rows (rows lines of cols: reads step 1, writes step rows) or down its input columns (cols
// lines of rows: reads step cols, writes step 1). A line is cut into segments of `segment`
// elements (the last may be shorter); a walk is one segment of `group` consecutive lines (1, or
// all of a matrix's lines, unrotated, when its walks would be a few elements: tiny matrices). Line p of
// matrix b starts at b * matrix + p * from_start (staging) and b * matrix + p * to_start (output
// order). Each lane
// starts its segment `rotation` x lane elements in (mod the segment's length) and wraps around,
// so that lanes whose walks are a multiple of 32 words apart meet different banks. choose_walks
// picks the direction, the segment and the rotation from a model of the warp's accesses.
struct Walks {
  detail::TileDivisor groups, segments;  // groups of lines per matrix; segments per line
  int group, length, segment, from_start, to_start, from_step, to_step, rotation;
};

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
// 1- and 2-byte elements: the transpose step (Walks) copies the staged matrices into a second
// buffer in output order, whose run is then stored as whole vectors. Gathering their 8-16
// elements per output vector with per-element index updates took about 1 warp instruction per
// byte (ncu, 14 x 24 u8, H100: issue slots 79% busy, 76 registers) and held u8 batches at 45-61%
// of memcpy.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    small_batch_kernel(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int64_t batch,
                       int per_chunk, bool in_aligned, bool out_aligned, Walks walks) {
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
        int group_of_all, b;
        const int g = walks.groups.divide_remainder(w, &group_of_all);
        const int segment = walks.segments.divide_remainder(group_of_all, &b);
        const int first = segment * walks.segment;
        const int n = min(walks.segment, walks.length - first);
        int from = in_head + b * matrix + g * walks.group * walks.from_start + first * walks.from_step;
        int to = out_head + b * matrix + g * walks.group * walks.to_start + first * walks.to_step;
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

namespace {

// Shared-memory wavefronts of one warp instruction whose lanes access these byte addresses: the
// most distinct 4-byte words that fall in one bank (lanes that share a word share its wavefront).
int wavefronts(const int64_t (&address)[32]) {
  int64_t words[32][32];  // per bank, the distinct words met so far
  int distinct[32] = {}, most = 0;
  for (int64_t a : address) {
    const int64_t word = a / 4;
    const int bank = static_cast<int>(word % 32);
    bool seen = false;
    for (int k = 0; k < distinct[bank]; ++k) seen = seen || words[bank][k] == word;
    if (!seen) words[bank][distinct[bank]++] = word, most = std::max(most, distinct[bank]);
  }
  return most;
}

// The modelled cost of a transpose step, in SM cycles per 32 elements: the larger of its
// instruction issue (4 warp instructions per cycle) and its shared-memory wavefronts (one per
// cycle; the first warp's lanes over two steps of their walks), scaled up where a block's walks
// leave threads idle. Instructions per element: 5, 13 with a rotation's wrap, plus about 20 per
// line and 40 per walk (60 with a rotation), as fitted to ncu's counts on the H100 (5 x 3 u8 in
// walks of 3: 25 per element; 128 x 64 u8, rotated walks of 64: 15).
double walk_cost(const Walks& w, int64_t matrix, int elem_size, int matrices, bool* conflict_free) {
  const int groups = w.groups.divisor(), segments = w.segments.divisor();
  int64_t from_base[32], to_base[32];  // each lane's first element, before its rotation
  int length[32], rotated[32];         // each lane's segment length and starting step in it
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane % groups, segment = lane / groups % segments, b = lane / groups / segments;
    const int first = segment * w.segment;
    length[lane] = std::min(w.segment, w.length - first);
    rotated[lane] = w.rotation * lane % length[lane];
    from_base[lane] = b * matrix + int64_t{g} * w.group * w.from_start + int64_t{first} * w.from_step;
    to_base[lane] = b * matrix + int64_t{g} * w.group * w.to_start + int64_t{first} * w.to_step;
  }
  constexpr int kSteps = 2;
  int waves = 0;
  for (int k = 0; k < kSteps; ++k) {
    int64_t from[32], to[32];
    for (int lane = 0; lane < 32; ++lane) {
      const int step = (rotated[lane] + k) % length[lane];
      from[lane] = (from_base[lane] + int64_t{step} * w.from_step) * elem_size;
      to[lane] = (to_base[lane] + int64_t{step} * w.to_step) * elem_size;
    }
    waves += wavefronts(from) + wavefronts(to);
  }
  *conflict_free = waves == 2 * kSteps;
  const double per_walk = 40.0 + (w.rotation != 0 ? 20.0 : 0.0), per_line = 20.0;
  const double per_element = w.rotation != 0 ? 13.0 : 5.0;
  const double issue = (per_element + (per_walk / w.group + per_line) * segments / w.length) / 4.0;
  const int64_t items = int64_t{matrices} * groups * segments;
  const double idle = items >= kThreads ? 1.0 : static_cast<double>(kThreads) / static_cast<double>(items);
  return std::max(issue, static_cast<double>(waves) / kSteps) * idle;
}

// The transpose step's walks for matrices of `p`: the cheapest by walk_cost over both directions,
// one line or the whole matrix per walk, segments of the whole line or 8-64 elements, and lane rotations of 0-17 elements (tried only
// while the accesses still conflict).
Walks choose_walks(const detail::Transpose2D& p, int matrices) {
  const int rows = static_cast<int>(p.rows), cols = static_cast<int>(p.cols);
  const int64_t matrix = p.rows * p.cols;
  Walks best{};
  double best_cost = 0;
  for (const bool along_rows : {true, false}) {
    const int lines = along_rows ? rows : cols, length = along_rows ? cols : rows;
    for (const int group : {1, lines}) {
      for (const int segment : {length, 8, 16, 32, 64}) {
        if (segment > length || (segment != length && (segment * 2 > length || group != 1))) continue;
        for (const int rotation : {0, 1, 3, 5, 8, 17}) {
          if (rotation >= segment || (rotation != 0 && group != 1)) break;
          const int segments = static_cast<int>(ceil_div(length, segment));
          const Walks w{detail::TileDivisor(lines / group), detail::TileDivisor(segments), group, length, segment,
                        along_rows ? cols : 1, along_rows ? 1 : rows, along_rows ? 1 : cols, along_rows ? rows : 1,
                        rotation};
          bool conflict_free = false;
          const double cost = walk_cost(w, matrix, p.elem_size, matrices, &conflict_free);
          if (best_cost == 0 || cost < best_cost) best = w, best_cost = cost;
          if (conflict_free) break;  // a rotation would only add instructions
        }
      }
      if (lines == 1) break;  // group 1 is the whole matrix
    }
  }
  return best;
}

// choose_walks for the launch, remembered per host thread for the last 8 shapes it launched, so
// that a plan executed again does not pay for the model (10-150 us on this project's 2-core AMD EPYC
// build machine, the most for power-of-two sides, which try every rotation).
Walks walks_for(const detail::Transpose2D& p, int matrices) {
  struct Remembered {
    int64_t rows = -1, cols = -1;
    int elem_size = 0, matrices = 0;
    Walks walks{};
  };
  constexpr int kRemembered = 8;
  thread_local Remembered last[kRemembered];
  thread_local int next = 0;
  for (const Remembered& r : last)
    if (r.rows == p.rows && r.cols == p.cols && r.elem_size == p.elem_size && r.matrices == matrices) return r.walks;
  Remembered& slot = last[next];
  next = (next + 1) % kRemembered;
  slot = Remembered{p.rows, p.cols, p.elem_size, matrices, choose_walks(p, matrices)};
  return slot.walks;
}

}  // namespace

Status launch_small_batch(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const int per_chunk = matrices_per_chunk(p);
  const Walks walks = p.elem_size <= 2 ? walks_for(p, per_chunk) : Walks{};
  const int64_t chunk_bytes = per_chunk * matrix_bytes(p);
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
