// SPDX-License-Identifier: Apache-2.0
// The N-D permute kernels. Thin __global__ functions: the per-tile work of the tiled kernel is in
// cuda/permute_tile.hpp, the index arithmetic in cuda/permute_params.hpp (both tested on the CPU).
#include <cstdint>
#include <type_traits>

#include "cuda/device_types.cuh"
#include "cuda/permute_kernels.hpp"
#include "cuda/permute_packed.hpp"
#include "cuda/permute_tile.hpp"

namespace xpose::cuda {
namespace {

constexpr int kCopyThreads = 256;
constexpr int kItemsPerThread = 4;  // loads in flight per thread in gather and naive

// Tiles are walked in the order of TiledParams::group_cols (tile_origin): the hardware starts
// blocks in index order, so that order decides which tiles are in flight together.
// 5 blocks per SM (at most 48 registers; f16 spills 8 bytes) against 4 (64 registers), ttc57 on
// an H100 in the same runs, min / median % of memcpy: f32 79.1 / 92.8 -> 82.0 / 93.6, u8 68.5 /
// 91.6 -> 71.0 / 91.2, f64 87.2 / 95.6 -> 90.8 / 95.9, f16 84.6 / 92.9 -> 86.4 / 92.5; 3 blocks: f32
// 72.6 / 89.6. One tile per block, three barriers per tile: more blocks keep more loads in flight.
// A resident grid whose blocks walk their tiles in turn (the next tile's tables filled during this
// one's stores, two barriers per tile) lost 1-55% on each of 20 cases: its blocks drift apart, and
// the tiles in flight then spread over the tensor instead of lying side by side.
// ShiftedLoads, ShiftedStores: TiledAgent::load_shifted, store_shifted (runs off 16 bytes) instead
// of the aligned-vector or element forms of load and store. Shifted stores hold two row blocks of
// words: 4 blocks per SM (64 registers); at 5, 1-byte elements spilled up to 100 bytes.
template <int Size, bool ShiftedLoads, bool ShiftedStores>
__global__ void __launch_bounds__(kTiledThreads, ShiftedStores ? 4 : 5)
    permute_tiled_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out,
                         const __grid_constant__ TiledParams p, bool in_vectors, bool out_vectors) {
  __shared__ __align__(16) uint8_t tile[kTiledSharedBytes];
  __shared__ int64_t row_in[kMaxTileEdge];
  __shared__ int64_t col_out[kMaxTileEdge];
  const TiledAgent<Size> agent{p, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), tile, row_in, col_out};
  for (int64_t t = blockIdx.x; t < p.tiles; t += gridDim.x) {
    const TileOrigin origin = tile_origin(p, t);
    agent.fill_tables(origin);
    __syncthreads();
    if constexpr (ShiftedLoads)
      agent.load_shifted(origin, in);
    else
      agent.load(origin, in, in_vectors);
    __syncthreads();
    if constexpr (ShiftedStores)
      agent.store_shifted(origin, out);
    else
      agent.store(origin, out, out_vectors);
    __syncthreads();  // the next tile reuses the tables and the tile
  }
}

// Where tile `t` lies, found by the first warp with one lane per axis (packed_tile_axis), the
// offsets summed over the lanes: one thread walking the axes with 64-bit divisions kept the whole
// block waiting at the barrier that follows.
__device__ void find_packed_tile(const PackedParams& p, int64_t t, PackedTile* tile) {
  const int lane = static_cast<int>(threadIdx.x);
  int64_t in_offset = 0, out_offset = 0;
  bool whole = true;
  if (lane < p.rank) {
    const int extent = packed_tile_axis(p, t, lane, &in_offset, &out_offset);
    if (p.box_of[lane] >= 0) tile->extent[p.box_of[lane]] = extent;
    whole = extent == p.extent[lane];
  }
  whole = __all_sync(0xFFFFFFFFu, whole);
  for (int shift = 16; shift > 0; shift /= 2) {
    in_offset += __shfl_xor_sync(0xFFFFFFFFu, in_offset, shift);
    out_offset += __shfl_xor_sync(0xFFFFFFFFu, out_offset, shift);
  }
  __syncwarp();
  if (lane == 0) {
    tile->in_base = in_offset;
    tile->out_base = out_offset;
    tile->whole = whole;
    packed_tile_runs(p, tile);
  }
}

