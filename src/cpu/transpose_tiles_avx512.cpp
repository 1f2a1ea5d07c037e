// SPDX-License-Identifier: Apache-2.0
#include "cpu/transpose_tiles_avx512.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "cpu/permute_blocks.hpp"
#include "cpu/tile_transpose_avx512.hpp"
#include "cpu/transpose_scalar.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace xpose::detail {

bool avx512_tiles_available() {
  static const bool available = __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vbmi");
  return available;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Few rows into packed output rows (planes interleaved: NCHW -> NHWC with 3 channels, RGB): R rows
// of a block are one register each, K = 64 / E elements; output register o takes lane t from row
// (o K + t) % R at column (o K + t) / R, that is R single-source permutes with one index vector
// per o, merged under their masks. R^2 permutes per R lines written whole, so at most
// kMaxInterleave rows (16: about one permute per 4 bytes). R is a template argument: the index
// vectors and masks are constants and the permutes unrolled (with R read at run time, Zen 5 ran
// f32 12 x 20000 in cache at 17 GB/s, a fifth of the tiles' speed). The inverse (few columns of
// packed input rows) written the same way ran slower than the AVX2 records on Zen 5 (f32 2000000
// x 13 31 -> 13 GB/s: C output rows of one line per block), so it is not used.
constexpr int kMaxInterleave = 16;
constexpr int kMaxDeinterleave = 8;

template <int E>
struct Lanes;  // the permute merged under a mask, of E-byte elements, and the mask type
template <>
struct Lanes<1> {
  using Mask = __mmask64;
  XPOSE_AVX512_INLINE static __m512i merge(__m512i acc, Mask m, __m512i idx, __m512i a) {
    return _mm512_mask_permutexvar_epi8(acc, m, idx, a);
  }
};
template <>
struct Lanes<2> {
  using Mask = __mmask32;
  XPOSE_AVX512_INLINE static __m512i merge(__m512i acc, Mask m, __m512i idx, __m512i a) {
    return _mm512_mask_permutexvar_epi16(acc, m, idx, a);
  }
};
template <>
struct Lanes<4> {
  using Mask = __mmask16;
  XPOSE_AVX512_INLINE static __m512i merge(__m512i acc, Mask m, __m512i idx, __m512i a) {
    return _mm512_mask_permutexvar_epi32(acc, m, idx, a);
  }
};
template <>
struct Lanes<8> {
  using Mask = __mmask8;
  XPOSE_AVX512_INLINE static __m512i merge(__m512i acc, Mask m, __m512i idx, __m512i a) {
    return _mm512_mask_permutexvar_epi64(acc, m, idx, a);
  }
};

// The constants of R rows of E-byte elements: output register o, lane t reads lane index[o][t]
// of row register s where bit t of mask[o][s] is set.
template <int E, int R>
struct InterleaveTable {
  static constexpr int K = 64 / E;
  alignas(64) unsigned char index[R][64] = {};  // lane indices as E-byte little-endian lanes
  uint64_t mask[R][R] = {};
  constexpr InterleaveTable() {
    for (int o = 0; o < R; ++o)
      for (int t = 0; t < K; ++t) {
        const int m = o * K + t;
        index[o][t * E] = static_cast<unsigned char>(m / R);
        mask[o][m % R] |= uint64_t{1} << t;
      }
  }
};
template <int E, int R>
constexpr InterleaveTable<E, R> kInterleaveTable{};

// Writes a contiguous run of bytes handed over as consecutive 64-byte registers, streaming every
// whole aligned line: a line that straddles two registers is one two-source byte permute of them.
// The partial lines at the two ends of the run are ordinary masked stores.
class ContiguousStream {
 public:
  XPOSE_AVX512 explicit ContiguousStream(unsigned char* first) : at_(first) {
    const int offset = static_cast<int>(reinterpret_cast<uintptr_t>(first) & 63);
    tail_ = offset;
    pick_ = _mm512_add_epi8(iota(), _mm512_set1_epi8(static_cast<char>(64 - offset)));
  }
  XPOSE_AVX512_INLINE void put(__m512i v) {
    if (tail_ == 0) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(at_), v);
    } else if (started_) {  // the line at at_ - tail_: the previous register's tail, v's head
      _mm512_stream_si512(reinterpret_cast<__m512i*>(at_ - tail_), _mm512_permutex2var_epi8(previous_, pick_, v));
    } else {
      _mm512_mask_storeu_epi8(at_, ~uint64_t{0} >> tail_, v);
    }
    previous_ = v;
    started_ = true;
    at_ += 64;
  }
  // Writes the last register's tail; the run's next byte is at the returned address.
  XPOSE_AVX512_INLINE unsigned char* finish() {
    if (tail_ != 0 && started_)
      _mm512_mask_storeu_epi8(at_ - tail_, (uint64_t{1} << tail_) - 1,
                              _mm512_permutex2var_epi8(previous_, pick_, previous_));
    return at_;
  }

 private:
  XPOSE_AVX512_INLINE static __m512i iota() {
    return _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43,
                           42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
                           21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  }
  unsigned char* at_;
  int tail_;  // bytes of a register that fall into the next aligned line: the run's offset in its line
  bool started_ = false;
  __m512i pick_;
  __m512i previous_ = _mm512_setzero_si512();
};

