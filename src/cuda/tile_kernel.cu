// SPDX-License-Identifier: Apache-2.0
// The production 2D transpose kernel.
//
// A block moves one tile (TileShape: kRows x kCols elements) per iteration:
//   1. load: the input tile's rows as 16-byte vectors (coalesced, several loads in flight per
//      thread, L2 fetching whole 256-byte blocks: load_input_vector), stored to shared memory as
//      whole 16-byte groups;
//   2. transpose: each thread reads a micro-block of V = 16 / Size rows by K = word / Size columns
//      as shared-memory words (4 bytes for 1- and 2-byte elements, else mostly 16: see
//      tile_word_bytes), transposes it in registers (byte permutes for small elements, element
//      moves for the others), and
//   3. store: writes K output vectors of 16 bytes, V consecutive elements of an output row.
// Shared memory is swizzled (word column XOR a function of the row block) instead of padded, so
// 16-byte groups stay aligned and the column reads of step 2 spread over the banks.
//
// Edge tiles, and views whose rows are not 16-byte aligned (odd leading dimensions), take the
// general form of the steps (load_realigned / store_realigned below): global accesses stay
// aligned 16-byte vectors and each row's misalignment is undone in registers, between
// neighbouring lanes (shuffles and funnel shifts). Unaligned views use an instantiation of their
// own (TileShape's General: UnalignedTileTuning's shapes, UnalignedTallU8Tuning's for u8 views of
// many rows, UnalignedPartialRowsTuning's for views of few row tiles, and on one device model
// DeviceUnalignedTileTuning's for f16 and f32; longer output row segments, a halo row block above
// the tile, or for u8 transposed beside it); in it, full tiles inside the view take an unmasked
// variant of the general form where the tuning says so (load_realigned_full /
// store_realigned_full), which stores every aligned vector inside an output row whole; views of
// few row tiles whose last row tile is partial take an instantiation of their own in which that
// tile loads as full tiles do (PartialRows). Views of 8-byte elements
// take the element form instead (element_tile_kernel.cu), which measured faster for them:
// unaligned ones since v10, aligned ones since v16 (docs/kernels.md); the shapes below are
// generic, the tuning table has no 8-byte entries.
//
// Blocks walk tiles with the input row-tile index fastest: neighbouring tiles of an output row
// run at the same time, so the 32-byte sectors they share are completed in L2 before eviction.
// Views of many short rows walk column tiles fastest instead, so that the column tiles sharing
// an input row's DRAM blocks run together. Which shape, walk and form a view takes is one host
// function, select_tile_launch (tile_launch.hpp), tested on the CPU for several GPUs.
#include <cstdint>
#include <type_traits>

#include "cuda/device_types.cuh"
#include "cuda/element_tile_kernel.hpp"
#include "cuda/tile_kernel.hpp"
#include "cuda/tuning.hpp"

