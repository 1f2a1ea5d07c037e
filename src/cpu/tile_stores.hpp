// SPDX-License-Identifier: Apache-2.0
// How the vector tile loops (AVX2 and AVX-512 alike) write their output lines, and how two strips
// of rows meet. Both tile sets use the same geometry: square tiles of 64 x 64 bytes, so every
// input row piece and every output line of a tile is one whole 64-byte cache line.
#pragma once

#include <cstdint>

namespace xpose::detail {

// How output lines are written.
enum class TileStores {
  plain,           // ordinary unaligned stores: the output stays in cache (small problems)
  stream_aligned,  // non-temporal stores; every output line of every tile is 64-byte aligned
  stream_shifted,  // non-temporal stores of aligned lines assembled from two neighbouring tiles;
                   // any output address or leading dimension (partial lines use ordinary stores)
};

// Where a strip of rows meets its neighbours, for stream_shifted: the aligned output line that
// straddles two strips is written whole by the strip above (it reads the first tile below), so
// that no line is written in two parts (each part would be read for ownership first).
struct StripJoins {
  bool head_written_above = false;  // the strip above writes the straddling line at row_begin
  bool complete_below = false;      // write the straddling line at row_end: rows row_end to
                                    // row_end + tile_edge must be readable whole tiles
};

// Edge of the square tile in elements: 64 / elem_size.
constexpr int64_t tile_edge(int elem_size) { return 64 / elem_size; }

// Orders this thread's streaming stores before its later stores (sfence; nothing off x86-64).
void stream_fence();

}  // namespace xpose::detail
