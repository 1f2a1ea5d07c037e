// The production 2D transpose kernel.
//
// A block moves one tile (TileTuning<Size, Compact>: kRows x kCols elements) per iteration:
//   1. load: the input tile's rows as 16-byte vectors (coalesced, several loads in flight per
//      thread), stored to shared memory as whole 16-byte groups;
//   2. transpose: each thread reads a micro-block of V = 16 / Size rows by K = word / Size columns
//      as shared-memory words, transposes the K x K sub-blocks of small elements in registers
//      (byte permutes), and
//   3. store: writes K output vectors of 16 bytes, V consecutive elements of an output row.
// Shared memory is swizzled (word column XOR a function of the row block) instead of padded, so
// 16-byte groups stay aligned and the column reads of step 2 spread over the banks.
//
// Edge tiles, and views whose rows are not 16-byte aligned (odd leading dimensions), take the
// general form of the steps (ShiftedTile below): rows move as the aligned 16-byte chunks that
// cover them into a shared tile that keeps each row's misalignment, and output vectors are
// gathered element by element. Unaligned views use an instantiation of their own (General).
//
// Blocks walk tiles with the input row-tile index fastest: neighbouring tiles of an output row
// run at the same time, so the 32-byte sectors they share are completed in L2 before eviction.
#include <atomic>
#include <cstdint>

#include "cuda/device_types.cuh"
#include "cuda/tile_kernel.hpp"
#include "cuda/tuning.hpp"