namespace xpose::cuda {
namespace {

// Bytes of the tile's shared-memory access unit (a "word"): 4 for 1- and 2-byte elements (K of
// them per word); 16 for larger ones (K = 16 / Size: a micro-block is a V x V block, transposed
// in registers) except where the micro-blocks would not divide among the threads (the compact
// f32 tile), which keeps words of one element. With words smaller than 16 bytes for 4- and 8-byte
// elements, the 16-byte groups that the loads write must keep their words together, so the
// swizzle can only XOR multiples of 16 / word: a warp's column reads meet half the banks, twice
// the wavefronts (ncu: 2.1 M extra for 8192^2 f32, 16.9 M for 16384^2 f64). 16-byte words take
// any XOR.
template <int Size, class Tuning>
constexpr int tile_word_bytes() {
  if (Size < 4) return 4;
  const int blocks_16 = (Tuning::kRows / (16 / Size)) * (Tuning::kCols / (16 / Size));  // micro-blocks, 16-byte words
  return blocks_16 % Tuning::kThreads == 0 ? 16 : Size;
}

// Whether a shape's tuning asks for the unmasked general form, and for a partial-row
// instantiation (only unaligned shapes have the fields).
template <class Tuning, bool General>
constexpr bool tuning_unmasked() {
  if constexpr (General) return Tuning::kUnmasked;
  else return false;
}
template <class Tuning, bool General>
constexpr bool tuning_partial_rows_form() {
  if constexpr (General) return Tuning::kUnmasked && Tuning::kPartialRowsForm;
  else return false;
}

// A tile shape and what follows from it. General: the shape serves views that are not 16-byte
// aligned and takes only the general form (UnalignedTileTuning, UnalignedTallU8Tuning); otherwise
// the fast form for full tiles and the general form for edge tiles (TileTuning).
template <int Size, class Tuning, bool General>
struct TileShape {
  static constexpr int kSize = Size;
  static constexpr bool kGeneral = General;
  static constexpr bool kUnmasked = tuning_unmasked<Tuning, General>();  // full tiles: load/store_realigned_full
  static constexpr bool kPartialRowsForm = tuning_partial_rows_form<Tuning, General>();  // an instantiation for partial row tiles
  static constexpr int kRows = Tuning::kRows;
  static constexpr int kCols = Tuning::kCols;
  static constexpr int kThreads = Tuning::kThreads;
  static constexpr int kMinBlocks = Tuning::kMinBlocks;
  static constexpr int kWordBytes = tile_word_bytes<Size, Tuning>();  // shared-memory access unit
  static constexpr int kPerWord = kWordBytes / Size;                  // K: elements per word
  static constexpr int kPerVector = 16 / Size;                        // V: elements per 16 bytes
  static constexpr int kWordsPerVector = 16 / kWordBytes;             // L
  static constexpr int kWordsPerRow = kCols / kPerWord;               // P (a power of two)
  static constexpr int kVectorsPerRow = kCols / kPerVector;
  static constexpr int kRowBlocks = kRows / kPerVector;               // micro-blocks per column
  static constexpr int kLoadsPerThread = kRows * kVectorsPerRow / kThreads;
  static constexpr int kStoresPerThread = kRowBlocks * kWordsPerRow / kThreads;
  // Unaligned shapes keep the previous row tile's last row block above the tile (its "halo"):
  // each output row segment's first aligned vector straddles the two tiles, and the tile that
  // stores it whole needs both parts (store_realigned_full). u8 shapes keep it transposed beside
  // the tile instead (kHaloTransposed, halo_column_offset), as the output vectors the first lane
  // of each output row reads whole; the others keep it as tile rows -V..-1.
  static constexpr int kHaloRows = General ? kPerVector : 0;
  static constexpr bool kHaloTransposed = General && Size == 1;
  static constexpr int kTileHaloRows = kHaloTransposed ? 0 : kHaloRows;  // halo rows inside the swizzled tile
  static constexpr int kTileBytes = (kTileHaloRows + kRows) * kCols * Size;
  // The transposed halo: 16 bytes per tile column, and 16 more after every 16 columns (banks).
  static constexpr int kSharedBytes = kTileBytes + (kHaloTransposed ? (kCols + kCols / 16) * 16 : 0);
  using Word = typename Element<kWordBytes>::type;
  static_assert(kLoadsPerThread * kThreads == kRows * kVectorsPerRow, "loads divide evenly");
  static_assert(kStoresPerThread * kThreads == kRowBlocks * kWordsPerRow, "stores divide evenly");
  static_assert((kWordsPerRow & (kWordsPerRow - 1)) == 0, "swizzle needs a power of two");
  // Output row segments are whole 16-byte vectors, so every row tile of an output row starts at the
  // same misalignment (`head`), which SegmentOwnership relies on.
  static_assert(kRows % kPerVector == 0 && kCols % kPerVector == 0, "segments are whole 16-byte vectors");
  static_assert(kSharedBytes <= 48 * 1024, "the tile is static shared memory");
  static_assert(!kHaloTransposed || kHaloRows == 16, "a transposed halo column is one output vector");
  static_assert(kHaloRows * kVectorsPerRow <= kThreads, "one halo load per thread at most");
  static_assert(General || !kUnmasked, "the unmasked form is for unaligned shapes");
};
template <int Size, bool Compact> using AlignedShape = TileShape<Size, TileTuning<Size, Compact>, false>;
template <int Size, bool Compact> using UnalignedShape = TileShape<Size, UnalignedTileTuning<Size, Compact>, true>;
using UnalignedTallU8Shape = TileShape<1, UnalignedTallU8Tuning, true>;
template <int Size> using UnalignedPartialRowsShape = TileShape<Size, UnalignedPartialRowsTuning<Size>, true>;
template <int Size> using DeviceShape = TileShape<Size, DeviceTileTuning<Size>, false>;
template <int Size> using DeviceUnalignedShape = TileShape<Size, DeviceUnalignedTileTuning<Size>, true>;

// Physical word column of logical word column `w` in tile row `r`: XOR with a multiple of the
// words per vector that changes every V rows (one micro-block of step 2).
template <class S>
__device__ __forceinline__ int swizzle(int r, int w) {
  return w ^ (((r / S::kPerVector) * S::kWordsPerVector) & (S::kWordsPerRow - 1));
}

// Byte offset in shared memory of element (r, c) of the tile; r from -kTileHaloRows (the halo).
template <class S>
__device__ __forceinline__ int tile_offset(int r, int c) {
  constexpr int Size = S::kSize;
  const int p = r + S::kTileHaloRows;  // the physical row
  const int w = swizzle<S>(p, c / S::kPerWord);
  return (p * S::kWordsPerRow + w) * S::kWordBytes + (c % S::kPerWord) * Size;
}

// Output vector `column` (0..K-1) of a micro-block from its V words (rows) of K elements.
template <class S>
__device__ __forceinline__ uint4 gather_column(const typename S::Word* words, int column) {
  constexpr int Size = S::kSize;
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
  } else if constexpr (sizeof(typename S::Word) == 16) {
    // Element `column` of V words of V elements each (`column` is a constant after unrolling).
    using T = typename Element<Size>::type;
    VectorOf<T> packed;
#pragma unroll
    for (int e = 0; e < 16 / Size; ++e) {
      VectorOf<T> word;
      word.v = *reinterpret_cast<const uint4*>(&words[e]);
      packed.e[e] = word.e[column];
    }
    v = packed.v;
  } else {
    // Words of one element: the V words are the vector.
    static_assert(sizeof(typename S::Word) == Size, "words of one element");
    VectorOf<typename S::Word> packed;
#pragma unroll
    for (int e = 0; e < 16 / Size; ++e) packed.e[e] = words[e];
    v = packed.v;
  }
  return v;
}

// Step 1, fast form: a full tile of a 16-byte-aligned view, as 16-byte vectors, all in flight
// before the first shared-memory store.
template <class S>
__device__ __forceinline__ void load_vectors(const uint8_t* __restrict__ src, int64_t ld_in, uint8_t* tile) {
  constexpr int Size = S::kSize;
  uint4 loaded[S::kLoadsPerThread];
#pragma unroll
  for (int k = 0; k < S::kLoadsPerThread; ++k) {
    const int slot = threadIdx.x + k * S::kThreads;
    const int r = slot / S::kVectorsPerRow, c = (slot % S::kVectorsPerRow) * S::kPerVector;
    loaded[k] = load_input_vector(src + (r * ld_in + c) * Size);
  }
#pragma unroll
  for (int k = 0; k < S::kLoadsPerThread; ++k) {
    const int slot = threadIdx.x + k * S::kThreads;
    const int r = slot / S::kVectorsPerRow, c = (slot % S::kVectorsPerRow) * S::kPerVector;
    *reinterpret_cast<uint4*>(tile + tile_offset<S>(r, c)) = loaded[k];
  }
}

// Step 2 for one store slot: the micro-block of V rows x K columns (as V shared-memory words)
// that slot `slot` stores, row block fastest across the slots so that a warp's 16-byte stores
// run along output rows. Both forms of step 3 start from it.
template <class S>
struct MicroBlock {
  int row_block, word_col;
  typename S::Word words[S::kPerVector];
  __device__ __forceinline__ MicroBlock(const uint8_t* tile, int slot)
      : MicroBlock(tile, slot % S::kRowBlocks, slot / S::kRowBlocks) {}
  // Row block -1 is the halo.
  __device__ __forceinline__ MicroBlock(const uint8_t* tile, int row_block_, int word_col_)
      : row_block(row_block_), word_col(word_col_) {
    const int p = row_block * S::kPerVector + S::kTileHaloRows;  // the physical row
    const int w = swizzle<S>(p, word_col);
#pragma unroll
    for (int e = 0; e < S::kPerVector; ++e)
      words[e] = reinterpret_cast<const typename S::Word*>(tile)[(p + e) * S::kWordsPerRow + w];
  }
};

// The halo's micro-block above `block` (row block -1, the same word column), which the first lane
// of each output row needs for the aligned vector its segment shares with the previous tile; the
// other lanes get zeros.
template <class S>
__device__ __forceinline__ void read_halo(const uint8_t* tile, const MicroBlock<S>& block, bool needed,
                                          typename S::Word (&halo)[S::kPerVector]) {
  static_assert(!S::kHaloTransposed, "a transposed halo is read by read_halo_vector");
#pragma unroll
  for (int e = 0; e < S::kPerVector; ++e) halo[e] = typename S::Word{};
  if (needed && block.row_block == 0) {
    const MicroBlock<S> above(tile, -1, block.word_col);
#pragma unroll
    for (int e = 0; e < S::kPerVector; ++e) halo[e] = above.words[e];
  }
}

// Shapes with kHaloTransposed keep the halo beside the tile, transposed: tile column c's 16 halo
// bytes (rows -16..-1) are the output vector that the first lane of output row c needs
// (read_halo_vector), one 16-byte shared load instead of 16 word loads and 12 byte permutes per
// micro-block column (ncu: the u8 kernels issue-bound in part; docs/kernels.md v26). After every
// 16 columns 16 bytes are skipped, so that the lanes of a halo row, which write bytes of columns
// 16 apart (store_halo_transposed), meet different banks.
template <class S>
__device__ __forceinline__ int halo_column_offset(int c) {
  return S::kTileBytes + (c + (c >> 4)) * 16;
}

// A lane's realigned vector of halo row h (0..15, tile row h - 16), tile columns [16 lane, 16 lane
// + 16), byte by byte into the transposed halo.
template <class S>
__device__ __forceinline__ void store_halo_transposed(uint8_t* shared, int h, int lane, uint4 v) {
  uint8_t* at = shared + halo_column_offset<S>(lane * 16) + h;  // columns 16 lane + i are 16 i further
  const uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 16; ++i) at[i * 16] = static_cast<uint8_t>(words[i >> 2] >> ((i & 3) * 8));
}

