// SPDX-License-Identifier: Apache-2.0
#include "cpu/permute_blocked.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/problem.hpp"
#include "cpu/cpu_caches.hpp"
#include "cpu/permute_blocks.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/transpose_blocked.hpp"

namespace xpose::detail {
namespace {

// Bytes a tile copies: both the lines it reads and those it writes stay in a 48 KiB L1.
constexpr int64_t kTileBytes = 16 << 10;

int resolve_threads(int threads, int64_t bytes) {
  return threads_for(threads, bytes);
}

// Runs work(begin, end) over [0, units) cut into n contiguous ranges, on the pool.
template <typename Work>
void run_on_threads(int n, int64_t units, const Work& work) {
  parallel_for(n, [&](int t, int count) { work(units * t / count, units * (t + 1) / count); });
}

// An axis with strides in bytes.
struct ByteAxis {
  int64_t size = 1, in = 0, out = 0;
};

// Axes walked as one flat index, the last one fastest.
struct FlatAxes {
  int count = 0;
  std::array<ByteAxis, kMaxPermuteRank> axes{};
  int64_t total = 1;

  void add(const ByteAxis& axis) {
    axes[count++] = axis;
    total *= axis.size;
  }
  void offsets(int64_t index, int64_t* in, int64_t* out) const {
    std::array<int64_t, kMaxPermuteRank> digits{};
    offsets(index, in, out, &digits);
  }
  // The same, keeping the index's digits for next().
  void offsets(int64_t index, int64_t* in, int64_t* out, std::array<int64_t, kMaxPermuteRank>* digits) const {
    *in = *out = 0;
    for (int k = count - 1; k >= 0; --k) {
      (*digits)[k] = index % axes[k].size;
      index /= axes[k].size;
      *in += (*digits)[k] * axes[k].in;
      *out += (*digits)[k] * axes[k].out;
    }
  }
  // From index's offsets and digits to index + 1's: no divisions.
  void next(std::array<int64_t, kMaxPermuteRank>* digits, int64_t* in, int64_t* out) const {
    for (int k = count - 1; k >= 0; --k) {
      *in += axes[k].in;
      *out += axes[k].out;
      if (++(*digits)[k] < axes[k].size) return;
      *in -= (*digits)[k] * axes[k].in;
      *out -= (*digits)[k] * axes[k].out;
      (*digits)[k] = 0;
    }
  }
};

// How the layout is walked: tiles of X (columns) by Y (rows), `run` bytes per point.
struct Walk {
  ByteAxis x, y;
  int64_t run = 0;
  FlatAxes outer;
  int64_t block_x = 1, block_y = 1;
};

Walk plan_walk(const PermuteLayout& layout) {
  const int64_t e = layout.elem_size;
  const auto bytes = [e](const PermuteAxis& a) { return ByteAxis{a.size, a.in_stride * e, a.out_stride * e}; };
  const int n = layout.rank;
  const int input_inner = n - 1, output_inner = layout.output_inner();
  const PermuteAxis& inner = layout[input_inner];
  Walk walk;
  int x = -1, y = -1, run = -1;
  if (input_inner == output_inner && inner.in_stride == 1 && inner.out_stride == 1) {
    // The innermost axis stays: copy its runs, tile the innermost of the rest.
    run = input_inner;
    walk.run = inner.size * e;
    if (n > 1) {
      x = n - 2;
      for (int k = 0; k < n - 1; ++k)
        if (k != x && (y < 0 || layout[k].out_stride < layout[y].out_stride)) y = k;
      if (y >= 0 && layout[y].out_stride > layout[x].out_stride) y = -1;  // x is also the output's inner
    }
  } else {
    walk.run = e;
    x = input_inner;
    if (output_inner != input_inner) {
      y = output_inner;
    } else {
      for (int k = 0; k < n - 1; ++k)
        if (y < 0 || layout[k].out_stride < layout[y].out_stride) y = k;
    }
  }
  if (x >= 0) walk.x = bytes(layout[x]);
  if (y >= 0) walk.y = bytes(layout[y]);
  for (int k = 0; k < n; ++k)
    if (k != x && k != y && k != run) walk.outer.add(bytes(layout[k]));

  // Square tiles of about kTileBytes; a single row when there is no Y.
  int64_t edge = 1;
  while ((2 * edge) * (2 * edge) * walk.run <= kTileBytes) edge *= 2;
  walk.block_x = std::min(walk.x.size, walk.y.size > 1 ? edge : edge * edge);
  walk.block_y = std::min(walk.y.size, edge);
  walk.block_x = std::max<int64_t>(walk.block_x, 1);
  walk.block_y = std::max<int64_t>(walk.block_y, 1);
  return walk;
}

template <int64_t Bytes>
void copy_tile(const unsigned char* src, unsigned char* dst, const Walk& w, int64_t x0, int64_t x1,
               int64_t y0, int64_t y1) {
  for (int64_t y = y0; y < y1; ++y) {
    const unsigned char* s = src + y * w.y.in;
    unsigned char* d = dst + y * w.y.out;
    for (int64_t x = x0; x < x1; ++x) std::memcpy(d + x * w.x.out, s + x * w.x.in, Bytes);
  }
}

void copy_tile_runs(const unsigned char* src, unsigned char* dst, const Walk& w, int64_t x0, int64_t x1,
                    int64_t y0, int64_t y1) {
  for (int64_t y = y0; y < y1; ++y) {
    const unsigned char* s = src + y * w.y.in;
    unsigned char* d = dst + y * w.y.out;
    for (int64_t x = x0; x < x1; ++x)
      std::memcpy(d + x * w.x.out, s + x * w.x.in, static_cast<std::size_t>(w.run));
  }
}

// copy_tile for runs of 1 to kMaxFixedRun bytes: a copy of a size known at compile time is a move
// or two overlapping ones, where a run-time size is a call to memcpy (runs of 7 bytes, u8 `17 155
// 29 120 7 / 1 2 3 0 4`: 9% of memcpy through the call).
constexpr int kMaxFixedRun = 64;
using CopyTile = void (*)(const unsigned char*, unsigned char*, const Walk&, int64_t, int64_t, int64_t, int64_t);

template <int... Bytes>
CopyTile fixed_run_copy(int64_t run, std::integer_sequence<int, Bytes...>) {
  static constexpr CopyTile kCopies[] = {copy_tile<Bytes + 1>...};
  return run >= 1 && run <= static_cast<int64_t>(sizeof...(Bytes)) ? kCopies[run - 1] : nullptr;
}

// Any layout: units are (outer index, tile row, tile column).
void permute_tiles(const unsigned char* in, unsigned char* out, const Walk& w, int threads, int64_t bytes) {
  const CopyTile copy = fixed_run_copy(w.run, std::make_integer_sequence<int, kMaxFixedRun>{});
  const int64_t tiles_x = (w.x.size + w.block_x - 1) / w.block_x;
  const int64_t tiles_y = (w.y.size + w.block_y - 1) / w.block_y;
  const int64_t units = w.outer.total * tiles_y * tiles_x;
  const int n = static_cast<int>(std::min<int64_t>(resolve_threads(threads, bytes), units));
  run_on_threads(n, units, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t tx = unit % tiles_x, ty = unit / tiles_x % tiles_y, o = unit / tiles_x / tiles_y;
      int64_t in_offset = 0, out_offset = 0;
      w.outer.offsets(o, &in_offset, &out_offset);
      const int64_t x0 = tx * w.block_x, x1 = std::min(w.x.size, x0 + w.block_x);
      const int64_t y0 = ty * w.block_y, y1 = std::min(w.y.size, y0 + w.block_y);
      const unsigned char* src = in + in_offset;
      unsigned char* dst = out + out_offset;
      if (copy) copy(src, dst, w, x0, x1, y0, y1);
      else copy_tile_runs(src, dst, w, x0, x1, y0, y1);
    }
  });
}

