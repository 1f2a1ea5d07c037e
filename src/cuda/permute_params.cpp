// SPDX-License-Identifier: Apache-2.0
#include "cuda/permute_params.hpp"

#include <algorithm>

namespace xpose::cuda {
namespace {

int log2_of(int64_t power_of_two) {
  int log = 0;
  while ((int64_t{1} << log) < power_of_two) ++log;
  return log;
}

// The smallest power of two >= n (n >= 1), at most `limit` (a power of two).
int64_t power_of_two_at_least(int64_t n, int64_t limit) {
  int64_t p = 1;
  while (p < n && p < limit) p *= 2;
  return p;
}

// Whether `extent` rows or columns make tiles of `tile` that are full enough to stop adding axes
// to a composite: at least one whole tile, and at most 1/8 of the last tile's space left empty.
// 96 columns in tiles of 64 (a third of the tiles half empty, 256- and 128-byte runs for f32) did
// not: joined with the next axis (96 x 75 = 7200 columns, runs continue across tiles) the TTC cases
// with 75- and 96-long axes went from 75-77% to 83-87% of memcpy on an H100 (docs/permute.md).
bool fills_tiles(int64_t extent, int64_t tile) {
  if (extent < tile) return false;
  const int64_t covered = (extent + tile - 1) / tile * tile;
  return (covered - extent) * 8 <= covered;
}

// The edge of a tile of runs along an axis of `size` runs: the largest power of two up to `limit`
// whose last tile along the axis is at most 1/8 empty, else the one that wastes the least (at
// least 2). Items of the empty part are idle threads: edges of 8 on the TTC axes of 10 left 37% of
// the items idle and ran at 60-64% of memcpy (f16, u8) on an H100; edges of 2 there: 88-92%.
int64_t tile_of_runs_edge(int64_t size, int64_t limit) {
  int64_t best = 2;
  double best_waste = 1.0;
  for (int64_t t = std::min(limit, power_of_two_at_least(size, limit)); t >= 2; t /= 2) {
    const int64_t covered = (size + t - 1) / t * t;
    const double waste = static_cast<double>(covered - size) / static_cast<double>(covered);
    if (waste * 8 <= 1.0) return t;
    if (waste < best_waste) best = t, best_waste = waste;
  }
  return std::min(best, limit);
}

// Bytes from the input pointer to the end of the view's last element (strides are non-negative):
// every byte a kernel may read whole lies there.
int64_t input_span_bytes(const detail::PermuteLayout& layout) {
  int64_t last = 0;
  for (int k = 0; k < layout.rank; ++k) last += (layout[k].size - 1) * layout[k].in_stride;
  return (last + 1) * layout.elem_size;
}

}  // namespace

TiledTuning tiled_tuning(int elem_size) {
  switch (elem_size) {
    case 1: return {128, 128};
    case 2: return {64, 128};
    case 4: return {64, 64};
    case 8: return {32, 64};
    default: return {32, 32};
  }
}

NaiveParams make_naive_params(const detail::PermuteLayout& layout) {
  NaiveParams p;
  const auto order = layout.output_order();
  p.rank = layout.rank;
  for (int i = 0; i < layout.rank; ++i) {
    const detail::PermuteAxis& axis = layout[order[i]];
    p.size[i] = FastDivisor(axis.size);
    p.in_stride[i] = axis.in_stride;
    p.out_stride[i] = axis.out_stride;
  }
  p.elements = layout.elements;
  return p;
}

bool make_gather_params(const detail::PermuteLayout& layout, int max_chunk_bytes, GatherParams* params,
                        std::string* why) {
  const int n = layout.rank;
  if (n == 0 || layout.output_inner() != n - 1 || layout[n - 1].in_stride != 1 || layout[n - 1].out_stride != 1) {
    if (why) *why = "it needs an innermost axis that stays innermost with unit strides on both sides";
    return false;
  }
  const int64_t e = layout.elem_size;
  // The widest chunk that divides the run and every stride, in bytes.
  int chunk = std::max<int>(max_chunk_bytes, static_cast<int>(e));
  const auto divides = [&](int bytes) {
    if (layout[n - 1].size * e % bytes != 0) return false;
    for (int k = 0; k < n - 1; ++k)
      if (layout[k].in_stride * e % bytes != 0 || layout[k].out_stride * e % bytes != 0) return false;
    return true;
  };
  while (chunk > 1 && !divides(chunk)) chunk /= 2;
  const int64_t run_bytes = layout[n - 1].size * e;
  GatherParams p;
  // Long runs of narrow chunks: shifted 16-byte vectors, every offset in bytes. A run of L bytes
  // starting h bytes into a vector (h < 16) covers at most (L + 30) / 16 aligned vectors.
  p.shifted = max_chunk_bytes >= 16 && chunk <= kGatherShiftedMaxChunkBytes && run_bytes >= kGatherTileBytes;
  if (p.shifted) chunk = 1;
  p.chunk_bytes = chunk;
  p.run_bytes = run_bytes;
  const auto in_chunks = [&](int64_t elements) { return elements * e / chunk; };
  const int64_t run_chunks = p.shifted ? (run_bytes + 30) / 16 : in_chunks(layout[n - 1].size);
  p.run_chunks = FastDivisor(run_chunks);

  // Tiles of runs for short runs: A is the input's next axis, B the output's next axis.
  int a_axis = -1, b_axis = -1;
  if (run_bytes < kGatherTileBytes && n >= 3) {
    a_axis = n - 2;
    for (int k = 0; k < n - 1; ++k)
      if (b_axis < 0 || layout[k].out_stride < layout[b_axis].out_stride) b_axis = k;
    if (a_axis == b_axis) a_axis = b_axis = -1;
  }
  int64_t tiled_items = 1;
  if (a_axis >= 0) {
    const int64_t edge = power_of_two_at_least((kGatherTileBytes + run_bytes - 1) / run_bytes, 16);
    const detail::PermuteAxis& a = layout[a_axis];
    const detail::PermuteAxis& b = layout[b_axis];
    const int64_t tile_a = tile_of_runs_edge(a.size, edge);
    const int64_t tile_b = tile_of_runs_edge(b.size, edge);
    p.log2_tile_a = log2_of(tile_a);
    p.log2_tile_b = log2_of(tile_b);
    p.tiles_a = FastDivisor((a.size + tile_a - 1) / tile_a);
    p.tiles_b = FastDivisor((b.size + tile_b - 1) / tile_b);
    p.a_size = a.size;
    p.a_in_stride = in_chunks(a.in_stride);
    p.a_out_stride = in_chunks(a.out_stride);
    p.b_size = b.size;
    p.b_in_stride = in_chunks(b.in_stride);
    p.b_out_stride = in_chunks(b.out_stride);
    tiled_items = p.tiles_a.divisor() * tile_a * p.tiles_b.divisor() * tile_b;
  }
  const auto order = layout.output_order();
  int64_t outer_runs = 1;
  for (int i = 0; i < n; ++i) {
    const int k = order[i];
    if (k == n - 1 || k == a_axis || k == b_axis) continue;
    const detail::PermuteAxis& axis = layout[k];
    p.outer_size[p.outer_rank] = FastDivisor(axis.size);
    p.outer_in_stride[p.outer_rank] = in_chunks(axis.in_stride);
    p.outer_out_stride[p.outer_rank] = in_chunks(axis.out_stride);
    ++p.outer_rank;
    outer_runs *= axis.size;
  }
  p.items = outer_runs * tiled_items * run_chunks;
  *params = p;
  return true;
}

void set_tiled_walk(TiledParams* p, int64_t group_cols) {
  p->group_cols = group_cols;
  p->batch_tiles = FastDivisor(p->col_tiles * p->row_tiles);
  p->group_tiles = FastDivisor(group_cols * p->row_tiles);
  p->group_width = FastDivisor(group_cols);
  const int64_t last = p->col_tiles % group_cols;
  p->last_width = FastDivisor(last == 0 ? group_cols : last);
}

bool make_tiled_params(const detail::PermuteLayout& layout, TiledParams* params, std::string* why) {
  const int n = layout.rank;
  const int input_inner = n - 1, output_inner = layout.output_inner();
  if (n < 2 || input_inner == output_inner) {
    if (why) *why = "it needs the input's innermost axis to move (" + layout.describe() + " keeps it)";
    return false;
  }
  const TiledTuning tuning = tiled_tuning(layout.elem_size);
  TiledParams p;
  p.elem_size = layout.elem_size;
  bool used[kMaxAxes] = {};

  // Columns: the input's innermost axis, then the next ones outward while the tile is not full (or
  // tiles of the tuning's width would leave much of their last tile empty) and each steps over
  // exactly the columns so far (packed on the input side).
  const detail::PermuteAxis& column = layout[input_inner];
  p.col_in_stride = column.in_stride;
  p.cols = 1;
  for (int k = input_inner; k >= 0 && p.col_axes < kMaxCompositeAxes; --k) {
    const detail::PermuteAxis& axis = layout[k];
    const bool first = k == input_inner;
    if (!first && (fills_tiles(p.cols, tuning.cols) || k == output_inner || axis.in_stride != p.cols * column.in_stride))
      break;
    p.col_size[p.col_axes] = FastDivisor(axis.size);
    p.col_out_stride[p.col_axes] = axis.out_stride;
    ++p.col_axes;
    p.cols *= axis.size;
    used[k] = true;
  }
  // Rows: the output's innermost axis, then the next ones in output order, likewise.
  const auto order = layout.output_order();
  const detail::PermuteAxis& row = layout[output_inner];
  p.row_out_stride = row.out_stride;
  p.rows = 1;
  for (int i = n - 1; i >= 0 && p.row_axes < kMaxCompositeAxes; --i) {
    const int k = order[i];
    const detail::PermuteAxis& axis = layout[k];
    const bool first = k == output_inner;
    if (!first && (fills_tiles(p.rows, tuning.rows) || used[k] || axis.out_stride != p.rows * row.out_stride)) break;
    p.row_size[p.row_axes] = FastDivisor(axis.size);
    p.row_in_stride[p.row_axes] = axis.in_stride;
    ++p.row_axes;
    p.rows *= axis.size;
    used[k] = true;
  }
  // Batch: the rest, innermost input axis first.
  int64_t batches = 1;
  for (int k = n - 1; k >= 0; --k) {
    if (used[k]) continue;
    p.batch_size[p.batch_axes] = FastDivisor(layout[k].size);
    p.batch_in_stride[p.batch_axes] = layout[k].in_stride;
    p.batch_out_stride[p.batch_axes] = layout[k].out_stride;
    ++p.batch_axes;
    batches *= layout[k].size;
  }

  // Tile: the tuning's shape, shrunk to the view where it is smaller (powers of two), and the
  // other side grown to keep the tile's size where that helps.
  const int64_t area = int64_t{tuning.rows} * tuning.cols;
  int64_t tile_rows = power_of_two_at_least(p.rows, tuning.rows);
  int64_t tile_cols = power_of_two_at_least(p.cols, std::min<int64_t>(kMaxTileEdge, area / tile_rows));
  tile_rows = power_of_two_at_least(p.rows, std::min<int64_t>(kMaxTileEdge, area / tile_cols));
  p.log2_tile_rows = log2_of(tile_rows);
  p.log2_tile_cols = log2_of(tile_cols);
  const int64_t col_tiles = (p.cols + tile_cols - 1) / tile_cols;
  const int64_t row_tiles = (p.rows + tile_rows - 1) / tile_rows;
  p.col_tiles = col_tiles;
  p.row_tiles = row_tiles;
  p.tiles = col_tiles * row_tiles * batches;
  set_tiled_walk(&p, std::min(col_tiles, kTiledGroupCols));

  // 16-byte vectors: V elements in a row (loads) or a column (stores) of the tile, each starting
  // at a multiple of V elements from a 16-byte aligned pointer.
  const int64_t v = 16 / layout.elem_size;
  const auto multiple_of_v = [v](int64_t stride) { return stride % v == 0; };
  bool in_ok = p.col_in_stride == 1 && tile_cols >= v, out_ok = p.row_out_stride == 1 && tile_rows >= v;
  for (int k = 0; k < p.row_axes; ++k) in_ok = in_ok && multiple_of_v(p.row_in_stride[k]);
  for (int k = 0; k < p.col_axes; ++k) out_ok = out_ok && multiple_of_v(p.col_out_stride[k]);
  for (int k = 0; k < p.batch_axes; ++k) {
    in_ok = in_ok && multiple_of_v(p.batch_in_stride[k]);
    out_ok = out_ok && multiple_of_v(p.batch_out_stride[k]);
  }
  p.in_vectors = in_ok;
  p.out_vectors = out_ok;
  // Shifted loads: a 16-byte vector per V elements of a run wherever it starts, against one load
  // per element. 16-byte elements are always aligned. Shifted stores only for 1- and 2-byte
  // elements: a warp's element stores of 4 and 8 bytes already fill 128-256 contiguous bytes, and
  // there the shifted form's second row block, element-wise run ends and lower occupancy (64
  // registers) cost more than they save (f32 and f64 cases lost 5-16 points of memcpy on an H100,
  // u8 and f16 gained 6-15; docs/permute.md).
  p.in_shifted = p.col_in_stride == 1 && tile_cols >= v && layout.elem_size < 16;
  p.out_shifted = p.row_out_stride == 1 && tile_rows >= v && layout.elem_size <= 2;
  p.in_span_bytes = input_span_bytes(layout);
  *params = p;
  return true;
}

namespace {

// Input runs join axes across gaps only while shorter than this: a run of four sectors already
// reads at full speed, and the gaps put the stores' shared-memory steps where the pitch cannot
// spread them over the banks (an f64 run of 23 elements joined with its 24-element stride axis:
// 80.7% -> 70.3% of memcpy, H100, the gather's 192-byte steps all in one bank).
constexpr int64_t kGappedRunBytes = 128;

// The packed box under construction: axes in input order, innermost first (index i is layout axis
// rank - 1 - i), the box's extent along each.
struct Box {
  int rank = 0, elem_size = 0;
  int64_t size[kMaxAxes] = {}, in_stride[kMaxAxes] = {}, out_stride[kMaxAxes] = {};
  int64_t extent[kMaxAxes] = {};
  int out_order[kMaxAxes] = {};  // indices, output order, innermost first