template <class S>
__device__ __forceinline__ uint4 read_halo_vector(const uint8_t* shared, int c) {
  return *reinterpret_cast<const uint4*>(shared + halo_column_offset<S>(c));
}

// Steps 2 and 3, fast form: micro-blocks of V rows x K columns, row block fastest across the
// threads so that a warp's 16-byte stores run along output rows.
template <class S>
__device__ __forceinline__ void store_vectors(const uint8_t* tile, uint8_t* __restrict__ dst, int64_t ld_out) {
  constexpr int Size = S::kSize;
#pragma unroll
  for (int k = 0; k < S::kStoresPerThread; ++k) {
    const MicroBlock<S> block(tile, threadIdx.x + k * S::kThreads);
    const int r = block.row_block * S::kPerVector;
#pragma unroll
    for (int column = 0; column < S::kPerWord; ++column) {
      const int c = block.word_col * S::kPerWord + column;
      *reinterpret_cast<uint4*>(dst + (c * ld_out + r) * Size) = gather_column<S>(block.words, column);
    }
  }
}

// The general form of the three steps, for edge tiles and for views whose rows are not 16-byte
// aligned (odd leading dimensions). Global memory is still accessed as aligned 16-byte vectors;
// the misalignment is undone in registers, between neighbouring lanes of a warp:
//   - load: the lanes of a tile row load the aligned chunks that cover it (the last lane one
//     more), and each lane builds its tile vector from its chunk and the next lane's (shuffle +
//     funnel shift by the row's misalignment), stored to the same swizzled tile as the fast form;
//   - store: the fast form's output vectors, which start at the output row segment's first
//     element, are shifted by the segment's misalignment the same way (the previous lane's vector
//     and the lane's own) and stored as aligned vectors. The aligned vector that two row tiles'
//     segments of one output row share is stored whole by the second tile in unaligned shapes,
//     which keep the first tile's last row block (the halo) above their tile; aligned shapes
//     share none. Only the two vectors at an output row's ends are stored in pieces
//     (SegmentOwnership, store_part).
// Every lane takes part in every shuffle, so rows and columns outside the tile (edge tiles) are
// handled by masking the loads and stores, never by skipping lanes.

// Bytes [shift, shift + 16) of the 32 bytes lo:hi (lo first in memory), for shift in 0..16.
__device__ __forceinline__ uint4 funnel_bytes(uint4 lo, uint4 hi, int shift) {
  if (shift >= 16) return hi;
  uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const int words = shift >> 2;
  if (words & 2) {
#pragma unroll
    for (int i = 0; i < 6; ++i) w[i] = w[i + 2];
  }
  if (words & 1) {
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = w[i + 1];
  }
  const unsigned bits = (shift & 3) * 8;
  return make_uint4(__funnelshift_r(w[0], w[1], bits), __funnelshift_r(w[1], w[2], bits),
                    __funnelshift_r(w[2], w[3], bits), __funnelshift_r(w[3], w[4], bits));
}

