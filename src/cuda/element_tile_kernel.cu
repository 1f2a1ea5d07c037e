// SPDX-License-Identifier: Apache-2.0
// The tile transpose's form for 8-byte elements: every global access is one element wide. A warp
// still moves 256 contiguous bytes per instruction, coalesced at any alignment, and nothing needs
// realigning.
//   - Views whose rows are not 16-byte aligned (odd leading dimensions, or a base 8 bytes off):
//     the tile kernel's general form (16-byte vectors realigned with shuffles and funnel shifts)
//     issues several times the instructions of its aligned form (ncu: 3.8x on 8191 x 8193 f32),
//     which for these views costs more than the element form's twice as many memory instructions:
//     8193 x 8191 f64 87% of memcpy with the general form, 93% with this one (H100, docs/kernels.md
//     v10). For 4-byte elements the element form measured slower (80% against 88%), so they stay
//     with the general form.
//   - Aligned views: faster than the tile kernel's vector form (v16, % of memcpy, 16384^2 / 8192^2
//     f64: H100 96.6 / 97.6 -> 96.8 / 97.7, H200 92.8 / 96.2 -> 93.3-94.4 / 97.8-98.2).
// The loads depend on where the view's input rows start (BlockRows):
//   - on 256-byte DRAM blocks (leading dimension and base multiples of 256 bytes, as in squares of
//     powers of two): plain read-only loads;
//   - elsewhere: loads that fetch the whole 256-byte block around them (load_input_u64; 8193 x
//     8191 f64 93.0 -> 95.8 with them), which on block-aligned rows fetch nothing more and cost
//     0.1-0.3% (16384^2 f64, H100 and H200).
// The tile shape (ElementShape, tuning.hpp): 64 x 64, except for small problems (32 x 32) and for
// block-aligned views with more row tiles than the GPU has SMs (32 x 128, v17: there the 64 x 64
// tiles in flight, 2 per SM, cover less than two columns of tiles and read only 512 bytes of many
// input rows at a time, where 32 x 128 tiles read 1 KiB; 16384^2 f64 96.7 -> 97.1 on the H100, 95.0
// either way on the H200, while at 8192^2 32 x 128 lost 0.1-0.4 on both GPUs). On the H100 every
// block-aligned view that is not small takes the fine shape instead: 32 x 32 tiles at 5 blocks per
// SM, 40 KiB of loads in flight per SM against the others' 64 (v29: 8192^2 f64 97.8 -> 98.6).
// Blocks walk tiles as in the tile kernel (tile_walk): the input row-tile index fastest, except
// for views of many short rows off 256-byte blocks. Column tiles fastest everywhere (the seed
// kernels' walk) measured 97.0 for 16384^2 f64 on the H100 but 88.8 on the H200, and 85.8 for
// 8193 x 8191 on the H100, where neighbouring tiles share output sectors. The fine shape walks
// column tiles fastest where the output rows start on 256-byte blocks (select_tile_launch).
//
// A block moves one tile per iteration: every load in flight, stored to a shared-memory tile
// padded by one element per row (row writes and column reads both meet every bank pair), then
// each warp writes 32 consecutive elements of an output row.
#include "cuda/element_tile_kernel.hpp"

#include "cuda/device_types.cuh"
#include "cuda/tuning.hpp"

#include <atomic>
#include <type_traits>

