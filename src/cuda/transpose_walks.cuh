// SPDX-License-Identifier: Apache-2.0
// The transpose step on the device: a block's threads stage its input in shared memory, copy it
// into a second buffer in output order by the walks that transpose_walks.hpp chooses, and store
// that. Global memory is read and written as the 16-byte vectors of its aligned grid, whole where
// they lie inside the data (at the ends: aligned pieces, or elements for the loads of every line):
// element e of a run (or line) that starts `head` elements into its first vector lies at head + e
// of its buffer, so that the buffers' vectors are the global ones, whatever the alignment.
#pragma once

#include <cstdint>

#include "cuda/device_types.cuh"
#include "cuda/transpose_walks.hpp"

namespace xpose::cuda {

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

// The transpose step of one block: `matrices` staged matrices from `from` (input order) to `to`
// (output order), every walk once over the block's threads.
template <typename T>
__device__ __forceinline__ void transpose_by_walks(const T* from, T* to, const TransposeWalks& walks, int matrices) {
  const int items = matrices * walks.groups.divisor() * walks.segments.divisor();
  for (int w = threadIdx.x; w < items; w += blockDim.x) {
    const WalkStart start_of = walk_start(walks, w);
    const int n = start_of.length;
    const T* walk_from = from + start_of.from;
    T* walk_to = to + start_of.to;
    if (walks.rotation != 0) {
      const int start = walks.rotation * (threadIdx.x & 31) % n;
      copy_walk(walk_from, walk_to, n, start, walks.from_step, walks.to_step);
    } else if (walks.group == 1) {
      copy_walk(walk_from, walk_to, n, walks.from_step, walks.to_step);
    } else {
      for (int line = 0; line < walks.group; ++line, walk_from += walks.from_start, walk_to += walks.to_start)
        copy_walk(walk_from, walk_to, n, walks.from_step, walks.to_step);
    }
  }
}

// Copies bytes [begin, end) of `from` to `to`, whose addresses agree modulo 16 (a global vector
// and its buffer vector), as the fewest aligned pieces of 8, 4, 2 and 1 bytes: the partial
// vectors at the ends of runs and lines. An element loop took up to 15 accesses per partial u8
// vector, each an L2 sector access of its own (ncu, 17407597 x 36 u8: 2.6 times as many L2 write
// sectors as the data). The pieces rise to the next 8-byte boundary (each step only if its piece
// fits) and then fall, one after the other: for stores, and for loads that are rare (a run's two
// ends). Loads at the ends of every line are element loads in parallel instead (stage_lines).
__device__ __forceinline__ void copy_pieces(char* to, const char* from, int begin, int end) {
  const auto copy = [&](auto piece) {
    using Piece = decltype(piece);
    *reinterpret_cast<Piece*>(to + begin) = *reinterpret_cast<const Piece*>(from + begin);
    begin += static_cast<int>(sizeof(Piece));
  };
  const int at = static_cast<int>(reinterpret_cast<uintptr_t>(from) & 15);
  if (((at + begin) & 1) != 0 && begin + 1 <= end) copy(uint8_t{});
  if (((at + begin) & 2) != 0 && begin + 2 <= end) copy(uint16_t{});
  if (((at + begin) & 4) != 0 && begin + 4 <= end) copy(uint32_t{});
  if (end - begin >= 8) copy(uint64_t{});
  if (end - begin >= 8) copy(uint64_t{});
  if (end - begin >= 4) copy(uint32_t{});
  if (end - begin >= 2) copy(uint16_t{});
  if (end - begin >= 1) copy(uint8_t{});
}

// Elements [begin, end) of the partial vector whose first element is at `to` / `from`.
template <typename T>
__device__ __forceinline__ void copy_partial_vector(T* to, const T* from, int begin, int end) {
  copy_pieces(reinterpret_cast<char*>(to), reinterpret_cast<const char*>(from), begin * static_cast<int>(sizeof(T)),
              end * static_cast<int>(sizeof(T)));
}

// A pointer's place in its 16-byte vector, in elements.
template <typename T>
__device__ __forceinline__ int vector_head(const T* p) {
  return static_cast<int>((reinterpret_cast<uintptr_t>(p) & 15) / sizeof(T));
}

// The `count` elements of a contiguous global run into staging[head + e], head = vector_head(src),
// 4 vectors in flight per thread.
template <typename T>
__device__ __forceinline__ void stage_run(const T* __restrict__ src, T* staging, int count) {
  constexpr int V = 16 / sizeof(T), kInFlight = 4;
  const int head = vector_head(src), slots = (count + head + V - 1) / V;
  for (int base = 0; base < slots; base += kInFlight * blockDim.x) {
    uint4 loaded[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const int e = (base + k * blockDim.x + threadIdx.x) * V - head;
      if (e >= 0 && e + V <= count) loaded[k] = load_input_vector(src + e);
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const int v = base + k * blockDim.x + threadIdx.x, e = v * V - head;
      if (v >= slots) continue;
      if (e >= 0 && e + V <= count) {
        reinterpret_cast<uint4*>(staging)[v] = loaded[k];
      } else {
        copy_partial_vector(staging + v * V, src + e, e < 0 ? -e : 0, e + V <= count ? V : count - e);
      }
    }
  }
}

// The `count` elements at transposed[head + e], head = vector_head(dst), to the global run dst.
template <typename T>
__device__ __forceinline__ void store_run(const T* transposed, T* __restrict__ dst, int count) {
  constexpr int V = 16 / sizeof(T);
  const int head = vector_head(dst);
  for (int v = threadIdx.x; v * V < count + head; v += blockDim.x) {
    const int e = v * V - head;
    if (e >= 0 && e + V <= count) {
      reinterpret_cast<uint4*>(dst + e)[0] = reinterpret_cast<const uint4*>(transposed)[v];
    } else {
      copy_partial_vector(dst + e, transposed + v * V, e < 0 ? -e : 0, e + V <= count ? V : count - e);
    }
  }
}

// Where slot `slot` of a block's lines lies (stage_lines, store_lines): its line r, its vector q of
// the buffer and that vector's first element in line r (negative: before the line).
// `line_vectors` divides by the slots per line, count / V + 2: enough for a line of `count`
// elements at any head.
template <typename T>
__device__ __forceinline__ int line_slot(int slot, int head, int pitch, const detail::TileDivisor& line_vectors,
                                         int* r, int* q) {
  constexpr int V = 16 / sizeof(T);
  const int v = line_vectors.divide_remainder(slot, r);
  const int start = head + *r * pitch;  // the line's first element in the buffer
  *q = start / V + v;
  return *q * V - start;
}

// `lines` global lines of `count` elements (line r at src + r * ld) into staging[head + r * pitch
// + e] (head = vector_head(src), pitch = line_pitch of the chunk's columns and ld), all lines at
// once so that every thread has work even when lines are short, 3 vectors in flight per thread;
// then the partial vectors at the lines' ends, one element per thread, so that no warp waits on a
// few lanes' element loops (inside the vector loop they took the interleave's u8 views about 8
// instructions per byte more).
template <typename T>
__device__ __forceinline__ void stage_lines(const T* __restrict__ src, int64_t ld, T* staging, int pitch, int lines,
                                            int count, const detail::TileDivisor& line_vectors) {
  constexpr int V = 16 / sizeof(T), kInFlight = 3;
  const int head = vector_head(src), slots = lines * line_vectors.divisor();
  for (int base = 0; base < slots; base += kInFlight * blockDim.x) {
    uint4 loaded[kInFlight];
    int r[kInFlight], q[kInFlight], first[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const int slot = base + k * blockDim.x + threadIdx.x;
      first[k] = line_slot<T>(slot, head, pitch, line_vectors, &r[k], &q[k]);
      if (slot < slots && first[k] >= 0 && first[k] + V <= count)
        loaded[k] = load_input_vector(src + r[k] * ld + first[k]);
    }
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      const int slot = base + k * blockDim.x + threadIdx.x;
      if (slot < slots && first[k] >= 0 && first[k] + V <= count)
        reinterpret_cast<uint4*>(staging)[q[k]] = loaded[k];
    }
  }
  // The ends: per line, slots 0..V-1 are the elements before its first whole vector (`lead` of
  // them), slots V..2V-1 those after its last. (Whole pieces per partial vector, copy_pieces, one
  // thread per end: 14 x 60029207 u8 88 -> 80% of memcpy, with their loads batched 79; element
  // loads hit L1 after the first, unlike element stores.)
  for (int slot = threadIdx.x; slot < lines * 2 * V; slot += blockDim.x) {
    const int r = slot / (2 * V), t = slot % (2 * V);
    const int start = head + r * pitch, lead = (V - start % V) % V;
    const int tail_start = count <= lead ? count : lead + (count - lead) / V * V;
    const int e = t < V ? (t < lead ? t : count) : tail_start + (t - V);
    if (e < count) staging[start + e] = src[r * ld + e];
  }
}

// The inverse of stage_lines: transposed[head + r * pitch + e] (head = vector_head(dst)) to `lines`
// global lines of `count` elements, line r at dst + r * ld. Lines here are long (a block's rows of
// a few-column view), so their partial end vectors are stored in the vector loop.
template <typename T>
__device__ __forceinline__ void store_lines(const T* transposed, T* __restrict__ dst, int64_t ld, int pitch, int lines,
                                            int count, const detail::TileDivisor& line_vectors) {
  constexpr int V = 16 / sizeof(T);
  const int head = vector_head(dst), slots = lines * line_vectors.divisor();
  for (int slot = threadIdx.x; slot < slots; slot += blockDim.x) {
    int r, q;
    const int first = line_slot<T>(slot, head, pitch, line_vectors, &r, &q);
    if (first >= count || first + V <= 0) continue;
    T* line = dst + r * ld;
    if (first >= 0 && first + V <= count) {
      *reinterpret_cast<uint4*>(line + first) = reinterpret_cast<const uint4*>(transposed)[q];
    } else {
      copy_partial_vector(line + first, transposed + q * V, first < 0 ? -first : 0,
                          first + V <= count ? V : count - first);
    }
  }
}

}  // namespace xpose::cuda