// X and Y with unit strides: slices (Y, X) batched over one more axis Z are 2D transposes.
void permute_as_2d_slices(const unsigned char* in, unsigned char* out, const Walk& w, int elem_size,
                          int threads, int64_t bytes, const BlockedOptions& options) {
  const int64_t e = elem_size;
  // Z: the largest outer axis, so that each call does as much as possible.
  FlatAxes rest;
  ByteAxis z;
  int z_index = -1;
  for (int k = 0; k < w.outer.count; ++k)
    if (z_index < 0 || w.outer.axes[k].size > w.outer.axes[z_index].size) z_index = k;
  for (int k = 0; k < w.outer.count; ++k) (k == z_index ? z : rest.axes[rest.count++]) = w.outer.axes[k];
  rest.total = w.outer.total / z.size;

  Transpose2D slice;
  slice.rows = w.y.size;
  slice.cols = w.x.size;
  slice.ld_in = w.y.in / e;
  slice.ld_out = w.x.out / e;
  slice.stride_in = z.in / e;
  slice.stride_out = z.out / e;
  slice.elem_size = elem_size;
  slice.type = dtype_of_size(elem_size);
  const int n = resolve_threads(threads, bytes);
  if (rest.total == 1) {
    slice.batch = z.size;
    transpose_blocked(in, out, slice, n, options);
    return;
  }
  // The parts stream their stores when the whole output would (each alone may be small).
  BlockedOptions part_options = options;
  const int64_t stream_from =
      options.stream_from_bytes >= 0 ? options.stream_from_bytes : stream_from_bytes();
  part_options.stream_from_bytes = bytes >= stream_from ? 0 : std::numeric_limits<int64_t>::max();
  // Units: (rest index, chunk of Z), at least four per thread.
  const int64_t chunks = n == 1 ? 1 : std::min(z.size, (4 * int64_t{n} + rest.total - 1) / rest.total);
  const int64_t chunk = (z.size + chunks - 1) / chunks;
  run_on_threads(n, rest.total * chunks, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t c = unit % chunks, o = unit / chunks;
      const int64_t z0 = c * chunk, z1 = std::min(z.size, z0 + chunk);
      if (z0 >= z1) continue;
      int64_t in_offset = 0, out_offset = 0;
      rest.offsets(o, &in_offset, &out_offset);
      Transpose2D part = slice;
      part.batch = z1 - z0;
      transpose_blocked(in + in_offset + z0 * z.in, out + out_offset + z0 * z.out, part, 1,
                        part_options);
    }
  });
}

