// SPDX-License-Identifier: Apache-2.0
// The AVX2 tile set. This file alone is compiled with -mavx2 (src/CMakeLists.txt); everything in
// it but the entry points is in an anonymous namespace, so no AVX2 code can be picked by the
// linker for a caller in baseline code.
#include "cpu/transpose_tiles_avx2.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/permute_blocks.hpp"
#include "cpu/transpose_scalar.hpp"

#if defined(__AVX2__)
#include <immintrin.h>

namespace xpose::detail {
namespace {

// 64 bytes: a row piece of a tile, or one output line.
struct Line {
  __m256i lo, hi;
};

inline __m256i load_half(const unsigned char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

inline Line load_line(const unsigned char* p) { return {load_half(p), load_half(p + 32)}; }

inline void store_line(unsigned char* p, const Line& line) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), line.lo);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32), line.hi);
}

// `p` is 64-byte aligned.
inline void stream_line(unsigned char* p, const Line& line) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(p), line.lo);
  _mm256_stream_si256(reinterpret_cast<__m256i*>(p + 32), line.hi);
}

inline __m256i& half(Line& line, int h) { return h == 0 ? line.lo : line.hi; }
inline const __m256i& half(const Line& line, int h) { return h == 0 ? line.lo : line.hi; }

// ---------------------------------------------------------------------------------------------
// Register transposes.

// 8 x 8 of 4 bytes in place (r[k]: row k in, column k out): unpacks, in-lane shuffles, then
// 128-bit lane swaps; 24 shuffles.
inline void transpose_8x8_dwords(__m256i* r) {
  __m256 t[8], s[8];
  for (int k = 0; k < 4; ++k) {
    const __m256 a = _mm256_castsi256_ps(r[2 * k]), b = _mm256_castsi256_ps(r[2 * k + 1]);
    t[2 * k] = _mm256_unpacklo_ps(a, b);      // rows 2k, 2k+1 of columns 0 1 | 4 5
    t[2 * k + 1] = _mm256_unpackhi_ps(a, b);  // columns 2 3 | 6 7
  }
  for (int h = 0; h < 2; ++h) {  // rows 0-3, 4-7
    const __m256 *a = t + 4 * h, *b = t + 4 * h + 2;
    s[4 * h + 0] = _mm256_shuffle_ps(a[0], b[0], 0x44);  // column 0 | 4
    s[4 * h + 1] = _mm256_shuffle_ps(a[0], b[0], 0xEE);  // column 1 | 5
    s[4 * h + 2] = _mm256_shuffle_ps(a[1], b[1], 0x44);  // column 2 | 6
    s[4 * h + 3] = _mm256_shuffle_ps(a[1], b[1], 0xEE);  // column 3 | 7
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_castps_si256(_mm256_permute2f128_ps(s[c], s[4 + c], 0x20));
    r[c + 4] = _mm256_castps_si256(_mm256_permute2f128_ps(s[c], s[4 + c], 0x31));
  }
}

// 4 x 4 of 8 bytes in place; 8 shuffles.
inline void transpose_4x4_qwords(__m256i* r) {
  const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]);
  const __m256i t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
  r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
  r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
  r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
  r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

// TileTranspose<ElemSize>::run(in, ld, put) reads the tile (kEdge row pieces of 64 bytes, row r
// at in + r * ld) and hands each half of each output line to put(q, h, v): bytes [32 h, 32 h + 32)
// of output line q. `put` is taken by value: through a reference, the compiler reloads its
// captures after every store (a store may alias them).
template <int ElemSize>
struct TileTranspose;

// The 4- to 16-byte tiles load every input line whole before transposing: with a leading
// dimension near a multiple of 4 KiB all rows of a tile share one L1 set, and the prefetches of
// the tiles ahead would evict a line between the loads of its two halves.

// 16 x 16 of 4 bytes: four 8 x 8 blocks, 96 shuffles.
template <>
struct TileTranspose<4> {
  template <class Put>
  static void run(const unsigned char* in, int64_t ld, Put put) {
    Line rows[16];
    for (int r = 0; r < 16; ++r) rows[r] = load_line(in + r * ld);
    for (int C = 0; C < 2; ++C) {  // columns 8C to 8C + 7
      __m256i t[2][8];
      for (int R = 0; R < 2; ++R) {  // rows 8R to 8R + 7: half R of the output lines
        for (int k = 0; k < 8; ++k) t[R][k] = half(rows[8 * R + k], C);
        transpose_8x8_dwords(t[R]);
      }
      for (int k = 0; k < 8; ++k) put(8 * C + k, 0, t[0][k]), put(8 * C + k, 1, t[1][k]);
    }
  }
};

// 8 x 8 of 8 bytes: four 4 x 4 blocks, 32 shuffles.
template <>
struct TileTranspose<8> {
  template <class Put>
  static void run(const unsigned char* in, int64_t ld, Put put) {
    Line rows[8];
    for (int r = 0; r < 8; ++r) rows[r] = load_line(in + r * ld);
    for (int C = 0; C < 2; ++C) {
      __m256i t[2][4];
      for (int R = 0; R < 2; ++R) {
        for (int k = 0; k < 4; ++k) t[R][k] = half(rows[4 * R + k], C);
        transpose_4x4_qwords(t[R]);
      }
      for (int k = 0; k < 4; ++k) put(4 * C + k, 0, t[0][k]), put(4 * C + k, 1, t[1][k]);
    }
  }
};

// 4 x 4 of 16 bytes: 2 x 2 blocks of 128-bit lanes, 8 shuffles.
template <>
struct TileTranspose<16> {
  template <class Put>
  static void run(const unsigned char* in, int64_t ld, Put put) {
    Line rows[4];
    for (int r = 0; r < 4; ++r) rows[r] = load_line(in + r * ld);
    for (int C = 0; C < 2; ++C) {
      __m256i t[2][2];
      for (int R = 0; R < 2; ++R) {
        const __m256i a = half(rows[2 * R], C), b = half(rows[2 * R + 1], C);
        t[R][0] = _mm256_permute2x128_si256(a, b, 0x20);
        t[R][1] = _mm256_permute2x128_si256(a, b, 0x31);
      }
      for (int k = 0; k < 2; ++k) put(2 * C + k, 0, t[0][k]), put(2 * C + k, 1, t[1][k]);
    }
  }
};

// Two 16-byte row pieces as one register: `lo` in lane 0, `hi` in lane 1.
inline __m256i load_lanes(const unsigned char* lo, const unsigned char* hi) {
  return _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(hi),
                             reinterpret_cast<const __m128i*>(lo));
}

// Copies `rows` input row pieces of 64 bytes (row r at in + r * ld) into `packed`, 64 bytes apart.
// The one- and two-byte transposes read each row in 16-byte pieces at different times; with a
// leading dimension at or near a multiple of 4 KiB all rows of a tile fall into one L1 set (8
// lines), and a line would be fetched again for each piece. Whole lines copied at once are
// fetched once, and the packed copy spreads over every set.
inline void pack_rows(const unsigned char* in, int64_t ld, int rows, unsigned char* packed) {
  for (int r = 0; r < rows; ++r, in += ld)
    store_line(packed + 64 * r, load_line(in));
}

