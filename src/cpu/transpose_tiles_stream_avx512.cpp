// SPDX-License-Identifier: Apache-2.0
// The streaming-store instantiations of the AVX-512 tile loops. Built at -O2 (src/CMakeLists.txt):
// GCC's -O3 unrolls their row loops into one live pointer per row and ran them about 10% slower
// at the memory roofline, while the ordinary-store loops, bound by shuffles in cache, run twice
// as fast at -O3 (docs/cpu.md, notebook).
#include "cpu/tile_transpose_avx512.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

namespace xpose::detail {
namespace {

template <int ElemSize>
void streaming_of_size(const TileRegion& r, TileStores stores, const StripJoins& joins,
                       int prefetch_tiles) {
  if (stores == TileStores::stream_aligned)
    transpose_tiles<ElemSize, StreamAlignedLines>(r, joins, prefetch_tiles);
  else
    transpose_tiles<ElemSize, StreamShiftedLines>(r, joins, prefetch_tiles);
}

}  // namespace

void transpose_tiles_streaming_avx512(const TileRegion& r, int elem_size, TileStores stores,
                                      const StripJoins& joins, int prefetch_tiles) {
  switch (elem_size) {
    case 1:
      return streaming_of_size<1>(r, stores, joins, prefetch_tiles);
    case 2:
      return streaming_of_size<2>(r, stores, joins, prefetch_tiles);
    case 4:
      return streaming_of_size<4>(r, stores, joins, prefetch_tiles);
    case 8:
      return streaming_of_size<8>(r, stores, joins, prefetch_tiles);
    case 16:
      return streaming_of_size<16>(r, stores, joins, prefetch_tiles);
    default:
      return;
  }
}

}  // namespace xpose::detail

#endif
