// SPDX-License-Identifier: Apache-2.0
// Which instantiation of the 2D tile kernels runs a view (tile_kernel.cu; element_tile_kernel.cu
// for 8-byte elements), and in which order its blocks take the tiles: one pure function of the
// view, the device's properties (DeviceInfo) and what the pointers allow, so that the choice can be
// printed and is tested on the CPU for GPUs this project has not run on. Plain C++ (no CUDA).
#pragma once

#include <cstdint>
#include <string>

#include "core/problem.hpp"
#include "cuda/device_info.hpp"

namespace xpose::cuda {

// The unit in which L2 fetches kernel input from DRAM (the kernels ask for whole ones).
constexpr int64_t kDramBlock = 256;

// The order in which a launch's blocks take the tiles of a view. The hardware starts blocks in
// the order of their index (x fastest), so the index that moves fastest decides which tiles are
// in flight together.
//   - rows_fastest: the input row-tile index fastest, so that neighbouring tiles of an output row
//     run at the same time and the 32-byte sectors they share are completed in L2 before
//     eviction. The default.
//   - columns_fastest: the column-tile index fastest. For views of many short rows, walked rows
//     first, each column of tiles reads every input row again, long after the previous column
//     fetched the DRAM blocks the two share (a row's tile segments that do not fill whole 256-byte
//     blocks), which have left L2 by then: 1000003 x 300 u8 read its input about three times
//     (H100, 51.6% of memcpy; columns fastest 77.7; docs/kernels.md v19).
enum class TileWalk { rows_fastest, columns_fastest };

// The walk for a view of row_tiles x col_tiles tiles (per matrix) of a shape whose register cap
// lets min_blocks_per_sm blocks run on each of `sms` SMs, with tiles of tile_row_bytes per input
// row; rows_on_blocks: whether the input rows start on 256-byte DRAM blocks.
// Neighbouring column tiles read parts of the same blocks unless both hold (their row segments are
// then whole blocks). Columns fastest only where that sharing costs DRAM reads: the row tiles of
// one column do not fit on the GPU together, and the column tiles of a few row tiles do (so that
// the row tiles sharing output rows still run together).
// Shapes without a register cap (min_blocks_per_sm 1: the compact ones, for problems small enough
// to stay in L2) give no count of the blocks in flight and keep the default.
TileWalk tile_walk(int64_t row_tiles, int64_t col_tiles, int min_blocks_per_sm, int sms, int tile_row_bytes,
                   bool rows_on_blocks);

// The tile shapes of cuda/tuning.hpp, by the tuning entry each instantiates.
enum class TileShapeId {
  aligned,                 // TileTuning<Size, false>: 16-byte rows, large tiles
  aligned_compact,         // TileTuning<Size, true>: views with too few large tiles for every SM
  aligned_device,          // DeviceTileTuning<Size>: the large shape on its device class
  unaligned,               // UnalignedTileTuning<Size, false>
  unaligned_compact,       // UnalignedTileTuning<Size, true>
  unaligned_device,        // DeviceUnalignedTileTuning<Size>
  unaligned_partial_rows,  // UnalignedPartialRowsTuning<Size>: few row tiles, the last partial
  unaligned_tall_u8,       // UnalignedTallU8Tuning: u8 views of many rows
  element_square,          // ElementTileTuning (8-byte elements, element_tile_kernel.cu)
  element_wide,
  element_compact,
  element_fine,
};
const char* name_of(TileShapeId shape);

// What the pointers of one execute allow: whether the rows of each side (base, leading dimension
// and batch stride) start on 16 bytes, on the output's sector (kOutputSectorBytes) and on DRAM
// blocks.
struct TilePointers {
  bool input_rows_on_16 = false;
  bool output_rows_on_sector = false;
  bool input_rows_on_dram_block = false;
  bool output_rows_on_dram_block = false;
};

// One launch of the tile kernels.
struct TileLaunch {
  TileShapeId shape = TileShapeId::aligned;
  int rows = 0, cols = 0, threads = 0, min_blocks = 0;  // the shape's tile and block
  TileWalk walk = TileWalk::rows_fastest;
  // The unaligned shapes' instantiation for views of few row tiles whose last is partial.
  bool partial_rows = false;
  // The element form's loads of whole 256-byte blocks (input rows on DRAM blocks).
  bool block_rows = false;

  // "unaligned_partial_rows 128x64, 256 threads, 2 blocks/SM, rows fastest, partial-row form"
  std::string describe() const;
};

// The launch for view `p` (elements of 1, 2, 4, 8 or 16 bytes) on `device` with these pointers:
// the rule that launch_tile_transpose applies, stated once. A device that reports no SM count
// counts as 132 SMs.
TileLaunch select_tile_launch(const detail::Transpose2D& p, const DeviceInfo& device, const TilePointers& pointers);

// Whether every row of a view starts on a multiple of `bytes`: its base, its leading dimension `ld`
// and its batch stride `stride` (0 for one matrix), in elements of `size` bytes. Kernels pick
// their vector widths (16) and load kinds (256-byte DRAM blocks) by it.
inline bool rows_start_on(int64_t bytes, const void* base, int64_t ld, int64_t stride, int size) {
  return reinterpret_cast<uintptr_t>(base) % bytes == 0 && (ld * size) % bytes == 0 && (stride * size) % bytes == 0;
}

// rows_start_on for the input and the output of a 2D problem (the batch stride counts only when
// there is a batch).
inline bool input_rows_start_on(int64_t bytes, const void* in, const detail::Transpose2D& p) {
  return rows_start_on(bytes, in, p.ld_in, p.batch > 1 ? p.stride_in : 0, p.elem_size);
}
inline bool output_rows_start_on(int64_t bytes, const void* out, const detail::Transpose2D& p) {
  return rows_start_on(bytes, out, p.ld_out, p.batch > 1 ? p.stride_out : 0, p.elem_size);
}

// What these input and output pointers allow view `p` (rows_start_on at 16 bytes, the output's
// sector, kOutputSectorBytes, and DRAM blocks). Pointers are only checked for their alignment.
TilePointers tile_pointers(const detail::Transpose2D& p, const void* in, const void* out);

// The launch for view `p` on `device` with pointers on 256 bytes, and where it differs the launch
// with pointers one element off 16 bytes (Plan::describe):
// "aligned 64x64, 256 threads, 4 blocks/SM, rows fastest; pointers off 16 bytes: unaligned ...".
std::string describe_tile_launches(const detail::Transpose2D& p, const DeviceInfo& device);

}  // namespace xpose::cuda