// Index with its low `Bits` bits reversed: the register order the unpack transposes below leave.
template <int Bits>
constexpr int bit_reversed(int i) {
  int r = 0;
  for (int b = 0; b < Bits; ++b) r |= ((i >> b) & 1) << (Bits - 1 - b);
  return r;
}

// In each 128-bit lane, 16 x 16 bytes (x[k]: row k) to x[bit_reversed<4>(c)]: column c. Four
// rounds of unpacks of neighbouring registers (bytes, words, dwords, qwords), 64 in all; each
// round moves one bit of the row index into the byte position and one column bit out of it.
inline void transpose_16x16_bytes_in_lanes(__m256i* x) {
  __m256i y[16];
  for (int k = 0; k < 8; ++k) {
    y[k] = _mm256_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
    y[k + 8] = _mm256_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
  }
  for (int k = 0; k < 8; ++k) {
    x[k] = _mm256_unpacklo_epi16(y[2 * k], y[2 * k + 1]);
    x[k + 8] = _mm256_unpackhi_epi16(y[2 * k], y[2 * k + 1]);
  }
  for (int k = 0; k < 8; ++k) {
    y[k] = _mm256_unpacklo_epi32(x[2 * k], x[2 * k + 1]);
    y[k + 8] = _mm256_unpackhi_epi32(x[2 * k], x[2 * k + 1]);
  }
  for (int k = 0; k < 8; ++k) {
    x[k] = _mm256_unpacklo_epi64(y[2 * k], y[2 * k + 1]);
    x[k + 8] = _mm256_unpackhi_epi64(y[2 * k], y[2 * k + 1]);
  }
}

// In each 128-bit lane, 8 x 8 of 2 bytes (x[k]: row k) to x[bit_reversed<3>(c)]: column c; three
// rounds of unpacks (words, dwords, qwords), 24 in all.
inline void transpose_8x8_words_in_lanes(__m256i* x) {
  __m256i y[8];
  for (int k = 0; k < 4; ++k) {
    y[k] = _mm256_unpacklo_epi16(x[2 * k], x[2 * k + 1]);
    y[k + 4] = _mm256_unpackhi_epi16(x[2 * k], x[2 * k + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    x[k] = _mm256_unpacklo_epi32(y[2 * k], y[2 * k + 1]);
    x[k + 4] = _mm256_unpackhi_epi32(y[2 * k], y[2 * k + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    y[k] = _mm256_unpacklo_epi64(x[2 * k], x[2 * k + 1]);
    y[k + 4] = _mm256_unpackhi_epi64(x[2 * k], x[2 * k + 1]);
  }
  for (int k = 0; k < 8; ++k) x[k] = y[k];
}

// 32 x 32 of 2 bytes in blocks of 16 rows x 8 columns: register k holds row k of the block in
// lane 0 and row k + 8 in lane 1, so after the in-lane 8 x 8 transposes each register is 32
// contiguous output bytes (one column, 16 rows): half of an output line, ready to store. The two
// halves of 8 output lines are done together (16 registers); 32 shuffles per 256 bytes.
template <>
struct TileTranspose<2> {
  template <class Put>
  static void run(const unsigned char* src, int64_t ld_src, Put put) {
    alignas(64) unsigned char in[32 * 64];
    pack_rows(src, ld_src, 32, in);
    constexpr int64_t ld = 64;
    for (int c = 0; c < 4; ++c) {  // columns 8c to 8c + 7
      __m256i x[2][8];
      for (int h = 0; h < 2; ++h) {  // rows 16h to 16h + 15: half h of the output lines
        for (int k = 0; k < 8; ++k) {
          const unsigned char* p = in + (16 * h + k) * ld + 16 * c;
          x[h][k] = load_lanes(p, p + 8 * ld);
        }
        transpose_8x8_words_in_lanes(x[h]);
      }
      for (int k = 0; k < 8; ++k)
        put(8 * c + bit_reversed<3>(k), 0, x[0][k]), put(8 * c + bit_reversed<3>(k), 1, x[1][k]);
    }
  }
};

// 64 x 64 of 1 byte in blocks of 32 rows x 16 columns: register k holds row k of the block in
// lane 0 and row k + 16 in lane 1, so after the in-lane 16 x 16 transposes each register is 32
// contiguous output bytes (one column, 32 rows): half of an output line. 80 shuffles (64 unpacks,
// 16 lane inserts) per 512 bytes.
template <>
struct TileTranspose<1> {
  template <class Put>
  static void run(const unsigned char* src, int64_t ld_src, Put put) {
    alignas(64) unsigned char in[64 * 64];
    pack_rows(src, ld_src, 64, in);
    constexpr int64_t ld = 64;
    for (int c = 0; c < 4; ++c)      // columns 16c to 16c + 15
      for (int h = 0; h < 2; ++h) {  // rows 32h to 32h + 31: half h of the output lines
        __m256i x[16];
        for (int k = 0; k < 16; ++k) {
          const unsigned char* p = in + (32 * h + k) * ld + 16 * c;
          x[k] = load_lanes(p, p + 16 * ld);
        }
        transpose_16x16_bytes_in_lanes(x);
        for (int k = 0; k < 16; ++k) put(16 * c + bit_reversed<4>(k), h, x[k]);
      }
  }
};

// ---------------------------------------------------------------------------------------------
// Line writers: the protocol of the AVX-512 set (tile_transpose_avx512.hpp). A column of tiles
// produces, for each of its kEdge output rows, one run of consecutive lines. begin() names the
// output rows of a new column of tiles; tile<ElemSize>(phase, at, src, ld_in) transposes the tile
// whose input rows start at `src` and writes it at byte `at` of the output rows: `start` for the
// first tile of the run, `put` for each later one, `join` for the first tile of the strip below,
// which only completes the line that straddles the two strips; finish() ends the run.

enum class TilePhase { start, put, join };

// Ordinary stores. Each tile is transposed into a copy in L1 and each output line then written by
// two back-to-back stores: stored straight from the transpose, the two halves of a line are made
// apart (16 lines apart for bytes), and with a power-of-two leading dimension, where all lines of
// a tile share one L1 set, the line is gone before its second half comes (Zen 3, one thread,
// 1-4 MiB at power-of-two strides: 1.5 to 2.2x slower than through the copy).
template <int kEdge>
struct PlainLines {
  static constexpr bool kJoinsStrips = false;
  unsigned char* row0 = nullptr;  // output row of the first line of the column of tiles
  int64_t ld = 0;
  void begin(unsigned char* first_row, int64_t ld_out, bool) { row0 = first_row, ld = ld_out; }
  template <int ElemSize>
  void tile(TilePhase, int64_t at, const unsigned char* src, int64_t ld_in) {
    Line lines[kEdge];
    TileTranspose<ElemSize>::run(src, ld_in,
                                 [&lines](int q, int h, __m256i v) { half(lines[q], h) = v; });
    for (int q = 0; q < kEdge; ++q) store_line(row0 + q * ld + at, lines[q]);
  }
  void finish() {}
};

// Every output line 64-byte aligned: tiles are transposed into a copy in L1, then each line is
// streamed by two back-to-back stores. (Streaming the halves straight from the transpose, as they
// are made, ran 5 to 15% slower on Zen 3: f32 8192^2, c128 4096^2.) The copy holds kBatch tiles
// of the column, so that each output row gets kBatch lines (256 bytes) back to back, as each
// input row gives 256 bytes per visit: one tile wrote one line to each of its output rows, and the
// next line of that row came a visit later (Zen 3, % of the stream copy: f32 8192^2 39 -> 49,
// u8 16384^2 29 -> 35, u8 8192^2 29-32 -> 35-38; f64, c128, u16 and the tall f32 within noise).
template <int kEdge>
struct StreamAlignedLines {
  static constexpr bool kJoinsStrips = false;
  static constexpr int kBatch = 4;
  unsigned char* row0 = nullptr;
  int64_t ld = 0;
  int count = 0;         // tiles held
  int64_t first_at = 0;  // output offset of the first
  Line held[kBatch][kEdge];
  void begin(unsigned char* first_row, int64_t ld_out, bool) {
    row0 = first_row, ld = ld_out, count = 0;
  }
  template <int ElemSize>
  void tile(TilePhase, int64_t at, const unsigned char* src, int64_t ld_in) {
    if (count == 0) first_at = at;
    Line* lines = held[count];
    TileTranspose<ElemSize>::run(src, ld_in,
                                 [lines](int q, int h, __m256i v) { half(lines[q], h) = v; });
    if (++count == kBatch) finish();
  }
  void finish() {
    for (int q = 0; q < kEdge; ++q)
      for (int b = 0; b < count; ++b) stream_line(row0 + q * ld + first_at + 64 * b, held[b][q]);
    count = 0;
  }
};

// Rows whose runs start `head` bytes before a 64-byte boundary (0 <= head < 64, per row). Each
// row keeps its previous tile's line and the next kBatch tiles' lines side by side in L1; the
// aligned lines that straddle them are read back unaligned from `head` on and streamed (AVX2 has
// no two-source byte permute), kBatch lines per output row back to back as in StreamAlignedLines.
// Partial lines at the matrix's edges are written with ordinary stores; between strips, the join
// (the first tile of the strip below) completes the straddling line.
template <int kEdge>
struct StreamShiftedLines {
  static constexpr bool kJoinsStrips = true;
  static constexpr int kBatch = 4;
  unsigned char* row0 = nullptr;
  int64_t ld = 0;
  bool head_written_above = false;
  bool have_previous = false;  // slot 0 holds the line before slot 1's
  int count = 0;               // tiles in slots 1 to count
  int64_t first_at = 0;        // output offset of slot 1's tile
  unsigned char head[kEdge] = {};
  alignas(64) unsigned char held[kEdge][64 * (kBatch + 1)];  // slot 0: previous line; 1..: tiles

  void begin(unsigned char* first_row, int64_t ld_out, bool head_above) {
    row0 = first_row, ld = ld_out, head_written_above = head_above;
    have_previous = false, count = 0;
  }

  template <int ElemSize>
  void tile(TilePhase phase, int64_t at, const unsigned char* src, int64_t ld_in) {
    if (count == 0) first_at = at;
    unsigned char* const slot = &held[0][0] + 64 * (count + 1);
    TileTranspose<ElemSize>::run(src, ld_in, [slot](int q, int h, __m256i v) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(slot + q * sizeof(held[0]) + 32 * h), v);
    });
    ++count;
    if (phase == TilePhase::start) {
      for (int q = 0; q < kEdge; ++q) {
        unsigned char* run = row0 + q * ld + at;
        head[q] = static_cast<unsigned char>(-reinterpret_cast<uintptr_t>(run) & 63);
        if (head[q] != 0 && !head_written_above) std::memcpy(run, held[q] + 64, head[q]);
      }
    }
    if (count == kBatch || phase == TilePhase::join) flush();
  }

  // Streams the lines that straddle the held tiles (and the previous line), then keeps the last
  // tile's line as the previous one.
  void flush() {
    const int first = have_previous ? 1 : 2;
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* out = row0 + q * ld + first_at - 64 + head[q];
      for (int k = first; k <= count; ++k)
        stream_line(out + 64 * (k - 1), load_line(held[q] + 64 * (k - 1) + head[q]));
      store_line(held[q], load_line(held[q] + 64 * count));
    }
    first_at += 64 * count;
    have_previous = true, count = 0;
  }

  // What is left of the last tile: a whole aligned line where head is 0, else ordinary stores.
  void finish() {
    if (count > 0) flush();
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* run = row0 + q * ld + first_at - 64;
      if (head[q] == 0)
        stream_line(run, load_line(held[q]));
      else
        std::memcpy(run + head[q], held[q] + head[q], static_cast<std::size_t>(64 - head[q]));
    }
  }
};

