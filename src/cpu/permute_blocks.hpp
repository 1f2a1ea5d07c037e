// SPDX-License-Identifier: Apache-2.0
// The register transposes inside one tile of the N-D permute's multi-axis tiles
// (permute_blocked.cpp): the tile's axis of unit input stride and its axis of unit output stride
// make 2D blocks, transposed a vector tile at a time with masked loads and stores at their edges;
// the tile's other axes are loops around them.
#pragma once

#include <array>
#include <cstdint>

#include "xpose/xpose.hpp"

namespace xpose::detail {

struct PermuteBlocks {
  int elem_size = 0;  // 4, 8 or 16
  // Block element (r, c) is read at in + r * row_in + c * elem_size and written at
  // out + c * col_out + r * elem_size: r runs along the output's unit-stride axis, c along the input's.
  int64_t rows = 0, cols = 0, row_in = 0, col_out = 0;
  // The tile's other axes, outermost first: extent and byte strides.
  int loops = 0;
  std::array<int64_t, kMaxPermuteRank> extent{}, in{}, out{};
};

namespace {
// The walk over the tile's other axes: the next index after `at` (the last axis fastest), with the
// offsets moved to it; false after the last. Unnamed, like tile_region.hpp's helpers: each vector
// set's file inlines its own copy.
inline bool next_block_origin(const PermuteBlocks& b, std::array<int64_t, kMaxPermuteRank>& at, int64_t* in_offset,
                              int64_t* out_offset) {
  for (int k = b.loops - 1; k >= 0; --k) {
    *in_offset += b.in[k];
    *out_offset += b.out[k];
    if (++at[k] < b.extent[k]) return true;
    *in_offset -= at[k] * b.in[k];
    *out_offset -= at[k] * b.out[k];
    at[k] = 0;
  }
  return false;
}
}  // namespace

// Every block of the tile whose first element is at in / out. Each writes only the tile's
// elements and reads only its own. Call only where the set is available (cpu_isa_supported).
void permute_blocks_avx512(const unsigned char* in, unsigned char* out, const PermuteBlocks& blocks);
void permute_blocks_avx2(const unsigned char* in, unsigned char* out, const PermuteBlocks& blocks);

}  // namespace xpose::detail
