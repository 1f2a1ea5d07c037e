// SPDX-License-Identifier: Apache-2.0
// AVX-512 tile transposes: square tiles of 64 x 64 bytes (16 x 16 for 4-byte elements, 8 x 8 for
// 8-byte, 64 x 64 for 1-byte, ...) are transposed in registers, so every tile reads whole 64-byte
// input lines and produces whole 64-byte output lines, which can be written with streaming stores.
//
// Compiled for AVX-512 F + BW + VBMI with function attributes; call only when
// avx512_tiles_available() (cpu_isa_supported(CpuIsa::avx512)) says the CPU has them.
#pragma once

#include <cstdint>

#include "cpu/tile_region.hpp"
#include "cpu/tile_stores.hpp"
#include "cpu/transpose_tiles_avx2.hpp"

namespace xpose::detail {

// Whether this CPU runs the AVX-512 tiles (F, BW and VBMI: Ice Lake, Zen 4 and later).
bool avx512_tiles_available();

// Transposes `region`, whose row and column ranges are whole numbers of tiles, walking it `wide`
// (1 or 4) columns of tiles at a time down the rows (each column writes tile_edge output rows
// front to back) and prefetching the input `prefetch_tiles` tiles ahead. Streaming stores need
// stream_fence() before another thread may read the output.
void transpose_tiles_avx512(const TileRegion& region, int elem_size, TileStores stores,
                            const StripJoins& joins, int prefetch_tiles, int wide);

// A region of 2 to 16 rows (at most 64 / elem_size) into packed output rows of that many elements
// (ld_out == rows * elem_size), 1- to 8-byte elements, in masked permutes of whole lines; with
// `stream`, the output's whole aligned lines are streaming stores (stream_fence() before another
// thread reads them). False (nothing written) for any other region.
bool interleave_rows_avx512(const TileRegion& region, int elem_size, bool stream);

// A region of 3 to 8 columns of packed input rows (ld_in == columns x elem_size) and at least
// 64 / elem_size rows, 1- and 2-byte elements, in masked permutes of whole lines (the rows after
// the last block of 64 / elem_size element by element). False (nothing written) otherwise.
bool deinterleave_columns_avx512(const TileRegion& region, int elem_size);

// Matrices (and input spans) of at most this many bytes go through transpose_small_batch_avx512
// (TinyBatch::fits).
constexpr int64_t kSmallPermutedMatrixBytes = 1024;

// Transposes matrices first .. end - 1 of a batch that fits kSmallPermutedMatrixBytes into packed output: each matrix is a fixed
// permutation of its bytes, done as two-source byte permutes of its 64-byte chunks. Writes only
// inside those matrices' outputs and reads only inside the batch's input.
void transpose_small_batch_avx512(const unsigned char* in, unsigned char* out, const TinyBatch& batch,
                                  int64_t first, int64_t end);

}  // namespace xpose::detail