// ---------------------------------------------------------------------------------------------

// Prefetches the input rows of the tile whose first row starts at `p`: the last byte of each row
// piece, the line not already fetched when rows are misaligned.
template <int ElemSize>
inline void prefetch_tile(const unsigned char* p, int64_t ld_in) {
  constexpr int64_t kEdge = 64 / ElemSize;
  for (int64_t k = 0; k < kEdge; ++k)
    _mm_prefetch(reinterpret_cast<const char*>(p + k * ld_in + 63), _MM_HINT_T0);
}

// The tile loop of transpose_tiles_avx512, with 256-bit halves, visiting kWide columns of tiles
// side by side: each row visit reads kWide * 64 contiguous bytes (see wide_columns()).
template <int ElemSize, template <int> class Lines, int kWide>
void transpose_tiles(const TileRegion r, const StripJoins joins, int prefetch_tiles) {
  constexpr int64_t kEdge = 64 / ElemSize;
  constexpr int64_t kStep = kWide * kEdge;  // columns per visit
  const unsigned char* const in = r.in;
  const int64_t ld_in = r.ld_in, row_begin = r.row_begin, row_end = r.row_end;
  const bool join_below = Lines<kEdge>::kJoinsStrips && joins.complete_below;
  const int64_t walk_end = row_end + (join_below ? kEdge : 0);
  const int64_t ahead = prefetch_tiles * kEdge;
  const int64_t wide_end = r.col_begin + (r.col_end - r.col_begin) / kStep * kStep;
  for (int64_t j = r.col_begin; j < wide_end; j += kStep) {
    Lines<kEdge> lines[kWide];
    for (int w = 0; w < kWide; ++w)
      lines[w].begin(r.out + (j + w * kEdge) * r.ld_out, r.ld_out, joins.head_written_above);
    for (int64_t i = row_begin; i < walk_end; i += kEdge) {
      int64_t pi = i + ahead, pj = j;
      if (pi >= walk_end) pi += row_begin - walk_end, pj += kStep;
      if (pj < wide_end && pi < walk_end)
        for (int w = 0; w < kWide; ++w)
          prefetch_tile<ElemSize>(in + pi * ld_in + (pj + w * kEdge) * ElemSize, ld_in);
      const TilePhase phase =
          i == row_begin ? TilePhase::start : i < row_end ? TilePhase::put : TilePhase::join;
      for (int w = 0; w < kWide; ++w)
        lines[w].template tile<ElemSize>(phase, i * ElemSize,
                                         in + i * ld_in + (j + w * kEdge) * ElemSize, ld_in);
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
void tiles_of_width(const TileRegion& r, const StripJoins& joins, int prefetch_tiles, int wide) {
  switch (wide) {
    case 4:
      return transpose_tiles<ElemSize, Lines, 4>(r, joins, prefetch_tiles);
    case 2:
      return transpose_tiles<ElemSize, Lines, 2>(r, joins, prefetch_tiles);
    default:
      return transpose_tiles<ElemSize, Lines, 1>(r, joins, prefetch_tiles);
  }
}

template <int ElemSize>
void tiles_of_size(const TileRegion& r, TileStores stores, const StripJoins& joins,
                   int prefetch_tiles, int wide) {
  switch (stores) {
    case TileStores::plain:
      return tiles_of_width<ElemSize, PlainLines>(r, joins, prefetch_tiles, wide);
    case TileStores::stream_aligned:
      return tiles_of_width<ElemSize, StreamAlignedLines>(r, joins, prefetch_tiles, wide);
    default:
      return tiles_of_width<ElemSize, StreamShiftedLines>(r, joins, prefetch_tiles, wide);
  }
}

// ---------------------------------------------------------------------------------------------
// Edges of fewer rows or columns than a tile (and matrices that thin): 16-byte records. A group of
// G = 16 / E rows (or columns) is transposed G x G in each 128-bit lane, two lanes side by side,
// so that each register ends as two records: G elements of one output row each. The ragged side
// (a record with fewer than G valid elements, an input row piece shorter than a record) goes
// through a small buffer in L1, so that every access to the matrices stays inside the view.

// In each 128-bit lane, 4 x 4 of 4 bytes (x[k]: row k) to x[c]: column c; 8 unpacks.
inline void transpose_4x4_dwords_in_lanes(__m256i* x) {
  const __m256i y0 = _mm256_unpacklo_epi32(x[0], x[1]), y1 = _mm256_unpackhi_epi32(x[0], x[1]);
  const __m256i y2 = _mm256_unpacklo_epi32(x[2], x[3]), y3 = _mm256_unpackhi_epi32(x[2], x[3]);
  x[0] = _mm256_unpacklo_epi64(y0, y2), x[1] = _mm256_unpackhi_epi64(y0, y2);
  x[2] = _mm256_unpacklo_epi64(y1, y3), x[3] = _mm256_unpackhi_epi64(y1, y3);
}

// In each 128-bit lane, 2 x 2 of 8 bytes (x[k]: row k) to x[c]: column c; 2 unpacks.
inline void transpose_2x2_qwords_in_lanes(__m256i* x) {
  const __m256i y0 = _mm256_unpacklo_epi64(x[0], x[1]), y1 = _mm256_unpackhi_epi64(x[0], x[1]);
  x[0] = y0, x[1] = y1;
}

// The record transpose of each element size: G elements per record, and the register that holds
// column c afterwards.
template <int ElemSize>
struct Records;
template <>
struct Records<1> {
  static constexpr int G = 16;
  static void transpose(__m256i* x) { transpose_16x16_bytes_in_lanes(x); }
  static constexpr int column(int c) { return bit_reversed<4>(c); }
};
template <>
struct Records<2> {
  static constexpr int G = 8;
  static void transpose(__m256i* x) { transpose_8x8_words_in_lanes(x); }
  static constexpr int column(int c) { return bit_reversed<3>(c); }
};
template <>
struct Records<4> {
  static constexpr int G = 4;
  static void transpose(__m256i* x) { transpose_4x4_dwords_in_lanes(x); }
  static constexpr int column(int c) { return c; }
};
template <>
struct Records<8> {
  static constexpr int G = 2;
  static void transpose(__m256i* x) { transpose_2x2_qwords_in_lanes(x); }
  static constexpr int column(int c) { return c; }
};

// Unpacks of the low and high halves of each 128-bit lane at a width of W bytes.
template <int W>
inline __m256i unpack_lo(__m256i a, __m256i b) {
  if constexpr (W == 1) return _mm256_unpacklo_epi8(a, b);
  if constexpr (W == 2) return _mm256_unpacklo_epi16(a, b);
  if constexpr (W == 4) return _mm256_unpacklo_epi32(a, b);
  if constexpr (W == 8) return _mm256_unpacklo_epi64(a, b);
}
template <int W>
inline __m256i unpack_hi(__m256i a, __m256i b) {
  if constexpr (W == 1) return _mm256_unpackhi_epi8(a, b);
  if constexpr (W == 2) return _mm256_unpackhi_epi16(a, b);
  if constexpr (W == 4) return _mm256_unpackhi_epi32(a, b);
  if constexpr (W == 8) return _mm256_unpackhi_epi64(a, b);
}

// One round of the interleave ladder over R registers at width W: registers 2k and 2k + 1 are
// unpacked into k (low halves) and k + R / 2 (high halves); then the next round, at twice the
// width, until the width is R * E / 2.
template <int R, int W, int OutputRowBytes>
inline void interleave_rounds(__m256i* x) {
  __m256i y[R];
  for (int k = 0; k < R / 2; ++k) {
    y[k] = unpack_lo<W>(x[2 * k], x[2 * k + 1]);
    y[k + R / 2] = unpack_hi<W>(x[2 * k], x[2 * k + 1]);
  }
  for (int k = 0; k < R; ++k) x[k] = y[k];
  if constexpr (2 * W < OutputRowBytes) interleave_rounds<R, 2 * W, OutputRowBytes>(x);
}

// R = 2^m rows with packed output rows shorter than 16 bytes (R * E of 2, 4 or 8): the rows'
// registers (32 bytes of each) interleaved by m rounds of unpacks, after which 16-byte chunk c of
// each lane's output is in register bit_reversed<m>(c); pairs of chunks are joined across lanes
// and stored. Per 32 R output bytes: R loads, m R unpacks, R lane joins, R stores, where the
// general records take a whole G x G transpose of mostly copied rows (u8 2 x N: 64 unpacks for
// 64 bytes). Columns after the last whole register: element moves.
template <int ElemSize, int R>
void interleave_rows(const TileRegion& r) {
  constexpr int V = 32 / ElemSize;  // columns per register
  constexpr int m = R == 2 ? 1 : R == 4 ? 2 : 3;
  const unsigned char* in = r.in + r.row_begin * r.ld_in;
  unsigned char* out = r.out;  // packed: row_begin is 0
  int64_t j = r.col_begin;
  for (; j + V <= r.col_end; j += V) {
    __m256i x[R];
    for (int k = 0; k < R; ++k) x[k] = load_half(in + k * r.ld_in + j * ElemSize);
    interleave_rounds<R, ElemSize, R * ElemSize>(x);
    unsigned char* to = out + j * r.ld_out;
    for (int q = 0; q < R / 2; ++q) {
      const __m256i a = x[bit_reversed<m>(2 * q)], b = x[bit_reversed<m>(2 * q + 1)];
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + 32 * q), _mm256_permute2x128_si256(a, b, 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + 32 * (q + R / 2)), _mm256_permute2x128_si256(a, b, 0x31));
    }
  }
  if (j < r.col_end) {
    TileRegion tail = r;
    tail.col_begin = j;
    transpose_region_scalar<ElemSize>(tail);
  }
}

// R rows of 4- or 8-byte elements into packed output rows, any R from 2 to kMaxPermuteInterleave
// (fewer than a tile's rows: f32 up to 15, f64 up to 7):
// each row of a block is one register of K = 32 / E elements, and output register o takes
// element t from row (oK + t) % R at column (oK + t) / R: R cross-lane dword permutes
// (`vpermd`, 8-byte elements as dword pairs) per output register, merged by blends whose masks,
// like the index vectors, are constants of R (the AVX-512 interleave's method, on half the lanes).
// Zen 5 with the AVX2 set forced, 2 threads, GB/s against the records: f32 3 x 5000000 34-39 ->
// 72-80, f64 6 x 1000000 38 -> 83-89, NCHW -> NHWC 64 x 3 x 224 x 224 f32 27 -> 54, f32 15 x
// 1000000 33 -> 45-54 (R^2 permutes per R lines: 11 rows level with the records).
constexpr int kMaxPermuteInterleave = 16;

// The constants of both permuted forms, N registers in and out of K = 32 / E elements. Rows
// (interleave): output register o, element t is element (oK + t) / N of row register (oK + t) % N.
// Columns (deinterleave): output register c, element t is input element tN + c of the block, in
// register (tN + c) / K at (tN + c) % K. index[o]: dword indices; mask[o][s]: the dwords taken
// from source register s.
template <int E, int N, bool kColumns>
struct PermuteTable {
  static constexpr int K = 32 / E;
  alignas(32) int32_t index[N][8] = {};
  int mask[N][N] = {};
  constexpr PermuteTable() {
    for (int o = 0; o < N; ++o)
      for (int t = 0; t < K; ++t) {
        const int m = kColumns ? t * N + o : o * K + t;
        const int source = kColumns ? m / K : m % N, lane = kColumns ? m % K : m / N;
        for (int d = 0; d < E / 4; ++d) {
          index[o][t * (E / 4) + d] = lane * (E / 4) + d;
          mask[o][source] |= 1 << (t * (E / 4) + d);
        }
      }
  }
};
template <int E, int N, bool kColumns>
constexpr PermuteTable<E, N, kColumns> kPermuteTable{};

// Output register O of a permute table (Table.index[O]: its dword indices, Table.mask[O][S]:
// the dwords it takes from source register S): the permutes of the sources merged by blends,
// whose masks are immediates (template arguments).
template <const auto& Table, int O, int S>
inline __m256i merge_source(__m256i acc, const __m256i* x, __m256i idx) {
  constexpr int kMask = Table.mask[O][S];
  if constexpr (kMask == 0) return acc;
  else return _mm256_blend_epi32(acc, _mm256_permutevar8x32_epi32(x[S], idx), kMask);
}

template <const auto& Table, int O, int... S>
inline __m256i merged_register(const __m256i* x, std::integer_sequence<int, S...>) {
  const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(Table.index[O]));
  __m256i acc = _mm256_setzero_si256();
  ((acc = merge_source<Table, O, S>(acc, x, idx)), ...);
  return acc;
}