// Output register o of a block of R row registers.
template <int E, int R, int O>
XPOSE_AVX512_INLINE __m512i interleaved(const __m512i* x) {
  using Mask = typename Lanes<E>::Mask;
  constexpr const InterleaveTable<E, R>& table = kInterleaveTable<E, R>;
  const __m512i idx = _mm512_load_si512(table.index[O]);
  __m512i acc = _mm512_setzero_si512();
#pragma GCC unroll 16
  for (int s = 0; s < R; ++s)
    if (table.mask[O][s] != 0) acc = Lanes<E>::merge(acc, static_cast<Mask>(table.mask[O][s]), idx, x[s]);
  return acc;
}

template <int E, int R, int... O>
XPOSE_AVX512_INLINE void interleave_registers(const __m512i* x, __m512i* y, std::integer_sequence<int, O...>) {
  ((y[O] = interleaved<E, R, O>(x)), ...);
}

// The R output registers of the block whose row pieces start at `in` (rows ld apart).
template <int E, int R>
XPOSE_AVX512_INLINE void interleave_block(const unsigned char* in, int64_t ld, __m512i* y) {
  __m512i x[R];
#pragma GCC unroll 16
  for (int q = 0; q < R; ++q) x[q] = _mm512_loadu_si512(in + q * ld);
  interleave_registers<E, R>(x, y, std::make_integer_sequence<int, R>{});
}

template <int E, int R>
XPOSE_AVX512 void interleave_rows_fixed(const TileRegion& r, bool stream) {
  constexpr int K = 64 / E;
  const unsigned char* in = r.in + r.row_begin * r.ld_in;
  unsigned char* out = r.out + r.row_begin * E;  // output row j at out + j * ld_out, packed
  int64_t j = r.col_begin;
  if (stream) {
    ContiguousStream writer(out + j * r.ld_out);
    for (; j + K <= r.col_end; j += K) {
      __m512i y[R];
      interleave_block<E, R>(in + j * E, r.ld_in, y);
#pragma GCC unroll 16
      for (int o = 0; o < R; ++o) writer.put(y[o]);
    }
    writer.finish();
  } else {
    for (; j + K <= r.col_end; j += K) {
      __m512i y[R];
      interleave_block<E, R>(in + j * E, r.ld_in, y);
      unsigned char* dst = out + j * r.ld_out;
#pragma GCC unroll 16
      for (int o = 0; o < R; ++o) _mm512_storeu_si512(dst + 64 * o, y[o]);
    }
  }
  if (j < r.col_end) {
    TileRegion rest = r;
    rest.col_begin = j;
    transpose_region_scalar<E>(rest);
  }
}

template <int E, int... R>
XPOSE_AVX512 bool interleave_rows_of_size(const TileRegion& r, bool stream, std::integer_sequence<int, R...>) {
  const int64_t rows = r.row_end - r.row_begin;
  return ((rows == R + 2 ? (interleave_rows_fixed<E, R + 2>(r, stream), true) : false) || ...);
}

}  // namespace