// A short inner axis (the input's innermost or the output's innermost under kShortAxisBytes): 2D
// slices of the two are a few hundred bytes whose lines are parts of cache lines far apart. A
// tile over several axes instead: the input's innermost axes until they span kGroupBytes, the
// output's likewise (the last axis of each group cut to fit, or taken whole where the cut would
// leave a tile of under half the axis), so that the tile reads and writes runs of about
// kGroupBytes; it stays in L2. 512 bytes against 128 (Zen 5, 2 threads, % of memcpy, the vector
// blocks below): `400 30 20 10 8 / 4 2 0 3 1` f32 31 -> 47, `100 50 12 40 20 / 1 4 0 3 2` f64 36
// -> 49, `122 13 2 3 7 5 12 / 0 6 5 3 2 1 4` c128 (element loop) 28 -> 34. Inside a tile the
// blocks of its two unit-stride axes are register transposes where the vector set pays
// (vector_blocks_pay), else the axes are walked in output order, one element at a time. Tiles are
// for 4- to 16-byte elements only, where the element loop moves enough bytes per step (AMD EPYC
// Zen 3, 2 threads, % of memcpy, three rounds against the 2D slices, element loop: `50 40 3 30 5
// / 4 1 3 0 2` f64 10 -> 22, `20 30 40 6 10 / 2 4 0 3 1` f32 26 -> 45, `400 30 20 10 8 / 4 2 0 3
// 1` f32 25 -> 39, `64 33 17 29 3 / 3 1 4 0 2` f64 20 -> 26; a u8 case, `13 35 1000 5 23 / 1 0 4 2
// 3`, 32 -> 22). Elements of 8 bytes or more move twice f32's bytes per step, so for them the
// tiles also take inner axes of 64-255 bytes on both sides (Xeon guest: `93 11 62 7 9 / 0 2 4 1 3`
// c128 24 -> 62, `100 50 12 40 20 / 1 4 0 3 2` f64 25 -> 70; f32 there lost 10-20 points to the
// element loop's tiles, docs/cpu.md), and with a vector set f32 too (permute_blocked below).
constexpr int64_t kShortAxisBytes = 64;
constexpr int64_t kShortAxisMinElemBytes = 4;
constexpr int64_t kWideElemBytes = 8, kWideShortAxisBytes = 256;
constexpr int64_t kGroupBytes = 512, kMinGroupBytes = 128;

struct TileAxis {
  ByteAxis axis;
  int64_t extent = 1;  // points of the axis in one tile
};

struct MultiAxisTiles {
  int count = 0;                                  // tile axes, outermost in the output first
  std::array<TileAxis, kMaxPermuteRank> tile{};
  FlatAxes outer;                                 // the other axes
  int64_t chunks = 1;                             // tiles per outer index
  int input_unit = -1, output_unit = -1;          // the tile axes of unit input / output stride
};