template <int E, int R, int... O>
inline void store_interleaved(unsigned char* to, const __m256i* x, std::integer_sequence<int, O...>) {
  (_mm256_storeu_si256(reinterpret_cast<__m256i*>(to + 32 * O),
                       merged_register<kPermuteTable<E, R, false>, O>(x, std::make_integer_sequence<int, R>{})),
   ...);
}

template <int E, int R>
void interleave_rows_permuted(const TileRegion& r) {
  constexpr int K = 32 / E;
  const unsigned char* in = r.in + r.row_begin * r.ld_in;
  unsigned char* out = r.out;  // packed: row_begin is 0
  int64_t j = r.col_begin;
  for (; j + K <= r.col_end; j += K) {
    __m256i x[R];
    for (int k = 0; k < R; ++k) x[k] = load_half(in + k * r.ld_in + j * E);
    store_interleaved<E, R>(out + j * r.ld_out, x, std::make_integer_sequence<int, R>{});
  }
  if (j < r.col_end) {
    TileRegion tail = r;
    tail.col_begin = j;
    transpose_region_scalar<E>(tail);
  }
}

template <int E, int... R>
bool interleave_rows_permuted_of(const TileRegion& r, int64_t rows, std::integer_sequence<int, R...>) {
  return ((rows == R + 2 ? (interleave_rows_permuted<E, R + 2>(r), true) : false) || ...);
}