namespace xpose::cuda {
namespace {

template <int Size, bool Compact>
struct TileShape {
  static constexpr int kRows = TileTuning<Size, Compact>::kRows;
  static constexpr int kCols = TileTuning<Size, Compact>::kCols;
  static constexpr int kThreads = TileTuning<Size, Compact>::kThreads;
  static constexpr int kMinBlocks = TileTuning<Size, Compact>::kMinBlocks;
  static constexpr int kWordBytes = Size < 4 ? 4 : Size;          // shared-memory access unit
  static constexpr int kPerWord = kWordBytes / Size;               // K: elements per word
  static constexpr int kPerVector = 16 / Size;                     // V: elements per 16 bytes
  static constexpr int kWordsPerVector = 16 / kWordBytes;          // L
  static constexpr int kWordsPerRow = kCols / kPerWord;            // P (a power of two)
  static constexpr int kVectorsPerRow = kCols / kPerVector;
  static constexpr int kRowBlocks = kRows / kPerVector;            // micro-blocks per column
  static constexpr int kLoadsPerThread = kRows * kVectorsPerRow / kThreads;
  static constexpr int kStoresPerThread = kRowBlocks * kWordsPerRow / kThreads;
  static_assert(kLoadsPerThread * kThreads == kRows * kVectorsPerRow, "loads divide evenly");
  static_assert(kStoresPerThread * kThreads == kRowBlocks * kWordsPerRow, "stores divide evenly");
  static_assert((kWordsPerRow & (kWordsPerRow - 1)) == 0, "swizzle needs a power of two");
};

// 16 bytes seen as a vector or as its elements.
template <typename T>
union VectorOf {
  uint4 v;
  T e[16 / sizeof(T)];
};

template <int Size> using Word = typename Element<(Size < 4 ? 4 : Size)>::type;

// Physical word column of logical word column `w` in tile row `r`: XOR with a multiple of the
// words per vector that changes every V rows (one micro-block of step 2).
template <int Size, bool Compact>
__device__ __forceinline__ int swizzle(int r, int w) {
  using S = TileShape<Size, Compact>;
  return w ^ (((r / S::kPerVector) * S::kWordsPerVector) & (S::kWordsPerRow - 1));
}

// Byte offset in shared memory of element (r, c) of the tile.
template <int Size, bool Compact>
__device__ __forceinline__ int tile_offset(int r, int c) {
  using S = TileShape<Size, Compact>;
  const int w = swizzle<Size, Compact>(r, c / S::kPerWord);
  return (r * S::kWordsPerRow + w) * S::kWordBytes + (c % S::kPerWord) * Size;
}

// Output vector `column` (0..K-1) of a micro-block from its V words (rows) of K elements.
template <int Size>
__device__ __forceinline__ uint4 gather_column(const Word<Size>* words, int column) {
  uint4 v;
  if constexpr (Size == 1) {
    // Byte `column` of 16 words: four 4x4 byte transposes.
    const unsigned pick = column | ((column + 4) << 4);
    uint32_t part[4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const uint32_t lo = __byte_perm(words[4 * q], words[4 * q + 1], pick);
      const uint32_t hi = __byte_perm(words[4 * q + 2], words[4 * q + 3], pick);
      part[q] = __byte_perm(lo, hi, 0x5410);
    }
    v = make_uint4(part[0], part[1], part[2], part[3]);
  } else if constexpr (Size == 2) {
    // Half `column` of 8 words.
    const unsigned pick = column == 0 ? 0x5410 : 0x7632;
    v = make_uint4(__byte_perm(words[0], words[1], pick), __byte_perm(words[2], words[3], pick),
                   __byte_perm(words[4], words[5], pick), __byte_perm(words[6], words[7], pick));
  } else {
    constexpr int kPerVector = 16 / Size;
    static_assert(sizeof(Word<Size>) * kPerVector == 16, "V words make a vector");
    VectorOf<Word<Size>> packed;
#pragma unroll
    for (int e = 0; e < kPerVector; ++e) packed.e[e] = words[e];
    v = packed.v;
  }
  return v;
}

// Step 1, fast form: a full tile of a 16-byte-aligned view, as 16-byte vectors, all in flight
// before the first shared-memory store.
template <int Size, bool Compact>
__device__ __forceinline__ void load_vectors(const uint8_t* __restrict__ src, int64_t ld_in, uint8_t* tile) {
  using S = TileShape<Size, Compact>;
  uint4 loaded[S::kLoadsPerThread];
#pragma unroll
  for (int k = 0; k < S::kLoadsPerThread; ++k) {
    const int slot = threadIdx.x + k * S::kThreads;
    const int r = slot / S::kVectorsPerRow, c = (slot % S::kVectorsPerRow) * S::kPerVector;
    loaded[k] = __ldg(reinterpret_cast<const uint4*>(src + (r * ld_in + c) * Size));
  }
#pragma unroll
  for (int k = 0; k < S::kLoadsPerThread; ++k) {
    const int slot = threadIdx.x + k * S::kThreads;
    const int r = slot / S::kVectorsPerRow, c = (slot % S::kVectorsPerRow) * S::kPerVector;
    *reinterpret_cast<uint4*>(tile + tile_offset<Size, Compact>(r, c)) = loaded[k];
  }
}

// Steps 2 and 3, fast form: micro-blocks of V rows x K columns, row block fastest across the
// threads so that a warp's 16-byte stores run along output rows.
template <int Size, bool Compact>
__device__ __forceinline__ void store_vectors(const uint8_t* tile, uint8_t* __restrict__ dst, int64_t ld_out) {
  using S = TileShape<Size, Compact>;
#pragma unroll
  for (int k = 0; k < S::kStoresPerThread; ++k) {
    const int slot = threadIdx.x + k * S::kThreads;
    const int row_block = slot % S::kRowBlocks, word_col = slot / S::kRowBlocks;
    const int r = row_block * S::kPerVector;
    const int w = swizzle<Size, Compact>(r, word_col);
    Word<Size> words[S::kPerVector];
#pragma unroll
    for (int e = 0; e < S::kPerVector; ++e)
      words[e] = reinterpret_cast<const Word<Size>*>(tile)[(r + e) * S::kWordsPerRow + w];
#pragma unroll
    for (int column = 0; column < S::kPerWord; ++column) {
      const int c = word_col * S::kPerWord + column;
      *reinterpret_cast<uint4*>(dst + (c * ld_out + r) * Size) = gather_column<Size>(words, column);
    }
  }
}

// The general form of the three steps, for edge tiles and for views whose rows are not 16-byte
// aligned (odd leading dimensions). Shared memory holds each tile row as the 16-byte chunks of
// global memory that cover it (one more chunk than the row needs), so a row moves as 16-byte
// loads and 16-byte shared stores whatever its alignment: element (r, c) sits at byte
// head(r) + c * Size of shared row r, head(r) being the row's offset within its first chunk.
template <int Size, bool Compact>
struct ShiftedTile {
  using S = TileShape<Size, Compact>;
  static constexpr int kChunks = S::kCols * Size / 16 + 1;  // per row
  static constexpr int kPitch = kChunks * 16;               // bytes per shared row
  static constexpr int kBytes = S::kRows * kPitch;
};

// Offset of row r's first element within its 16-byte chunk: rows are ld bytes apart.
__device__ __forceinline__ int row_head(uintptr_t first_row, int64_t ld_bytes, int r) {
  return static_cast<int>((first_row + static_cast<uintptr_t>(r) * static_cast<uintptr_t>(ld_bytes)) & 15);
}

// Step 1, general form. A chunk wholly inside the input view's extent [view_begin, view_end) is
// one 16-byte load (bytes of other columns or of padding in it are read, never used or written);
// a chunk that crosses the extent's ends is read element by element, so nothing outside the
// caller's buffer is touched.
template <int Size, bool Compact>
__device__ __forceinline__ void load_shifted(const uint8_t* __restrict__ src, int64_t ld_in, uint8_t* tile,
                                             int rows_here, int cols_here, uintptr_t view_begin,
                                             uintptr_t view_end) {
  using S = TileShape<Size, Compact>;
  using Shifted = ShiftedTile<Size, Compact>;
  using T = typename Element<Size>::type;
  constexpr int kSlots = S::kRows * Shifted::kChunks;
  constexpr int kBatch = 4;  // chunks in flight per thread
  const int64_t ld_bytes = ld_in * Size;
  for (int base = 0; base < kSlots; base += kBatch * S::kThreads) {
    VectorOf<T> loaded[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int slot = base + k * S::kThreads + threadIdx.x;
      const int r = slot / Shifted::kChunks, chunk = slot % Shifted::kChunks;
      const int head = row_head(reinterpret_cast<uintptr_t>(src), ld_bytes, r);
      const int first = (chunk * 16 - head) / Size;  // column of the chunk's first element
      if (slot >= kSlots || r >= rows_here || first >= cols_here) continue;
      const uint8_t* address = src + r * ld_bytes - head + chunk * 16;
      const uintptr_t at = reinterpret_cast<uintptr_t>(address);
      if (at >= view_begin && at + 16 <= view_end) {
        loaded[k].v = __ldg(reinterpret_cast<const uint4*>(address));
      } else {
#pragma unroll
        for (int t = 0; t < S::kPerVector; ++t)
          if (first + t >= 0 && first + t < cols_here) loaded[k].e[t] = reinterpret_cast<const T*>(address)[t];
      }
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const int slot = base + k * S::kThreads + threadIdx.x;
      const int r = slot / Shifted::kChunks, chunk = slot % Shifted::kChunks;
      const int head = row_head(reinterpret_cast<uintptr_t>(src), ld_bytes, r);
      if (slot >= kSlots || r >= rows_here || (chunk * 16 - head) / Size >= cols_here) continue;
      *reinterpret_cast<uint4*>(tile + r * Shifted::kPitch + chunk * 16) = loaded[k].v;
    }
  }
}

// Steps 2 and 3, general form: each output row segment is covered by the aligned 16-byte vectors
// that overlap it; a vector is gathered element by element from the shifted tile, stored whole
// when it lies inside the segment and element by element at the segment's ends. Four
// consecutive threads take four consecutive vectors of one output row (64 contiguous bytes) and
// a warp eight output rows, which spreads its shared-memory reads over the banks.
template <int Size, bool Compact>
__device__ __forceinline__ void store_shifted(const uint8_t* tile, const uint8_t* src, int64_t ld_in,
                                              uint8_t* __restrict__ dst, int64_t ld_out, int rows_here,
                                              int cols_here) {
  using S = TileShape<Size, Compact>;
  using Shifted = ShiftedTile<Size, Compact>;
  using T = typename Element<Size>::type;
  constexpr int kVectorsPerRow = S::kRows / S::kPerVector + 1;  // output row: one more if misaligned
  constexpr int kVectorGroups = (kVectorsPerRow + 3) / 4;
  constexpr int kSlots = S::kCols * kVectorGroups * 4;
  const int64_t ld_in_bytes = ld_in * Size, ld_out_bytes = ld_out * Size;
  const uintptr_t src_row0 = reinterpret_cast<uintptr_t>(src);
  for (int slot = threadIdx.x; slot < kSlots; slot += S::kThreads) {
    const int v = (slot % 4) + 4 * (slot / (4 * S::kCols));  // vector within the output row
    const int c = (slot / 4) % S::kCols;                     // output row = tile column
    if (v >= kVectorsPerRow || c >= cols_here) continue;
    uint8_t* row = dst + c * ld_out_bytes;
    const int head = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
    const int first = (v * 16 - head) / Size;  // tile row of the vector's first element
    if (first >= rows_here) continue;
    VectorOf<T> gathered;
#pragma unroll
    for (int t = 0; t < S::kPerVector; ++t) {
      const int r = first + t;
      if (r >= 0 && r < rows_here)
        gathered.e[t] = *reinterpret_cast<const T*>(tile + r * Shifted::kPitch + row_head(src_row0, ld_in_bytes, r) +
                                                    c * Size);
    }
    uint8_t* vector = row - head + v * 16;
    if (first >= 0 && first + S::kPerVector <= rows_here) {
      *reinterpret_cast<uint4*>(vector) = gathered.v;
    } else {
#pragma unroll
      for (int t = 0; t < S::kPerVector; ++t)
        if (first + t >= 0 && first + t < rows_here) reinterpret_cast<T*>(vector)[t] = gathered.e[t];
    }
  }
}

// General = true: the instantiation for views that are not 16-byte aligned, which only ever takes
// the general form. It is compiled on its own so that its register cap (kGeneralMinBlocks) can
// keep more blocks, and so more loads, in flight: that form spends longer between its loads.
template <int Size, bool Compact, bool General>
__global__ void __launch_bounds__(TileShape<Size, Compact>::kThreads,
                                  General ? TileTuning<Size, Compact>::kGeneralMinBlocks : TileShape<Size, Compact>::kMinBlocks)
    tile_transpose_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, MatrixView m,
                          bool vectors_aligned, uintptr_t in_begin, uintptr_t in_end) {
  using S = TileShape<Size, Compact>;
  // The fast form's swizzled tile or the general form's shifted one (a row of chunks longer).
  __shared__ __align__(16) uint8_t tile[ShiftedTile<Size, Compact>::kBytes];

  const int64_t row_tiles = ceil_div(m.rows, S::kRows), col_tiles = ceil_div(m.cols, S::kCols);
  for (int64_t b = blockIdx.z; b < m.batch; b += gridDim.z)
    for (int64_t ct = blockIdx.y; ct < col_tiles; ct += gridDim.y)
      for (int64_t rt = blockIdx.x; rt < row_tiles; rt += gridDim.x) {
        const int64_t r0 = rt * S::kRows, c0 = ct * S::kCols;
        const int rows_here = static_cast<int>(m.rows - r0 < S::kRows ? m.rows - r0 : S::kRows);
        const int cols_here = static_cast<int>(m.cols - c0 < S::kCols ? m.cols - c0 : S::kCols);
        const bool full = rows_here == S::kRows && cols_here == S::kCols;
        const uint8_t* src = in + (b * m.stride_in + r0 * m.ld_in + c0) * Size;
        uint8_t* dst = out + (b * m.stride_out + c0 * m.ld_out + r0) * Size;
        // Both steps take the same form: the two forms lay the tile out differently.
        if (!General && full && vectors_aligned) {
          load_vectors<Size, Compact>(src, m.ld_in, tile);
          __syncthreads();
          store_vectors<Size, Compact>(tile, dst, m.ld_out);
        } else {
          load_shifted<Size, Compact>(src, m.ld_in, tile, rows_here, cols_here, in_begin, in_end);
          __syncthreads();
          store_shifted<Size, Compact>(tile, src, m.ld_in, dst, m.ld_out, rows_here, cols_here);
        }
        __syncthreads();  // the next tile reuses shared memory
      }
}

bool vectors_aligned(const void* base, int64_t ld, int64_t stride, int size) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && (ld * size) % 16 == 0 &&
         (stride * size) % 16 == 0;
}

