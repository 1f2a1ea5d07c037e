// SPDX-License-Identifier: Apache-2.0
// Launch parameters of the N-D permute kernels, built once per plan from the normalised layout
// and passed to the kernels by value. Plain C++ (the index functions are host-device), so that the
// CPU tests can check the geometry of every launch without a GPU.
//
// Counts and strides are in elements of the kernel's element (or chunk) size; indices are 64-bit,
// and every division by a size is a FastDivisor (multiply-high and shift).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/permute_fast_division.hpp"
#include "core/permute_layout.hpp"

namespace xpose::cuda {

using detail::FastDivisor;
constexpr int kMaxAxes = kMaxPermuteRank;

// ---------------------------------------------------------------------------------------------
// naive: one element per thread, threads in output order. Any layout.
struct NaiveParams {
  int rank = 0;                    // axes in output order, outermost first
  FastDivisor size[kMaxAxes];
  int64_t in_stride[kMaxAxes] = {};
  int64_t out_stride[kMaxAxes] = {};
  int64_t elements = 0;
};

NaiveParams make_naive_params(const detail::PermuteLayout& layout);

XPOSE_HOST_DEVICE inline void naive_offsets(const NaiveParams& p, int64_t index, int64_t* in, int64_t* out) {
  int64_t in_offset = 0, out_offset = 0;
  for (int k = p.rank - 1; k >= 0; --k) {
    int64_t rest = 0;
    const int64_t digit = p.size[k].divide_remainder(index, &rest);
    index = rest;
    in_offset += digit * p.in_stride[k];
    out_offset += digit * p.out_stride[k];
  }
  *in = in_offset;
  *out = out_offset;
}

// ---------------------------------------------------------------------------------------------
// gather: the innermost axis stays innermost with unit strides on both sides, so the output is
// runs of it, each copied from one contiguous input run. An item is one chunk (1 to 16 bytes) of
// a run; consecutive items are consecutive output chunks, so a warp writes contiguous output.
//
// Short runs (under kGatherTileBytes) are walked in tiles of runs: tile_a runs along the input's
// next axis (A) by tile_b along the output's next axis (B), B fastest. A tile's reads then cover
// tile_a contiguous input runs per B and its writes tile_b contiguous output runs per A, at the
// same time, so the sectors that neighbouring runs share meet in L2 instead of being fetched twice.
constexpr int64_t kGatherTileBytes = 256;

// Long runs whose length or strides allow only chunks of this many bytes or fewer (odd runs of
// small elements, odd pitches) are copied as shifted 16-byte vectors instead: an item is one
// aligned 16-byte vector of an output run, assembled from the two aligned input vectors that
// cover its bytes. Copying 2 or 4 bytes at a time, gather ran at 17-39% of memcpy (docs/permute.md).
constexpr int kGatherShiftedMaxChunkBytes = 4;

struct GatherParams {
  int chunk_bytes = 1;             // the kernel's access size (1 when shifted: offsets in bytes)
  bool shifted = false;            // items are aligned 16-byte output vectors; run_chunks per run
  int64_t run_bytes = 0;           // the run's length, when shifted
  FastDivisor run_chunks;          // chunks per run
  int outer_rank = 0;              // the other axes (not A, B when tiled), output order, outermost first
  FastDivisor outer_size[kMaxAxes];
  int64_t outer_in_stride[kMaxAxes] = {};   // in chunks
  int64_t outer_out_stride[kMaxAxes] = {};  // in chunks
  // Tiles of runs; log2 sizes 0 when not tiled (then A and B are among the outer axes).
  int log2_tile_a = 0, log2_tile_b = 0;
  FastDivisor tiles_a, tiles_b;
  int64_t a_size = 1, a_in_stride = 0, a_out_stride = 0;
  int64_t b_size = 1, b_in_stride = 0, b_out_stride = 0;
  int64_t items = 0;               // including the items of edge tiles that lie outside
};

// Whether gather runs `layout`; if so fills `params` for the widest chunk that the run length
// and strides allow (`max_chunk_bytes` at most), else says why.
bool make_gather_params(const detail::PermuteLayout& layout, int max_chunk_bytes, GatherParams* params,
                        std::string* why);

// Offsets (in chunks) of item `item`; false for an item of an edge tile outside the tensor.
XPOSE_HOST_DEVICE inline bool gather_offsets(const GatherParams& p, int64_t item, int64_t* in, int64_t* out) {
  int64_t rest = 0;
  const int64_t chunk = p.run_chunks.divide_remainder(item, &rest);
  int64_t in_offset = chunk, out_offset = chunk;
  bool inside = true;
  if (p.log2_tile_a + p.log2_tile_b > 0) {
    const int64_t b_local = rest & ((int64_t{1} << p.log2_tile_b) - 1);
    rest >>= p.log2_tile_b;
    const int64_t a_local = rest & ((int64_t{1} << p.log2_tile_a) - 1);
    rest >>= p.log2_tile_a;
    int64_t next = 0;
    const int64_t b = (p.tiles_b.divide_remainder(rest, &next) << p.log2_tile_b) + b_local;
    rest = next;
    const int64_t a = (p.tiles_a.divide_remainder(rest, &next) << p.log2_tile_a) + a_local;
    rest = next;
    inside = a < p.a_size && b < p.b_size;
    in_offset += a * p.a_in_stride + b * p.b_in_stride;
    out_offset += a * p.a_out_stride + b * p.b_out_stride;
  }
  for (int k = p.outer_rank - 1; k >= 0; --k) {
    int64_t next = 0;
    const int64_t digit = p.outer_size[k].divide_remainder(rest, &next);
    rest = next;
    in_offset += digit * p.outer_in_stride[k];
    out_offset += digit * p.outer_out_stride[k];
  }
  *in = in_offset;
  *out = out_offset;
  return inside;
}

// Shifted gather: item `item` is one aligned 16-byte vector of an output run. Sets the run's
// offsets (bytes) and returns the vector's first byte relative to the run: negative for the
// vector holding the run's head, past the run for the slots a run does not need.
XPOSE_HOST_DEVICE inline int64_t gather_shifted_item(const GatherParams& p, int64_t item, const void* out,
                                                     int64_t* source, int64_t* target) {
  gather_offsets(p, item, source, target);
  const int64_t slot = item - p.run_chunks.divide(item) * p.run_chunks.divisor();
  *source -= slot;
  *target -= slot;
  const auto head = static_cast<int64_t>((reinterpret_cast<uintptr_t>(out) + static_cast<uintptr_t>(*target)) & 15);
  return slot * 16 - head;
}

// ---------------------------------------------------------------------------------------------
// tiled: the contiguous dim moves. A tile is rows x cols of a 2D view of the tensor:
//   columns: the input's innermost axes (the innermost, then the next ones while the tile is not
//            yet full and they are packed onto it), so a tile row is one contiguous input run;
//   rows:    likewise the output's innermost axes, so a tile column is one contiguous output run.
// The other axes are the batch. Loads run along tile rows, stores along tile columns, both
// coalesced; shared memory turns one into the other.
constexpr int kMaxCompositeAxes = 4;
constexpr int kMaxTileEdge = 256;          // tile rows and columns; the offset tables hold this many
constexpr int kTiledSharedBytes = 16384;   // the tile in shared memory, for every element size
constexpr int kTiledThreads = 256;

// The tile shape aimed for, per element size: each tile row (an input run) and tile column (an
// output run) is at least 128 bytes, and the tile fills kTiledSharedBytes. The 2D tile kernel's
// shapes (cuda/tuning.hpp, H100), except 32 x 64 for 8-byte elements to stay within 16 KiB. Not
// yet measured for N-D: the lead's ttc57 run on an H100 is the first measurement.
// Column tiles per group of the walk. The hardware starts blocks in index order, so tiles near in
// index are in flight together: a tile's column neighbours (which share the sectors of its input
// runs' ends) lie one tile away, its row neighbours (the sectors of its output runs' ends) 8 away,
// both well inside the hundreds of blocks a GPU holds. Walked column tiles first over the whole
// view, a tile's row neighbour came a whole row of tiles later, after the L2 had dropped the
// sectors they share, which DRAM then moved twice: H100, % of memcpy, `30 5 941860 / 2 1 0` f32
// 51.3 -> 85.5, `39 29 55408 6 / 2 3 1 0` u8 29.2 -> 56.1 (groups of 1, row tiles first: the same).
constexpr int64_t kTiledGroupCols = 8;

struct TiledTuning {
  int rows, cols;
};
TiledTuning tiled_tuning(int elem_size);

struct TiledParams {
  int elem_size = 0;
  // Columns: input-inner axes, innermost first. Column index c is at input offset
  // c * col_in_stride; its output offset comes from its digits.
  int col_axes = 0;
  FastDivisor col_size[kMaxCompositeAxes];
  int64_t col_out_stride[kMaxCompositeAxes] = {};
  int64_t col_in_stride = 0;
  int64_t cols = 0;
  // Rows: output-inner axes, innermost first. Row r is at output offset r * row_out_stride.
  int row_axes = 0;
  FastDivisor row_size[kMaxCompositeAxes];
  int64_t row_in_stride[kMaxCompositeAxes] = {};
  int64_t row_out_stride = 0;
  int64_t rows = 0;
  // Batch: the remaining axes, input order, innermost first.
  int batch_axes = 0;
  FastDivisor batch_size[kMaxAxes];
  int64_t batch_in_stride[kMaxAxes] = {};
  int64_t batch_out_stride[kMaxAxes] = {};
  // Tiles: powers of two, rows x cols at most the tile kernel's shared memory.
  int log2_tile_rows = 0, log2_tile_cols = 0;
  int64_t col_tiles = 0, row_tiles = 0;
  // The walk (tile_origin): per batch, groups of group_cols column tiles; in a group the column
  // tile fastest, then the row tile. group_cols = col_tiles walks column tiles first over the whole
  // view, 1 walks row tiles first. make_tiled_params takes kTiledGroupCols.
  int64_t group_cols = 1;
  FastDivisor batch_tiles;   // col_tiles * row_tiles
  FastDivisor group_tiles;   // group_cols * row_tiles
  FastDivisor group_width;   // group_cols
  FastDivisor last_width;    // the column tiles of the last group
  int64_t tiles = 0;
  // Strides allow 16-byte vectors along tile rows (loads) and tile columns (stores); the
  // pointers are checked at launch.
  bool in_vectors = false, out_vectors = false;
  // Tile rows are contiguous input runs of at least one vector, of elements under 16 bytes:
  // where the aligned vectors do not apply (strides or pointer off 16 bytes), loads take the
  // aligned 16-byte vectors of the grid that cover each run and shift them in registers
  // (TiledAgent::load_shifted). A vector is read whole only inside the input view's span of
  // in_span_bytes from the input pointer (every byte the view can reach lies there).
  bool in_shifted = false;
  int64_t in_span_bytes = 0;
  // Tile columns are contiguous output runs of at least one vector of 1- or 2-byte elements: where
  // the aligned vectors do not apply, stores write the aligned vectors inside each run and its
  // ends element by element (TiledAgent::store_shifted).
  bool out_shifted = false;