// The same lane's register from `delta` lanes further (down) or earlier (up) within groups of
// `Width` lanes; a lane whose partner is outside its group gets its own value back.
template <int Width>
__device__ __forceinline__ uint4 shuffle_down(uint4 v, int delta) {
  return make_uint4(__shfl_down_sync(0xffffffffu, v.x, delta, Width), __shfl_down_sync(0xffffffffu, v.y, delta, Width),
                    __shfl_down_sync(0xffffffffu, v.z, delta, Width), __shfl_down_sync(0xffffffffu, v.w, delta, Width));
}
template <int Width>
__device__ __forceinline__ uint4 shuffle_up(uint4 v, int delta) {
  return make_uint4(__shfl_up_sync(0xffffffffu, v.x, delta, Width), __shfl_up_sync(0xffffffffu, v.y, delta, Width),
                    __shfl_up_sync(0xffffffffu, v.z, delta, Width), __shfl_up_sync(0xffffffffu, v.w, delta, Width));
}

// The aligned 16 bytes at `address`, or only its elements inside [begin, end) (the others zero),
// so that nothing outside the caller's view is read.
template <int Size>
__device__ __forceinline__ uint4 load_chunk(const uint8_t* address, uintptr_t begin, uintptr_t end) {
  using T = typename Element<Size>::type;
  const uintptr_t at = reinterpret_cast<uintptr_t>(address);
  if (at >= begin && at + 16 <= end) return load_input_vector(address);
  VectorOf<T> chunk;
  chunk.v = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int t = 0; t < 16 / Size; ++t)
    if (at + t * Size >= begin && at + (t + 1) * Size <= end) chunk.e[t] = reinterpret_cast<const T*>(address)[t];
  return chunk.v;
}

// `Bytes` bytes (1, 2, 4 or 8) of v from byte `at` (a multiple of Bytes), to address + at. The
// bytes are picked out of their word by selects, not by a funnel shift of the whole vector.
template <int Bytes>
__device__ __forceinline__ void store_piece(uint8_t* address, uint4 v, int at) {
  if constexpr (Bytes == 8) {
    const uint32_t low = at & 8 ? v.z : v.x, high = at & 8 ? v.w : v.y;
    *reinterpret_cast<unsigned long long*>(address + at) = static_cast<unsigned long long>(high) << 32 | low;
  } else {
    const uint32_t in_low_half = at & 4 ? v.y : v.x, in_high_half = at & 4 ? v.w : v.z;
    const uint32_t word = at & 8 ? in_high_half : in_low_half;
    if constexpr (Bytes == 4) {
      *reinterpret_cast<uint32_t*>(address + at) = word;
    } else if constexpr (Bytes == 2) {
      *reinterpret_cast<uint16_t*>(address + at) = static_cast<uint16_t>(word >> ((at & 2) * 8));
    } else {
      address[at] = static_cast<uint8_t>(word >> ((at & 3) * 8));
    }
  }
}

// Bytes [lo, hi) of `v` (multiples of Size) to the same bytes of the aligned vector at `address`.
// A head [lo, 16) or a tail [0, hi) of a vector goes as at most four naturally aligned pieces
// (1, 2, 4, 8 bytes; one per set bit of its length), not element by element: a u8 segment end
// would otherwise take up to 15 one-byte stores.
template <int Size>
__device__ __forceinline__ void store_part(uint8_t* address, uint4 v, int lo, int hi) {
  using T = typename Element<Size>::type;
  if (lo == 0 && hi == 16) {
    *reinterpret_cast<uint4*>(address) = v;
  } else if (hi == 16) {  // pieces in increasing size from lo; each starts aligned to its size
    const int length = 16 - lo;
    if constexpr (Size <= 1) if (length & 1) store_piece<1>(address, v, lo);
    if constexpr (Size <= 2) if (length & 2) store_piece<2>(address, v, lo + (length & 1));
    if constexpr (Size <= 4) if (length & 4) store_piece<4>(address, v, lo + (length & 3));
    if constexpr (Size <= 8) if (length & 8) store_piece<8>(address, v, lo + (length & 7));
  } else if (lo == 0) {  // pieces in decreasing size from 0
    if constexpr (Size <= 8) if (hi & 8) store_piece<8>(address, v, 0);
    if constexpr (Size <= 4) if (hi & 4) store_piece<4>(address, v, hi & 8);
    if constexpr (Size <= 2) if (hi & 2) store_piece<2>(address, v, hi & 12);
    if constexpr (Size <= 1) if (hi & 1) store_piece<1>(address, v, hi & 14);
  } else {  // both ends inside one vector: a segment shorter than 16 bytes
    VectorOf<T> part;
    part.v = v;
#pragma unroll
    for (int t = 0; t < 16 / Size; ++t)
      if (t * Size >= lo && t * Size < hi) reinterpret_cast<T*>(address)[t] = part.e[t];
  }
}

// Stores a lane's vector of tile row r (-kHaloRows..kRows-1) realigned: bytes [head, head + 16)
// of its aligned chunk and the next lane's (the row's last lane: its own `after`, the chunk past
// the row segment's last full one). Every lane of the row takes part (the shuffle); only lanes
// with `store` write.
template <class S>
__device__ __forceinline__ void store_realigned_chunk(uint8_t* tile, int r, int lane, uint4 chunk, uint4 after,
                                                      int head, bool store = true) {
  constexpr int kGroup = S::kVectorsPerRow;
  uint4 next = shuffle_down<kGroup>(chunk, 1);
  if (lane == kGroup - 1) next = after;
  if (store) *reinterpret_cast<uint4*>(tile + tile_offset<S>(r, lane * S::kPerVector)) = funnel_bytes(chunk, next, head);
}

// store_realigned_chunk for a halo row r (-kHaloRows..-1): into the swizzled tile, or transposed
// beside it (kHaloTransposed).
template <class S>
__device__ __forceinline__ void store_halo_chunk(uint8_t* shared, int r, int lane, uint4 chunk, uint4 after, int head,
                                                 bool store) {
  if constexpr (S::kHaloTransposed) {
    constexpr int kGroup = S::kVectorsPerRow;
    uint4 next = shuffle_down<kGroup>(chunk, 1);
    if (lane == kGroup - 1) next = after;
    if (store) store_halo_transposed<S>(shared, r + S::kHaloRows, lane, funnel_bytes(chunk, next, head));
  } else {
    store_realigned_chunk<S>(shared, r, lane, chunk, after, head, store);
  }
}