// Multiprocessors of the current device, read once per device.
int multiprocessors() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> counts[kMaxDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= kMaxDevices) return 132;
  int count = counts[device].load(std::memory_order_relaxed);
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) count = 132;
    counts[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

template <int Size, bool Compact, bool General>
Status launch_shape(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  using S = TileShape<Size, Compact>;
  const dim3 grid = clamped_grid(ceil_div(p.rows, S::kRows), ceil_div(p.cols, S::kCols), p.batch);
  tile_transpose_kernel<Size, Compact, General><<<grid, S::kThreads, 0, stream>>>(
      static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), view_of(p), !General,
      reinterpret_cast<uintptr_t>(in), reinterpret_cast<uintptr_t>(in) + p.input_extent() * Size);
  return gpu::check_launch("tile_transpose");
}

template <int Size>
Status launch(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  using Large = TileShape<Size, false>;
  const int64_t large_tiles = ceil_div(p.rows, Large::kRows) * ceil_div(p.cols, Large::kCols) * p.batch;
  const bool aligned = vectors_aligned(in, p.ld_in, p.batch > 1 ? p.stride_in : 0, Size) &&
                       vectors_aligned(out, p.ld_out, p.batch > 1 ? p.stride_out : 0, Size);
  const bool compact = large_tiles < int64_t(kLargeTilesPerSmForLarge) * multiprocessors();
  if (compact) return aligned ? launch_shape<Size, true, false>(in, out, p, stream)
                              : launch_shape<Size, true, true>(in, out, p, stream);
  return aligned ? launch_shape<Size, false, false>(in, out, p, stream)
                 : launch_shape<Size, false, true>(in, out, p, stream);
}

}  // namespace

Status launch_tile_transpose(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  Status status = Status::internal_error;
  if (!dispatch_size(p.elem_size, [&](auto size) { status = launch<decltype(size)::value>(in, out, p, stream); }))
    return detail::fail(Status::internal_error, "unsupported element size");
  return status;
}

}  // namespace xpose::cuda