// interleave_rows where it applies: packed output rows of 2, 4 or 8 bytes from 2, 4 or 8 rows;
// interleave_rows_permuted for the other row counts of 4- and 8-byte elements.
template <int ElemSize>
bool interleave_rows_if_packed(const TileRegion& r) {
  const int64_t rows = r.row_end - r.row_begin;
  if (r.ld_out != rows * ElemSize) return false;
  if constexpr (ElemSize <= 4)
    if (rows == 2) return interleave_rows<ElemSize, 2>(r), true;
  if constexpr (ElemSize <= 2)
    if (rows == 4) return interleave_rows<ElemSize, 4>(r), true;
  if constexpr (ElemSize == 1)
    if (rows == 8) return interleave_rows<ElemSize, 8>(r), true;
  if constexpr (ElemSize == 4 || ElemSize == 8)
    if (rows <= kMaxPermuteInterleave)
      return interleave_rows_permuted_of<ElemSize>(r, rows, std::make_integer_sequence<int, kMaxPermuteInterleave - 1>{});
  return false;
}

// C = 2 or 4 columns from packed input rows (C * E of 4 or 8 bytes: two or four channels
// interleaved), the inverse of interleave_rows: a block of V = 32 / E rows is C registers of
// input; a byte shuffle parts each 128-bit lane by column (16 / C bytes per column), then the
// lanes' column pieces are put in row order: C = 2 by a 64-bit permute and a lane join, C = 4 by
// the 4 x 4 dword transpose and a dword permute. Each column of the block leaves as one 32-byte
// store. Rows after the last whole block: element moves.
template <int ElemSize, int C>
void deinterleave_columns(const TileRegion& r) {
  constexpr int V = 32 / ElemSize;  // rows per block: one output register per column
  constexpr int kPiece = 16 / C;    // bytes of each column in a lane after the shuffle
  alignas(16) unsigned char order[16];
  for (int p = 0; p < 16; ++p)
    order[p] = static_cast<unsigned char>(((p % kPiece) / ElemSize * C + p / kPiece) * ElemSize + p % ElemSize);
  const __m256i part = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(order)));
  const unsigned char* in = r.in + r.col_begin * ElemSize;  // packed: col_begin is 0
  unsigned char* out = r.out + r.col_begin * r.ld_out;
  int64_t i = r.row_begin;
  for (; i + V <= r.row_end; i += V) {
    const unsigned char* src = in + i * r.ld_in;
    __m256i x[C];
    for (int k = 0; k < C; ++k) x[k] = _mm256_shuffle_epi8(load_half(src + 32 * k), part);
    __m256i column[C];
    if constexpr (C == 2) {
      const __m256i a = _mm256_permute4x64_epi64(x[0], 0xD8), b = _mm256_permute4x64_epi64(x[1], 0xD8);
      column[0] = _mm256_permute2x128_si256(a, b, 0x20);
      column[1] = _mm256_permute2x128_si256(a, b, 0x31);
    } else {
      transpose_4x4_dwords_in_lanes(x);
      const __m256i rows_in_order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
      for (int c = 0; c < 4; ++c) column[c] = _mm256_permutevar8x32_epi32(x[c], rows_in_order);
    }
    for (int c = 0; c < C; ++c)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c * r.ld_out + i * ElemSize), column[c]);
  }
  if (i < r.row_end) {
    TileRegion tail = r;
    tail.row_begin = i;
    transpose_region_scalar<ElemSize>(tail);
  }
}