  int axes_in_box() const {
    int count = 0;
    for (int i = 0; i < rank; ++i) count += extent[i] > 1;
    return count;
  }

  // A side's run: the axes in that side's order from its innermost while each is packed onto the
  // ones before, all of them whole but the last. An input run under kGappedRunBytes may also take
  // an axis whose stride leaves a gap after the axes before it (a slice of a larger tensor), when
  // the gap is under one sector, which the reads fetch anyway, and the stride at most twice the
  // elements before it, so that the gaps at most double the run in shared memory; the run is
  // then read with its gaps. Output runs are written, so they stay packed. Returns the run's span
  // in elements of a full tile (from its first element to its last, gaps included) and sets
  // `frontier` to the axis the run could grow along (its last axis, if not whole, or the next
  // one), -1 when it cannot grow.
  int64_t run(bool input, int* frontier, int* axes) const {
    int64_t span = 1, elements = 1;  // of the run's whole axes so far
    *frontier = -1;
    *axes = 0;
    for (int n = 0; n < rank; ++n) {
      const int i = input ? n : out_order[n];
      const int64_t stride = input ? in_stride[i] : out_stride[i];
      const bool packed = stride == span;
      const bool small_gap = input && span * elem_size < kGappedRunBytes && stride > span &&
                             (stride - span) * elem_size < kSectorBytes && stride <= 2 * elements;
      if (!packed && !small_gap) return span;
      if (extent[i] == 1) {
        *frontier = i;
        return span;
      }
      ++*axes;
      const int64_t run_span = span + (extent[i] - 1) * stride;
      if (extent[i] < size[i]) {
        *frontier = i;
        return run_span;
      }
      span = run_span;
      elements *= size[i];
    }
    return span;
  }

