// SPDX-License-Identifier: Apache-2.0
// The AVX-512 tiles: register transposes, line writers and the walk, instantiated by
// transpose_tiles_avx512.cpp. Everything is in an anonymous namespace.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/tile_region.hpp"
#include "cpu/transpose_tiles_avx512.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12's AVX-512 headers trip its own -W(maybe-)uninitialized (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

// Every function that touches a 512-bit register carries this attribute: the library itself is
// built for baseline x86-64 and reaches these functions only after the runtime check.
#define XPOSE_AVX512 __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define XPOSE_AVX512_INLINE XPOSE_AVX512 __attribute__((always_inline)) inline

namespace xpose::detail {
namespace {

// ---------------------------------------------------------------------------------------------
// Register transposes. Each loads a tile of kEdge input rows of 64 bytes (row r at in + r * ld)
// and leaves output line q (kEdge elements of output row q) in lines[q].

// 16 x 16 of 4 bytes: three rounds of in-lane shuffles (1, 2 elements) and two of 128-bit lane
// shuffles (4, 8 elements), 64 shuffles in all.
XPOSE_AVX512_INLINE void transpose_16x16_dwords(__m512i* r) {
  __m512 t[16], u[16];
  for (int k = 0; k < 8; ++k) {
    const __m512 a = _mm512_castsi512_ps(r[2 * k]), b = _mm512_castsi512_ps(r[2 * k + 1]);
    t[2 * k] = _mm512_unpacklo_ps(a, b);
    t[2 * k + 1] = _mm512_unpackhi_ps(a, b);
  }
  for (int k = 0; k < 4; ++k) {
    u[4 * k + 0] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * k + 1] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * k + 2] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * k + 3] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 2; ++k)
    for (int m = 0; m < 4; ++m) {
      t[8 * k + m] = _mm512_shuffle_f32x4(u[8 * k + m], u[8 * k + 4 + m], 0x88);
      t[8 * k + 4 + m] = _mm512_shuffle_f32x4(u[8 * k + m], u[8 * k + 4 + m], 0xdd);
    }
  for (int m = 0; m < 8; ++m) {
    r[m] = _mm512_castps_si512(_mm512_shuffle_f32x4(t[m], t[8 + m], 0x88));
    r[8 + m] = _mm512_castps_si512(_mm512_shuffle_f32x4(t[m], t[8 + m], 0xdd));
  }
}

// TileTranspose<ElemSize>::load(in, ld, lines) reads a whole tile (kEdge rows of 64 bytes, row r
// at in + r * ld), then leaves output line q in lines[q]; the sets other than 4 bytes do the
// second half in transpose(rows, lines), which clobbers rows.
template <int ElemSize>
struct TileTranspose;

template <>
struct TileTranspose<4> {
  XPOSE_AVX512_INLINE static void load(const unsigned char* in, int64_t ld, __m512i* lines) {
    for (int r = 0; r < 16; ++r) lines[r] = _mm512_loadu_si512(in + r * ld);
    transpose_16x16_dwords(lines);
  }
};

// 8 x 8 of 8 bytes: 64-bit unpacks, then two rounds of 128-bit lane shuffles.
template <>
struct TileTranspose<8> {
  XPOSE_AVX512_INLINE static void transpose(__m512i* r, __m512i* lines) {
    __m512i t[8], u[8];
    for (int k = 0; k < 4; ++k) {
      t[2 * k] = _mm512_unpacklo_epi64(r[2 * k], r[2 * k + 1]);      // columns 0 2 4 6
      t[2 * k + 1] = _mm512_unpackhi_epi64(r[2 * k], r[2 * k + 1]);  // columns 1 3 5 7
    }
    for (int h = 0; h < 2; ++h)  // rows 0-3, 4-7
      for (int odd = 0; odd < 2; ++odd) {
        const __m512i a = t[4 * h + odd], b = t[4 * h + 2 + odd];
        u[4 * h + 2 * odd] = _mm512_shuffle_i64x2(a, b, 0x88);      // columns 0,4 (+odd)
        u[4 * h + 2 * odd + 1] = _mm512_shuffle_i64x2(a, b, 0xdd);  // columns 2,6 (+odd)
      }
    for (int c = 0; c < 4; ++c) {  // u[c] holds columns {0,4}, {2,6}, {1,5}, {3,7} of rows 0-3
      static constexpr int kLow[4] = {0, 2, 1, 3};
      lines[kLow[c]] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0x88);
      lines[kLow[c] + 4] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0xdd);
    }
  }
  XPOSE_AVX512_INLINE static void load(const unsigned char* in, int64_t ld, __m512i* lines) {
    __m512i r[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_si512(in + k * ld);
    transpose(r, lines);
  }
};