// C columns of packed input rows of 4- or 8-byte elements (the inverse of
// interleave_rows_permuted): a block of K = 32 / E rows is C input registers; output register c
// (K elements of output row c) takes element t from input element t C + c, that is from register
// (t C + c) / K: the same permutes and constant blends. Up to 8 columns: both sets, 2 threads,
// GB/s against the records, Zen 5: f32 N x 3 32 -> 47, f64 N x 3 37 -> 47, f32 N x 5 and N x 7
// +7-8%, f64 N x 5 +8%; f32 N x 10 level and N x 13 level or lower, so those keep the records.
constexpr int kMaxPermuteDeinterleave = 8;

template <int E, int C, int... O>
inline void store_deinterleaved(unsigned char* to, int64_t ld, const __m256i* x, std::integer_sequence<int, O...>) {
  (_mm256_storeu_si256(reinterpret_cast<__m256i*>(to + O * ld),
                       merged_register<kPermuteTable<E, C, true>, O>(x, std::make_integer_sequence<int, C>{})),
   ...);
}

template <int E, int C>
void deinterleave_columns_permuted(const TileRegion& r) {
  constexpr int K = 32 / E;
  const unsigned char* in = r.in + r.col_begin * E;  // packed: col_begin is 0
  unsigned char* out = r.out + r.col_begin * r.ld_out;
  int64_t i = r.row_begin;
  for (; i + K <= r.row_end; i += K) {
    __m256i x[C];
    for (int k = 0; k < C; ++k) x[k] = load_half(in + i * r.ld_in + 32 * k);
    store_deinterleaved<E, C>(out + i * E, r.ld_out, x, std::make_integer_sequence<int, C>{});
  }
  if (i < r.row_end) {
    TileRegion tail = r;
    tail.row_begin = i;
    transpose_region_scalar<E>(tail);
  }
}

template <int E, int... C>
bool deinterleave_columns_permuted_of(const TileRegion& r, int64_t cols, std::integer_sequence<int, C...>) {
  return ((cols == C + 2 ? (deinterleave_columns_permuted<E, C + 2>(r), true) : false) || ...);
}

// deinterleave_columns where it applies: packed input rows of 4 or 8 bytes, 2 or 4 columns;
// deinterleave_columns_permuted for the other counts up to kMaxPermuteDeinterleave of 4- and
// 8-byte elements.
template <int ElemSize>
bool deinterleave_columns_if_packed(const TileRegion& r) {
  const int64_t cols = r.col_end - r.col_begin;
  if (r.ld_in != cols * ElemSize) return false;
  if constexpr (ElemSize <= 4)
    if (cols == 2) return deinterleave_columns<ElemSize, 2>(r), true;
  if constexpr (ElemSize <= 2)
    if (cols == 4) return deinterleave_columns<ElemSize, 4>(r), true;
  if constexpr (ElemSize == 4 || ElemSize == 8)
    if (cols <= kMaxPermuteDeinterleave)
      return deinterleave_columns_permuted_of<ElemSize>(r, cols,
                                                        std::make_integer_sequence<int, kMaxPermuteDeinterleave - 1>{});
  return false;
}

// A region of R < 64 / E rows: blocks of 2G columns, each output row getting R elements. Each
// group of G rows (the last one partial, its missing rows read as copies of its last) is
// transposed, and its records are put at their places in a buffer of the block's output rows,
// R * E bytes apart: the partial group first and in increasing column order, since each of its
// records runs past its row into the next ones, which later records put right; then the whole
// groups. The block leaves as one copy where output rows are packed (ld_out = R * E), else one
// copy per row. The columns after the last whole block are first copied into a buffer of whole
// blocks (rows 2G elements apart) and taken the same way. Each row is prefetched a few blocks
// ahead (Zen 3, u8 40 x 2000000: 37-43% of memcpy without, 45-57% with; docs/cpu.md).
template <int ElemSize>
void few_rows(const TileRegion& r) {
  using Rec = Records<ElemSize>;
  constexpr int G = Rec::G, kBlock = 2 * G;
  constexpr int64_t kAheadBytes = 256;
  const int rows = static_cast<int>(r.row_end - r.row_begin);
  const int64_t row_bytes = int64_t{rows} * ElemSize;  // of each output row in the region
  const int whole = rows / G, rest = rows % G;
  alignas(32) unsigned char block[kBlock * 64 + 16];
  alignas(32) unsigned char tail_in[64 * 32];  // < 64 / E rows of one block (32 bytes)
  const unsigned char* in = r.in + r.row_begin * r.ld_in;
  unsigned char* out = r.out + r.row_begin * ElemSize;
  // Transposes the block of input columns at `src` (rows ld bytes apart) into `block`.
  auto transpose_block = [&](const unsigned char* src, int64_t ld) {
    for (int n = 0; n <= whole; ++n) {
      const int g = n == 0 ? whole : n - 1;  // the partial group first
      const int rows_here = g < whole ? G : rest;
      if (rows_here == 0) continue;
      __m256i x[G];
      for (int k = 0; k < G; ++k)
        x[k] = load_half(src + (int64_t{g} * G + (k < rows_here ? k : rows_here - 1)) * ld);
      Rec::transpose(x);
      unsigned char* at = block + g * 16;
      for (int c = 0; c < G; ++c)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(at + c * row_bytes),
                         _mm256_castsi256_si128(x[Rec::column(c)]));
      for (int c = 0; c < G; ++c)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(at + (G + c) * row_bytes),
                         _mm256_extracti128_si256(x[Rec::column(c)], 1));
    }
  };
  // Output rows j .. j + count - 1 from `block`.
  auto put_block = [&](int64_t j, int count) {
    if (r.ld_out == row_bytes) {
      std::memcpy(out + j * r.ld_out, block, static_cast<std::size_t>(count * row_bytes));
    } else {
      for (int c = 0; c < count; ++c)
        std::memcpy(out + (j + c) * r.ld_out, block + c * row_bytes, static_cast<std::size_t>(row_bytes));
    }
  };
  int64_t j = r.col_begin;
  for (; j + kBlock <= r.col_end; j += kBlock) {
    const unsigned char* src = in + j * ElemSize;
    if (j + kBlock * (kAheadBytes / 32) < r.col_end)
      for (int k = 0; k < rows; ++k)
        _mm_prefetch(reinterpret_cast<const char*>(src + k * r.ld_in + kAheadBytes), _MM_HINT_T0);
    transpose_block(src, r.ld_in);
    put_block(j, kBlock);
  }
  if (j < r.col_end) {
    const int count = static_cast<int>(r.col_end - j);
    for (int k = 0; k < rows; ++k)
      std::memcpy(tail_in + 32 * k, in + k * r.ld_in + j * ElemSize, static_cast<std::size_t>(count * ElemSize));
    transpose_block(tail_in, 32);
    put_block(j, count);
  }
}