MultiAxisTiles plan_multi_axis_tiles(const PermuteLayout& layout, int64_t group_bytes) {
  const int64_t e = layout.elem_size;
  const int n = layout.rank;
  std::array<int64_t, kMaxPermuteRank> extent{};
  extent.fill(0);  // 0: not a tile axis
  // Axes of one side, innermost first, until they span group_bytes; the last one cut to fit.
  const auto group = [&](bool input) {
    std::array<int, kMaxPermuteRank> order{};
    for (int k = 0; k < n; ++k) order[k] = k;
    std::sort(order.begin(), order.begin() + n, [&](int a, int b) {
      return input ? layout[a].in_stride < layout[b].in_stride : layout[a].out_stride < layout[b].out_stride;
    });
    int64_t span = e;
    for (int i = 0; i < n && span < group_bytes; ++i) {
      const int k = order[i];
      int64_t want = std::min(layout[k].size, (group_bytes + span - 1) / span);
      if (2 * want > layout[k].size) want = layout[k].size;  // no tile of a small remainder
      extent[k] = std::max(extent[k], want);
      span *= want;
    }
  };
  group(true);
  group(false);
  MultiAxisTiles t;
  std::array<int, kMaxPermuteRank> by_output = layout.output_order();  // outermost first
  for (int i = 0; i < n; ++i) {
    const int k = by_output[i];
    const ByteAxis axis{layout[k].size, layout[k].in_stride * e, layout[k].out_stride * e};
    if (extent[k] > 0) {
      t.tile[t.count++] = {axis, extent[k]};
      t.chunks *= (axis.size + extent[k] - 1) / extent[k];
    } else {
      t.outer.add(axis);
    }
  }
  for (int i = 0; i < t.count; ++i) {
    if (t.tile[i].axis.in == e && t.input_unit < 0) t.input_unit = i;
    if (t.tile[i].axis.out == e && t.output_unit < 0) t.output_unit = i;
  }
  return t;
}

template <int64_t Bytes>
void copy_multi_axis_tile(const unsigned char* src, unsigned char* dst, const MultiAxisTiles& t,
                          const std::array<int64_t, kMaxPermuteRank>& begin,
                          const std::array<int64_t, kMaxPermuteRank>& end) {
  const int inner = t.count - 1;
  const int64_t in_step = t.tile[inner].axis.in, out_step = t.tile[inner].axis.out;
  const int64_t count = end[inner] - begin[inner];
  std::array<int64_t, kMaxPermuteRank> at = begin;
  for (;;) {
    int64_t in_offset = 0, out_offset = 0;
    for (int k = 0; k < inner; ++k) in_offset += at[k] * t.tile[k].axis.in, out_offset += at[k] * t.tile[k].axis.out;
    const unsigned char* s = src + in_offset + begin[inner] * in_step;
    unsigned char* d = dst + out_offset + begin[inner] * out_step;
    for (int64_t i = 0; i < count; ++i) std::memcpy(d + i * out_step, s + i * in_step, Bytes);
    int k = inner - 1;
    for (; k >= 0; --k) {
      if (++at[k] < end[k]) break;
      at[k] = begin[k];
    }
    if (k < 0) return;
  }
}

// Whether the vector set's register transposes beat the element loop on this tile's blocks (rows
// along the output's unit-stride axis, columns along the input's), with `edge` elements a side per
// vector tile. 4-byte elements always: the element loop moves 4 bytes a step. 8-byte elements when
// the tile's blocks are at least half full: a vector tile costs the same however few of its lanes
// are used. 16-byte elements never: each element step is already a 16-byte move. (AMD EPYC Zen 5,
// 2 threads, % of memcpy, element loop -> blocks: `400 30 20 10 8 / 4 2 0 3 1` f32 17 -> 47, `7 7
// 3140 4 13 / 3 2 0 4 1` f64 (7 x 13 blocks) 15 -> 31; `200 40 3 30 5 / 4 1 3 0 2` f64 (3 x 5)
// 16 -> 12, `93 11 62 7 9 / 0 2 4 1 3` c128 36 -> 28; docs/cpu.md.)
bool vector_blocks_pay(const MultiAxisTiles& t, int elem_size, int64_t edge) {
  if (t.input_unit < 0 || t.output_unit < 0 || t.input_unit == t.output_unit) return false;
  if (elem_size == 4) return true;
  if (elem_size != 8) return false;
  const auto padded = [edge](int64_t n) { return (n + edge - 1) / edge * edge; };
  const int64_t rows = t.tile[t.output_unit].extent, cols = t.tile[t.input_unit].extent;
  return 2 * rows * cols >= padded(rows) * padded(cols);
}

using VectorBlocks = void (*)(const unsigned char*, unsigned char*, const PermuteBlocks&);

