// SPDX-License-Identifier: Apache-2.0
// The AVX2 tile set. This file alone is compiled with -mavx2 (src/CMakeLists.txt); everything in
// it but the entry points is in an anonymous namespace, so no AVX2 code can be picked by the
// linker for a caller in baseline code.
#include "cpu/transpose_tiles_avx2.hpp"

#include <cstdint>
#include <cstring>

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

// 16 x 16 of 4 bytes: rows[g] (dwords 0-7 in lo, 8-15 in hi) to lines[s] (dword s of every row),
// as four 8 x 8 blocks.
inline void transpose_16x16_dwords(const Line* rows, Line* lines) {
  for (int R = 0; R < 2; ++R)
    for (int C = 0; C < 2; ++C) {
      __m256i t[8];
      for (int k = 0; k < 8; ++k) t[k] = half(rows[8 * R + k], C);
      transpose_8x8_dwords(t);
      for (int k = 0; k < 8; ++k) half(lines[8 * C + k], R) = t[k];
    }
}

// TileTranspose<ElemSize>::load(in, ld, lines): reads the tile (kEdge row pieces of 64 bytes,
// row r at in + r * ld) and leaves output line q in lines[q].
template <int ElemSize>
struct TileTranspose;

template <>
struct TileTranspose<4> {
  static void load(const unsigned char* in, int64_t ld, Line* lines) {
    Line rows[16];
    for (int r = 0; r < 16; ++r) rows[r] = load_line(in + r * ld);
    transpose_16x16_dwords(rows, lines);
  }
};

// 8 x 8 of 8 bytes: four 4 x 4 blocks.
template <>
struct TileTranspose<8> {
  static void load(const unsigned char* in, int64_t ld, Line* lines) {
    Line rows[8];
    for (int r = 0; r < 8; ++r) rows[r] = load_line(in + r * ld);
    for (int R = 0; R < 2; ++R)
      for (int C = 0; C < 2; ++C) {
        __m256i t[4];
        for (int k = 0; k < 4; ++k) t[k] = half(rows[4 * R + k], C);
        transpose_4x4_qwords(t);
        for (int k = 0; k < 4; ++k) half(lines[4 * C + k], R) = t[k];
      }
  }
};

// 4 x 4 of 16 bytes: 2 x 2 blocks of 128-bit lanes.
template <>
struct TileTranspose<16> {
  static void load(const unsigned char* in, int64_t ld, Line* lines) {
    Line rows[4];
    for (int r = 0; r < 4; ++r) rows[r] = load_line(in + r * ld);
    for (int R = 0; R < 2; ++R)
      for (int C = 0; C < 2; ++C) {
        const __m256i a = half(rows[2 * R], C), b = half(rows[2 * R + 1], C);
        half(lines[2 * C], R) = _mm256_permute2x128_si256(a, b, 0x20);
        half(lines[2 * C + 1], R) = _mm256_permute2x128_si256(a, b, 0x31);
      }
  }
};

// 32 x 32 of 2 bytes: interleaving rows 2g and 2g+1 makes dwords that each hold one column of the
// pair; then two 16 x 16 dword transposes. The unpacks work within 128-bit lanes, so dword
// (register m, lane l, position p) of a pair holds column 16 (m / 2) + 8 l + 4 (m % 2) + p, and
// the output lines come out in that order (no lane fix-up).
template <>
struct TileTranspose<2> {
  static void load(const unsigned char* in, int64_t ld, Line* lines) {
    Line pairs[16][2];  // [g][block]: dwords of registers 2 block, 2 block + 1
    for (int g = 0; g < 16; ++g) {
      const Line a = load_line(in + (2 * g) * ld), b = load_line(in + (2 * g + 1) * ld);
      pairs[g][0] = {_mm256_unpacklo_epi16(a.lo, b.lo), _mm256_unpackhi_epi16(a.lo, b.lo)};
      pairs[g][1] = {_mm256_unpacklo_epi16(a.hi, b.hi), _mm256_unpackhi_epi16(a.hi, b.hi)};
    }
    for (int block = 0; block < 2; ++block) {
      Line rows[16], out[16];
      for (int g = 0; g < 16; ++g) rows[g] = pairs[g][block];
      transpose_16x16_dwords(rows, out);
      for (int s = 0; s < 16; ++s)
        lines[16 * block + 8 * ((s >> 2) & 1) + 4 * (s >> 3) + (s & 3)] = out[s];
    }
  }
};