// A region of C < 64 / E columns: blocks of 2G rows. The block's row pieces (C * E bytes each)
// are copied next to each other into a buffer, which records may then read past; each group of G
// columns is transposed, and each of its columns is 2G elements of one output row, stored whole.
// The rows after the last whole block are taken the same way, their output rows through a buffer.
template <int ElemSize>
void few_columns(const TileRegion& r) {
  using Rec = Records<ElemSize>;
  constexpr int G = Rec::G, kBlock = 2 * G;
  const int cols = static_cast<int>(r.col_end - r.col_begin);
  const int64_t piece = int64_t{cols} * ElemSize;  // bytes of each input row in the region
  alignas(32) unsigned char block[kBlock * 64 + 16];
  alignas(32) unsigned char tail_out[64 * 32];  // < 64 / E output rows of one block (32 bytes)
  const unsigned char* in = r.in + r.col_begin * ElemSize;
  unsigned char* out = r.out + r.col_begin * r.ld_out;
  // Transposes the buffered block; output row c of the region at `to` + c * ld (32 bytes each).
  auto transpose_block = [&](const unsigned char* rows, unsigned char* to, int64_t ld) {
    for (int g = 0; g * G < cols; ++g) {
      __m256i x[G];
      for (int k = 0; k < G; ++k)
        x[k] = load_lanes(rows + k * piece + g * 16, rows + (G + k) * piece + g * 16);
      Rec::transpose(x);
      const int cols_here = cols - g * G < G ? cols - g * G : G;
      for (int c = 0; c < cols_here; ++c)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + (int64_t{g} * G + c) * ld), x[Rec::column(c)]);
    }
  };
  // Input rows i .. i + count - 1 into `block`.
  auto take_rows = [&](int64_t i, int count) {
    const unsigned char* src = in + i * r.ld_in;
    if (r.ld_in == piece) {
      std::memcpy(block, src, static_cast<std::size_t>(count * piece));
    } else {
      for (int k = 0; k < count; ++k)
        std::memcpy(block + k * piece, src + k * r.ld_in, static_cast<std::size_t>(piece));
    }
  };
  int64_t i = r.row_begin;
  // Packed input rows are read in place (the copy into `block` cost a third of the time: Zen 5, 2
  // threads, GB/s, three alternating runs: f32 2000000 x 13 26-30 -> 40-44, u8 3047619 x 21 19-20
  // -> 24-27, f32 2000000 x 10 25-33 -> 33-40), up to the last block, whose records would read
  // past the region's last row.
  if (r.ld_in == piece)
    for (; i + 2 * kBlock <= r.row_end; i += kBlock) transpose_block(in + i * r.ld_in, out + i * ElemSize, r.ld_out);
  for (; i + kBlock <= r.row_end; i += kBlock) {
    take_rows(i, kBlock);
    transpose_block(block, out + i * ElemSize, r.ld_out);
  }
  if (i < r.row_end) {
    const int count = static_cast<int>(r.row_end - i);
    take_rows(i, count);
    transpose_block(block, tail_out, 32);
    for (int c = 0; c < cols; ++c)
      std::memcpy(out + c * r.ld_out + i * ElemSize, tail_out + 32 * c, static_cast<std::size_t>(count * ElemSize));
  }
}

// The edge of few rows or columns: 16-byte records up to 8-byte elements (16-byte elements are
// records already: element moves).
template <int ElemSize>
void thin_edge(const TileRegion& r, bool few_rows_side) {
  const int64_t rows = r.row_end - r.row_begin, cols = r.col_end - r.col_begin;
  // One row into a packed output row, or one column from packed input rows: a copy.
  if (few_rows_side ? rows == 1 && r.ld_out == ElemSize : cols == 1 && r.ld_in == ElemSize) {
    const int64_t length = few_rows_side ? cols : rows;
    std::memcpy(r.out + r.col_begin * r.ld_out + r.row_begin * ElemSize,
                r.in + r.row_begin * r.ld_in + r.col_begin * ElemSize, static_cast<std::size_t>(length * ElemSize));
    return;
  }
  // Records need a whole block (2G columns or rows) to pay for their set-up: on batches of 5 x 1
  // or 3 x 5 u8 matrices, element moves ran 2-3x faster than a block's buffers.
  constexpr int kBlock = 32 / ElemSize;
  if ((few_rows_side ? cols : rows) < kBlock) return transpose_region_scalar<ElemSize>(r);
  if constexpr (ElemSize <= 8) {
    if (few_rows_side ? interleave_rows_if_packed<ElemSize>(r) : deinterleave_columns_if_packed<ElemSize>(r))
      return;
    if (few_rows_side)
      few_rows<ElemSize>(r);
    else
      few_columns<ElemSize>(r);
  } else {
    (void)few_rows_side;
    transpose_region_scalar<ElemSize>(r);
  }
}

// Whole tiles of `r` with ordinary stores, then records (thin_edge) for the rows and columns left.
template <int ElemSize>
void edges_of_size(const TileRegion& r) {
  const auto [tiles, right, bottom] = split_at_tiles(r, 64 / ElemSize);
  if (!tiles.empty()) transpose_tiles<ElemSize, PlainLines, 1>(tiles, StripJoins{}, 0);
  if (!right.empty()) thin_edge<ElemSize>(right, false);
  if (!bottom.empty()) thin_edge<ElemSize>(bottom, true);
}

// Tiny matrices (an input span and an output matrix of at most kTinyMatrixMaxBytes each, packed
// output): the transpose of one matrix is a fixed permutation of its bytes, so each 16-byte chunk
// of its output is the OR of byte shuffles of its input span's chunks (rows ld_in apart: padded
// rows are a permutation that skips the padding), with the masks built once per call. Each
// matrix's chunks are loaded and stored whole; a store that runs past the matrix is overwritten by
// the next one's, and the last matrices of a range (and of the input) go through a buffer, so that
// nothing is read past the input or written past the range.
template <int Chunks>
void transpose_tiny_matrices(const unsigned char* in, unsigned char* out, const TinyBatch& t, int64_t first,
                             int64_t end) {
  constexpr int64_t kSpan = 16 * Chunks;
  const int64_t e = t.elem_size, m = t.matrix_bytes(), in_stride = t.stride_in * e;
  __m128i masks[Chunks][Chunks];  // [input chunk][output chunk]
  for (int i = 0; i < Chunks; ++i)
    for (int j = 0; j < Chunks; ++j) {
      alignas(16) unsigned char mask[16];
      for (int k = 0; k < 16; ++k) {
        const int64_t o = 16 * j + k;  // output byte: element q = c * rows + r, byte b of it
        const int64_t q = o / e, b = o % e;
        const int64_t s = ((q % t.rows) * t.ld_in + q / t.rows) * e + b;
        mask[k] = o < m && s / 16 == i ? static_cast<unsigned char>(s % 16) : 0x80;
      }
      masks[i][j] = _mm_load_si128(reinterpret_cast<const __m128i*>(mask));
    }
  // The input ends with the last matrix's last row, its padding not included.
  const int64_t in_bytes = t.input_bytes(), out_end = end * m;
  for (int64_t b = first; b < end; ++b) {
    alignas(16) unsigned char buffer[kSpan];  // only the last matrices of a range or of the input
    const unsigned char* source = in + b * in_stride;
    if (b * in_stride + kSpan > in_bytes) {
      std::memset(buffer, 0, sizeof buffer);
      std::memcpy(buffer, source, static_cast<std::size_t>(std::min(kSpan, in_bytes - b * in_stride)));
      source = buffer;
    }
    __m128i x[Chunks];
    for (int i = 0; i < Chunks; ++i) x[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + 16 * i));
    const bool whole = b * m + kSpan <= out_end;
    unsigned char* target = whole ? out + b * m : buffer;
    for (int j = 0; j < Chunks; ++j) {
      __m128i y = _mm_shuffle_epi8(x[0], masks[0][j]);
      for (int i = 1; i < Chunks; ++i) y = _mm_or_si128(y, _mm_shuffle_epi8(x[i], masks[i][j]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(target + 16 * j), y);
    }
    if (!whole) std::memcpy(out + b * m, buffer, static_cast<std::size_t>(m));
  }
}

}  // namespace