bool interleave_rows_avx512(const TileRegion& r, int elem_size, bool stream) {
  const int64_t rows = r.row_end - r.row_begin;
  if (elem_size > 8 || rows < 2 || rows > kMaxInterleave || rows > 64 / elem_size ||
      r.ld_out != rows * elem_size)
    return false;
  constexpr auto kCounts = std::make_integer_sequence<int, kMaxInterleave - 1>{};  // 2 .. 16
  switch (elem_size) {
    case 1:
      return interleave_rows_of_size<1>(r, stream, kCounts);
    case 2:
      return interleave_rows_of_size<2>(r, stream, kCounts);
    case 4:
      return interleave_rows_of_size<4>(r, stream, kCounts);
    default:
      return interleave_rows_of_size<8>(r, stream, std::make_integer_sequence<int, 64 / 8 - 1>{});  // 2 .. 8
  }
}

namespace {

// Few columns of packed input rows (the inverse of the interleave): a block of K = 64 / E rows is
// C input registers; output register o (K elements of output row o) takes lane t from input
// element t C + o, that is from register (t C + o) / K: C masked permutes per output register.
// For 1- and 2-byte elements only, 3 to 8 columns, where the AVX2 records move 16 bytes per
// record (Zen 5, 2 threads, GB/s, three alternating rounds against the records: u8 20000000 x 3
// 12-16 -> 20, 12000000 x 5 15-22 -> 23-24, 16000000 x 6 16-24 -> 23-24, f16 10000000 x 3 17 ->
// 20, 6000000 x 5 19-21 -> 23-24, 4000000 x 8 17-21 -> 23-24, u8 5000 x 3 batch 4000 14-24 ->
// 40-47; 9000000 x 7 u8 level). 4-byte elements wrote C rows of one line per block and ran slower
// than the AVX2 records (f32 2000000 x 13 31 -> 13 GB/s, above).
template <int E, int C>
struct DeinterleaveTable {
  static constexpr int K = 64 / E;
  alignas(64) unsigned char index[C][64] = {};  // lane indices as E-byte little-endian lanes
  uint64_t mask[C][C] = {};
  constexpr DeinterleaveTable() {
    for (int o = 0; o < C; ++o)
      for (int t = 0; t < K; ++t) {
        const int m = t * C + o;
        index[o][t * E] = static_cast<unsigned char>(m % K);
        mask[o][m / K] |= uint64_t{1} << t;
      }
  }
};
template <int E, int C>
constexpr DeinterleaveTable<E, C> kDeinterleaveTable{};

template <int E, int C, int O>
XPOSE_AVX512_INLINE __m512i deinterleaved(const __m512i* x) {
  using Mask = typename Lanes<E>::Mask;
  constexpr const DeinterleaveTable<E, C>& table = kDeinterleaveTable<E, C>;
  const __m512i idx = _mm512_load_si512(table.index[O]);
  __m512i acc = _mm512_setzero_si512();
#pragma GCC unroll 16
  for (int s = 0; s < C; ++s)
    if (table.mask[O][s] != 0) acc = Lanes<E>::merge(acc, static_cast<Mask>(table.mask[O][s]), idx, x[s]);
  return acc;
}

template <int E, int C, int... O>
XPOSE_AVX512_INLINE void store_deinterleaved(unsigned char* to, int64_t ld, const __m512i* x,
                                             std::integer_sequence<int, O...>) {
  (_mm512_storeu_si512(to + O * ld, deinterleaved<E, C, O>(x)), ...);
}

template <int E, int C>
XPOSE_AVX512 void deinterleave_columns_fixed(const TileRegion& r) {
  constexpr int K = 64 / E;
  const unsigned char* in = r.in + r.col_begin * E;
  unsigned char* out = r.out + r.col_begin * r.ld_out;
  int64_t i = r.row_begin;
  for (; i + K <= r.row_end; i += K) {
    __m512i x[C];
#pragma GCC unroll 16
    for (int s = 0; s < C; ++s) x[s] = _mm512_loadu_si512(in + i * r.ld_in + 64 * s);
    store_deinterleaved<E, C>(out + i * E, r.ld_out, x, std::make_integer_sequence<int, C>{});
  }
  if (i < r.row_end) {
    TileRegion rest = r;
    rest.row_begin = i;
    transpose_region_scalar<E>(rest);
  }
}

template <int E, int... C>
XPOSE_AVX512 bool deinterleave_columns_of_size(const TileRegion& r, std::integer_sequence<int, C...>) {
  const int64_t cols = r.col_end - r.col_begin;
  return ((cols == C + 3 ? (deinterleave_columns_fixed<E, C + 3>(r), true) : false) || ...);
}

}  // namespace

