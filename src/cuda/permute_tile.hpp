// SPDX-License-Identifier: Apache-2.0
// The per-tile work of the tiled permute kernel, one function per phase between barriers:
//   fill_tables: the input byte offset of each tile row and the output byte offset of each tile
//                column, the tile's origin included (digits of the composite index times
//                strides; a few fast divisions per entry, once per tile instead of once per
//                element);
//   load:        tile rows from global memory (contiguous input runs) into shared memory, as
//                16-byte vectors where the view allows, else one element per thread and step;
//   load_shifted: the same for runs off 16 bytes, as the aligned 16-byte vectors that cover each
//                run, shifted in registers;
//   store_shifted: the same for output runs off 16 bytes: the aligned 16-byte vectors inside each
//                run from two row blocks shifted in registers, the run's ends element by element;
//   store:       tile columns (contiguous output runs) from shared memory to global memory; in
//                the vector form each thread reads V = 16 / size rows of one shared-memory word
//                column and transposes them in registers into K = word / size output vectors.
// Shared memory is swizzled, not padded: word column w of row r is stored at w XOR a multiple of
// the words per vector that changes every V rows, so 16-byte groups stay aligned for the loads
// and the column reads of the store spread over the banks.
//
// Plain C++ with host-device functions: the kernel calls each phase with its thread index, and the
// CPU tests run every thread of a phase in turn on host memory, so the whole data path (offsets,
// swizzle, register transposes, edges) is checked without a GPU.
#pragma once

#include <cstdint>
#include <cstring>

#include "cuda/permute_params.hpp"

// Unrolled by nvcc; plain loops on the host.
#if defined(__CUDACC__)
#define XPOSE_UNROLL _Pragma("unroll")
#else
#define XPOSE_UNROLL
#endif