  // The shorter of a full tile's input run (a tile row) and output run (a tile column), in bytes.
  int64_t shorter_run_bytes() const {
    const int64_t in_run = col_in_stride == 1 ? std::min(cols, int64_t{1} << log2_tile_cols) : 1;
    const int64_t out_run = row_out_stride == 1 ? std::min(rows, int64_t{1} << log2_tile_rows) : 1;
    return std::min(in_run, out_run) * elem_size;
  }
};

// Whether tiled runs `layout` (the input's and the output's innermost axes differ); if so fills
// `params` with the tile shape of TiledTuning for its element size, else says why.
bool make_tiled_params(const detail::PermuteLayout& layout, TiledParams* params, std::string* why);

// Sets the walk of `p` (TiledParams::group_cols, 1 to col_tiles) and its divisors.
void set_tiled_walk(TiledParams* p, int64_t group_cols);

// Where one tile lies: its first row and column, how many of each it has, and the offsets of its
// batch.
struct TileOrigin {
  int64_t row0 = 0, col0 = 0;
  int rows_here = 0, cols_here = 0;
  int64_t in_base = 0, out_base = 0;
};

XPOSE_HOST_DEVICE inline TileOrigin tile_origin(const TiledParams& p, int64_t tile) {
  TileOrigin o;
  int64_t batch = 0, group = 0, row_tile = 0;
  const int64_t within = p.batch_tiles.divide_remainder(tile, &batch);
  const int64_t in_group = p.group_tiles.divide_remainder(within, &group);
  const int64_t first_col = group * p.group_cols;
  const FastDivisor& width = first_col + p.group_cols <= p.col_tiles ? p.group_width : p.last_width;
  const int64_t col_tile = first_col + width.divide_remainder(in_group, &row_tile);
  o.col0 = col_tile << p.log2_tile_cols;
  o.row0 = row_tile << p.log2_tile_rows;
  const int64_t tile_cols = int64_t{1} << p.log2_tile_cols, tile_rows = int64_t{1} << p.log2_tile_rows;
  o.cols_here = static_cast<int>(p.cols - o.col0 < tile_cols ? p.cols - o.col0 : tile_cols);
  o.rows_here = static_cast<int>(p.rows - o.row0 < tile_rows ? p.rows - o.row0 : tile_rows);
  for (int k = 0; k < p.batch_axes; ++k) {
    int64_t next = 0;
    const int64_t digit = p.batch_size[k].divide_remainder(batch, &next);
    batch = next;
    o.in_base += digit * p.batch_in_stride[k];
    o.out_base += digit * p.batch_out_stride[k];
  }
  return o;
}

// Input offset of tile-view row `row` (relative to the batch), from its digits.
XPOSE_HOST_DEVICE inline int64_t row_in_offset(const TiledParams& p, int64_t row) {
  int64_t offset = 0;
  for (int k = 0; k < p.row_axes; ++k) {
    int64_t next = 0;
    offset += p.row_size[k].divide_remainder(row, &next) * p.row_in_stride[k];
    row = next;
  }
  return offset;
}

// Output offset of tile-view column `col` (relative to the batch), from its digits.
XPOSE_HOST_DEVICE inline int64_t col_out_offset(const TiledParams& p, int64_t col) {
  int64_t offset = 0;
  for (int k = 0; k < p.col_axes; ++k) {
    int64_t next = 0;
    offset += p.col_size[k].divide_remainder(col, &next) * p.col_out_stride[k];
    col = next;
  }
  return offset;
}

// ---------------------------------------------------------------------------------------------
// packed: a tile is a box over several axes, each taken whole or in part, chosen so that its
// input runs (the box's input-innermost axes, packed) and its output runs (its output-innermost
// axes) are both long however short each axis is. Rows and columns of `tiled` are the special
// case of disjoint axes; here an axis may serve both sides (dims (.., 6, 3) -> (.., 3, 6, ..): the
// 18 bytes of the two short axes are contiguous on both sides, and the box extends them with the
// next axes of each side). Shared memory holds the box in input order, one input run per pitch.
// Loads copy runs in 16-byte chunks (aligned vectors, shifted in registers where a run starts off
// 16 bytes); stores write the aligned 16-byte chunks of each output run, gathering their elements
// from shared memory through a table of each run position's offset, built once per block.
using detail::TileDivisor;
constexpr int kPackedSharedBytes = 16384;
constexpr int64_t kSectorBytes = 32;  // what DRAM and L2 move at a time
constexpr int kPackedThreads = 256;
constexpr int kMaxBoxAxes = 8;
// Entries of the gather table (2 bytes each): the longest output run a box may have.
constexpr int kPackedTableEntries = 4096;
// Runs per side whose offsets a block keeps in tables (PackedParams::run_tables): 8 bytes each for
// the input, 10 for the output, within what 8 blocks per multiprocessor leave of shared memory.
constexpr int kPackedRunEntries = 128;

// One box axis as one walk sees it.
struct PackedStep {
  TileDivisor extent;  // the box's extent along the axis
  int box = 0;         // index of the axis in PackedParams::box_axis
  int smem = 0;        // bytes in shared memory per step
  int64_t global = 0;  // elements in global memory per step (the input or output stride)
};

struct PackedParams {
  int elem_size = 0;
  // Every axis of the layout, input order, innermost first: the box's extent along it (1 for an
  // axis outside the box) and the tiles along it.
  int rank = 0;
  int64_t size[kMaxAxes] = {};
  int64_t in_stride[kMaxAxes] = {}, out_stride[kMaxAxes] = {};
  int64_t extent[kMaxAxes] = {};
  FastDivisor tiles_along[kMaxAxes];
  FastDivisor tiles_inside[kMaxAxes];  // tiles of the axes before it (a tile's index over them)
  int box_of[kMaxAxes] = {};  // index in box_axis, or -1
  int64_t tiles = 0;
  // The box: axes of extent >= 2, input order, innermost first.
  int box_axes = 0;
  int box_axis[kMaxBoxAxes] = {};
  // Loads: an input run is the box's input-innermost axes that are contiguous in the input, or
  // nearly: gaps under a sector between them (in_run_axes of them; all but the last whole). It is
  // read as it lies, gaps included: in_run_span elements from its first to its last in a full tile.
  // The runs are numbered by the other box axes (in_outer) and run j starts at byte j * pitch of
  // the tile.
  int in_run_axes = 0;
  int in_run_span = 1;
  int pitch = 0;
  int in_outer_axes = 0;
  PackedStep in_outer[kMaxBoxAxes];
  int in_runs = 1;
  // Every run starts on 16 bytes when the input pointer does (the strides of the axes outside the
  // run, and the step between tiles of a partial run axis, are multiples of 16 bytes): loads are
  // plain 16-byte vectors. Otherwise each 16 bytes of a run come from the two aligned vectors
  // around them, read whole only inside the input view's span of in_span_bytes from the input
  // pointer.
  bool in_runs_aligned = false;
  int64_t in_span_bytes = 0;
  TileDivisor in_chunks_per_run;  // 16-byte chunks of a full tile's input run
  // Stores: an output run is the box's output-innermost axes contiguous in the output (out_run,
  // innermost first), out_run_elements long in a full tile; the runs are numbered by the other box
  // axes (out_outer, output order). Each thread writes one aligned 16-byte chunk of a run: whole
  // where the chunk lies inside the run, element by element at the run's ends.
  int out_run_axes = 0;
  PackedStep out_run[kMaxBoxAxes];
  int out_run_elements = 1;
  int out_outer_axes = 0;
  PackedStep out_outer[kMaxBoxAxes];
  int out_runs = 1;
  // Every run starts on 16 bytes when the output pointer does; chunks per run then, and the most
  // a run can span wherever it starts.
  bool out_runs_aligned = false;
  TileDivisor out_chunks_aligned, out_chunks_shifted;
  // Both sides have at most kPackedRunEntries runs: a block tabulates each run's offsets once, and
  // whole tiles (every axis at the box's extent, all but the edges) walk their chunks from the
  // tables instead of dividing each chunk's number into digits.
  bool run_tables = false;

