// SPDX-License-Identifier: Apache-2.0
// Portable transpose of a region with plain loads and stores: the edges the vector tiles leave
// (fewer rows or columns than a tile), and the whole path on CPUs without AVX2.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/tile_region.hpp"

namespace xpose::detail {
// Unnamed: each file that includes this keeps its own copy, so the copy built with -mavx2 in
// transpose_tiles_avx2.cpp can never be the one the linker picks for baseline code.
namespace {

// Blocks of kScalarBlock x kScalarBlock elements keep both the rows read and the rows written
// within a few cache lines each; memcpy loads and stores make unaligned pointers safe (compilers
// turn them into plain moves).
template <int ElemSize>
void transpose_region_scalar(const TileRegion& r) {
  constexpr int64_t kScalarBlock = 32;
  for (int64_t i0 = r.row_begin; i0 < r.row_end; i0 += kScalarBlock) {
    const int64_t i1 = std::min(i0 + kScalarBlock, r.row_end);
    for (int64_t j0 = r.col_begin; j0 < r.col_end; j0 += kScalarBlock) {
      const int64_t j1 = std::min(j0 + kScalarBlock, r.col_end);
      for (int64_t j = j0; j < j1; ++j) {
        unsigned char* dst = r.out + j * r.ld_out;
        const unsigned char* src = r.in + j * ElemSize;
        for (int64_t i = i0; i < i1; ++i)
          std::memcpy(dst + i * ElemSize, src + i * r.ld_in, ElemSize);
      }
    }
  }
}

}  // namespace
}  // namespace xpose::detail
