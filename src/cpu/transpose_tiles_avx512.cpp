// SPDX-License-Identifier: Apache-2.0
#include "cpu/transpose_tiles_avx512.hpp"

#include "cpu/tile_transpose_avx512.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace xpose::detail {

bool avx512_tiles_available() {
  static const bool available = __builtin_cpu_supports("avx512f") &&
                                __builtin_cpu_supports("avx512bw") &&
                                __builtin_cpu_supports("avx512vbmi");
  return available;
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
void stream_fence() {}

}  // namespace xpose::detail

#endif