// 4 x 4 of 16 bytes: two rounds of 128-bit lane shuffles.
template <>
struct TileTranspose<16> {
  XPOSE_AVX512_INLINE static void transpose(__m512i* r, __m512i* lines) {
    const __m512i a = _mm512_shuffle_i64x2(r[0], r[1], 0x88),
                  b = _mm512_shuffle_i64x2(r[0], r[1], 0xdd);
    const __m512i c = _mm512_shuffle_i64x2(r[2], r[3], 0x88),
                  d = _mm512_shuffle_i64x2(r[2], r[3], 0xdd);
    lines[0] = _mm512_shuffle_i64x2(a, c, 0x88);
    lines[2] = _mm512_shuffle_i64x2(a, c, 0xdd);
    lines[1] = _mm512_shuffle_i64x2(b, d, 0x88);
    lines[3] = _mm512_shuffle_i64x2(b, d, 0xdd);
  }
  XPOSE_AVX512_INLINE static void load(const unsigned char* in, int64_t ld, __m512i* lines) {
    __m512i r[4];
    for (int k = 0; k < 4; ++k) r[k] = _mm512_loadu_si512(in + k * ld);
    transpose(r, lines);
  }
};

// 32 x 32 of 2 bytes: each half of 16 rows is transposed as 16 x 16 pairs of columns (4 bytes),
// then one two-source word permute per output line takes the even or odd words of both halves.
template <>
struct TileTranspose<2> {
  XPOSE_AVX512_INLINE static void transpose(__m512i* rows, __m512i* lines) {
    __m512i* top = rows;
    __m512i* bottom = rows + 16;
    transpose_16x16_dwords(top);
    transpose_16x16_dwords(bottom);
    // Word k of the result: word 2k (+1) of top for k < 16, of bottom for k >= 16.
    const __m512i even =
        _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26,
                         24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi16(even, _mm512_set1_epi16(1));
    for (int p = 0; p < 16; ++p) {
      lines[2 * p] = _mm512_permutex2var_epi16(top[p], even, bottom[p]);
      lines[2 * p + 1] = _mm512_permutex2var_epi16(top[p], odd, bottom[p]);
    }
  }
  XPOSE_AVX512_INLINE static void load(const unsigned char* in, int64_t ld, __m512i* lines) {
    __m512i rows[32];
    for (int r = 0; r < 32; ++r) rows[r] = _mm512_loadu_si512(in + r * ld);
    transpose(rows, lines);
  }
};

// Byte k of a two-source permute: byte (k / 32 + first_byte) of dword (k % 32) of the pair.
struct PickBytes {
  alignas(64) unsigned char bytes[64];
};
constexpr PickBytes pick_bytes(int first_byte) {
  PickBytes pick{};
  for (int k = 0; k < 64; ++k)
    pick.bytes[k] = static_cast<unsigned char>(4 * (k % 32) + first_byte + k / 32);
  return pick;
}
constexpr PickBytes kPickBytes01 = pick_bytes(0), kPickBytes23 = pick_bytes(2);