// Whether an outer axis continues X's runs in the input (input) or Y's in the output, and those
// runs are under kGroupBytes and not whole cache lines: then 2D slices share the lines at their
// runs' ends with the slices of that axis, which they visit a whole pass over the batch apart,
// so each such line is fetched (and written back) once per slice that touches it. The tiles
// take those axes into the same tile (7-20 GB/s -> 24-31 on Zen 5, docs/cpu.md). Not for 1- and
// 2-byte elements, whose tiles' element loop gained on some such cases and lost on others.
bool slices_share_partial_lines(const Walk& w, bool input) {
  const int64_t run = input ? w.x.size * w.x.in : w.y.size * w.y.out;
  if (run >= kGroupBytes || run % cpu_caches().line_bytes == 0) return false;
  for (int k = 0; k < w.outer.count; ++k)
    if ((input ? w.outer.axes[k].in : w.outer.axes[k].out) == run) return true;
  return false;
}

// The register transposes for the tiles' blocks under `isa`, or null for the element loop.
VectorBlocks vector_blocks_for(const MultiAxisTiles& t, int elem_size, CpuIsa isa) {
  const CpuIsa set = cpu_isa_capped(isa);
  if (set == CpuIsa::avx512 && vector_blocks_pay(t, elem_size, 64 / elem_size)) return permute_blocks_avx512;
  if (set == CpuIsa::avx2 && vector_blocks_pay(t, elem_size, 32 / elem_size)) return permute_blocks_avx2;
  return nullptr;
}

// The tiles for `layout`: groups of kGroupBytes, halved (down to kMinGroupBytes) until a tile fits
// half the L1 for the element loop, which reads its input lines in output order, or half the L2
// for the register blocks, which read whole pieces of lines. (Zen 5, 2 threads, % of memcpy: the
// element loop's `64 33 17 29 3 / 3 1 4 0 2` f64, a 47 KiB tile at 512 bytes, 17 -> 14 against
// 128-byte groups; the blocks' `400 30 20 10 8 / 4 2 0 3 1` f32 28 at 256 bytes, 47 at 512.)
MultiAxisTiles plan_tiles_for_caches(const PermuteLayout& layout, CpuIsa isa, VectorBlocks* blocks) {
  MultiAxisTiles t;
  for (int64_t group = kGroupBytes;; group /= 2) {
    t = plan_multi_axis_tiles(layout, group);
    *blocks = vector_blocks_for(t, layout.elem_size, isa);
    int64_t tile_bytes = layout.elem_size;
    for (int k = 0; k < t.count; ++k) tile_bytes *= t.tile[k].extent;
    const int64_t fits = *blocks != nullptr ? cpu_caches().l2_bytes / 2 : cpu_caches().l1d_bytes / 2;
    if (tile_bytes <= fits || group <= kMinGroupBytes) return t;
  }
}

void permute_multi_axis_tiles(const unsigned char* in, unsigned char* out, const MultiAxisTiles& t,
                              VectorBlocks vector_blocks, int elem_size, int threads, int64_t bytes) {
  const int64_t units = t.outer.total * t.chunks;
  const int n = static_cast<int>(std::min<int64_t>(resolve_threads(threads, bytes), units));
  run_on_threads(n, units, [&](int64_t first, int64_t last) {
    std::array<int64_t, kMaxPermuteRank> begin{}, end{};
    for (int64_t unit = first; unit < last; ++unit) {
      int64_t chunk = unit % t.chunks, in_offset = 0, out_offset = 0;
      t.outer.offsets(unit / t.chunks, &in_offset, &out_offset);
      for (int k = t.count - 1; k >= 0; --k) {
        const int64_t tiles = (t.tile[k].axis.size + t.tile[k].extent - 1) / t.tile[k].extent;
        begin[k] = chunk % tiles * t.tile[k].extent;
        end[k] = std::min(t.tile[k].axis.size, begin[k] + t.tile[k].extent);
        chunk /= tiles;
      }
      if (vector_blocks != nullptr) {
        // The tile's blocks: its unit-stride axes, inside loops over its other axes.
        PermuteBlocks blocks;
        blocks.elem_size = elem_size;
        blocks.rows = end[t.output_unit] - begin[t.output_unit];
        blocks.cols = end[t.input_unit] - begin[t.input_unit];
        blocks.row_in = t.tile[t.output_unit].axis.in;
        blocks.col_out = t.tile[t.input_unit].axis.out;
        for (int k = 0; k < t.count; ++k) {
          in_offset += begin[k] * t.tile[k].axis.in;
          out_offset += begin[k] * t.tile[k].axis.out;
          if (k == t.input_unit || k == t.output_unit) continue;
          blocks.extent[blocks.loops] = end[k] - begin[k];
          blocks.in[blocks.loops] = t.tile[k].axis.in;
          blocks.out[blocks.loops] = t.tile[k].axis.out;
          ++blocks.loops;
        }
        vector_blocks(in + in_offset, out + out_offset, blocks);
        continue;
      }
      const unsigned char* src = in + in_offset;
      unsigned char* dst = out + out_offset;
      switch (elem_size) {
        case 1: copy_multi_axis_tile<1>(src, dst, t, begin, end); break;
        case 2: copy_multi_axis_tile<2>(src, dst, t, begin, end); break;
        case 4: copy_multi_axis_tile<4>(src, dst, t, begin, end); break;
        case 8: copy_multi_axis_tile<8>(src, dst, t, begin, end); break;
        default: copy_multi_axis_tile<16>(src, dst, t, begin, end); break;
      }
    }
  });
}

