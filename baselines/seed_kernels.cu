// SPDX-License-Identifier: Apache-2.0
// The seeds' kernels, in increasing order of refinement. Each one generalises the seed to any
// shape (boundary checks), leading dimensions, batches (grid z) and grids beyond the launch
// limits (every kernel loops over the tiles its grid does not cover).
#include "cuda/device_types.cuh"
#include "baselines/seed_kernels.hpp"

namespace xpose::baselines {
using namespace xpose::cuda;  // the library's device helpers: element types, grids

namespace {

constexpr int kTile = 32;      // tile edge, in elements
constexpr int kBlockRows = 8;  // rows of threads for the 32x8 kernels: 4 elements per thread

// Runs body(batch, tile_x, tile_y) for every tile this block owns.
template <typename Body>
__device__ __forceinline__ void for_each_tile(int64_t tiles_x, int64_t tiles_y, int64_t batch,
                                              Body&& body) {
  for (int64_t b = blockIdx.z; b < batch; b += gridDim.z)
    for (int64_t ty = blockIdx.y; ty < tiles_y; ty += gridDim.y)
      for (int64_t tx = blockIdx.x; tx < tiles_x; tx += gridDim.x) body(b, tx, ty);
}

// --- copy baselines: what a transpose should reach ------------------------------------------
// The packed data is seen as `rows x cols` (all batches stacked as rows).

template <typename T>
__global__ void copy_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int64_t cols) {
  for_each_tile(ceil_div(cols, kTile), ceil_div(rows, kTile), 1, [&](int64_t, int64_t tx, int64_t ty) {
    const int64_t j = tx * kTile + threadIdx.x;
    for (int k = 0; k < kTile; k += kBlockRows) {
      const int64_t i = ty * kTile + threadIdx.y + k;
      if (i < rows && j < cols) out[i * cols + j] = in[i * cols + j];
    }
  });
}

// The same copy through shared memory: shows that the tile and the barrier cost nothing.
template <typename T>
__global__ void copy_shared_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                                   int64_t cols) {
  __shared__ T tile[kTile][kTile];
  for_each_tile(ceil_div(cols, kTile), ceil_div(rows, kTile), 1, [&](int64_t, int64_t tx, int64_t ty) {
    const int64_t j = tx * kTile + threadIdx.x;
    for (int k = 0; k < kTile; k += kBlockRows) {
      const int64_t i = ty * kTile + threadIdx.y + k;
      if (i < rows && j < cols) tile[threadIdx.y + k][threadIdx.x] = in[i * cols + j];
    }
    __syncthreads();
    for (int k = 0; k < kTile; k += kBlockRows) {
      const int64_t i = ty * kTile + threadIdx.y + k;
      if (i < rows && j < cols) out[i * cols + j] = tile[threadIdx.y + k][threadIdx.x];
    }
    __syncthreads();  // the next tile reuses the buffer
  });
}

// --- naive transposes: one element per thread, 32x8 threads per block -------------------------

// Reads along input rows (coalesced); consecutive threads write ld_out elements apart.
template <typename T>
__global__ void naive_read_contiguous_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m) {
  for_each_tile(ceil_div(m.cols, kTile), ceil_div(m.rows, kBlockRows), m.batch,
                [&](int64_t b, int64_t tx, int64_t ty) {
    const int64_t j = tx * kTile + threadIdx.x;        // input column = output row
    const int64_t i = ty * kBlockRows + threadIdx.y;   // input row = output column
    if (i < m.rows && j < m.cols)
      out[b * m.stride_out + j * m.ld_out + i] = in[b * m.stride_in + i * m.ld_in + j];
  });
}

