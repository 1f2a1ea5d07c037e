// AVX-512 tile transposes: square tiles of 64 x 64 bytes (16 x 16 for 4-byte elements, 8 x 8 for
// 8-byte, 64 x 64 for 1-byte, ...) are transposed in registers, so every tile reads whole 64-byte
// input lines and produces whole 64-byte output lines, which can be written with streaming stores.
//
// Compiled for AVX-512 F + BW + VBMI with function attributes; call only when
// avx512_tiles_available() says the CPU has them.
#pragma once

#include <cstdint>

#include "cpu/tile_region.hpp"

namespace xpose::detail {

// How output lines are written.
enum class TileStores {
  plain,           // ordinary unaligned stores: the output stays in cache (small problems)
  stream_aligned,  // non-temporal stores; every output line of every tile is 64-byte aligned
  stream_shifted,  // non-temporal stores of aligned lines assembled from two neighbouring tiles;
                   // any output address or leading dimension (partial lines use masked stores)
};

// Where a strip of rows meets its neighbours, for stream_shifted: the aligned output line that
// straddles two strips is written whole by the strip above (it reads the first tile below), so
// that no line is written in two parts (each part would be read for ownership first).
struct StripJoins {
  bool head_written_above = false;  // the strip above writes the straddling line at row_begin
  bool complete_below = false;      // write the straddling line at row_end: rows row_end to
                                    // row_end + tile_edge must be readable whole tiles
};

// Whether this CPU runs the AVX-512 tiles (F, BW and VBMI: Ice Lake, Zen 4 and later).
bool avx512_tiles_available();

// Edge of the square tile in elements: 64 / elem_size.
constexpr int64_t tile_edge(int elem_size) { return 64 / elem_size; }

// Transposes `region`, whose row and column ranges are whole numbers of tiles. Walks the region
// column of tiles by column of tiles (each column writes tile_edge output rows front to back) and
// prefetches the input `prefetch_tiles` tiles ahead. Streaming stores need stream_fence() before
// another thread may read the output.
void transpose_tiles_avx512(const TileRegion& region, int elem_size, TileStores stores,
                            const StripJoins& joins, int prefetch_tiles);

// Transposes any region with tiles whose last row and column may be partial (masked loads and
// stores, ordinary stores): the edges that whole tiles leave, and matrices smaller than a tile.
void transpose_edges_avx512(const TileRegion& region, int elem_size);

// Orders this thread's streaming stores before its later stores (sfence).
void stream_fence();

}  // namespace xpose::detail