// Step 1, general form: tile rows [0, rows_here); the input view spans [view_begin, view_end).
// A tile row's lanes are kVectorsPerRow consecutive lanes (slot order), lane l holding vector l.
// Loads go in batches of Batch per thread (the last lane of a row two per slot): all of a tile's
// in the General instantiation, 4 in the aligned one, where only edge tiles come here and its
// registers are sized for the fast form.
template <class S, int Batch>
__device__ __forceinline__ void load_realigned(const uint8_t* __restrict__ src, int64_t ld_in, uint8_t* tile,
                                               int rows_here, int cols_here, uintptr_t view_begin,
                                               uintptr_t view_end) {
  constexpr int Size = S::kSize;
  constexpr int kGroup = S::kVectorsPerRow;
  static_assert(32 % kGroup == 0 && S::kThreads % 32 == 0, "a tile row's lanes lie in one warp");
  static_assert(S::kLoadsPerThread % Batch == 0, "batches divide the loads");
  const int64_t ld_bytes = ld_in * Size;
  const int lane = threadIdx.x % kGroup;
#pragma unroll
  for (int base = 0; base < S::kLoadsPerThread; base += Batch) {
    uint4 chunk[Batch], after[Batch];
#pragma unroll
    for (int k = 0; k < Batch; ++k) {
      const int r = (threadIdx.x + (base + k) * S::kThreads) / kGroup;
      const uint8_t* row = src + r * ld_bytes;
      const int head = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
      const uint8_t* first_chunk = row - head;
      const int row_end = head + cols_here * Size;  // the tile row's end, from first_chunk
      chunk[k] = after[k] = make_uint4(0, 0, 0, 0);
      if (r < rows_here) {
        // Chunks wholly past the tile's last column (edge tiles) are not read.
        if (lane * 16 < row_end) chunk[k] = load_chunk<Size>(first_chunk + lane * 16, view_begin, view_end);
        // The last lane also loads the chunk after the row segment's last full one.
        if (lane == kGroup - 1 && kGroup * 16 < row_end)
          after[k] = load_chunk<Size>(first_chunk + kGroup * 16, view_begin, view_end);
      }
    }
#pragma unroll
    for (int k = 0; k < Batch; ++k) {
      const int r = (threadIdx.x + (base + k) * S::kThreads) / kGroup;
      const int head = static_cast<int>(reinterpret_cast<uintptr_t>(src + r * ld_bytes) & 15);
      store_realigned_chunk<S>(tile, r, lane, chunk[k], after[k], head);
    }
  }
}

// Loads the halo of an unaligned shape's tile: the previous row tile's last V rows (tile rows
// -V..-1), realigned like load_realigned's rows, one chunk per thread at most.
template <class S>
__device__ __forceinline__ void load_halo(const uint8_t* __restrict__ src, int64_t ld_in, uint8_t* tile,
                                          int cols_here, uintptr_t view_begin, uintptr_t view_end) {
  constexpr int Size = S::kSize;
  constexpr int kGroup = S::kVectorsPerRow;
  constexpr int kSlots = S::kHaloRows * kGroup;
  // Whole warps take part (the shuffles), the lanes past the halo's slots load nothing.
  if (threadIdx.x >= (kSlots + 31) / 32 * 32) return;
  const int lane = threadIdx.x % kGroup;
  const int r = static_cast<int>(threadIdx.x) / kGroup - S::kHaloRows;  // -V..-1 for the slots
  const bool mine = threadIdx.x < kSlots;
  const uint8_t* row = src + r * ld_in * Size;
  const int head = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
  const uint8_t* first_chunk = row - head;
  const int row_end = head + cols_here * Size;
  uint4 chunk = make_uint4(0, 0, 0, 0), after = make_uint4(0, 0, 0, 0);
  if (mine && lane * 16 < row_end) chunk = load_chunk<Size>(first_chunk + lane * 16, view_begin, view_end);
  if (mine && lane == kGroup - 1 && kGroup * 16 < row_end)
    after = load_chunk<Size>(first_chunk + kGroup * 16, view_begin, view_end);
  store_halo_chunk<S>(tile, r, lane, chunk, after, head, mine);
}

// Which bytes of an output row segment a tile stores. The segment starts `head` bytes into an
// aligned vector; in an unaligned shape's tile that is not the first of its output rows, that
// vector is stored whole by this tile (its first `head` bytes are the previous tile's last ones,
// from the halo), and the tile leaves its own last `head` bytes to the next tile's first vector.
// So every aligned vector inside an output row is stored once, whole; only the two at the row's
// ends are partial. Aligned shapes have head 0: a tile stores exactly its segment.
struct SegmentOwnership {
  int lo, hi;  // bytes [lo, hi) from the segment's start (lo in -15..0)
  __device__ __forceinline__ SegmentOwnership(int head, int segment, int full_segment, bool takes_halo,
                                              bool last_row_tile)
      : lo(takes_halo ? -head : 0), hi(last_row_tile ? segment : full_segment - head) {}
};