  // Shared memory: input runs at a pitch of an odd number of units (max(4, element) bytes), so
  // that a warp's stores, which read the box along a non-run axis (a pitch apart), spread over the
  // banks.
  int pitch_bytes() const {
    int frontier = 0, axes = 0;
    const int64_t run_bytes = run(true, &frontier, &axes) * elem_size;
    const int64_t unit = std::max(4, elem_size);
    int64_t units = (run_bytes + unit - 1) / unit;
    if (units % 2 == 0) ++units;
    return static_cast<int>(units * unit);
  }
  int64_t runs() const {
    int frontier = 0, axes = 0;
    run(true, &frontier, &axes);
    int64_t count = 1;
    for (int i = axes; i < rank; ++i) count *= extent[i];
    return count;
  }
  int64_t shared_bytes() const { return runs() * pitch_bytes(); }
};

}  // namespace

bool make_packed_params(const detail::PermuteLayout& layout, PackedParams* params, std::string* why) {
  const int n = layout.rank;
  if (n < 2) {
    if (why) *why = "it needs at least two axes (" + layout.describe() + ")";
    return false;
  }
  Box box;
  box.rank = n;
  box.elem_size = layout.elem_size;
  for (int i = 0; i < n; ++i) {
    const detail::PermuteAxis& axis = layout[n - 1 - i];
    box.size[i] = axis.size;
    box.in_stride[i] = axis.in_stride;
    box.out_stride[i] = axis.out_stride;
    box.extent[i] = 1;
  }
  const auto order = layout.output_order();  // outermost first
  for (int m = 0; m < n; ++m) box.out_order[m] = n - 1 - order[n - 1 - m];

  // Grow the side whose run is shorter along its frontier (doubling, up to the whole axis), while
  // the box fits in shared memory and has at most kMaxBoxAxes axes. A side whose run cannot grow
  // (an axis not packed onto it, or the box full) stops; the other goes on.
  bool side_done[2] = {false, false};
  for (;;) {
    int frontier[2], axes[2];
    const int64_t length[2] = {box.run(true, &frontier[0], &axes[0]), box.run(false, &frontier[1], &axes[1])};
    int side = -1;
    for (int s = 0; s < 2; ++s)
      if (!side_done[s] && frontier[s] >= 0 && (side < 0 || length[s] < length[side])) side = s;
    if (side < 0) break;
    const int i = frontier[side];
    const int64_t before = box.extent[i];
    box.extent[i] = std::min(box.size[i], std::max<int64_t>(2, before * 2));
    int out_frontier = 0, out_axes = 0;
    if (box.shared_bytes() > kPackedSharedBytes || box.axes_in_box() > kMaxBoxAxes ||
        box.run(false, &out_frontier, &out_axes) > kPackedTableEntries) {
      box.extent[i] = before;
      side_done[side] = true;
    }
  }
  // Partial extents spread evenly over their tiles (300 in tiles of 100, not 128 + 128 + 44).
  for (int i = 0; i < n; ++i)
    if (box.extent[i] > 1 && box.extent[i] < box.size[i]) {
      const int64_t tiles = (box.size[i] + box.extent[i] - 1) / box.extent[i];
      box.extent[i] = (box.size[i] + tiles - 1) / tiles;
    }

  PackedParams p;
  const int64_t e = layout.elem_size;
  p.elem_size = layout.elem_size;
  p.rank = n;
  p.tiles = 1;
  for (int i = 0; i < n; ++i) {
    p.size[i] = box.size[i];
    p.in_stride[i] = box.in_stride[i];
    p.out_stride[i] = box.out_stride[i];
    p.extent[i] = box.extent[i];
    const int64_t tiles = (box.size[i] + box.extent[i] - 1) / box.extent[i];
    p.tiles_along[i] = FastDivisor(tiles);
    p.tiles_inside[i] = FastDivisor(p.tiles);
    p.tiles *= tiles;
    p.box_of[i] = -1;
    if (box.extent[i] > 1) {
      p.box_of[i] = p.box_axes;
      p.box_axis[p.box_axes++] = i;
    }
  }
  // Loads. Runs are the box's first in_run_axes axes (the input-innermost ones, packed or with
  // small gaps).
  int frontier = 0;
  p.in_run_span = static_cast<int>(box.run(true, &frontier, &p.in_run_axes));
  p.pitch = box.pitch_bytes();
  int smem = p.pitch;
  for (int b = p.in_run_axes; b < p.box_axes; ++b) {
    const int i = p.box_axis[b];
    p.in_outer[p.in_outer_axes++] = {TileDivisor(static_cast<int>(box.extent[i])), b, smem, box.in_stride[i]};
    smem *= static_cast<int>(box.extent[i]);
  }
  p.in_runs = smem / p.pitch;
  // Runs start on 16 bytes (from an aligned pointer) when every offset between them is a multiple
  // of 16 bytes: the strides of the axes outside the run and the step between the tiles of a
  // partial run axis.
  const auto all_multiples_of_16 = [&](bool input, const bool* in_run) {
    for (int i = 0; i < n; ++i) {
      const int64_t stride = (input ? box.in_stride[i] : box.out_stride[i]) * e;
      if (!in_run[i] && stride % 16 != 0) return false;
      if (in_run[i] && box.extent[i] < box.size[i] && box.extent[i] * stride % 16 != 0) return false;
    }
    return true;
  };
  bool in_in_run[kMaxAxes] = {};
  for (int b = 0; b < p.in_run_axes; ++b) in_in_run[p.box_axis[b]] = true;
  p.in_runs_aligned = all_multiples_of_16(true, in_in_run);
  p.in_span_bytes = input_span_bytes(layout);
  p.in_chunks_per_run = TileDivisor(static_cast<int>((p.in_run_span * e + 15) / 16));

  // Stores. Shared-memory step of each box axis: in the run, its input stride (the run is held as
  // read, gaps included); else its in_outer step.
  int smem_step[kMaxBoxAxes] = {};
  for (int b = 0; b < p.in_run_axes; ++b) smem_step[b] = static_cast<int>(box.in_stride[p.box_axis[b]] * e);
  for (int k = 0; k < p.in_outer_axes; ++k) smem_step[p.in_outer[k].box] = p.in_outer[k].smem;
  int out_axes = 0;
  p.out_run_elements = static_cast<int>(box.run(false, &frontier, &out_axes));
  bool in_out_run[kMaxAxes] = {};
  for (int m = 0; m < out_axes; ++m) {
    const int i = box.out_order[m];
    const int b = p.box_of[i];
    p.out_run[p.out_run_axes++] = {TileDivisor(static_cast<int>(box.extent[i])), b, smem_step[b], 1};
    in_out_run[i] = true;
  }
  for (int m = 0; m < n; ++m) {
    const int i = box.out_order[m];
    if (p.box_of[i] < 0 || in_out_run[i]) continue;
    const int b = p.box_of[i];
    p.out_outer[p.out_outer_axes++] = {TileDivisor(static_cast<int>(box.extent[i])), b, smem_step[b], box.out_stride[i]};
  }
  p.out_runs = 1;
  for (int k = 0; k < p.out_outer_axes; ++k) p.out_runs *= p.out_outer[k].extent.divisor();
  p.out_runs_aligned = all_multiples_of_16(false, in_out_run);
  const int64_t out_run_bytes = p.out_run_elements * e;
  p.out_chunks_aligned = TileDivisor(static_cast<int>((out_run_bytes + 15) / 16));
  p.out_chunks_shifted = TileDivisor(static_cast<int>((out_run_bytes + 16 - e + 15) / 16));
  p.run_tables = p.in_runs <= kPackedRunEntries && p.out_runs <= kPackedRunEntries;
  *params = p;
  return true;
}


namespace {

std::string axes(int64_t n) { return std::to_string(n) + (n == 1 ? " axis" : " axes"); }
std::string runs(int64_t n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); }

}  // namespace