// Tiles (boxes of several axes, cuda/permute_packed.hpp) in turn per block: the block fills the
// gather table (and the run tables) once, then per tile the first warp finds where it lies, the
// block loads its input runs and stores its output runs. The grid is what the GPU holds at once
// (at most), so that the tables are filled once per block rather than once per tile. Barrier waits are the kernel's main
// stall: 8 blocks per SM (32 registers) rather than the 6 that 40 registers allow.
constexpr int kPackedMinBlocks = 8;
template <int Size, bool AlignedIn, bool AlignedOut>
__global__ void __launch_bounds__(kPackedThreads, kPackedMinBlocks)
    permute_packed_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out,
                          const __grid_constant__ PackedParams p) {
  __shared__ __align__(16) uint8_t box[kPackedSharedBytes];
  __shared__ uint16_t gather_table[kPackedTableEntries];
  __shared__ PackedRunTables runs;
  __shared__ PackedTile tile;
  const PackedAgent<Size> agent{p, static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), box, gather_table,
                                &runs};
  agent.fill_gather_table();
  if (p.run_tables) agent.fill_run_tables();
  for (int64_t t = blockIdx.x; t < p.tiles; t += gridDim.x) {
    if (threadIdx.x < 32) find_packed_tile(p, t, &tile);
    __syncthreads();
    agent.template load<AlignedIn>(tile, in);
    __syncthreads();
    agent.template store<AlignedOut>(tile, out);
    __syncthreads();  // the next tile reuses the box and its description
  }
}

// Consecutive threads copy consecutive chunks of the output (tiles of runs for short runs, see
// GatherParams); each thread has kItemsPerThread loads in flight before its first store.
template <int Chunk>
__global__ void __launch_bounds__(kCopyThreads)
    permute_gather_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out,
                          const __grid_constant__ GatherParams p) {
  using T = typename Unit<Chunk>::type;
  const int64_t step = int64_t{gridDim.x} * blockDim.x * kItemsPerThread;
  for (int64_t base = int64_t{blockIdx.x} * blockDim.x * kItemsPerThread + threadIdx.x; base < p.items;
       base += step) {
    T values[kItemsPerThread];
    int64_t targets[kItemsPerThread];
    bool inside[kItemsPerThread];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
      const int64_t item = base + int64_t{k} * blockDim.x;
      int64_t source = 0;
      inside[k] = item < p.items && gather_offsets(p, item, &source, &targets[k]);
      if (inside[k]) values[k] = reinterpret_cast<const T*>(in)[source];
    }
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k)
      if (inside[k]) reinterpret_cast<T*>(out)[targets[k]] = values[k];
  }
}

// Bytes [m, m + 16) of the 32 bytes lo:hi (m < 16), as one vector.
__device__ __forceinline__ uint4 shifted_vector(const uint4& lo, const uint4& hi, int m) {
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const int q = m >> 2;
  const unsigned shift = static_cast<unsigned>(m & 3) * 8;
  uint32_t a[5];
#pragma unroll
  for (int k = 0; k < 5; ++k) a[k] = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
  return make_uint4(__funnelshift_r(a[0], a[1], shift), __funnelshift_r(a[1], a[2], shift),
                    __funnelshift_r(a[2], a[3], shift), __funnelshift_r(a[3], a[4], shift));
}