// Steps 2 and 3, general form: the fast form's micro-blocks and output vectors (row block
// fastest: a row's vectors are kRowBlocks consecutive lanes), realigned to each output row and
// stored within tile columns [0, cols_here) and tile rows [0, rows_here), each output row's
// bytes as SegmentOwnership says. takes_halo: the tile stores the bytes before its segment in the
// segment's first aligned vector (unaligned shapes, row tiles but the first, halo loaded).
template <class S>
__device__ __forceinline__ void store_realigned(const uint8_t* tile, uint8_t* __restrict__ dst, int64_t ld_out,
                                                int rows_here, int cols_here, bool takes_halo, bool last_row_tile) {
  constexpr int Size = S::kSize;
  constexpr int kGroup = S::kRowBlocks;
  static_assert(32 % kGroup == 0 && S::kThreads % 32 == 0, "an output row's lanes lie in one warp");
  const int64_t ld_bytes = ld_out * Size;
  const int segment = rows_here * Size;  // bytes of each output row inside this tile
  // Not unrolled: stores need no registers to stay in flight, and unrolling the shuffles and
  // partial stores of every vector raised the fast form's registers (the aligned instantiation
  // compiles this form too, for its edge tiles) by up to 90 per thread.
#pragma unroll 1
  for (int k = 0; k < S::kStoresPerThread; ++k) {
    const MicroBlock<S> block(tile, threadIdx.x + k * S::kThreads);
    const int row_block = block.row_block;
    typename S::Word halo[S::kPerVector];
    if constexpr (S::kHaloRows > 0 && !S::kHaloTransposed) read_halo<S>(tile, block, takes_halo, halo);
#pragma unroll
    for (int column = 0; column < S::kPerWord; ++column) {
      const int c = block.word_col * S::kPerWord + column;
      const uint4 v = gather_column<S>(block.words, column);
      uint4 before = shuffle_up<kGroup>(v, 1);
      if (c >= cols_here) continue;
      uint8_t* row = dst + c * ld_bytes;
      const int head = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
      if constexpr (S::kHaloTransposed) {
        if (row_block == 0 && takes_halo) before = read_halo_vector<S>(tile, c);
      } else if constexpr (S::kHaloRows > 0) {
        if (row_block == 0 && takes_halo) before = gather_column<S>(halo, column);
      }
      const SegmentOwnership own(head, segment, S::kRows * Size, takes_halo, last_row_tile);
      uint8_t* first_vector = row - head;
      // Aligned vector j holds the segment's bytes [16 j - head, 16 j - head + 16).
      const int begin = row_block * 16 - head;
      const int lo = own.lo - begin > 0 ? own.lo - begin : 0;
      const int hi = own.hi - begin < 16 ? own.hi - begin : 16;
      if (hi > lo) store_part<Size>(first_vector + row_block * 16, funnel_bytes(before, v, 16 - head), lo, hi);
      // The last lane also writes the vector after it: the segment's last `head` bytes, where
      // this tile owns them.
      if (row_block == kGroup - 1 && head != 0) {
        const int tail_hi = own.hi - (begin + 16);  // at most head: own.hi <= segment <= 16 kGroup
        if (tail_hi > 0) store_part<Size>(first_vector + kGroup * 16, funnel_bytes(v, v, 16 - head), 0, tail_hi);
      }
    }
  }
}

// The general form for full tiles whose chunks all lie inside the input view (every tile of an
// unaligned view but those at the view's first and last elements): the same data movement as
// load_realigned / store_realigned without their masks and per-chunk view checks, and with row
// addresses stepped instead of multiplied. ncu on 8191 x 8193 f32 counted ~1000 instructions per
// warp and tile in the masked form (3.8x the aligned form's), most of them address arithmetic and
// bounds checks around 9 memory instructions.
template <class S, bool PartialRows = false>
__device__ __forceinline__ void load_realigned_full(const uint8_t* __restrict__ src, int64_t ld_in, uint8_t* tile,
                                                    bool takes_halo, int rows_here = S::kRows) {
  constexpr int Size = S::kSize;
  constexpr int kGroup = S::kVectorsPerRow;           // lanes of a tile row
  constexpr int kRowsPerPass = S::kThreads / kGroup;  // tile rows between a thread's loads
  static_assert(S::kHaloRows <= kRowsPerPass, "the halo is at most one pass");
  const int lane = threadIdx.x % kGroup;
  const int64_t ld_bytes = ld_in * Size;
  const int64_t pass_bytes = kRowsPerPass * ld_bytes;
  // The halo (rows -V..-1) is loaded by the threads of the first V rows of a pass, in the same
  // batch as the tile's rows: loaded after them, in a round trip of its own, it cost more than
  // whole stores saved (docs/kernels.md v13).
  const bool halo_lane = takes_halo && static_cast<int>(threadIdx.x) / kGroup < S::kHaloRows;
  uint4 halo_chunk = make_uint4(0, 0, 0, 0), halo_after = make_uint4(0, 0, 0, 0);
  int halo_head = 0;
  if (halo_lane) {
    const uint8_t* halo_row = src + (static_cast<int>(threadIdx.x) / kGroup - S::kHaloRows) * ld_bytes;
    halo_head = static_cast<int>(reinterpret_cast<uintptr_t>(halo_row) & 15);
    const uint8_t* at = halo_row - halo_head + lane * 16;
    halo_chunk = load_input_vector(at);
    if (lane == kGroup - 1 && halo_head != 0) halo_after = load_input_vector(at + 16);
  }
  const uint8_t* row = src + (threadIdx.x / kGroup) * ld_bytes;
  uint4 chunk[S::kLoadsPerThread], after[S::kLoadsPerThread];
  int head[S::kLoadsPerThread];
#pragma unroll
  for (int k = 0; k < S::kLoadsPerThread; ++k, row += pass_bytes) {
    head[k] = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
    const uint8_t* at = row - head[k] + lane * 16;
    chunk[k] = after[k] = make_uint4(0, 0, 0, 0);
    // PartialRows: a tile of the view's last row tile, rows from rows_here on outside the view.
    // Compared unsigned: the same test written in int made the f32 kernel (at its 128-register
    // cap) 5.7% slower on 300 x 1000003 (docs/kernels.md v23, call 5).
    if (!PartialRows || threadIdx.x / kGroup + k * kRowsPerPass < static_cast<unsigned>(rows_here)) {
      chunk[k] = load_input_vector(at);
      if (lane == kGroup - 1 && head[k] != 0) after[k] = load_input_vector(at + 16);
    }
  }
#pragma unroll
  for (int k = 0; k < S::kLoadsPerThread; ++k) {
    const int r = threadIdx.x / kGroup + k * kRowsPerPass;
    // store_realigned_chunk written out: called here, it changed the u8 kernel's machine code
    // (scheduling only, not measured), and these loads decide the unaligned views' speed.
    uint4 next = shuffle_down<kGroup>(chunk[k], 1);
    if (lane == kGroup - 1) next = after[k];
    *reinterpret_cast<uint4*>(tile + tile_offset<S>(r, lane * S::kPerVector)) =
        funnel_bytes(chunk[k], next, head[k]);
  }
  if constexpr (S::kHaloRows > 0)
    store_halo_chunk<S>(tile, static_cast<int>(threadIdx.x) / kGroup - S::kHaloRows, lane, halo_chunk, halo_after,
                        halo_head, halo_lane);
}

