// SPDX-License-Identifier: Apache-2.0
// AVX2 tile transposes: the same 64 x 64-byte tiles as the AVX-512 set (16 x 16 of 4 bytes, 8 x 8
// of 8, 4 x 4 of 16, 32 x 32 of 2, 64 x 64 of 1), each 64-byte row piece and output line held as
// two 256-bit halves, so that every tile reads whole input lines and writes whole output lines
// (streamed where the output does not fit in cache).
//
// transpose_tiles_avx2.cpp is compiled with -mavx2 (src/CMakeLists.txt); call these only when
// avx2_tiles_available() says this CPU (and this build) has them.
#pragma once

#include <cstdint>

#include "cpu/tile_region.hpp"
#include "cpu/tile_stores.hpp"

namespace xpose::detail {

// Whether this build has the AVX2 tiles and this CPU runs them.
bool avx2_tiles_available();

// Transposes `region`, whose row and column ranges are whole numbers of tiles, walking it `wide`
// (1, 2 or 4) columns of tiles at a time, down the rows, and prefetching the input
// `prefetch_tiles` tiles ahead. Streaming stores need stream_fence() before another thread reads.
void transpose_tiles_avx2(const TileRegion& region, int elem_size, TileStores stores,
                          const StripJoins& joins, int prefetch_tiles, int wide);

// Transposes any region (the edges whole tiles leave, matrices smaller than a tile) with ordinary
// stores: whole tiles where they fit, 16-byte records (G x G transposes per 128-bit lane) for the
// rows or columns left.
void transpose_edges_avx2(const TileRegion& region, int elem_size);

// Matrices of at most this many bytes (and input spans, padding included) go through
// transpose_tiny_batch_avx2 (TinyBatch::fits).
constexpr int64_t kTinyMatrixMaxBytes = 128;

// A batch of rows x cols matrices with packed output: input rows ld_in apart, matrices stride_in
// apart (elements).
struct TinyBatch {
  int64_t rows, cols, ld_in, stride_in, batch;
  int elem_size;

  int64_t matrix_bytes() const { return rows * cols * elem_size; }
  // One matrix's input from its first element to its last, padding between rows included.
  int64_t span_bytes() const { return ((rows - 1) * ld_in + cols) * elem_size; }
  // The whole input, from the first matrix's first element to the last one's last.
  int64_t input_bytes() const { return (batch - 1) * stride_in * elem_size + span_bytes(); }
  // Two matrices or more, each matrix's output and input span at most `max_bytes`.
  bool fits(int64_t max_bytes) const {
    return batch >= 2 && rows >= 1 && cols >= 1 && ld_in >= cols && span_bytes() <= max_bytes &&
           matrix_bytes() <= max_bytes;
  }
};

// Transposes matrices first .. end - 1 of a batch that fits kTinyMatrixMaxBytes into packed output: byte shuffles of whole
// matrices. Writes only inside those matrices' outputs and reads only inside the batch's input
// (from the first matrix's first element to the last one's last).
void transpose_tiny_batch_avx2(const unsigned char* in, unsigned char* out, const TinyBatch& batch, int64_t first,
                               int64_t end);

}  // namespace xpose::detail