// 1- and 2-byte elements whose inner axes are short: the 2D slices of the input's and the
// output's innermost axes are a few bytes on a side, and an element loop moves one or two bytes a
// step. Here the rows are the output's innermost axes taken together (Y: consecutive rows are
// consecutive in the output) and the columns the input's (X: consecutive in the input), so that
// a block of V x V elements (16 of 1 byte, 8 of 2: 16 bytes a line) reads V input lines of 16
// bytes and writes V output lines of 16 bytes, transposed in SSE registers. Each row's input
// offset and each column's output offset come from their digits, once per tile of kCompositeTile
// rows by kCompositeTile columns; the other axes are the batch. Where the input's inner axis is
// short (under kShortAxisBytes), whatever the output's: 2D slices of a short input axis read
// pieces of lines and ran at 4-14% of memcpy under a long output axis, these at 15-38 (Xeon guest,
// docs/cpu.md). Not with a long input axis: there the 2D slices write whole output lines and
// these did not.
#if defined(__SSE2__)
constexpr int64_t kCompositeTile = 64;
constexpr int64_t kSmallSliceBytes = 256;

struct CompositeAxes {  // innermost first, each packed onto the ones before on its side
  int count = 0;
  std::array<ByteAxis, kMaxPermuteRank> axes{};
  int64_t total = 1;
};

struct CompositeTiles {
  CompositeAxes x, y;  // x: the input's innermost axes; y: the output's
  FlatAxes batch;
};

// Whether the layout has such X and Y, each mostly whole blocks of `block` elements; fills `t` if so.
bool plan_composite_tiles(const PermuteLayout& layout, int64_t block, CompositeTiles* t) {
  const int n = layout.rank, input_inner = n - 1, output_inner = layout.output_inner();
  if (n < 2 || input_inner == output_inner || layout[input_inner].in_stride != 1 ||
      layout[output_inner].out_stride != 1)
    return false;
  const int64_t e = layout.elem_size;
  std::array<bool, kMaxPermuteRank> used{};
  const auto add = [&](CompositeAxes* side, int k) {
    side->axes[side->count++] = {layout[k].size, layout[k].in_stride * e, layout[k].out_stride * e};
    side->total *= layout[k].size;
    used[k] = true;
  };
  // Y first, until it holds a block (the input's innermost axis stays for X); then X.
  const std::array<int, kMaxPermuteRank> by_output = layout.output_order();  // outermost first
  for (int i = n - 1; i >= 0 && t->y.total < block; --i) {
    const int k = by_output[i];
    if (k == input_inner || layout[k].out_stride != t->y.total) break;
    add(&t->y, k);
  }
  for (int k = n - 1; k >= 0 && !used[k] && layout[k].in_stride == t->x.total; --k) add(&t->x, k);
  // Elements outside whole blocks go one at a time. The columns' (input lines' ends) are read
  // together, so X needs only blocks at least half full on average; the rows' are scattered over
  // the output lines, so Y needs mostly whole blocks (at most an eighth outside), unless a 2D
  // slice of the two inner axes is at most kSmallSliceBytes, where the 2D slices' set-up costs
  // more. (Zen 5, 2 threads, GB/s, against the 2D slices: X of 37-45 u8 over Y of 16, 6-7 ->
  // 8-11; slices of 11 x 4 f16 4 -> 10; but Y of 19-21 u8 over X of 32-35 11-12 -> 7-9, and
  // partial blocks for the rows' remainder lost too; docs/cpu.md.)
  const auto half_full = [&](int64_t total) { return 2 * total >= (total + block - 1) / block * block; };
  const auto mostly_whole = [&](int64_t total) { return total >= block && 8 * (total % block) <= total; };
  const int64_t slice_bytes = layout[input_inner].size * layout[output_inner].size * e;
  const bool rows_fit = mostly_whole(t->y.total) || (half_full(t->y.total) && slice_bytes <= kSmallSliceBytes);
  if (!half_full(t->x.total) || !rows_fit) return false;
  for (int k = 0; k < n; ++k)
    if (!used[k]) t->batch.add({layout[k].size, layout[k].in_stride * e, layout[k].out_stride * e});
  return true;
}