// gather with shifted vectors (GatherParams::shifted): item = (run, slot), the slot being the
// run's aligned 16-byte output vector number; consecutive threads take consecutive slots. A
// vector inside the run reads the aligned input vectors that cover its bytes (one, or two joined
// by funnel shifts) when they lie inside the input run too; the vectors at a run's ends go byte
// by byte. Nothing outside the runs is read or written.
__global__ void __launch_bounds__(kCopyThreads)
    permute_gather_shifted_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out,
                                  const __grid_constant__ GatherParams p) {
  const int64_t step = int64_t{gridDim.x} * blockDim.x;
  const int64_t length = p.run_bytes;
  for (int64_t item = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; item < p.items; item += step) {
    int64_t source = 0, target = 0;
    const int64_t first = gather_shifted_item(p, item, out, &source, &target);
    if (first >= length) continue;
    const uint8_t* src = in + source;
    uint8_t* dst = out + target;
    if (first >= 0 && first + 16 <= length) {
      const int m = static_cast<int>(reinterpret_cast<uintptr_t>(src + first) & 15);
      const int64_t lo = first - m;  // the first covering input vector, relative to the run
      if (m == 0) {
        *reinterpret_cast<uint4*>(dst + first) = load_input_vector(src + first);
        continue;
      }
      if (lo >= 0 && lo + 32 <= length) {
        const uint4 a = load_input_vector(src + lo), b = load_input_vector(src + lo + 16);
        *reinterpret_cast<uint4*>(dst + first) = shifted_vector(a, b, m);
        continue;
      }
    }
    const int64_t begin = first < 0 ? 0 : first, end = first + 16 < length ? first + 16 : length;
    for (int64_t k = begin; k < end; ++k) dst[k] = src[k];
  }
}

// One element per thread, consecutive threads along the output: the simplest correct kernel.
template <int Size>
__global__ void __launch_bounds__(kCopyThreads)
    permute_naive_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out,
                         const __grid_constant__ NaiveParams p) {
  using T = typename Unit<Size>::type;
  const int64_t step = int64_t{gridDim.x} * blockDim.x * kItemsPerThread;
  for (int64_t base = int64_t{blockIdx.x} * blockDim.x * kItemsPerThread + threadIdx.x; base < p.elements;
       base += step) {
    T values[kItemsPerThread];
    int64_t targets[kItemsPerThread];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
      const int64_t index = base + int64_t{k} * blockDim.x;
      if (index < p.elements) {
        int64_t source = 0;
        naive_offsets(p, index, &source, &targets[k]);
        values[k] = reinterpret_cast<const T*>(in)[source];
      }
    }
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
      const int64_t index = base + int64_t{k} * blockDim.x;
      if (index < p.elements) reinterpret_cast<T*>(out)[targets[k]] = values[k];
    }
  }
}

unsigned blocks_for(int64_t items, int64_t per_block) {
  const int64_t blocks = ceil_div(items, per_block);
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxGridX ? kMaxGridX : blocks));
}

bool aligned16(const void* pointer) { return reinterpret_cast<uintptr_t>(pointer) % 16 == 0; }

}  // namespace

// Blocks of a packed kernel that one multiprocessor holds at once (asked once per instantiation).
template <int Size, bool AlignedIn, bool AlignedOut>
int packed_blocks_per_sm() {
  static const int per_sm = [] {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, permute_packed_kernel<Size, AlignedIn, AlignedOut>,
                                                      kPackedThreads, 0) != cudaSuccess || blocks < 1)
      blocks = 1;
    return blocks;
  }();
  return per_sm;
}