bool deinterleave_columns_avx512(const TileRegion& r, int elem_size) {
  const int64_t cols = r.col_end - r.col_begin;
  if (elem_size > 2 || cols < 3 || cols > kMaxDeinterleave || r.ld_in != cols * elem_size ||
      r.row_end - r.row_begin < 64 / elem_size)
    return false;
  constexpr auto kCounts = std::make_integer_sequence<int, kMaxDeinterleave - 2>{};  // 3 .. kMaxDeinterleave
  return elem_size == 1 ? deinterleave_columns_of_size<1>(r, kCounts) : deinterleave_columns_of_size<2>(r, kCounts);
}

namespace {


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

}  // namespace

namespace {

// Small matrices (input span and output of at most kSmallPermutedMatrixBytes, packed output): the
// AVX2 tiny-matrix method (transpose_tiny_matrices) with 64-byte chunks and VBMI's two-source byte
// permute. Output chunk j is the OR of one zero-masked permute per pair of input chunks that feeds
// it (at most Chunks / 2 of them), with the index vectors and masks built once per call: a 1 KiB
// matrix takes 8 permutes per 64 output bytes where the region code pays per matrix for its
// tiles, edges and records. Stores run past a matrix into the next one's place, which the next
// matrix then writes; the last matrices of a range and of the input go through a buffer.
template <int Chunks>
XPOSE_AVX512 void permute_small_matrices(const unsigned char* in, unsigned char* out, const TinyBatch& t,
                                         int64_t first, int64_t end) {
  constexpr int kPairs = (Chunks + 1) / 2;
  constexpr int64_t kSpan = 64 * Chunks;
  const int64_t e = t.elem_size, m = t.matrix_bytes(), in_stride = t.stride_in * e;
  const int64_t out_chunks = (m + 63) / 64;
  alignas(64) unsigned char index[Chunks][kPairs][64] = {};
  uint64_t select[Chunks][kPairs] = {};
  for (int64_t o = 0; o < m; ++o) {  // output byte o: element q = c * rows + r, byte b of it
    const int64_t q = o / e, b = o % e;
    const int64_t s = ((q % t.rows) * t.ld_in + q / t.rows) * e + b;
    const int64_t j = o / 64, pair = s / 128;
    index[j][pair][o % 64] = static_cast<unsigned char>(s % 128);
    select[j][pair] |= uint64_t{1} << (o % 64);
  }
  __m512i indices[Chunks][kPairs];
  for (int j = 0; j < Chunks; ++j)
    for (int p = 0; p < kPairs; ++p) indices[j][p] = _mm512_load_si512(index[j][p]);
  const int64_t in_bytes = t.input_bytes(), out_end = end * m;
  constexpr int64_t kLoad = 128 * kPairs;  // whole pairs of input chunks
  alignas(64) unsigned char buffer[kLoad];  // only the last matrices of a range or of the input
  for (int64_t k = first; k < end; ++k) {
    const unsigned char* source = in + k * in_stride;
    if (k * in_stride + kLoad > in_bytes) {
      std::memset(buffer, 0, sizeof buffer);
      std::memcpy(buffer, source, static_cast<std::size_t>(std::min(kLoad, in_bytes - k * in_stride)));
      source = buffer;
    }
    __m512i x[2 * kPairs];
    for (int i = 0; i < 2 * kPairs; ++i) x[i] = _mm512_loadu_si512(source + 64 * i);
    const bool whole = k * m + kSpan <= out_end;
    unsigned char* target = whole ? out + k * m : buffer;
    for (int j = 0; j < Chunks; ++j) {
      if (j >= out_chunks) break;
      __m512i y = _mm512_setzero_si512();
      for (int p = 0; p < kPairs; ++p)
        if (select[j][p] != 0)
          y = _mm512_or_si512(y, _mm512_maskz_permutex2var_epi8(select[j][p], x[2 * p], indices[j][p], x[2 * p + 1]));
      _mm512_storeu_si512(target + 64 * j, y);
    }
    if (!whole) std::memcpy(out + k * m, buffer, static_cast<std::size_t>(m));
  }
}

// ---------------------------------------------------------------------------------------------
// The N-D permute's blocks (permute_blocks.hpp): a block of up to kEdge x kEdge elements is one
// register tile. Rows past the block are zeros (not read) and each output line is a masked store
// of the block's rows, so a block reads and writes only its own elements.

// The low `bytes` bits set (all 64 from 64 up).
inline __mmask64 low_bytes_mask(int bytes) { return bytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << bytes) - 1; }

