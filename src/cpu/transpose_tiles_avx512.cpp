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

void transpose_tiles_avx512(const TileRegion& r, int elem_size, TileStores stores,
                            const StripJoins& joins, int prefetch_tiles) {
  if (stores != TileStores::plain)
    return transpose_tiles_streaming_avx512(r, elem_size, stores, joins, prefetch_tiles);
  switch (elem_size) {
    case 1:
      return transpose_tiles<1, PlainLines>(r, joins, prefetch_tiles);
    case 2:
      return transpose_tiles<2, PlainLines>(r, joins, prefetch_tiles);
    case 4:
      return transpose_tiles<4, PlainLines>(r, joins, prefetch_tiles);
    case 8:
      return transpose_tiles<8, PlainLines>(r, joins, prefetch_tiles);
    case 16:
      return transpose_tiles<16, PlainLines>(r, joins, prefetch_tiles);
    default:
      return;
  }
}

void transpose_edges_avx512(const TileRegion& r, int elem_size) {
  switch (elem_size) {
    case 1:
      return transpose_partial_tiles<1>(r);
    case 2:
      return transpose_partial_tiles<2>(r);
    case 4:
      return transpose_partial_tiles<4>(r);
    case 8:
      return transpose_partial_tiles<8>(r);
    case 16:
      return transpose_partial_tiles<16>(r);
    default:
      return;
  }
}

void stream_fence() { _mm_sfence(); }

}  // namespace xpose::detail

#else  // not x86-64 with GCC or Clang: the portable path does all the work

namespace xpose::detail {

bool avx512_tiles_available() { return false; }
void transpose_tiles_avx512(const TileRegion&, int, TileStores, const StripJoins&, int) {}
void transpose_edges_avx512(const TileRegion&, int) {}
void stream_fence() {}

}  // namespace xpose::detail

#endif