Status launch_permute_packed(const void* in, void* out, const PackedParams& p, gpu::Stream stream) {
  if (p.tiles == 0) return Status::ok;
  const bool aligned_in = p.in_runs_aligned && aligned16(in), aligned_out = p.out_runs_aligned && aligned16(out);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  bool launched = dispatch_size(p.elem_size, [&](auto size) {
    constexpr int kSize = decltype(size)::value;
    const auto launch = [&](auto aligned_in_, auto aligned_out_) {
      constexpr bool kIn = decltype(aligned_in_)::value, kOut = decltype(aligned_out_)::value;
      // Whole waves of tiles spread evenly over the blocks, at most one wave of blocks.
      const int64_t resident = int64_t{packed_blocks_per_sm<kSize, kIn, kOut>()} * gpu::multiprocessor_count();
      const int64_t waves = ceil_div(p.tiles, resident);
      permute_packed_kernel<kSize, kIn, kOut>
          <<<blocks_for(ceil_div(p.tiles, waves), 1), kPackedThreads, 0, stream>>>(src, dst, p);
    };
    using Yes = std::true_type;
    using No = std::false_type;
    if constexpr (kSize == 16) {  // 16-byte elements lie on 16 bytes: every run starts there
      launch(Yes{}, Yes{});
    } else if (aligned_in && aligned_out) {
      launch(Yes{}, Yes{});
    } else if (aligned_in) {
      launch(Yes{}, No{});
    } else if (aligned_out) {
      launch(No{}, Yes{});
    } else {
      launch(No{}, No{});
    }
  });
  if (!launched) return detail::fail(Status::internal_error, "permute_packed: unsupported element size");
  return gpu::check_launch("permute_packed");
}

Status launch_permute_tiled(const void* in, void* out, const TiledParams& p, gpu::Stream stream) {
  if (p.tiles == 0) return Status::ok;
  const bool in_vectors = p.in_vectors && aligned16(in), out_vectors = p.out_vectors && aligned16(out);
  const bool shifted_in = !in_vectors && p.in_shifted, shifted_out = !out_vectors && p.out_shifted;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  const unsigned grid = blocks_for(p.tiles, 1);
  bool launched = dispatch_size(p.elem_size, [&](auto size) {
    constexpr int kSize = decltype(size)::value;
    const auto launch = [&](auto kernel) {
      kernel<<<grid, kTiledThreads, 0, stream>>>(src, dst, p, in_vectors, out_vectors);
    };
    if constexpr (kSize <= 2) {  // shifted stores: 1- and 2-byte elements (make_tiled_params)
      if (shifted_in && shifted_out) return launch(permute_tiled_kernel<kSize, true, true>);
      if (shifted_out) return launch(permute_tiled_kernel<kSize, false, true>);
    }
    if constexpr (kSize < 16) {  // 16-byte elements are always aligned
      if (shifted_in) return launch(permute_tiled_kernel<kSize, true, false>);
    }
    launch(permute_tiled_kernel<kSize, false, false>);
  });
  if (!launched) return detail::fail(Status::internal_error, "permute_tiled: unsupported element size");
  return gpu::check_launch("permute_tiled");
}

Status launch_permute_gather(const void* in, void* out, const GatherParams& p, gpu::Stream stream) {
  if (p.items == 0) return Status::ok;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  if (p.shifted) {
    const unsigned grid = blocks_for(p.items, int64_t{kCopyThreads} * kItemsPerThread);
    permute_gather_shifted_kernel<<<grid, kCopyThreads, 0, stream>>>(src, dst, p);
    return gpu::check_launch("permute_gather");
  }
  const unsigned grid = blocks_for(p.items, int64_t{kCopyThreads} * kItemsPerThread);
  bool launched = dispatch_size(p.chunk_bytes, [&](auto size) {
    permute_gather_kernel<decltype(size)::value><<<grid, kCopyThreads, 0, stream>>>(src, dst, p);
  });
  if (!launched) return detail::fail(Status::internal_error, "permute_gather: unsupported chunk size");
  return gpu::check_launch("permute_gather");
}

Status launch_permute_naive(const void* in, void* out, const NaiveParams& p, int elem_size, gpu::Stream stream) {
  if (p.elements == 0) return Status::ok;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  const unsigned grid = blocks_for(p.elements, int64_t{kCopyThreads} * kItemsPerThread);
  bool launched = dispatch_size(elem_size, [&](auto size) {
    permute_naive_kernel<decltype(size)::value><<<grid, kCopyThreads, 0, stream>>>(src, dst, p);
  });
  if (!launched) return detail::fail(Status::internal_error, "permute_naive: unsupported element size");
  return gpu::check_launch("permute_naive");
}

}  // namespace xpose::cuda
