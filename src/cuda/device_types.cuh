// SPDX-License-Identifier: Apache-2.0
// Device-side building blocks shared by the kernels: the element type of each size, the problem
// as kernels see it, and grid helpers that cover any shape within the launch limits.
#pragma once

#include <cstdint>

#include "core/problem.hpp"
#include "cuda/tile_launch.hpp"  // kDramBlock, TileWalk

namespace xpose::cuda {

// Element of `Size` bytes. Kernels move bytes, never interpret them.
template <int Size> struct Element;
template <> struct Element<1> { using type = uint8_t; };
template <> struct Element<2> { using type = uint16_t; };
template <> struct Element<4> { using type = uint32_t; };
template <> struct Element<8> { using type = unsigned long long; };
template <> struct Element<16> { using type = ulonglong2; };  // 16-byte aligned, like cuDoubleComplex

// The 2D problem in elements, passed by value to every kernel.
struct MatrixView {
  int64_t rows, cols;          // input rows x cols; output cols x rows
  int64_t ld_in, ld_out;
  int64_t batch;
  int64_t stride_in, stride_out;
};

inline MatrixView view_of(const detail::Transpose2D& p) {
  return {p.rows, p.cols, p.ld_in, p.ld_out, p.batch, p.stride_in, p.stride_out};
}

// Grid dimensions y and z are limited to 65535 and x to 2^31 - 1: kernels loop over the tiles a
// launch cannot cover directly, so the launch size is clamped here.
constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridYZ = 65535;

inline dim3 clamped_grid(int64_t x, int64_t y, int64_t z) {
  auto clamp = [](int64_t v, int64_t limit) {
    return static_cast<unsigned>(v < 1 ? 1 : (v > limit ? limit : v));
  };
  return dim3(clamp(x, kMaxGridX), clamp(y, kMaxGridYZ), clamp(z, kMaxGridYZ));
}

__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// 16 bytes seen as a vector or as its elements (T of 1 to 16 bytes).
template <typename T>
union VectorOf {
  uint4 v;
  T e[16 / sizeof(T)];
};

// Vector `index` of 16 bytes from `base`, which lies on 16 bytes. The address is computed in
// vectors: computed in elements (base + index * (16 / sizeof(T))), nvcc 13 split the 16-byte
// shared and global stores of 4- and 8-byte elements into 4- or 8-byte ones (the interleave and
// deinterleave kernels' PTX; there the f32 interleave of 33 x 4194304 ran at 89.4% of memcpy on an
// H100 where it had run at 96.5 with whole-vector stores).
template <typename T>
__device__ __forceinline__ uint4& vector_at(T* base, int index) {
  return reinterpret_cast<uint4*>(base)[index];
}



// Where a Rows x Cols tile of the input lies: tile (rt, ct) of matrix b, its first row and column,
// how much of it is inside the view (edge tiles hold fewer rows or columns), and the view's
// row tiles (so that a kernel can tell the last one).
struct TileAt {
  int64_t b, rt, ct, r0, c0, row_tiles;
  int rows_here, cols_here;
};

// The launch grid for a walk: the fast index in x, clamped by clamped_grid.
inline dim3 tile_grid(int64_t row_tiles, int64_t col_tiles, int64_t batch, TileWalk walk) {
  return walk == TileWalk::columns_fastest ? clamped_grid(col_tiles, row_tiles, batch)
                                           : clamped_grid(row_tiles, col_tiles, batch);
}

// Calls tile(TileAt) for every tile of the view this block takes, in the order Walk says, with
// the grid from tile_grid. The walk is a template parameter: as a run-time value it took the
// block and grid indices out of their special registers into general ones, and the unaligned f32
// tile kernel, at its register cap, took 7-12% longer (8191 x 8193, 12345 x 6789; docs/kernels.md
// v19).
template <int Rows, int Cols, TileWalk Walk, class F>
__device__ __forceinline__ void for_each_tile(const MatrixView& m, F&& tile) {
  const int64_t row_tiles = ceil_div(m.rows, Rows), col_tiles = ceil_div(m.cols, Cols);
  auto at = [&](int64_t b, int64_t rt, int64_t ct) {
    const int64_t r0 = rt * Rows, c0 = ct * Cols;
    const int rows_here = static_cast<int>(m.rows - r0 < Rows ? m.rows - r0 : Rows);
    const int cols_here = static_cast<int>(m.cols - c0 < Cols ? m.cols - c0 : Cols);
    return TileAt{b, rt, ct, r0, c0, row_tiles, rows_here, cols_here};
  };
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z) {
    if constexpr (Walk == TileWalk::rows_fastest) {
      for (int64_t ct = blockIdx.y; ct < col_tiles; ct += gridDim.y)
        for (int64_t rt = blockIdx.x; rt < row_tiles; rt += gridDim.x) tile(at(b, rt, ct));
    } else {
      for (int64_t rt = blockIdx.y; rt < row_tiles; rt += gridDim.y)
        for (int64_t ct = blockIdx.x; ct < col_tiles; ct += gridDim.x) tile(at(b, rt, ct));
    }
  }
}

// Read-only loads of kernel input that ask L2 to fetch the whole aligned 256-byte block around
// the address from DRAM (PTX ld.global.nc with .L2::256B). A transpose reads each input row in
// short segments (a tile's width) that start anywhere in a 256-byte block when the row stride is
// not a multiple of 256 bytes; fetched sector by sector, those segments cost DRAM throughput: with
// the same code and bytes, 8192^2 f32 with rows of 8208 elements ran at 92.8% of memcpy against
// 97.3 with 8192 (ncu: same DRAM and L2 bytes, DRAM throughput 82.8 against 85.6% of peak). With
// whole blocks fetched (the neighbouring tile finds the rest in L2): 95.9, and odd shapes 92-93 ->
// 95.7-96.5 for f32 (H100, docs/kernels.md v15). Aligned squares did not move.
// Not volatile, so the compiler schedules them like __ldg; like __ldg they read memory that no
// thread writes during the kernel, and callers guard every address to lie inside the input view.
// The .L2::256B hint needs sm_80; older GPUs (Turing) take plain read-only loads.
__device__ __forceinline__ uint4 load_input_vector(const void* address) {
#if __CUDA_ARCH__ >= 800
  uint4 v;
  asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(address));
  return v;
#else
  return __ldg(static_cast<const uint4*>(address));
#endif
}
__device__ __forceinline__ unsigned long long load_input_u64(const void* address) {
#if __CUDA_ARCH__ >= 800
  unsigned long long v;
  asm("ld.global.nc.L2::256B.u64 %0, [%1];" : "=l"(v) : "l"(address));
  return v;
#else
  return __ldg(static_cast<const unsigned long long*>(address));
#endif
}

// Calls f(std::integral_constant<int, Size>) for the element size; false for another size.
template <typename F>
bool dispatch_size(int size, F&& f) {
  switch (size) {
    case 1: f(std::integral_constant<int, 1>{}); return true;
    case 2: f(std::integral_constant<int, 2>{}); return true;
    case 4: f(std::integral_constant<int, 4>{}); return true;
    case 8: f(std::integral_constant<int, 8>{}); return true;
    case 16: f(std::integral_constant<int, 16>{}); return true;
    default: return false;
  }
}

}  // namespace xpose::cuda
