// SPDX-License-Identifier: Apache-2.0
// A rectangle of one matrix of a transpose, in the form the CPU tile loops take: byte pointers to
// the matrix bases and byte leading dimensions, so that no pointer needs to be aligned to its
// element size.
#pragma once

#include <cstdint>

namespace xpose::detail {

struct TileRegion {
  const unsigned char* in;  // input matrix base: element (i, j) at in + i * ld_in + j * elem_size
  unsigned char* out;     // output matrix base: element (j, i) at out + j * ld_out + i * elem_size
  int64_t ld_in, ld_out;  // bytes
  int64_t row_begin, row_end;  // input rows [row_begin, row_end) = output columns
  int64_t col_begin, col_end;  // input columns [col_begin, col_end) = output rows

  bool empty() const { return row_begin >= row_end || col_begin >= col_end; }
};

// A region cut at its last whole tile of `edge` elements: the whole tiles, the columns to their
// right (beside the tiles' rows) and the rows below (the whole width).
struct TileSplit {
  TileRegion tiles, right, bottom;
};

// Unnamed: each file keeps its own copy, so the one built with -mavx2 (transpose_tiles_avx2.cpp)
// can never be the one the linker picks for baseline code.
namespace {
constexpr TileSplit split_at_tiles(const TileRegion& r, int64_t edge) {
  const int64_t rows_end = r.row_begin + (r.row_end - r.row_begin) / edge * edge;
  const int64_t cols_end = r.col_begin + (r.col_end - r.col_begin) / edge * edge;
  TileSplit split{r, r, r};
  split.tiles.row_end = split.right.row_end = rows_end;
  split.tiles.col_end = cols_end;
  split.right.col_begin = cols_end;
  split.bottom.row_begin = rows_end;
  return split;
}
}  // namespace

}  // namespace xpose::detail