  // The shorter of the input and output runs of a full tile, in bytes (the kernel choice).
  int64_t shorter_run_bytes() const {
    return int64_t{in_run_span < out_run_elements ? in_run_span : out_run_elements} * elem_size;
  }
};

// Whether packed runs `layout` (rank >= 2); if so fills `params`, else says why.
bool make_packed_params(const detail::PermuteLayout& layout, PackedParams* params, std::string* why);

// What each N-D kernel launches, as Plan::describe() reports it after the kernel's name, for
// pointers on 16 bytes (the forms the launch takes otherwise are named too):
//   "tile 64x128 (rows 266 over 1 axis, cols 158 over 1 axis), 28500 tiles, loads shifted, stores
//    shifted"
//   "box 64x2x30 of axes 941860x5x30, 44151 tiles, 60 runs in of 64 elements, 64 runs out of 60
//    elements, output runs off 16 bytes, run tables"
//   "16-byte chunks (4-byte chunks for pointers off 16 bytes), 59400 items"
std::string describe(const TiledParams& p);
std::string describe(const PackedParams& p);
std::string describe(const GatherParams& wide, const GatherParams& narrow);

// Where each run of a whole tile starts, relative to the tile (PackedAgent::fill_run_tables): in
// global memory (elements) on both sides and, for the output runs, in shared memory (bytes).
struct PackedRunTables {
  int64_t in_global[kPackedRunEntries];
  int64_t out_global[kPackedRunEntries];
  uint16_t out_smem[kPackedRunEntries];
};

// One tile of the packed kernel: where it starts on each side and its extent along each box axis
// (edge tiles are smaller).
struct PackedTile {
  int64_t in_base = 0, out_base = 0;
  int extent[kMaxBoxAxes] = {};
  int in_run_span = 0, out_run_elements = 0;  // this tile's run lengths (see PackedParams)
  bool whole = false;  // every box axis at the box's extent (not an edge tile)
};

// Where tile `tile` lies along axis k: its first element's offsets along the axis on both sides,
// and its extent there (an edge tile's is smaller). Each axis independently, so that the kernel
// finds a tile with one lane per axis.
XPOSE_HOST_DEVICE inline int packed_tile_axis(const PackedParams& p, int64_t tile, int k, int64_t* in_offset,
                                              int64_t* out_offset) {
  int64_t ignored = 0;
  const int64_t origin = p.tiles_along[k].divide_remainder(p.tiles_inside[k].divide(tile), &ignored) * p.extent[k];
  *in_offset = origin * p.in_stride[k];
  *out_offset = origin * p.out_stride[k];
  return static_cast<int>(p.size[k] - origin < p.extent[k] ? p.size[k] - origin : p.extent[k]);
}

// The run lengths of a tile whose extents are known.
XPOSE_HOST_DEVICE inline void packed_tile_runs(const PackedParams& p, PackedTile* t) {
  t->in_run_span = 1;  // the input-innermost box axes, gaps included
  for (int i = 0; i < p.in_run_axes; ++i)
    t->in_run_span += (t->extent[i] - 1) * static_cast<int>(p.in_stride[p.box_axis[i]]);
  t->out_run_elements = 1;
  for (int i = 0; i < p.out_run_axes; ++i) t->out_run_elements *= t->extent[p.out_run[i].box];
}

XPOSE_HOST_DEVICE inline PackedTile packed_tile(const PackedParams& p, int64_t tile) {
  PackedTile t;
  t.whole = true;
  for (int k = 0; k < p.rank; ++k) {
    int64_t in_offset = 0, out_offset = 0;
    const int extent = packed_tile_axis(p, tile, k, &in_offset, &out_offset);
    t.in_base += in_offset;
    t.out_base += out_offset;
    if (p.box_of[k] >= 0) t.extent[p.box_of[k]] = extent;
    t.whole = t.whole && extent == p.extent[k];
  }
  packed_tile_runs(p, &t);
  return t;
}

}  // namespace xpose::cuda