std::string describe(const TiledParams& p) {
  // The launcher's forms for pointers on 16 bytes (launch_permute_tiled).
  const auto form = [](bool vectors, bool shifted) -> std::string {
    const char* fallback = shifted ? "shifted" : "elements";
    return vectors ? std::string("vectors (") + fallback + " for pointers off 16 bytes)" : fallback;
  };
  const std::string loads = form(p.in_vectors, p.in_shifted), stores = form(p.out_vectors, p.out_shifted);
  return "tile " + std::to_string(int64_t{1} << p.log2_tile_rows) + "x" + std::to_string(int64_t{1} << p.log2_tile_cols) +
         " (rows " + std::to_string(p.rows) + " over " + axes(p.row_axes) + ", cols " + std::to_string(p.cols) +
         " over " + axes(p.col_axes) + "), " + std::to_string(p.tiles) + " tiles, loads " + loads + ", stores " + stores;
}

std::string describe(const PackedParams& p) {
  std::string box, sizes;
  for (int i = 0; i < p.box_axes; ++i) {
    const int k = p.box_axis[i];
    box += (i ? "x" : "") + std::to_string(p.extent[k]);
    sizes += (i ? "x" : "") + std::to_string(p.size[k]);
  }
  std::string text = "box " + box + " of axes " + sizes + ", " + std::to_string(p.tiles) + " tiles, " + runs(p.in_runs) +
                     " in of " + std::to_string(p.in_run_span) + " elements" +
                     (p.in_run_axes > 1 ? " over " + axes(p.in_run_axes) : "") + ", " + runs(p.out_runs) + " out of " +
                     std::to_string(p.out_run_elements) + " elements";
  if (!p.in_runs_aligned) text += ", input runs off 16 bytes";
  if (!p.out_runs_aligned) text += ", output runs off 16 bytes";
  if (p.run_tables) text += ", run tables";
  return text;
}

std::string describe(const GatherParams& wide, const GatherParams& narrow) {
  if (wide.shifted)
    return "shifted 16-byte vectors (runs of " + std::to_string(wide.run_bytes) + " bytes), " +
           std::to_string(wide.items) + " items";
  std::string text = std::to_string(wide.chunk_bytes) + "-byte chunks";
  if (narrow.chunk_bytes != wide.chunk_bytes)
    text += " (" + std::to_string(narrow.chunk_bytes) + "-byte chunks for pointers off " +
            std::to_string(wide.chunk_bytes) + " bytes)";
  if (wide.log2_tile_a > 0 || wide.log2_tile_b > 0)
    text += ", tiles of " + std::to_string(int64_t{1} << wide.log2_tile_a) + "x" +
            std::to_string(int64_t{1} << wide.log2_tile_b) + " runs";
  return text + ", " + std::to_string(wide.items) + " items";
}

}  // namespace xpose::cuda