template <int E>
XPOSE_AVX512_INLINE void transpose_masked_block(const unsigned char* in, int64_t row_in, unsigned char* out,
                                                int64_t col_out, int rows, int cols) {
  constexpr int kEdge = 64 / E;
  const __mmask64 load_mask = low_bytes_mask(cols * E), store_mask = low_bytes_mask(rows * E);
  __m512i r[kEdge], lines[kEdge];
  for (int k = 0; k < kEdge; ++k)
    r[k] = k < rows ? _mm512_maskz_loadu_epi8(load_mask, in + k * row_in) : _mm512_setzero_si512();
  if constexpr (E == 4) {
    transpose_16x16_dwords(r);
    for (int q = 0; q < kEdge; ++q) lines[q] = r[q];
  } else {
    TileTranspose<E>::transpose(r, lines);
  }
  for (int q = 0; q < kEdge; ++q)
    if (q < cols) _mm512_mask_storeu_epi8(out + q * col_out, store_mask, lines[q]);
}

template <int E>
XPOSE_AVX512 void permute_blocks_of_size(const unsigned char* in, unsigned char* out, const PermuteBlocks& b) {
  constexpr int64_t kEdge = 64 / E;
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

void permute_blocks_avx512(const unsigned char* in, unsigned char* out, const PermuteBlocks& blocks) {
  switch (blocks.elem_size) {
    case 4: return permute_blocks_of_size<4>(in, out, blocks);
    case 8: return permute_blocks_of_size<8>(in, out, blocks);
    case 16: return permute_blocks_of_size<16>(in, out, blocks);
    default: return;
  }
}

void transpose_small_batch_avx512(const unsigned char* in, unsigned char* out, const TinyBatch& t, int64_t first,
                                  int64_t end) {
  switch ((std::max(t.span_bytes(), t.matrix_bytes()) + 63) / 64) {
    case 1: return permute_small_matrices<1>(in, out, t, first, end);
    case 2: return permute_small_matrices<2>(in, out, t, first, end);
    case 3: return permute_small_matrices<3>(in, out, t, first, end);
    case 4: return permute_small_matrices<4>(in, out, t, first, end);
    case 5: return permute_small_matrices<5>(in, out, t, first, end);
    case 6: return permute_small_matrices<6>(in, out, t, first, end);
    case 7: return permute_small_matrices<7>(in, out, t, first, end);
    case 8: return permute_small_matrices<8>(in, out, t, first, end);
    case 9: return permute_small_matrices<9>(in, out, t, first, end);
    case 10: return permute_small_matrices<10>(in, out, t, first, end);
    case 11: return permute_small_matrices<11>(in, out, t, first, end);
    case 12: return permute_small_matrices<12>(in, out, t, first, end);
    case 13: return permute_small_matrices<13>(in, out, t, first, end);
    case 14: return permute_small_matrices<14>(in, out, t, first, end);
    case 15: return permute_small_matrices<15>(in, out, t, first, end);
    case 16: return permute_small_matrices<16>(in, out, t, first, end);
    default: return;
  }
}

void transpose_tiles_avx512(const TileRegion& r, int elem_size, TileStores stores,
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

void stream_fence() { _mm_sfence(); }

}  // namespace xpose::detail

#else  // not x86-64 with GCC or Clang: the portable path does all the work

namespace xpose::detail {

bool avx512_tiles_available() { return false; }
void transpose_tiles_avx512(const TileRegion&, int, TileStores, const StripJoins&, int, int) {}
bool interleave_rows_avx512(const TileRegion&, int, bool) { return false; }
bool deinterleave_columns_avx512(const TileRegion&, int) { return false; }
void transpose_small_batch_avx512(const unsigned char*, unsigned char*, const TinyBatch&, int64_t, int64_t) {}
void permute_blocks_avx512(const unsigned char*, unsigned char*, const PermuteBlocks&) {}
void stream_fence() {}

}  // namespace xpose::detail

#endif