// Steps 2 and 3 for a full tile of an unaligned shape: every lane stores one whole aligned vector
// per output row, lane j the segment's bytes [16 j - head, 16 j - head + 16), lane 0's first part
// from the halo (SegmentOwnership). No partial stores inside an output row: the segment ends that
// a tile shares with its neighbours were, as pieces of 1-8 bytes from one lane, most of what an
// unaligned view cost over an aligned one (H100, docs/kernels.md v13). Only the first row tile
// (no halo: lane 0 stores the row's first bytes) and the last (its last lane also stores the
// row's last `head` bytes) store pieces, in their own instantiation (RowEnds): the branches cost
// the tiles inside the output rows about a point when they were compiled into their code.
template <class S, bool RowEnds>
__device__ __forceinline__ void store_realigned_full(const uint8_t* tile, uint8_t* __restrict__ dst, int64_t ld_out,
                                                     bool takes_halo_, bool last_row_tile_) {
  const bool takes_halo = RowEnds ? takes_halo_ : true;
  const bool last_row_tile = RowEnds ? last_row_tile_ : false;
  constexpr int Size = S::kSize;
  constexpr int kGroup = S::kRowBlocks;
  static_assert(S::kHaloRows > 0, "unaligned shapes only");
  const int64_t ld_bytes = ld_out * Size;
#pragma unroll 1
  for (int k = 0; k < S::kStoresPerThread; ++k) {
    const MicroBlock<S> block(tile, threadIdx.x + k * S::kThreads);
    uint8_t* row = dst + block.word_col * S::kPerWord * ld_bytes;
    typename S::Word halo[S::kPerVector];
    if constexpr (!S::kHaloTransposed) read_halo<S>(tile, block, takes_halo, halo);
#pragma unroll
    for (int column = 0; column < S::kPerWord; ++column, row += ld_bytes) {
      const uint4 v = gather_column<S>(block.words, column);
      uint4 before = shuffle_up<kGroup>(v, 1);
      const int head = static_cast<int>(reinterpret_cast<uintptr_t>(row) & 15);
      if (block.row_block == 0 && takes_halo) {
        if constexpr (S::kHaloTransposed)
          before = read_halo_vector<S>(tile, block.word_col * S::kPerWord + column);
        else
          before = gather_column<S>(halo, column);
      }
      uint8_t* first_vector = row - head;
      const uint4 aligned = funnel_bytes(before, v, 16 - head);
      if (block.row_block != 0 || takes_halo || head == 0) {
        *reinterpret_cast<uint4*>(first_vector + block.row_block * 16) = aligned;
      } else {
        store_part<Size>(first_vector, aligned, head, 16);  // the output row's first bytes
      }
      if (last_row_tile && block.row_block == kGroup - 1 && head != 0)  // the output row's last bytes
        store_part<Size>(first_vector + kGroup * 16, funnel_bytes(v, v, 16 - head), 0, head);
    }
  }
}

// S::kGeneral: the instantiation for views that are not 16-byte aligned, which only ever takes
// the general form. It has shapes and register caps of its own (UnalignedTileTuning,
// UnalignedTallU8Tuning) and takes all of a tile's loads in one batch (the halo too in the
// unmasked form; the masked form loads it after the tile's rows): its realigning loads hold two
// chunks per load, which the fast form's cap does not leave room for.
// PartialRows (shapes with kPartialRowsForm, views of few row tiles: launch_shape): tiles of the
// last row tile that span the tile's width and lie inside the view load as full tiles do, rows
// from rows_here on left out, and store by the masked form.
template <class S, TileWalk Walk, bool PartialRows>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks)
    tile_transpose_kernel(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, MatrixView m,
                          uintptr_t in_begin, uintptr_t in_end) {
  constexpr int Size = S::kSize;
  // The swizzled tile, the same for both forms (unaligned shapes: with the halo above it, or for
  // u8 transposed after it).
  __shared__ __align__(16) uint8_t tile[S::kSharedBytes];

  for_each_tile<S::kRows, S::kCols, Walk>(m, [&](const TileAt& at) {
    const int rows_here = at.rows_here, cols_here = at.cols_here;
    const bool full = rows_here == S::kRows && cols_here == S::kCols;
    const bool last_row_tile = at.rt == at.row_tiles - 1;
    const uint8_t* src = in + (at.b * m.stride_in + at.r0 * m.ld_in + at.c0) * Size;
    uint8_t* dst = out + (at.b * m.stride_out + at.c0 * m.ld_out + at.r0) * Size;
    // Both steps take the same form: the two forms lay the tile out differently.
    if constexpr (!S::kGeneral) {
      if (full) {
        load_vectors<S>(src, m.ld_in, tile);
        __syncthreads();
        store_vectors<S>(tile, dst, m.ld_out);
      } else {
        constexpr int kBatch = S::kLoadsPerThread < 4 ? S::kLoadsPerThread : 4;
        load_realigned<S, kBatch>(src, m.ld_in, tile, rows_here, cols_here, in_begin, in_end);
        __syncthreads();
        store_realigned<S>(tile, dst, m.ld_out, rows_here, cols_here, false, last_row_tile);
      }
    } else {
      // Row tiles but the first take the previous tile's last row block (the halo) and store
      // the aligned vector their output segments share with it.
      const bool takes_halo = at.rt > 0;
      // Every chunk of the tile's rows lies inside the view (at most 15 bytes before a row's
      // first element and 15 after its last). The unmasked halo loads need no check of their
      // own: a tile with a halo is at least kRows - V rows into its matrix, and a full tile's
      // rows are at least 64 bytes apart.
      const uintptr_t first = reinterpret_cast<uintptr_t>(src);
      const int rows_in = PartialRows ? rows_here : S::kRows;
      const uintptr_t last_end = first + ((rows_in - 1) * m.ld_in + S::kCols) * Size;
      const bool inside = first >= in_begin + 16 && last_end + 16 <= in_end;
      if (PartialRows && !full && cols_here == S::kCols && inside) {
        if constexpr (PartialRows) {
          load_realigned_full<S, true>(src, m.ld_in, tile, takes_halo, rows_here);
          __syncthreads();
          store_realigned<S>(tile, dst, m.ld_out, rows_here, cols_here, takes_halo, last_row_tile);
        }
      } else if (S::kUnmasked && full && inside) {
        if constexpr (S::kUnmasked) {
          load_realigned_full<S>(src, m.ld_in, tile, takes_halo);
          __syncthreads();
          if (takes_halo && !last_row_tile)
            store_realigned_full<S, false>(tile, dst, m.ld_out, true, false);
          else
            store_realigned_full<S, true>(tile, dst, m.ld_out, takes_halo, last_row_tile);
        }
      } else {
        load_realigned<S, S::kLoadsPerThread>(src, m.ld_in, tile, rows_here, cols_here, in_begin, in_end);
        if (takes_halo) load_halo<S>(src, m.ld_in, tile, cols_here, in_begin, in_end);
        __syncthreads();
        store_realigned<S>(tile, dst, m.ld_out, rows_here, cols_here, takes_halo, last_row_tile);
      }
    }
    __syncthreads();  // the next tile reuses shared memory
  });
}