// Offsets (input for Y, output for X) of positions first .. first + count - 1 of a side.
void composite_offsets(const CompositeAxes& side, bool input, int64_t first, int64_t count, int64_t* offsets) {
  std::array<int64_t, kMaxPermuteRank> digit{};
  int64_t rest = first, offset = 0;
  for (int a = 0; a < side.count; ++a) {
    digit[a] = rest % side.axes[a].size;
    rest /= side.axes[a].size;
    offset += digit[a] * (input ? side.axes[a].in : side.axes[a].out);
  }
  for (int64_t i = 0; i < count; ++i) {
    offsets[i] = offset;
    for (int a = 0; a < side.count; ++a) {  // the next position: an odometer over the axes
      const int64_t step = input ? side.axes[a].in : side.axes[a].out;
      if (++digit[a] < side.axes[a].size) {
        offset += step;
        break;
      }
      offset -= (side.axes[a].size - 1) * step;
      digit[a] = 0;
    }
  }
}

// Rows r[0..15] of 16 bytes become their transpose: row c holds byte c of every input row. Four
// rounds of a perfect shuffle (rows i and i + 8 interleaved); 8 x 8 of 2 bytes take three.
template <int Bytes>
void transpose_block(__m128i* r) {
  constexpr int kRows = 16 / Bytes, kHalf = kRows / 2;
  constexpr int kRounds = Bytes == 1 ? 4 : 3;
  for (int round = 0; round < kRounds; ++round) {
    __m128i next[kRows];
    for (int i = 0; i < kHalf; ++i) {
      if constexpr (Bytes == 1) {
        next[2 * i] = _mm_unpacklo_epi8(r[i], r[i + kHalf]);
        next[2 * i + 1] = _mm_unpackhi_epi8(r[i], r[i + kHalf]);
      } else {
        next[2 * i] = _mm_unpacklo_epi16(r[i], r[i + kHalf]);
        next[2 * i + 1] = _mm_unpackhi_epi16(r[i], r[i + kHalf]);
      }
    }
    for (int i = 0; i < kRows; ++i) r[i] = next[i];
  }
}

template <int Bytes>
void copy_composite_tile(const unsigned char* src, unsigned char* dst, const int64_t* row_in, int64_t rows,
                         const int64_t* col_out, int64_t cols, int64_t y0, int64_t x0) {
  constexpr int64_t V = 16 / Bytes;
  const int64_t full_rows = rows / V * V, full_cols = cols / V * V;
  for (int64_t r = 0; r < full_rows; r += V) {
    for (int64_t c = 0; c < full_cols; c += V) {
      __m128i block[V];
      for (int64_t j = 0; j < V; ++j)
        block[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + row_in[r + j] + (x0 + c) * Bytes));
      transpose_block<Bytes>(block);
      for (int64_t k = 0; k < V; ++k)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + col_out[c + k] + (y0 + r) * Bytes), block[k]);
    }
  }
  // The rows and columns that fill no block, element by element.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = r < full_rows ? full_cols : 0; c < cols; ++c)
      std::memcpy(dst + col_out[c] + (y0 + r) * Bytes, src + row_in[r] + (x0 + c) * Bytes, Bytes);
}