namespace xpose::cuda {
namespace {

template <ElementShape Shape>
struct ElementTileShape {
  using Tuning = ElementTileTuning<Shape>;
  static constexpr int kRows = Tuning::kRows, kCols = Tuning::kCols, kThreads = Tuning::kThreads;
  static constexpr int kPitch = kCols + 1;                     // elements per tile row in shared memory
  static constexpr int kPerThread = kRows * kCols / kThreads;  // loads (and stores) per thread
  static constexpr int kRowStep = kThreads / kCols;            // tile rows between a thread's loads
  static constexpr int kColStep = kThreads / kRows;            // tile columns between its stores
  static_assert(kCols % 32 == 0 && kRows % 32 == 0, "a warp's accesses stay in one row");
  static_assert(kRowStep * kCols == kThreads && kColStep * kRows == kThreads, "threads cover whole rows");
};

// An input element: a plain read-only load where the view's input rows start on 256-byte blocks
// (BlockRows), else one that fetches the whole block around it.
template <bool BlockRows>
__device__ __forceinline__ Element<8>::type load_input_element(const Element<8>::type* address) {
  if constexpr (BlockRows) return __ldg(address);
  else return load_input_u64(address);
}

template <ElementShape Shape, bool BlockRows, TileWalk Walk>
__global__ void __launch_bounds__(ElementTileShape<Shape>::kThreads, ElementTileShape<Shape>::Tuning::kMinBlocks)
    element_tile_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, MatrixView m) {
  using S = ElementTileShape<Shape>;
  using T = Element<8>::type;
  __shared__ T tile[S::kRows * S::kPitch];

  const int load_row = threadIdx.x / S::kCols, load_col = threadIdx.x % S::kCols;
  const int store_col = threadIdx.x / S::kRows, store_row = threadIdx.x % S::kRows;
  for_each_tile<S::kRows, S::kCols, Walk>(m, [&](const TileAt& at) {
    const int rows_here = at.rows_here, cols_here = at.cols_here;
    const bool full = rows_here == S::kRows && cols_here == S::kCols;
    const T* src = reinterpret_cast<const T*>(in) + at.b * m.stride_in + (at.r0 + load_row) * m.ld_in + at.c0 + load_col;
    T* dst = reinterpret_cast<T*>(out) + at.b * m.stride_out + (at.c0 + store_col) * m.ld_out + at.r0 + store_row;
    // Every load in flight before the first shared-memory store.
    T loaded[S::kPerThread];
#pragma unroll
    for (int k = 0; k < S::kPerThread; ++k) {
      const int r = load_row + k * S::kRowStep;
      loaded[k] = 0;
      if (full || (r < rows_here && load_col < cols_here)) loaded[k] = load_input_element<BlockRows>(src + k * S::kRowStep * m.ld_in);
    }
#pragma unroll
    for (int k = 0; k < S::kPerThread; ++k) tile[(load_row + k * S::kRowStep) * S::kPitch + load_col] = loaded[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < S::kPerThread; ++k) {
      const int c = store_col + k * S::kColStep;
      if (full || (c < cols_here && store_row < rows_here))
        dst[k * S::kColStep * m.ld_out] = tile[store_row * S::kPitch + c];
    }
    __syncthreads();  // the next tile reuses shared memory
  });
}

// Whether a shape's tuning entry asks for the most shared-memory carveout (kMaxSharedCarveout;
// entries without the field do not).
template <class Tuning, class = void>
struct WantsMaxSharedCarveout : std::false_type {};
template <class Tuning>
struct WantsMaxSharedCarveout<Tuning, std::void_t<decltype(Tuning::kMaxSharedCarveout)>>
    : std::bool_constant<Tuning::kMaxSharedCarveout> {};

// Asks the driver, once per device and kernel, to carve the SM's on-chip memory with the most
// shared memory for this kernel (tuning.hpp, kMaxSharedCarveout). A preference only: a driver that
// refuses it leaves the launch as it was, and the error it returns is cleared so that the launch
// check does not report it.
template <ElementShape Shape, bool BlockRows, TileWalk Walk>
void prefer_max_shared_carveout() {
  static std::atomic<bool> asked[gpu::kMaxCachedDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= gpu::kMaxCachedDevices) return;
  if (asked[device].exchange(true, std::memory_order_relaxed)) return;
  if (cudaFuncSetAttribute(element_tile_kernel<Shape, BlockRows, Walk>, cudaFuncAttributePreferredSharedMemoryCarveout,
                           cudaSharedmemCarveoutMaxShared) != cudaSuccess)
    (void)cudaGetLastError();
}

template <ElementShape Shape, bool BlockRows>
Status launch_shape(const void* in, void* out, const detail::Transpose2D& p, TileWalk walk, gpu::Stream stream) {
  using S = ElementTileShape<Shape>;
  const int64_t row_tiles = ceil_div(p.rows, S::kRows), col_tiles = ceil_div(p.cols, S::kCols);
  const dim3 grid = tile_grid(row_tiles, col_tiles, p.batch, walk);
  const auto run = [&](auto walk_constant) {
    constexpr TileWalk kWalk = decltype(walk_constant)::value;
    if constexpr (WantsMaxSharedCarveout<typename S::Tuning>::value) prefer_max_shared_carveout<Shape, BlockRows, kWalk>();
    element_tile_kernel<Shape, BlockRows, kWalk>
        <<<grid, S::kThreads, 0, stream>>>(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), view_of(p));
  };
  if (walk == TileWalk::columns_fastest) run(std::integral_constant<TileWalk, TileWalk::columns_fastest>{});
  else run(std::integral_constant<TileWalk, TileWalk::rows_fastest>{});
  return gpu::check_launch("tile_transpose (element form)");
}

}  // namespace

Status launch_element_tile_transpose(const void* in, void* out, const detail::Transpose2D& p, const TileLaunch& launch,
                                     gpu::Stream stream) {
  if (p.elem_size != 8) return detail::fail(Status::internal_error, "the element form takes 8-byte elements");
  const bool blocks = launch.block_rows;
  switch (launch.shape) {
    case TileShapeId::element_compact:
      return blocks ? launch_shape<ElementShape::compact, true>(in, out, p, launch.walk, stream)
                    : launch_shape<ElementShape::compact, false>(in, out, p, launch.walk, stream);
    case TileShapeId::element_square:
      return blocks ? launch_shape<ElementShape::square, true>(in, out, p, launch.walk, stream)
                    : launch_shape<ElementShape::square, false>(in, out, p, launch.walk, stream);
    case TileShapeId::element_wide:
      if (blocks) return launch_shape<ElementShape::wide, true>(in, out, p, launch.walk, stream);
      break;
    case TileShapeId::element_fine:
      if (blocks) return launch_shape<ElementShape::fine, true>(in, out, p, launch.walk, stream);
      break;
    default:
      break;
  }
  return detail::fail(Status::internal_error, detail::message("no element-form instantiation for ", launch.describe()));
}

}  // namespace xpose::cuda