// Writes along output rows (coalesced); consecutive threads read ld_in elements apart.
template <typename T>
__global__ void naive_write_contiguous_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m) {
  for_each_tile(ceil_div(m.rows, kTile), ceil_div(m.cols, kBlockRows), m.batch,
                [&](int64_t b, int64_t tx, int64_t ty) {
    const int64_t i = tx * kTile + threadIdx.x;        // output column = input row
    const int64_t j = ty * kBlockRows + threadIdx.y;   // output row = input column
    if (i < m.rows && j < m.cols)
      out[b * m.stride_out + j * m.ld_out + i] = in[b * m.stride_in + i * m.ld_in + j];
  });
}

// --- tiled transposes through shared memory -------------------------------------------------

// 32x32 threads, one element each. The tile is read along its rows and written along its
// columns; with Pad = 0 a warp's column read hits one bank 32 times (for 4-byte elements).
// Note the output index: the destination row length is ld_out (the source height), not the
// source width, which the first AMD seed gets wrong for non-square matrices.
template <typename T, int Pad>
__global__ void tiled_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m) {
  __shared__ T tile[kTile][kTile + Pad];
  for_each_tile(ceil_div(m.cols, kTile), ceil_div(m.rows, kTile), m.batch,
                [&](int64_t b, int64_t tx, int64_t ty) {
    const int64_t j = tx * kTile + threadIdx.x;
    const int64_t i = ty * kTile + threadIdx.y;
    if (i < m.rows && j < m.cols) tile[threadIdx.y][threadIdx.x] = in[b * m.stride_in + i * m.ld_in + j];
    __syncthreads();
    const int64_t out_row = tx * kTile + threadIdx.y;  // an input column
    const int64_t out_col = ty * kTile + threadIdx.x;  // an input row
    if (out_row < m.cols && out_col < m.rows)
      out[b * m.stride_out + out_row * m.ld_out + out_col] = tile[threadIdx.x][threadIdx.y];
    __syncthreads();
  });
}

// The body of the blog's final kernel: a padded 32x32 tile moved by 32x8 threads, 4 elements
// each, which amortises the index arithmetic over four elements.
template <typename T>
__device__ __forceinline__ void transpose_tile_rows(const T* __restrict__ in, T* __restrict__ out,
                                                    const MatrixView& m, T (*tile)[kTile + 1],
                                                    int64_t b, int64_t tx, int64_t ty) {
  const T* src = in + b * m.stride_in;
  T* dst = out + b * m.stride_out;
  int64_t j = tx * kTile + threadIdx.x;
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int64_t i = ty * kTile + threadIdx.y + k;
    if (i < m.rows && j < m.cols) tile[threadIdx.y + k][threadIdx.x] = src[i * m.ld_in + j];
  }
  __syncthreads();
  const int64_t out_col = ty * kTile + threadIdx.x;
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int64_t out_row = tx * kTile + threadIdx.y + k;
    if (out_row < m.cols && out_col < m.rows)
      dst[out_row * m.ld_out + out_col] = tile[threadIdx.x][threadIdx.y + k];
  }
  __syncthreads();
}

template <typename T>
__global__ void tiled_padded_rows_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m) {
  __shared__ T tile[kTile][kTile + 1];
  for_each_tile(ceil_div(m.cols, kTile), ceil_div(m.rows, kTile), m.batch,
                [&](int64_t b, int64_t tx, int64_t ty) { transpose_tile_rows(in, out, m, tile, b, tx, ty); });
}

// Diagonal block order (cuda-samples): consecutive blocks take tiles along a diagonal so that
// they do not all write to the same DRAM partition, which mattered on older GPUs. The grid is
// one-dimensional over the tiles; the mapping bid -> (tile_x, tile_y) is a bijection for any
// tile-grid shape.
template <typename T>
__global__ void tiled_diagonal_kernel(const T* __restrict__ in, T* __restrict__ out, MatrixView m) {
  __shared__ T tile[kTile][kTile + 1];
  const int64_t tiles_x = ceil_div(m.cols, kTile), tiles_y = ceil_div(m.rows, kTile);
  const int64_t tiles = tiles_x * tiles_y;
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (int64_t bid = blockIdx.x; bid < tiles; bid += gridDim.x) {
      const int64_t ty = bid % tiles_y;
      const int64_t tx = (bid / tiles_y + ty) % tiles_x;
      transpose_tile_rows(in, out, m, tile, b, tx, ty);
    }
}