bool avx2_tiles_available() {
  static const bool available = __builtin_cpu_supports("avx2");
  return available;
}

void transpose_tiles_avx2(const TileRegion& r, int elem_size, TileStores stores,
                          const StripJoins& joins, int prefetch_tiles, int wide) {
  switch (elem_size) {
    case 1:
      return tiles_of_size<1>(r, stores, joins, prefetch_tiles, wide);
    case 2:
      return tiles_of_size<2>(r, stores, joins, prefetch_tiles, wide);
    case 4:
      return tiles_of_size<4>(r, stores, joins, prefetch_tiles, wide);
    case 8:
      return tiles_of_size<8>(r, stores, joins, prefetch_tiles, wide);
    case 16:
      return tiles_of_size<16>(r, stores, joins, prefetch_tiles, wide);
    default:
      return;
  }
}

void transpose_edges_avx2(const TileRegion& r, int elem_size) {
  switch (elem_size) {
    case 1:
      return edges_of_size<1>(r);
    case 2:
      return edges_of_size<2>(r);
    case 4:
      return edges_of_size<4>(r);
    case 8:
      return edges_of_size<8>(r);
    case 16:
      return edges_of_size<16>(r);
    default:
      return;
  }
}

namespace {

// ---------------------------------------------------------------------------------------------
// The N-D permute's blocks (permute_blocks.hpp): a block of up to kEdge x kEdge elements is one
// register tile of 32-byte rows. Rows past the block are zeros (not read); partial rows and output
// lines are masked loads and stores of whole dwords, so a block reads and writes only its own
// elements.

// Dword lanes [0, dwords) set.
inline __m256i low_dwords_mask(int dwords) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(dwords), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <int E>
inline void transpose_masked_block(const unsigned char* in, int64_t row_in, unsigned char* out, int64_t col_out,
                                   int rows, int cols) {
  constexpr int kEdge = 32 / E;
  const __m256i load_mask = low_dwords_mask(cols * E / 4), store_mask = low_dwords_mask(rows * E / 4);
  __m256i r[kEdge];
  for (int k = 0; k < kEdge; ++k) {
    const auto* p = in + k * row_in;
    r[k] = k >= rows      ? _mm256_setzero_si256()
           : cols == kEdge ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                           : _mm256_maskload_epi32(reinterpret_cast<const int*>(p), load_mask);
  }
  if constexpr (E == 4) {
    transpose_8x8_dwords(r);
  } else if constexpr (E == 8) {
    transpose_4x4_qwords(r);
  } else {
    const __m256i a = r[0], b = r[1];
    r[0] = _mm256_permute2x128_si256(a, b, 0x20);
    r[1] = _mm256_permute2x128_si256(a, b, 0x31);
  }
  for (int q = 0; q < kEdge; ++q) {
    if (q >= cols) break;
    auto* p = out + q * col_out;
    if (rows == kEdge)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), r[q]);
    else
      _mm256_maskstore_epi32(reinterpret_cast<int*>(p), store_mask, r[q]);
  }
}

template <int E>
void permute_blocks_of_size(const unsigned char* in, unsigned char* out, const PermuteBlocks& b) {
  constexpr int64_t kEdge = 32 / E;
  std::array<int64_t, kMaxPermuteRank> at{};
  int64_t in_offset = 0, out_offset = 0;
  do {
    for (int64_t c = 0; c < b.cols; c += kEdge)
      for (int64_t r = 0; r < b.rows; r += kEdge)
        transpose_masked_block<E>(in + in_offset + r * b.row_in + c * E, b.row_in,
                                  out + out_offset + c * b.col_out + r * E, b.col_out,
                                  static_cast<int>(std::min(kEdge, b.rows - r)),
                                  static_cast<int>(std::min(kEdge, b.cols - c)));
  } while (next_block_origin(b, at, &in_offset, &out_offset));
}

}  // namespace

void permute_blocks_avx2(const unsigned char* in, unsigned char* out, const PermuteBlocks& blocks) {
  switch (blocks.elem_size) {
    case 4: return permute_blocks_of_size<4>(in, out, blocks);
    case 8: return permute_blocks_of_size<8>(in, out, blocks);
    case 16: return permute_blocks_of_size<16>(in, out, blocks);
    default: return;
  }
}

void transpose_tiny_batch_avx2(const unsigned char* in, unsigned char* out, const TinyBatch& t, int64_t first,
                               int64_t end) {
  switch ((std::max(t.span_bytes(), t.matrix_bytes()) + 15) / 16) {
    case 1: return transpose_tiny_matrices<1>(in, out, t, first, end);
    case 2: return transpose_tiny_matrices<2>(in, out, t, first, end);
    case 3: return transpose_tiny_matrices<3>(in, out, t, first, end);
    case 4: return transpose_tiny_matrices<4>(in, out, t, first, end);
    case 5: return transpose_tiny_matrices<5>(in, out, t, first, end);
    case 6: return transpose_tiny_matrices<6>(in, out, t, first, end);
    case 7: return transpose_tiny_matrices<7>(in, out, t, first, end);
    case 8: return transpose_tiny_matrices<8>(in, out, t, first, end);
    default: return;
  }
}

}  // namespace xpose::detail

#else  // built without -mavx2 (not x86-64, or a compiler without it): the other sets do the work

namespace xpose::detail {

bool avx2_tiles_available() { return false; }
void transpose_tiles_avx2(const TileRegion&, int, TileStores, const StripJoins&, int, int) {}
void transpose_edges_avx2(const TileRegion&, int) {}
void transpose_tiny_batch_avx2(const unsigned char*, unsigned char*, const TinyBatch&, int64_t, int64_t) {}
void permute_blocks_avx2(const unsigned char*, unsigned char*, const PermuteBlocks&) {}

}  // namespace xpose::detail

#endif