// One launch of shape S as select_tile_launch decided it (walk, partial-row instantiation).
template <class S>
Status launch_shape(const void* in, void* out, const detail::Transpose2D& p, const TileLaunch& launch,
                    gpu::Stream stream) {
  const int64_t row_tiles = ceil_div(p.rows, S::kRows), col_tiles = ceil_div(p.cols, S::kCols);
  const dim3 grid = tile_grid(row_tiles, col_tiles, p.batch, launch.walk);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  const uintptr_t begin = reinterpret_cast<uintptr_t>(in), end = begin + p.input_extent() * S::kSize;
  const auto run = [&](auto walk_constant, auto partial_constant) {
    tile_transpose_kernel<S, decltype(walk_constant)::value, decltype(partial_constant)::value>
        <<<grid, S::kThreads, 0, stream>>>(src, dst, view_of(p), begin, end);
  };
  using RowsFastest = std::integral_constant<TileWalk, TileWalk::rows_fastest>;
  using ColumnsFastest = std::integral_constant<TileWalk, TileWalk::columns_fastest>;
  if constexpr (S::kPartialRowsForm) {
    if (launch.partial_rows) {
      if (launch.walk == TileWalk::columns_fastest) run(ColumnsFastest{}, std::true_type{});
      else run(RowsFastest{}, std::true_type{});
      return gpu::check_launch("tile_transpose");
    }
  }
  if (launch.walk == TileWalk::columns_fastest) run(ColumnsFastest{}, std::false_type{});
  else run(RowsFastest{}, std::false_type{});
  return gpu::check_launch("tile_transpose");
}

// The instantiation of select_tile_launch's shape for this element size.
template <int Size>
Status launch(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  const TilePointers pointers = tile_pointers(p, in, out);
  const TileLaunch launch = select_tile_launch(p, gpu::device_info(), pointers);
  if constexpr (Size == 8) {
    return launch_element_tile_transpose(in, out, p, launch, stream);
  } else {
    switch (launch.shape) {
      case TileShapeId::aligned: return launch_shape<AlignedShape<Size, false>>(in, out, p, launch, stream);
      case TileShapeId::aligned_compact: return launch_shape<AlignedShape<Size, true>>(in, out, p, launch, stream);
      case TileShapeId::aligned_device:
        if constexpr (DeviceTileTuning<Size>::kFasterOn != BandwidthPerSm::none)
          return launch_shape<DeviceShape<Size>>(in, out, p, launch, stream);
        break;
      default:
        break;
    }
    if constexpr (Size != 16) {
      switch (launch.shape) {
        case TileShapeId::unaligned: return launch_shape<UnalignedShape<Size, false>>(in, out, p, launch, stream);
        case TileShapeId::unaligned_compact:
          return launch_shape<UnalignedShape<Size, true>>(in, out, p, launch, stream);
        case TileShapeId::unaligned_device:
          if constexpr (DeviceUnalignedTileTuning<Size>::kFasterOn != BandwidthPerSm::none)
            return launch_shape<DeviceUnalignedShape<Size>>(in, out, p, launch, stream);
          break;
        case TileShapeId::unaligned_partial_rows:
          return launch_shape<UnalignedPartialRowsShape<Size>>(in, out, p, launch, stream);
        case TileShapeId::unaligned_tall_u8:
          if constexpr (Size == 1) return launch_shape<UnalignedTallU8Shape>(in, out, p, launch, stream);
          break;
        default:
          break;
      }
    }
    return detail::fail(Status::internal_error,
                        detail::message("no tile kernel instantiation for ", launch.describe()));
  }
}

}  // namespace

std::string describe_tile_transpose(const detail::Transpose2D& p) {
  return describe_tile_launches(p, gpu::device_info());
}

Status launch_tile_transpose(const void* in, void* out, const detail::Transpose2D& p, gpu::Stream stream) {
  Status status = Status::internal_error;
  if (!dispatch_size(p.elem_size, [&](auto size) { status = launch<decltype(size)::value>(in, out, p, stream); }))
    return detail::fail(Status::internal_error, "unsupported element size");
  return status;
}

}  // namespace xpose::cuda
