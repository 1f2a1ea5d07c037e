// SPDX-License-Identifier: Apache-2.0
#include "cpu/transpose_tiles_avx512.hpp"

#include <utility>

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
// per o, blended by their masks. R^2 permutes per R lines written whole, so at most
// kMaxInterleave rows (16: about one permute per 4 bytes). The inverse (few columns of packed
// input rows) written the same way ran slower than the AVX2 records on Zen 5 (f32 2000000 x 13
// 31 -> 13 GB/s: C output rows of one line per block), so it is not used.
constexpr int kMaxInterleave = 16;

template <int E>
struct Lanes;  // the permute and the masked blend of E-byte elements, and their mask type
template <>
struct Lanes<1> {
  using Mask = __mmask64;
  XPOSE_AVX512_INLINE static __m512i permute(__m512i idx, __m512i a) {
    return _mm512_permutexvar_epi8(idx, a);
  }
  XPOSE_AVX512_INLINE static __m512i blend(__m512i acc, Mask m, __m512i a) {
    return _mm512_mask_mov_epi8(acc, m, a);
  }
};
template <>
struct Lanes<2> {
  using Mask = __mmask32;
  XPOSE_AVX512_INLINE static __m512i permute(__m512i idx, __m512i a) {
    return _mm512_permutexvar_epi16(idx, a);
  }
  XPOSE_AVX512_INLINE static __m512i blend(__m512i acc, Mask m, __m512i a) {
    return _mm512_mask_mov_epi16(acc, m, a);
  }
};
template <>
struct Lanes<4> {
  using Mask = __mmask16;
  XPOSE_AVX512_INLINE static __m512i permute(__m512i idx, __m512i a) {
    return _mm512_permutexvar_epi32(idx, a);
  }
  XPOSE_AVX512_INLINE static __m512i blend(__m512i acc, Mask m, __m512i a) {
    return _mm512_mask_mov_epi32(acc, m, a);
  }
};
template <>
struct Lanes<8> {
  using Mask = __mmask8;
  XPOSE_AVX512_INLINE static __m512i permute(__m512i idx, __m512i a) {
    return _mm512_permutexvar_epi64(idx, a);
  }
  XPOSE_AVX512_INLINE static __m512i blend(__m512i acc, Mask m, __m512i a) {
    return _mm512_mask_mov_epi64(acc, m, a);
  }
};

// Index vector of E-byte lanes: lane t holds index[t].
template <int E>
XPOSE_AVX512 __m512i lane_indices(const int* index) {
  constexpr int K = 64 / E;
  alignas(64) unsigned char bytes[64] = {};
  for (int t = 0; t < K; ++t) {
    const auto v = static_cast<uint64_t>(index[t]);
    for (int b = 0; b < E && b < 8; ++b) bytes[t * E + b] = static_cast<unsigned char>(v >> (8 * b));
  }
  return _mm512_load_si512(bytes);
}

// One block: out[o] = merge over sources s of permute(index[o], in[s]) under mask[o][s]; `n`
// registers on each side.
template <int E>
struct MergePlan {
  using Mask = typename Lanes<E>::Mask;
  __m512i index[kMaxInterleave];
  Mask mask[kMaxInterleave][kMaxInterleave];
  int n = 0;

  // Output lane (o, t) reads source lane `from(o K + t)` = {register, lane}.
  template <class From>
  XPOSE_AVX512 void build(int count, From from) {
    n = count;
    constexpr int K = 64 / E;
    for (int o = 0; o < n; ++o) {
      int lanes[K];
      for (int s = 0; s < n; ++s) mask[o][s] = 0;
      for (int t = 0; t < K; ++t) {
        const auto [reg, lane] = from(o * K + t);
        lanes[t] = lane;
        mask[o][reg] = static_cast<Mask>(mask[o][reg] | (Mask{1} << t));
      }
      index[o] = lane_indices<E>(lanes);
    }
  }
  // The permutes are independent; only the one-cycle blends form a chain.
  XPOSE_AVX512_INLINE __m512i merge(int o, const __m512i* in) const {
    __m512i acc = _mm512_setzero_si512();
    for (int s = 0; s < n; ++s)
      if (mask[o][s] != 0) acc = Lanes<E>::blend(acc, mask[o][s], Lanes<E>::permute(index[o], in[s]));
    return acc;
  }
};

// The plan of this thread's last region with the same element size and count: a plan costs
// thousands of cycles, and a batch of thin matrices comes one matrix at a time.
template <int E, class From>
XPOSE_AVX512 const MergePlan<E>& cached_plan(int count, From from) {
  thread_local MergePlan<E> plan;
  thread_local int cached = 0;  // the count planned; 0: none
  if (cached != count) plan.build(count, from), cached = count;
  return plan;
}

template <int E>
XPOSE_AVX512 void interleave_rows_of_size(const TileRegion& r) {
  constexpr int K = 64 / E;
  const int rows = static_cast<int>(r.row_end - r.row_begin);
  const MergePlan<E>& plan = cached_plan<E>(rows, [rows](int m) {
    return std::pair<int, int>{m % rows, m / rows};
  });
  const unsigned char* in = r.in + r.row_begin * r.ld_in;
  unsigned char* out = r.out + r.row_begin * E;  // output row j at out + j * ld_out, packed
  int64_t j = r.col_begin;
  for (; j + K <= r.col_end; j += K) {
    __m512i x[kMaxInterleave];
    for (int q = 0; q < rows; ++q) x[q] = _mm512_loadu_si512(in + q * r.ld_in + j * E);
    unsigned char* dst = out + j * r.ld_out;
    for (int o = 0; o < rows; ++o) _mm512_storeu_si512(dst + 64 * o, plan.merge(o, x));
  }
  if (j < r.col_end) {
    TileRegion rest = r;
    rest.col_begin = j;
    transpose_region_scalar<E>(rest);
  }
}

}  // namespace

bool interleave_rows_avx512(const TileRegion& r, int elem_size) {
  const int64_t rows = r.row_end - r.row_begin;
  if (elem_size > 8 || rows < 2 || rows > kMaxInterleave || rows > 64 / elem_size ||
      r.ld_out != rows * elem_size)
    return false;
  switch (elem_size) {
    case 1:
      return interleave_rows_of_size<1>(r), true;
    case 2:
      return interleave_rows_of_size<2>(r), true;
    case 4:
      return interleave_rows_of_size<4>(r), true;
    default:
      return interleave_rows_of_size<8>(r), true;
  }
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
bool interleave_rows_avx512(const TileRegion&, int) { return false; }
void stream_fence() {}

}  // namespace xpose::detail

#endif