// 64 x 64 of 1 byte: four groups of 16 rows are transposed as 16 x 16 groups of 4 columns; then
// for each group of 4 columns, byte permutes pick byte c of every dword of two groups, and 128-bit
// lane shuffles join the halves into the 4 output lines.
template <>
struct TileTranspose<1> {
  XPOSE_AVX512_INLINE static void transpose(__m512i* rows, __m512i* lines) {
    __m512i* group[4] = {rows, rows + 16, rows + 32, rows + 48};
    for (int g = 0; g < 4; ++g) transpose_16x16_dwords(group[g]);
    const __m512i pick01 = _mm512_load_si512(kPickBytes01.bytes);
    const __m512i pick23 = _mm512_load_si512(kPickBytes23.bytes);
    for (int q = 0; q < 16; ++q) {
      const __m512i x01 = _mm512_permutex2var_epi8(group[0][q], pick01, group[1][q]);
      const __m512i x23 = _mm512_permutex2var_epi8(group[0][q], pick23, group[1][q]);
      const __m512i y01 = _mm512_permutex2var_epi8(group[2][q], pick01, group[3][q]);
      const __m512i y23 = _mm512_permutex2var_epi8(group[2][q], pick23, group[3][q]);
      lines[4 * q + 0] = _mm512_shuffle_i64x2(x01, y01, 0x44);
      lines[4 * q + 1] = _mm512_shuffle_i64x2(x01, y01, 0xee);
      lines[4 * q + 2] = _mm512_shuffle_i64x2(x23, y23, 0x44);
      lines[4 * q + 3] = _mm512_shuffle_i64x2(x23, y23, 0xee);
    }
  }
  XPOSE_AVX512_INLINE static void load(const unsigned char* in, int64_t ld, __m512i* lines) {
    __m512i rows[64];
    for (int r = 0; r < 64; ++r) rows[r] = _mm512_loadu_si512(in + r * ld);
    transpose(rows, lines);
  }
};

// ---------------------------------------------------------------------------------------------
// Line writers. A column of tiles produces, for each of its kEdge output rows, one run of
// consecutive lines; start() takes the first tile, put() each later one (`at`: byte offset of the
// tile in the output rows), finish() ends the run. Only the shifted writer joins strips.

// The 64-byte line at `p` (aligned), as the streaming store takes it.
inline __m512i* line_at(unsigned char* p) { return reinterpret_cast<__m512i*>(p); }

template <int kEdge>
struct PlainLines {
  static constexpr bool kJoinsStrips = false;
  unsigned char* row0 = nullptr;  // output row of the first line of the column of tiles
  int64_t ld = 0;
  void begin(unsigned char* first_row, int64_t ld_out, bool) { row0 = first_row, ld = ld_out; }
  XPOSE_AVX512_INLINE void start(int64_t at, const __m512i* lines) { put(at, lines); }
  XPOSE_AVX512_INLINE void put(int64_t at, const __m512i* lines) {
    for (int q = 0; q < kEdge; ++q) _mm512_storeu_si512(row0 + q * ld + at, lines[q]);
  }
  XPOSE_AVX512_INLINE void finish() {}
  XPOSE_AVX512_INLINE void join(int64_t, const __m512i*) {}
};

// Every output line 64-byte aligned. The writer holds kBatch tiles of its column in L1 before
// streaming them, so that each output row gets kBatch lines (256 bytes) back to back, as each
// input row gives 256 bytes per visit of the wide walk (Zen 5, f32 8192^2: 39 -> 45 GB/s).
template <int kEdge>
struct StreamAlignedLines {
  static constexpr bool kJoinsStrips = false;
  static constexpr int kBatch = 4;
  unsigned char* row0 = nullptr;
  int64_t ld = 0;
  int count = 0;         // tiles held
  int64_t first_at = 0;  // output offset of the first
  __m512i held[kBatch][kEdge];
  void begin(unsigned char* first_row, int64_t ld_out, bool) {
    row0 = first_row, ld = ld_out, count = 0;
  }
  XPOSE_AVX512_INLINE void start(int64_t at, const __m512i* lines) { put(at, lines); }
  XPOSE_AVX512_INLINE void put(int64_t at, const __m512i* lines) {
    if (count == 0) first_at = at;
    for (int q = 0; q < kEdge; ++q) held[count][q] = lines[q];
    if (++count == kBatch) finish();
  }
  XPOSE_AVX512_INLINE void finish() {
    for (int q = 0; q < kEdge; ++q)
      for (int b = 0; b < count; ++b)
        _mm512_stream_si512(line_at(row0 + q * ld + first_at + 64 * b), held[b][q]);
    count = 0;
  }
  XPOSE_AVX512_INLINE void join(int64_t, const __m512i*) {}
};