void permute_composite_tiles(const unsigned char* in, unsigned char* out, const CompositeTiles& t, int elem_size,
                             int threads, int64_t bytes) {
  const int64_t tiles_x = (t.x.total + kCompositeTile - 1) / kCompositeTile;
  const int64_t tiles_y = (t.y.total + kCompositeTile - 1) / kCompositeTile;
  const int64_t units = t.batch.total * tiles_y * tiles_x;
  const int n = static_cast<int>(std::min<int64_t>(resolve_threads(threads, bytes), units));
  // Each thread walks its units in order: the batch offsets step from one unit to the next, and a
  // tile's row and column offsets are computed only when the tile changes (never, where one tile
  // covers X and Y: tiles of a few hundred bytes spent about half their time on those; Zen 5, 2
  // threads, % of memcpy: 16 x 37 u8 15 -> 28, `300 50 24 13 / 3 1 0 2` f16 12 -> 19).
  const int64_t tiles = tiles_x * tiles_y;
  run_on_threads(n, units, [&](int64_t first, int64_t last) {
    int64_t row_in[kCompositeTile], col_out[kCompositeTile];
    std::array<int64_t, kMaxPermuteRank> digits{};
    int64_t in_offset = 0, out_offset = 0, tile = first % tiles, offsets_of = -1;
    t.batch.offsets(first / tiles, &in_offset, &out_offset, &digits);
    for (int64_t unit = first; unit < last; ++unit) {
      const int64_t tx = tile % tiles_x, ty = tile / tiles_x;
      const int64_t x0 = tx * kCompositeTile, y0 = ty * kCompositeTile;
      const int64_t cols = std::min(kCompositeTile, t.x.total - x0), rows = std::min(kCompositeTile, t.y.total - y0);
      if (tile != offsets_of) {
        composite_offsets(t.y, true, y0, rows, row_in);
        composite_offsets(t.x, false, x0, cols, col_out);
        offsets_of = tile;
      }
      const unsigned char* src = in + in_offset;
      unsigned char* dst = out + out_offset;
      if (elem_size == 1) copy_composite_tile<1>(src, dst, row_in, rows, col_out, cols, y0, x0);
      else copy_composite_tile<2>(src, dst, row_in, rows, col_out, cols, y0, x0);
      if (++tile == tiles) {
        tile = 0;
        t.batch.next(&digits, &in_offset, &out_offset);
      }
    }
  });
}
#endif

}  // namespace

void permute_blocked(const void* in, void* out, const PermuteLayout& layout, int threads) {
  permute_blocked(in, out, layout, threads, BlockedOptions{});
}

void permute_blocked(const void* in, void* out, const PermuteLayout& layout, int threads,
                     const BlockedOptions& options) {
  const auto* src = static_cast<const unsigned char*>(in);
  auto* dst = static_cast<unsigned char*>(out);
  if (layout.elements == 0) return;
  if (layout.rank == 0) {
    std::memcpy(dst, src, static_cast<std::size_t>(layout.elem_size));
    return;
  }
  const Walk walk = plan_walk(layout);
  const int64_t e = layout.elem_size;
  const bool unit_strides = walk.run == e && walk.y.size > 1 && walk.x.in == e && walk.y.out == e;
  const int64_t x_bytes = walk.x.size * e, y_bytes = walk.y.size * e;
  // With a vector set the tiles' blocks are register transposes, which beat the 2D slices of inner
  // axes of 64-255 bytes for 4-byte elements too (Zen 5, 2 threads, % of memcpy: `500 30 40 20 / 0
  // 3 2 1` f32 14 -> 50, `40 50 60 45 / 1 3 0 2` f32 14 -> 50, `300 40 30 50 / 0 3 2 1` 26 -> 54).
  const int64_t wide_elem_bytes = cpu_isa_capped(options.isa) == CpuIsa::portable ? kWideElemBytes : 4;
  const bool short_inner_axes =
      walk.run == e && e >= kShortAxisMinElemBytes && layout.rank >= 3 && walk.y.size > 1 &&
      (x_bytes < kShortAxisBytes || y_bytes < kShortAxisBytes ||
       (e >= wide_elem_bytes && x_bytes < kWideShortAxisBytes && y_bytes < kWideShortAxisBytes));
#if defined(__SSE2__)
  CompositeTiles composite;
  if (e <= 2 && walk.run == e && x_bytes < kShortAxisBytes &&
      plan_composite_tiles(layout, 16 / e, &composite)) {
    permute_composite_tiles(src, dst, composite, layout.elem_size, threads, layout.bytes());
    return;
  }
#endif
  const bool partial_lines = unit_strides && e >= kShortAxisMinElemBytes && layout.rank >= 3 &&
                             (slices_share_partial_lines(walk, true) || slices_share_partial_lines(walk, false));
  // 1- and 2-byte 2D slices of at most a cache line: the region code's set-up per slice costs more
  // than the tiles' element loop over its bytes (0.3-5 GB/s -> 1.4-9 on Zen 5, docs/cpu.md).
  const bool tiny_slices =
      unit_strides && e <= 2 && layout.rank >= 3 && x_bytes * walk.y.size <= cpu_caches().line_bytes;
  if (short_inner_axes || partial_lines || tiny_slices) {
    VectorBlocks blocks = nullptr;
    const MultiAxisTiles tiles = plan_tiles_for_caches(layout, options.isa, &blocks);
    permute_multi_axis_tiles(src, dst, tiles, blocks, layout.elem_size, threads, layout.bytes());
  } else if (unit_strides) {
    permute_as_2d_slices(src, dst, walk, layout.elem_size, threads, layout.bytes(), options);
  } else {
    permute_tiles(src, dst, walk, threads, layout.bytes());
  }
}

}  // namespace xpose::detail
