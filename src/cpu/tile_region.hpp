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

}  // namespace xpose::detail