// 64 x 64 of 1 byte: interleaving rows 4g to 4g+3 (bytes, then words) makes dwords that each hold
// one column of the group; then four 16 x 16 dword transposes. Dword (register m = 4 h + j, lane
// l, position p) of a group holds column 32 h + 16 l + 4 j + p.
template <>
struct TileTranspose<1> {
  static void load(const unsigned char* in, int64_t ld, Line* lines) {
    Line groups[16][4];  // [g][block]: dwords of registers 2 block, 2 block + 1
    for (int g = 0; g < 16; ++g) {
      Line r[4];
      for (int k = 0; k < 4; ++k) r[k] = load_line(in + (4 * g + k) * ld);
      for (int h = 0; h < 2; ++h) {
        const __m256i u01l = _mm256_unpacklo_epi8(half(r[0], h), half(r[1], h));
        const __m256i u01h = _mm256_unpackhi_epi8(half(r[0], h), half(r[1], h));
        const __m256i u23l = _mm256_unpacklo_epi8(half(r[2], h), half(r[3], h));
        const __m256i u23h = _mm256_unpackhi_epi8(half(r[2], h), half(r[3], h));
        groups[g][2 * h] = {_mm256_unpacklo_epi16(u01l, u23l), _mm256_unpackhi_epi16(u01l, u23l)};
        groups[g][2 * h + 1] = {_mm256_unpacklo_epi16(u01h, u23h),
                                _mm256_unpackhi_epi16(u01h, u23h)};
      }
    }
    for (int block = 0; block < 4; ++block) {
      Line rows[16], out[16];
      for (int g = 0; g < 16; ++g) rows[g] = groups[g][block];
      transpose_16x16_dwords(rows, out);
      for (int s = 0; s < 16; ++s) {
        const int m = 2 * block + (s >> 3), l = (s >> 2) & 1, p = s & 3;
        lines[32 * (m >> 2) + 16 * l + 4 * (m & 3) + p] = out[s];
      }
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Line writers: the same protocol as the AVX-512 set (tile_transpose_avx512.hpp). A column of
// tiles produces, for each of its kEdge output rows, one run of consecutive lines; start() takes
// the first tile, put() each later one (`at`: byte offset of the tile in the output rows),
// finish() ends the run; join() completes the line that straddles the next strip. begin() names
// the output rows of a new column of tiles.

template <int kEdge>
struct PlainLines {
  static constexpr bool kJoinsStrips = false;
  unsigned char* row0 = nullptr;  // output row of the first line of the column of tiles
  int64_t ld = 0;
  void begin(unsigned char* first_row, int64_t ld_out, bool) { row0 = first_row, ld = ld_out; }
  void start(int64_t at, const Line* lines) { put(at, lines); }
  void put(int64_t at, const Line* lines) {
    for (int q = 0; q < kEdge; ++q) store_line(row0 + q * ld + at, lines[q]);
  }
  void finish() {}
  void join(int64_t, const Line*) {}
};

template <int kEdge>
struct StreamAlignedLines {
  static constexpr bool kJoinsStrips = false;
  unsigned char* row0 = nullptr;
  int64_t ld = 0;
  void begin(unsigned char* first_row, int64_t ld_out, bool) { row0 = first_row, ld = ld_out; }
  void start(int64_t at, const Line* lines) { put(at, lines); }
  void put(int64_t at, const Line* lines) {
    for (int q = 0; q < kEdge; ++q) stream_line(row0 + q * ld + at, lines[q]);
  }
  void finish() {}
  void join(int64_t, const Line*) {}
};

// Rows whose runs start `head` bytes before a 64-byte boundary (0 <= head < 64, per row). Each
// row keeps its previous tile's line and the current one side by side in 128 bytes of L1; the
// aligned line that straddles them is the 64 bytes from `head` on, read back unaligned and
// streamed (AVX2 has no two-source byte permute). Partial lines at the matrix's edges are
// written with ordinary stores; between strips, join() writes the straddling line whole.
template <int kEdge>
struct StreamShiftedLines {
  static constexpr bool kJoinsStrips = true;
  unsigned char* row0 = nullptr;
  int64_t ld = 0;
  bool head_written_above = false;
  int64_t last_at = 0;
  unsigned char head[kEdge] = {};
  alignas(64) unsigned char pair[kEdge][128];  // [0, 64): previous line, [64, 128): current

  void begin(unsigned char* first_row, int64_t ld_out, bool head_above) {
    row0 = first_row, ld = ld_out, head_written_above = head_above;
  }

  void start(int64_t at, const Line* lines) {
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* run = row0 + q * ld + at;
      head[q] = static_cast<unsigned char>(-reinterpret_cast<uintptr_t>(run) & 63);
      store_line(pair[q], lines[q]);
      if (head[q] != 0 && !head_written_above) std::memcpy(run, pair[q], head[q]);
    }
    last_at = at;
  }

  void put(int64_t at, const Line* lines) {
    join(at, lines);
    for (int q = 0; q < kEdge; ++q) store_line(pair[q], lines[q]);
    last_at = at;
  }

  // Streams the lines that straddle the previous tile and `lines` (the tile at `at`).
  void join(int64_t at, const Line* lines) {
    for (int q = 0; q < kEdge; ++q) {
      store_line(pair[q] + 64, lines[q]);
      stream_line(row0 + q * ld + at - 64 + head[q], load_line(pair[q] + head[q]));
    }
  }

  // What is left of the last tile: a whole aligned line where head is 0, else ordinary stores.
  void finish() {
    for (int q = 0; q < kEdge; ++q) {
      unsigned char* run = row0 + q * ld + last_at;
      if (head[q] == 0)
        stream_line(run, load_line(pair[q]));
      else
        std::memcpy(run + head[q], pair[q] + head[q], static_cast<std::size_t>(64 - head[q]));
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
  Line tile[kEdge];
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

// Whole tiles of `r` with ordinary stores, then element moves for the rows and columns left.
template <int ElemSize>
void edges_of_size(const TileRegion& r) {
  constexpr int64_t kEdge = 64 / ElemSize;
  const int64_t rows_end = r.row_begin + (r.row_end - r.row_begin) / kEdge * kEdge;
  const int64_t cols_end = r.col_begin + (r.col_end - r.col_begin) / kEdge * kEdge;
  TileRegion tiles = r, bottom = r, right = r;
  tiles.row_end = right.row_end = rows_end;
  tiles.col_end = cols_end;
  bottom.row_begin = rows_end;
  right.col_begin = cols_end;
  if (!tiles.empty()) transpose_tiles<ElemSize, PlainLines, 1>(tiles, StripJoins{}, 0);
  if (!right.empty()) transpose_region_scalar<ElemSize>(right);
  if (!bottom.empty()) transpose_region_scalar<ElemSize>(bottom);
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

}  // namespace xpose::detail

#else  // built without -mavx2 (not x86-64, or a compiler without it): the other sets do the work

namespace xpose::detail {

bool avx2_tiles_available() { return false; }
void transpose_tiles_avx2(const TileRegion&, int, TileStores, const StripJoins&, int, int) {}
void transpose_edges_avx2(const TileRegion&, int) {}

}  // namespace xpose::detail

#endif