template <int Size>
Status launch(SeedKernel kernel, const void* in_ptr, void* out_ptr, const detail::Transpose2D& p,
              gpu::Stream stream) {
  using T = typename Element<Size>::type;
  const T* in = static_cast<const T*>(in_ptr);
  T* out = static_cast<T*>(out_ptr);
  const MatrixView m = view_of(p);
  const dim3 block_32x8(kTile, kBlockRows), block_32x32(kTile, kTile);
  const int64_t rows_all = p.rows * p.batch;  // copies see the packed batch as one matrix
  switch (kernel) {
    case SeedKernel::copy:
      copy_kernel<<<clamped_grid(ceil_div(p.cols, kTile), ceil_div(rows_all, kTile), 1), block_32x8, 0,
                    stream>>>(in, out, rows_all, p.cols);
      return gpu::check_launch("copy");
    case SeedKernel::copy_shared:
      copy_shared_kernel<<<clamped_grid(ceil_div(p.cols, kTile), ceil_div(rows_all, kTile), 1),
                           block_32x8, 0, stream>>>(in, out, rows_all, p.cols);
      return gpu::check_launch("copy_shared");
    case SeedKernel::naive_read_contiguous:
      naive_read_contiguous_kernel<<<clamped_grid(ceil_div(p.cols, kTile), ceil_div(p.rows, kBlockRows),
                                                  p.batch), block_32x8, 0, stream>>>(in, out, m);
      return gpu::check_launch("naive_read_contiguous");
    case SeedKernel::naive_write_contiguous:
      naive_write_contiguous_kernel<<<clamped_grid(ceil_div(p.rows, kTile), ceil_div(p.cols, kBlockRows),
                                                   p.batch), block_32x8, 0, stream>>>(in, out, m);
      return gpu::check_launch("naive_write_contiguous");
    case SeedKernel::tiled:
      tiled_kernel<T, 0><<<clamped_grid(ceil_div(p.cols, kTile), ceil_div(p.rows, kTile), p.batch),
                           block_32x32, 0, stream>>>(in, out, m);
      return gpu::check_launch("tiled");
    case SeedKernel::tiled_padded:
      tiled_kernel<T, 1><<<clamped_grid(ceil_div(p.cols, kTile), ceil_div(p.rows, kTile), p.batch),
                           block_32x32, 0, stream>>>(in, out, m);
      return gpu::check_launch("tiled_padded");
    case SeedKernel::tiled_padded_rows:
      tiled_padded_rows_kernel<T><<<clamped_grid(ceil_div(p.cols, kTile), ceil_div(p.rows, kTile),
                                                 p.batch), block_32x8, 0, stream>>>(in, out, m);
      return gpu::check_launch("tiled_padded_rows");
    case SeedKernel::tiled_diagonal:
      tiled_diagonal_kernel<T><<<clamped_grid(ceil_div(p.cols, kTile) * ceil_div(p.rows, kTile), 1,
                                              p.batch), block_32x8, 0, stream>>>(in, out, m);
      return gpu::check_launch("tiled_diagonal");
  }
  return detail::fail(Status::internal_error, "unknown seed kernel");
}

}  // namespace

Status launch_seed_kernel(SeedKernel kernel, const void* in, void* out, const detail::Transpose2D& p,
                          gpu::Stream stream) {
  Status status = Status::internal_error;
  const bool known = dispatch_size(p.elem_size, [&](auto size) {
    status = launch<decltype(size)::value>(kernel, in, out, p, stream);
  });
  if (!known) return detail::fail(Status::internal_error, "unsupported element size");
  return status;
}

}  // namespace xpose::baselines