// Rows whose runs start `head` bytes before a 64-byte boundary (0 <= head < 64, per row). Every
// tile after the first completes the aligned line that straddles it and the previous tile (one
// two-source byte permute) and streams it. The first `head` bytes of a run and the bytes after
// its last whole line are partial lines: masked stores at the edges of the matrix, which read
// the line for ownership first (measured: a few percent of such lines halve the speed). Between
// two strips the strip above instead loads the first tile below and streams the straddling line
// whole (join()), and the strip below leaves those head bytes alone.
template <int kEdge>
struct StreamShiftedLines {
  static constexpr bool kJoinsStrips = true;
  unsigned char* row0 = nullptr;
  int64_t ld = 0;
  bool head_written_above = false;
  int64_t last_at = 0;
  // Tiles held before streaming: 4 for 1- and 2-byte elements, whose visits write 128 or 256
  // output rows (Zen 5, odd shapes: u8 12 -> 17 GB/s, u16 14 -> 19), none for the others (f32
  // 8191 x 8193 lost 18% held).
  static constexpr int kBatch = kEdge >= 32 ? 4 : 1;
  int count = 0;         // tiles held
  int64_t first_at = 0;  // output offset of the first
  unsigned char head[kEdge] = {};
  __m512i pick[kEdge];  // byte k of the straddling line: byte head + k of (previous, current)
  __m512i previous[kEdge] = {};  // set by start(); zeroed so the compiler sees it set
  __m512i held[kBatch][kEdge];  // unused when kBatch is 1

  void begin(unsigned char* first_row, int64_t ld_out, bool head_above) {
    row0 = first_row, ld = ld_out, head_written_above = head_above, count = 0;
  }

  XPOSE_AVX512_INLINE void start(int64_t at, const __m512i* lines) {
    const __m512i iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* run = row0 + q * ld + at;
      head[q] = static_cast<unsigned char>(-reinterpret_cast<uintptr_t>(run) & 63);
      pick[q] = _mm512_add_epi8(iota, _mm512_set1_epi8(static_cast<char>(head[q])));
      if (head[q] != 0 && !head_written_above)
        _mm512_mask_storeu_epi8(run, (uint64_t{1} << head[q]) - 1, lines[q]);
      previous[q] = lines[q];
    }
    last_at = at;
  }

  // Streams the lines that straddle the previous tile and this one (kBatch 1), or holds the tile
  // until kBatch are held (flush).
  XPOSE_AVX512_INLINE void put(int64_t at, const __m512i* lines) {
    last_at = at;
    if constexpr (kBatch == 1) {
      stream_joined(at, lines);
      for (int q = 0; q < kEdge; ++q) previous[q] = lines[q];
    } else {
      if (count == 0) first_at = at;
      for (int q = 0; q < kEdge; ++q) held[count][q] = lines[q];
      if (++count == kBatch) flush();
    }
  }

  // Streams the lines that straddle the previous tile and the held ones, kBatch lines per output
  // row back to back; the last held tile becomes the previous one.
  XPOSE_AVX512_INLINE void flush() {
    if (kBatch == 1 || count == 0) return;
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* line = row0 + q * ld + first_at - 64 + head[q];
      __m512i before = previous[q];
      for (int b = 0; b < count; ++b) {
        _mm512_stream_si512(line_at(line + 64 * b),
                            _mm512_permutex2var_epi8(before, pick[q], held[b][q]));
        before = held[b][q];
      }
      previous[q] = before;
    }
    count = 0;
  }

  // The first tile of the strip below (at `at`): only the lines that straddle it and the last
  // tile of this strip.
  XPOSE_AVX512_INLINE void join(int64_t at, const __m512i* lines) {
    flush();
    stream_joined(at, lines);
  }

  // Streams the lines that straddle the previous tile and `lines` (the tile at `at`).
  XPOSE_AVX512_INLINE void stream_joined(int64_t at, const __m512i* lines) {
    for (int q = 0; q < kEdge; ++q)
      _mm512_stream_si512(line_at(row0 + q * ld + at - 64 + head[q]),
                          _mm512_permutex2var_epi8(previous[q], pick[q], lines[q]));
  }

  // What is left of the last tile: a whole aligned line where head is 0, else a masked store.
  XPOSE_AVX512_INLINE void finish() {
    flush();
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* run = row0 + q * ld + last_at;
      if (head[q] == 0)
        _mm512_stream_si512(line_at(run), previous[q]);
      else
        _mm512_mask_storeu_epi8(run, ~((uint64_t{1} << head[q]) - 1), previous[q]);
    }
  }
};