namespace xpose::cuda {

// 16 bytes moved as one access.
struct alignas(16) Vector16 {
  uint32_t x, y, z, w;
};

template <int Size> struct Unit;
template <> struct Unit<1> { using type = uint8_t; };
template <> struct Unit<2> { using type = uint16_t; };
template <> struct Unit<4> { using type = uint32_t; };
template <> struct Unit<8> { using type = uint64_t; };
template <> struct Unit<16> { using type = Vector16; };

// __byte_perm on the device; the same selection on the host (byte i of the result is byte
// selector[4i..4i+2] of the 8 bytes y:x).
XPOSE_HOST_DEVICE inline uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t selector) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, selector);
#else
  const uint64_t bytes = (uint64_t{y} << 32) | x;
  uint32_t result = 0;
  for (int i = 0; i < 4; ++i) result |= static_cast<uint32_t>((bytes >> (8 * ((selector >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return result;
#endif
}

template <int Size>
struct TileGeometry {
  static constexpr int kWordBytes = Size < 4 ? 4 : Size;       // shared-memory access unit
  static constexpr int kPerWord = kWordBytes / Size;           // K
  static constexpr int kPerVector = 16 / Size;                 // V
  static constexpr int kLog2PerVector = Size == 1 ? 4 : Size == 2 ? 3 : Size == 4 ? 2 : Size == 8 ? 1 : 0;
  static constexpr int kWordsPerVector = 16 / kWordBytes;      // L
  using Element = typename Unit<Size>::type;
  using Word = typename Unit<kWordBytes>::type;
};

// Output vector `column` (0..K-1) of a micro-block: V words, one per tile row, of K elements.
template <int Size>
XPOSE_HOST_DEVICE inline Vector16 gather_column(const typename TileGeometry<Size>::Word* words, int column) {
  Vector16 v;
  if constexpr (Size == 1) {
    // Byte `column` of each of 16 words: byte-permutes of 4 words at a time.
    const uint32_t pick = static_cast<uint32_t>(column) | (static_cast<uint32_t>(column + 4) << 4);
    uint32_t part[4];
    for (int q = 0; q < 4; ++q) {
      const uint32_t lo = byte_perm(words[4 * q], words[4 * q + 1], pick);
      const uint32_t hi = byte_perm(words[4 * q + 2], words[4 * q + 3], pick);
      part[q] = byte_perm(lo, hi, 0x5410);
    }
    v = {part[0], part[1], part[2], part[3]};
  } else if constexpr (Size == 2) {
    // Half `column` of each of 8 words.
    const uint32_t pick = column == 0 ? 0x5410 : 0x7632;
    v = {byte_perm(words[0], words[1], pick), byte_perm(words[2], words[3], pick),
         byte_perm(words[4], words[5], pick), byte_perm(words[6], words[7], pick)};
  } else if constexpr (Size == 4) {
    v = {words[0], words[1], words[2], words[3]};
  } else if constexpr (Size == 8) {
    v = {static_cast<uint32_t>(words[0]), static_cast<uint32_t>(words[0] >> 32), static_cast<uint32_t>(words[1]),
         static_cast<uint32_t>(words[1] >> 32)};
  } else {
    v = words[0];
  }
  return v;
}

// Element `column` of a word (for the rows of a partial micro-block).
template <int Size>
XPOSE_HOST_DEVICE inline typename TileGeometry<Size>::Element element_of_word(
    const typename TileGeometry<Size>::Word& word, int column) {
  using Element = typename TileGeometry<Size>::Element;
  if constexpr (Size == 1 || Size == 2) {
    return static_cast<Element>(word >> (8 * Size * column));
  } else {
    return word;
  }
}

// Bytes s..s+15 of the 32 bytes hi:lo (s in 0..15): the run's vector out of the two aligned
// vectors that cover it. Word moves by selects (a run-time index would put the words in local
// memory), then one byte permute per word.
XPOSE_HOST_DEVICE inline Vector16 shift_pair(const Vector16& lo, const Vector16& hi, int s) {
  uint32_t a0 = lo.x, a1 = lo.y, a2 = lo.z, a3 = lo.w, a4 = hi.x, a5 = hi.y;
  const uint32_t a6 = hi.z, a7 = hi.w;
  if (s & 8) a0 = a2, a1 = a3, a2 = a4, a3 = a5, a4 = a6, a5 = a7;
  if (s & 4) a0 = a1, a1 = a2, a2 = a3, a3 = a4, a4 = a5;
  const uint32_t pick = 0x3210u + 0x1111u * static_cast<uint32_t>(s & 3);
  return {byte_perm(a0, a1, pick), byte_perm(a1, a2, pick), byte_perm(a2, a3, pick), byte_perm(a3, a4, pick)};
}

template <int Size>
struct TiledAgent {
  using G = TileGeometry<Size>;
  using Element = typename G::Element;
  using Word = typename G::Word;
  static constexpr int kInFlight = 4;  // global loads in flight per thread and step

  const TiledParams& p;
  int thread, threads;
  uint8_t* tile;     // kTiledSharedBytes, 16-byte aligned
  int64_t* row_in;   // kMaxTileEdge: byte offset from the input pointer of each tile row's start
  int64_t* col_out;  // kMaxTileEdge: byte offset from the output pointer of each tile column's start

  XPOSE_HOST_DEVICE int tile_rows() const { return 1 << p.log2_tile_rows; }
  XPOSE_HOST_DEVICE int tile_cols() const { return 1 << p.log2_tile_cols; }
  // Shared-memory words per tile row (a power of two; at least one).
  XPOSE_HOST_DEVICE int words_per_row() const { return tile_cols() < G::kPerWord ? 1 : tile_cols() / G::kPerWord; }

  XPOSE_HOST_DEVICE int swizzled(int r, int word) const {
    return word ^ (((r >> G::kLog2PerVector) * G::kWordsPerVector) & (words_per_row() - 1));
  }
  // Byte offset of tile element (r, c) in shared memory.
  XPOSE_HOST_DEVICE int tile_byte(int r, int c) const {
    return (r * words_per_row() + swizzled(r, c / G::kPerWord)) * G::kWordBytes + (c % G::kPerWord) * Size;
  }

  // The tables hold byte offsets from the pointers with the tile's origin folded in (its batch,
  // its first column on the input side, its first row on the output side), so that an access adds
  // one table entry and a small in-tile term to the pointer instead of five 64-bit products/sums.
  XPOSE_HOST_DEVICE void fill_tables(const TileOrigin& o) const {
    const int64_t in_first = o.in_base + o.col0 * p.col_in_stride;
    for (int i = thread; i < tile_rows(); i += threads)
      row_in[i] = o.row0 + i < p.rows ? (in_first + row_in_offset(p, o.row0 + i)) * Size : 0;
    const int64_t out_first = o.out_base + o.row0 * p.row_out_stride;
    for (int i = thread; i < tile_cols(); i += threads)
      col_out[i] = o.col0 + i < p.cols ? (out_first + col_out_offset(p, o.col0 + i)) * Size : 0;
  }

  // Element (r, c) of the tile in global memory, any strides.
  XPOSE_HOST_DEVICE const uint8_t* input(const uint8_t* in, int r, int c) const {
    return in + row_in[r] + c * p.col_in_stride * Size;
  }
  XPOSE_HOST_DEVICE uint8_t* output(uint8_t* out, int r, int c) const {
    return out + col_out[c] + r * p.row_out_stride * Size;
  }
  // The same where tile rows (input_run) or columns (output_run) are contiguous runs: the vector
  // and shifted forms, whose parameters require unit strides there.
  XPOSE_HOST_DEVICE const uint8_t* input_run(const uint8_t* in, int r, int c) const {
    return in + row_in[r] + c * Size;
  }
  XPOSE_HOST_DEVICE uint8_t* output_run(uint8_t* out, int r, int c) const { return out + col_out[c] + r * Size; }

  // Tile rows into shared memory. `vectors`: p.in_vectors and a 16-byte aligned input pointer.
  XPOSE_HOST_DEVICE void load(const TileOrigin& o, const uint8_t* __restrict__ in, bool vectors) const {
    if (vectors) {
      // Slot = (row, vector column); a vector straddling the view's edge goes element by element.
      const int log2_vectors_per_row = p.log2_tile_cols - G::kLog2PerVector;
      const int slots = tile_rows() << log2_vectors_per_row;
      for (int base = thread; base < slots; base += kInFlight * threads) {
        Vector16 loaded[kInFlight] = {};
XPOSE_UNROLL
        for (int k = 0; k < kInFlight; ++k) {
          const int slot = base + k * threads;
          const int r = slot >> log2_vectors_per_row;
          const int c = (slot & ((1 << log2_vectors_per_row) - 1)) << G::kLog2PerVector;
          if (slot < slots && r < o.rows_here && c + G::kPerVector <= o.cols_here)
            loaded[k] = *reinterpret_cast<const Vector16*>(input_run(in, r, c));
        }
XPOSE_UNROLL
        for (int k = 0; k < kInFlight; ++k) {
          const int slot = base + k * threads;
          const int r = slot >> log2_vectors_per_row;
          const int c = (slot & ((1 << log2_vectors_per_row) - 1)) << G::kLog2PerVector;
          if (slot >= slots || r >= o.rows_here || c >= o.cols_here) continue;
          if (c + G::kPerVector <= o.cols_here) {
            *reinterpret_cast<Vector16*>(tile + tile_byte(r, c)) = loaded[k];
          } else {
            for (int e = 0; c + e < o.cols_here; ++e)
              *reinterpret_cast<Element*>(tile + tile_byte(r, c + e)) =
                  *reinterpret_cast<const Element*>(input_run(in, r, c + e));
          }
        }
      }
      return;
    }
    // One element per thread and step, consecutive threads along a tile row.
    const int count = tile_rows() << p.log2_tile_cols;
    for (int base = thread; base < count; base += kInFlight * threads) {
      Element loaded[kInFlight] = {};
XPOSE_UNROLL
      for (int k = 0; k < kInFlight; ++k) {
        const int e = base + k * threads, r = e >> p.log2_tile_cols, c = e & (tile_cols() - 1);
        if (e < count && r < o.rows_here && c < o.cols_here)
          loaded[k] = *reinterpret_cast<const Element*>(input(in, r, c));
      }
XPOSE_UNROLL
      for (int k = 0; k < kInFlight; ++k) {
        const int e = base + k * threads, r = e >> p.log2_tile_cols, c = e & (tile_cols() - 1);
        if (e < count && r < o.rows_here && c < o.cols_here)
          *reinterpret_cast<Element*>(tile + tile_byte(r, c)) = loaded[k];
      }
    }
  }

  // Tile rows into shared memory when the aligned vectors do not apply (p.in_shifted): tile vector
  // (r, c..c+V-1) is bytes s..s+15 of the two aligned 16-byte vectors that start at or before its
  // first element (s: that element's address mod 16; one vector when s is 0), so each run is read
  // in whole vectors whatever its start, and shared memory keeps the aligned layout. Only vectors
  // inside the view's span are read whole; the few at the span's ends go element by element.
  // Two tile vectors in flight per thread (up to four loads) keep the kernel within its registers.
  XPOSE_HOST_DEVICE void load_shifted(const TileOrigin& o, const uint8_t* __restrict__ in) const {
    constexpr int kPairs = 2;
    const uintptr_t span_begin = reinterpret_cast<uintptr_t>(in), span_end = span_begin + p.in_span_bytes;
    const int log2_vectors_per_row = p.log2_tile_cols - G::kLog2PerVector;
    const int slots = tile_rows() << log2_vectors_per_row;
    for (int base = thread; base < slots; base += kPairs * threads) {
      Vector16 lo[kPairs] = {}, hi[kPairs] = {};
      int shift[kPairs];
      bool whole[kPairs];
XPOSE_UNROLL
      for (int k = 0; k < kPairs; ++k) {
        const int slot = base + k * threads;
        const int r = slot >> log2_vectors_per_row;
        const int c = (slot & ((1 << log2_vectors_per_row) - 1)) << G::kLog2PerVector;
        shift[k] = 0;
        whole[k] = false;
        if (slot < slots && r < o.rows_here && c < o.cols_here) {
          const uintptr_t first = reinterpret_cast<uintptr_t>(input_run(in, r, c));
          shift[k] = static_cast<int>(first & 15);
          const uint8_t* aligned = input_run(in, r, c) - shift[k];
          whole[k] = first - shift[k] >= span_begin && first - shift[k] + (shift[k] ? 32 : 16) <= span_end;
          if (whole[k]) {
            lo[k] = *reinterpret_cast<const Vector16*>(aligned);
            if (shift[k]) hi[k] = *reinterpret_cast<const Vector16*>(aligned + 16);
          }
        }
      }
XPOSE_UNROLL
      for (int k = 0; k < kPairs; ++k) {
        const int slot = base + k * threads;
        const int r = slot >> log2_vectors_per_row;
        const int c = (slot & ((1 << log2_vectors_per_row) - 1)) << G::kLog2PerVector;
        if (slot >= slots || r >= o.rows_here || c >= o.cols_here) continue;
        if (whole[k]) {  // elements past cols_here land in unused tile columns
          *reinterpret_cast<Vector16*>(tile + tile_byte(r, c)) = shift_pair(lo[k], hi[k], shift[k]);
        } else {
          for (int e = 0; e < G::kPerVector && c + e < o.cols_here; ++e)
            *reinterpret_cast<Element*>(tile + tile_byte(r, c + e)) =
                *reinterpret_cast<const Element*>(input_run(in, r, c + e));
        }
      }
    }
  }

  // Tile columns out of shared memory when the aligned vectors do not apply (p.out_shifted). Each
  // output run (tile column c, rows_here elements from a start t elements past a 16-byte boundary)
  // is written as the aligned 16-byte vectors that lie wholly inside it, then its head (rows before
  // the first such vector) and tail element by element. Vector j of a run holds the last t rows of
  // row block j-1 and the first V-t of block j: the thread of (row block j, word column) reads
  // both blocks' words, transposes each in registers (gather_column) and shifts the pair.
  XPOSE_HOST_DEVICE void store_shifted(const TileOrigin& o, uint8_t* __restrict__ out) const {
    constexpr int V = G::kPerVector;
    const int log2_row_blocks = p.log2_tile_rows - G::kLog2PerVector;
    const int slots = words_per_row() << log2_row_blocks;
    for (int slot = thread; slot < slots; slot += threads) {
      const int j = slot & ((1 << log2_row_blocks) - 1), r = j << G::kLog2PerVector;
      const int word_column = slot >> log2_row_blocks;
      if (r >= o.rows_here || word_column * G::kPerWord >= o.cols_here) continue;
      const Word* words = reinterpret_cast<const Word*>(tile);
      Word cur[V], prev[V];
      const int physical = swizzled(r, word_column), physical_prev = swizzled(r - V, word_column);
XPOSE_UNROLL
      for (int e = 0; e < V; ++e) {
        cur[e] = words[(r + e) * words_per_row() + physical];
        prev[e] = j > 0 ? words[(r - V + e) * words_per_row() + physical_prev] : Word{};
      }
XPOSE_UNROLL
      for (int k = 0; k < G::kPerWord; ++k) {
        const int c = word_column * G::kPerWord + k;
        if (c >= o.cols_here) break;
        uint8_t* run = output_run(out, 0, c);
        const int shift = static_cast<int>(reinterpret_cast<uintptr_t>(run) & 15);
        const int first = r - shift / Size;  // the vector's first row
        if (first < 0 || first + V > o.rows_here) continue;
        const Vector16 now = gather_column<Size>(cur, k);
        *reinterpret_cast<Vector16*>(run + first * Size) =
            shift_pair(shift ? gather_column<Size>(prev, k) : now, now, (16 - shift) & 15);
      }
    }
    // Heads and tails: 2V slots per column (V when the tile has all its rows, where a run's head and
    // tail add up to V or 0), consecutive threads along a column.
    const int log2_edge = G::kLog2PerVector + (o.rows_here == tile_rows() ? 0 : 1);
    const int items = tile_cols() << log2_edge;
    for (int item = thread; item < items; item += threads) {
      const int c = item >> log2_edge, i = item & ((1 << log2_edge) - 1);
      if (c >= o.cols_here) continue;
      uint8_t* run = output_run(out, 0, c);
      const int t = static_cast<int>(reinterpret_cast<uintptr_t>(run) & 15) / Size;
      const int head = t == 0 ? 0 : (V - t < o.rows_here ? V - t : o.rows_here);
      const int tail = head + (o.rows_here - head) / V * V;
      const int row = i < head ? i : tail + (i - head);
      if (row < o.rows_here)
        reinterpret_cast<Element*>(run)[row] = *reinterpret_cast<const Element*>(tile + tile_byte(row, c));
    }
  }

  // Tile columns out of shared memory. `vectors`: p.out_vectors and a 16-byte aligned output.
  XPOSE_HOST_DEVICE void store(const TileOrigin& o, uint8_t* __restrict__ out, bool vectors) const {
    if (vectors) {
      // Slot = (row block of V rows, word column of K columns), row block fastest so that a warp
      // writes along output runs.
      const int log2_row_blocks = p.log2_tile_rows - G::kLog2PerVector;
      const int slots = words_per_row() << log2_row_blocks;
      for (int slot = thread; slot < slots; slot += threads) {
        const int r = (slot & ((1 << log2_row_blocks) - 1)) << G::kLog2PerVector;
        const int word_column = slot >> log2_row_blocks;
        if (r >= o.rows_here || word_column * G::kPerWord >= o.cols_here) continue;
        const int physical = swizzled(r, word_column);
        Word words[G::kPerVector];
XPOSE_UNROLL
        for (int e = 0; e < G::kPerVector; ++e)
          words[e] = reinterpret_cast<const Word*>(tile)[(r + e) * words_per_row() + physical];
XPOSE_UNROLL
        for (int k = 0; k < G::kPerWord; ++k) {
          const int c = word_column * G::kPerWord + k;
          if (c >= o.cols_here) break;
          uint8_t* dst = output_run(out, r, c);
          if (r + G::kPerVector <= o.rows_here) {
            *reinterpret_cast<Vector16*>(dst) = gather_column<Size>(words, k);
          } else {
XPOSE_UNROLL
            for (int e = 0; e < G::kPerVector; ++e)  // a constant bound keeps `words` in registers
              if (r + e < o.rows_here) reinterpret_cast<Element*>(dst)[e] = element_of_word<Size>(words[e], k);
          }
        }
      }
      return;
    }
    if constexpr (G::kPerWord == 1 && G::kWordsPerVector > 1) {
      if (p.log2_tile_cols >= kLog2WordsPerVector) return store_word_groups(o, out);
    }
    // One element per thread and step, consecutive threads along a tile column.
    const int count = tile_rows() << p.log2_tile_cols;
    for (int base = thread; base < count; base += kInFlight * threads) {
      Element values[kInFlight] = {};
XPOSE_UNROLL
      for (int k = 0; k < kInFlight; ++k) {
        const int e = base + k * threads, c = e >> p.log2_tile_rows, r = e & (tile_rows() - 1);
        if (e < count && r < o.rows_here && c < o.cols_here)
          values[k] = *reinterpret_cast<const Element*>(tile + tile_byte(r, c));
      }
XPOSE_UNROLL
      for (int k = 0; k < kInFlight; ++k) {
        const int e = base + k * threads, c = e >> p.log2_tile_rows, r = e & (tile_rows() - 1);
        if (e < count && r < o.rows_here && c < o.cols_here)
          *reinterpret_cast<Element*>(output(out, r, c)) = values[k];
      }
    }
  }

  // The element-wise store of 4- and 8-byte elements (output runs off 16 bytes), free of bank
  // conflicts: the swizzle gives the V rows of a row block one XOR pattern, so a warp reading one
  // column down 32 rows would meet each bank V times. Here an item is a row and a group of L = V
  // columns (one 16-byte word group); its thread reads the group's L words starting at column
  // (row mod L), so that the rows of a block fall on different banks, and then stores the L
  // columns in order, consecutive threads along rows: each store instruction of a warp writes
  // 32 consecutive elements of one output run.
  static constexpr int kLog2WordsPerVector = G::kWordsPerVector == 4 ? 2 : G::kWordsPerVector == 2 ? 1 : 0;
  XPOSE_HOST_DEVICE void store_word_groups(const TileOrigin& o, uint8_t* __restrict__ out) const {
    constexpr int L = G::kWordsPerVector;
    const Word* words = reinterpret_cast<const Word*>(tile);
    const int items = tile_rows() << (p.log2_tile_cols - kLog2WordsPerVector);
    for (int item = thread; item < items; item += threads) {
      const int r = item & (tile_rows() - 1);
      const int c0 = (item >> p.log2_tile_rows) * L;
      if (r >= o.rows_here || c0 >= o.cols_here) continue;
      Word read[L];  // read[j] is column c0 + ((r + j) mod L)
XPOSE_UNROLL
      for (int j = 0; j < L; ++j) read[j] = words[r * words_per_row() + swizzled(r, c0 + ((r + j) & (L - 1)))];
XPOSE_UNROLL
      for (int m = 0; m < L; ++m) {
        if (c0 + m >= o.cols_here) break;
        const int slot = (m - r) & (L - 1);  // where column c0 + m was read; selects keep `read` in registers
        Word value = read[0];
XPOSE_UNROLL
        for (int j = 1; j < L; ++j) value = slot == j ? read[j] : value;
        *reinterpret_cast<Element*>(output(out, r, c0 + m)) = value;
      }
    }
  }
};

}  // namespace xpose::cuda