// ---------------------------------------------------------------------------------------------

// Prefetches the input rows of the tile whose first row starts at `p`.
template <int ElemSize>
XPOSE_AVX512_INLINE void prefetch_tile(const unsigned char* p, int64_t ld_in) {
  constexpr int64_t kEdge = 64 / ElemSize;
  // The last byte of each row piece: the line not already fetched when rows are misaligned.
  for (int64_t k = 0; k < kEdge; ++k)
    _mm_prefetch(reinterpret_cast<const char*>(p + k * ld_in + 63), _MM_HINT_T0);
}

// The region arrives by value: its fields stay in registers, where stores through the output
// pointer would otherwise force the compiler to reload them from memory after every tile.
// kWide columns of tiles are visited side by side: each row visit reads kWide * 64 contiguous
// bytes (see tile_tuning() in transpose_blocked.cpp).
template <int ElemSize, template <int> class Lines, int kWide>
XPOSE_AVX512 void transpose_tiles(const TileRegion r, const StripJoins joins, int prefetch_tiles) {
  constexpr int64_t kEdge = 64 / ElemSize;
  constexpr int64_t kStep = kWide * kEdge;  // columns per visit
  const unsigned char* const in = r.in;
  const int64_t ld_in = r.ld_in, row_begin = r.row_begin, row_end = r.row_end;
  const bool join_below = Lines<kEdge>::kJoinsStrips && joins.complete_below;
  // Rows each column of tiles reads: the strip, and the first tile below it when joining.
  const int64_t walk_end = row_end + (join_below ? kEdge : 0);
  const int64_t ahead = prefetch_tiles * kEdge;
  const int64_t wide_end = r.col_begin + (r.col_end - r.col_begin) / kStep * kStep;
  __m512i tile[kEdge];
  for (int64_t j = r.col_begin; j < wide_end; j += kStep) {
    Lines<kEdge> lines[kWide];
    for (int w = 0; w < kWide; ++w)
      lines[w].begin(r.out + (j + w * kEdge) * r.ld_out, r.ld_out, joins.head_written_above);
    for (int64_t i = row_begin; i < walk_end; i += kEdge) {
      // The visit `prefetch_tiles` tiles ahead, continuing into the next columns of tiles.
      int64_t pi = i + ahead, pj = j;
      if (pi >= walk_end) pi += row_begin - walk_end, pj += kStep;
      if (pj < wide_end && pi < walk_end)
        for (int w = 0; w < kWide; ++w)
          prefetch_tile<ElemSize>(in + pi * ld_in + (pj + w * kEdge) * ElemSize, ld_in);
      for (int w = 0; w < kWide; ++w) {
        TileTranspose<ElemSize>::load(in + i * ld_in + (j + w * kEdge) * ElemSize, ld_in, tile);
        if (i == row_begin)
          lines[w].start(i * ElemSize, tile);
        else if (i < row_end)
          lines[w].put(i * ElemSize, tile);
        else
          lines[w].join(i * ElemSize, tile);
      }
    }
    if (!join_below)
      for (int w = 0; w < kWide; ++w) lines[w].finish();
  }
  if constexpr (kWide > 1) {
    if (wide_end < r.col_end) {
      TileRegion rest = r;
      rest.col_begin = wide_end;
      transpose_tiles<ElemSize, Lines, 1>(rest, joins, prefetch_tiles);
    }
  }
}

template <int ElemSize, template <int> class Lines>
XPOSE_AVX512 void tiles_of_width(const TileRegion& r, const StripJoins& joins, int prefetch_tiles,
                                 int wide) {
  if (wide >= 4) return transpose_tiles<ElemSize, Lines, 4>(r, joins, prefetch_tiles);
  return transpose_tiles<ElemSize, Lines, 1>(r, joins, prefetch_tiles);
}

}  // namespace
}  // namespace xpose::detail

#endif
