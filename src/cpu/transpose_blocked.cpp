// SPDX-License-Identifier: Apache-2.0
#include "cpu/transpose_blocked.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cpu/cpu_caches.hpp"
#include "cpu/stream_copy.hpp"
#include "cpu/tile_region.hpp"
#include "cpu/transpose_scalar.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/transpose_tiles_avx2.hpp"
#include "cpu/transpose_tiles_avx512.hpp"

namespace xpose::detail {
namespace {

// Tuning of the vector tiles, per element size, the same for both sets. A strip is the band of
// input rows that one work unit walks down, one visit of `wide` columns of tiles at a time; its
// height is the run written to each output row.
struct TileTuning {
  int strip_tiles;
  int wide;  // columns of tiles per row visit
};

// Strips of 512 B runs and at least 128 rows: 8 tiles for 1- to 4-byte elements, 16 for 8, 32 for
// 16 (output rows off lines: kShiftedStripRows, below). Before the writers held four tiles, 2 KiB
// runs left f64 8192^2 at 44-50% of the stream copy on Zen 3 and 512 B runs gave 56-60% (f32 47 ->
// 52); with four tiles held, c128 lost 6 to 12 points on 32-row strips against 128 rows (4096^2
// and 4095 x 4097).
//
// Each visit reads `wide` adjacent lines of each row. With a leading dimension of a multiple of 4
// KiB (or close to one: 8191 x 8193), every row of a column of tiles falls into one L1 set, so
// lines prefetched down one column evict each other and a single-line walk runs at the latency of
// one tile's rows; four lines per row (256 bytes) ran 1.5 to 2x faster on Zen 3 (u16 8192^2 28 ->
// 38% of the stream copy) and on Zen 5 (AVX-512, f64 8192^2 26 -> 42 GB/s; docs/cpu.md).
//
// Output rows off 64-byte lines (stream_shifted) take strips of 512 rows for 4- to 16-byte
// elements: the shifted writers join each strip's runs to the strip below by loading that strip's
// first tile again (f32: an eighth more input reads at 128 rows), and longer runs per output row.
// Zen 5, 2 threads, GB/s, three alternating rounds, 128 -> 512 rows: f32 8191 x 8193 26-31 ->
// 34-38, 12345 x 6789 30-32 -> 39-42, 3001 x 20011 16-20 -> 22-23, f64 3001 x 20011 29-36 ->
// 37-45, c128 2001 x 5003 30-48 -> 43-66; the AVX2 set alike (f32 8191 x 8193 30 -> 35-37). Not
// for the aligned writers, which hold four tiles per row (f64 8192^2 47-52 -> 35-47 at 512 rows,
// c128 4096^2 54-61 -> 50-52), nor u16 (already 256 rows; level at 512).
constexpr int64_t kShiftedStripRows = 512;

TileTuning tile_tuning(int elem_size, TileStores stores) {
  const int64_t edge = tile_edge(elem_size);
  const int64_t rows = stores == TileStores::stream_shifted && elem_size >= 4 ? kShiftedStripRows : 128;
  return {static_cast<int>(std::max<int64_t>(8, rows / edge)), 4};
}

// Tile rows to prefetch ahead: as many rows as one L1 set holds lines, at least one visit. With a
// leading dimension near a multiple of 4 KiB the rows of a column share their L1 sets, so rows
// prefetched further ahead evict the lines being read (Zen 3, 8 ways: 32 rows -> 8 rows ahead took
// f64 8192^2 from 39 to 50% of the stream copy, c128 4096^2 61 -> 73%, f32 36 -> 42%).
int prefetch_tiles(int elem_size) {
  const int64_t edge = tile_edge(elem_size);
  return static_cast<int>(std::max<int64_t>(1, cpu_caches().l1d_ways / edge));
}

// Without vector tiles a strip is this many rows of scalar blocks.
constexpr int64_t kScalarStripRows = 64;

int resolve_threads(int threads, int64_t bytes) {
  return threads_for(threads, bytes);
}

void transpose_scalar_of_size(const TileRegion& r, int elem_size) {
  switch (elem_size) {
    case 1:
      return transpose_region_scalar<1>(r);
    case 2:
      return transpose_region_scalar<2>(r);
    case 4:
      return transpose_region_scalar<4>(r);
    case 8:
      return transpose_region_scalar<8>(r);
    case 16:
      return transpose_region_scalar<16>(r);
    default:
      return;
  }
}

// One rectangle of a matrix: whole tiles with the tile loop, what is left at the bottom and the
// right with the edge code. `tiled_rows_end`: the end of the matrix's whole rows of tiles (a strip
// that ends above it has a whole tile below to join when streaming).
void transpose_region(const TileRegion& r, int elem_size, CpuIsa isa, TileStores stores, int prefetch_tiles,
                      int wide, int64_t tiled_rows_end) {
  if (isa == CpuIsa::portable) return transpose_scalar_of_size(r, elem_size);
  const auto [tiles, right, bottom] = split_at_tiles(r, tile_edge(elem_size));
  // Strips start on whole tiles, so a strip below with rows has a whole tile to join.
  StripJoins joins;
  joins.head_written_above = tiles.row_begin > 0;
  joins.complete_below = tiles.row_end == r.row_end && tiles.row_end < tiled_rows_end;
  // Both sets take the edges with the AVX2 code (whole tiles, then 16-byte records,
  // interleaves): on Zen 5 it ran 2 to 3x faster than AVX-512 masked partial tiles, in cache and
  // on thin matrices in memory (docs/cpu.md).
  if (!tiles.empty()) {
    if (isa == CpuIsa::avx512)
      transpose_tiles_avx512(tiles, elem_size, stores, joins, prefetch_tiles, wide);
    else
      transpose_tiles_avx2(tiles, elem_size, stores, joins, prefetch_tiles, wide);
  }
  // Few rows into packed output rows: AVX-512 interleaves any 2 to 16; the AVX2 edges interleave
  // 2, 4 or 8 rows of bytes (2 or 4 of 2-byte elements) and any count of 4- and 8-byte ones. Few
  // packed columns: AVX-512 deinterleaves 3 to 8 of 1- and 2-byte elements, the AVX2 edges the rest.
  if (!right.empty() && !(isa == CpuIsa::avx512 && deinterleave_columns_avx512(right, elem_size)))
    transpose_edges_avx2(right, elem_size);
  if (!bottom.empty() &&
      !(isa == CpuIsa::avx512 && interleave_rows_avx512(bottom, elem_size, stores != TileStores::plain)))
    transpose_edges_avx2(bottom, elem_size);
}

// The problem cut into units: batch x strips of rows x panels of columns. Strips and panels are
// whole tiles except the last ones; units are numbered matrix by matrix, strip by strip.
struct WorkSplit {
  const Transpose2D& p;
  const unsigned char* in;
  unsigned char* out;
  CpuIsa isa;         // the tile set (portable: scalar blocks)
  TileStores stores;  // for the tiles
  int prefetch_tiles;
  int wide;      // columns of tiles per visit
  int64_t edge;  // tile edge in elements (1 for scalar)
  int64_t strip_rows, panel_cols, strips, panels;

  int64_t units() const { return p.batch * strips * panels; }

  void run(int64_t unit) const {
    const int64_t e = p.elem_size;
    const int64_t b = unit / (strips * panels), strip = unit / panels % strips,
                  panel = unit % panels;
    TileRegion r{in + b * p.stride_in * e,
                 out + b * p.stride_out * e,
                 p.ld_in * e,
                 p.ld_out * e,
                 strip * strip_rows,
                 std::min(p.rows, (strip + 1) * strip_rows),
                 panel * panel_cols,
                 std::min(p.cols, (panel + 1) * panel_cols)};
    transpose_region(r, p.elem_size, isa, stores, prefetch_tiles, wide, p.rows / edge * edge);
  }
};

// One run of output bytes written front to back through a staging area that mirrors its line
// alignment: each chunk's bytes go to data(), flush() streams every whole line and moves the line
// left part-filled to the front of the area, where the next chunk completes it. So each line of
// the run is one streaming store, except the part lines at the run's two ends (ordinary stores).
class StagedRun {
 public:
  StagedRun() = default;
  // `area`: 64-byte aligned, a chunk and two lines long; `next`: the run's first byte.
  StagedRun(unsigned char* area, unsigned char* next)
      : area_(area), carried_(static_cast<int64_t>(reinterpret_cast<uintptr_t>(next) & 63)),
        valid_from_(carried_), line_(next - carried_) {}

  unsigned char* data() const { return area_ + carried_; }

  // The chunk of `length` bytes at data() is complete; `last`: the run ends with it.
  void flush(int64_t length, bool last) {
    const int64_t end = carried_ + length, whole = last ? end : end / 64 * 64;
    stream_staged_lines(line_, area_, valid_from_, whole);
    carried_ = end - whole;
    std::memmove(area_, area_ + whole, static_cast<std::size_t>(carried_));
    line_ += whole;
    valid_from_ = 0;
  }

 private:
  unsigned char* area_ = nullptr;
  int64_t carried_ = 0;     // bytes of area_'s first line before data()
  int64_t valid_from_ = 0;  // area_ bytes before it are not this run's (before its first byte)
  unsigned char* line_ = nullptr;  // the output line that area_ mirrors
};

// Outputs whose rows are short and packed, matrix after matrix (ld_out = rows, stride_out = rows x
// cols): the whole output is one run of bytes, but a row of a few lines (staged_row_bytes_max)
// has ends that are parts of lines shared with the next row, which a row-by-row streaming
// writer can only write with ordinary stores (each read for ownership first), and the edge code
// writes its part of every row that way. Instead each thread transposes chunks of its output
// rows into a StagedRun. From a tile edge of rows (fewer: the interleaves and records write the
// output's rows together already, and staging them ran slower), and not where every output line
// is aligned and every row of the matrix in a whole tile: there the tiles write whole lines
// straight out, and the stage's extra pass cost 20-40% (Zen 5, f16 64 x 32 batch 15625, f32 128
// x 128 batch 1000; against f16 72 x 32 batch 13888 13 -> 35 GB/s staged). Batches of small
// matrices of 4- to 16-byte elements are staged too, filled by an element loop
// (gathered_small_matrices).
constexpr int64_t kStagedRowBytes = 1024;
constexpr int64_t kStageBytes = 16 << 10;
// 1- and 2-byte elements: rows up to a chunk of a tile edge's rows in a quarter of the L2 (256
// KiB of Zen 5's 1 MiB): their tiles' direct walk runs at 35-45% of a stream copy and their
// bottom edge holds up to 63 (31) rows of records, so the stage's pass costs less (Zen 5, 2
// threads, GB/s, three alternating runs: u8 1549 x 41280 20-23 -> 31-36, u16 1500 x 20000 26-29
// -> 38-40, u16 2500 x 6000 31 -> 35; u8 3001 x 20000 and 5312 x 11929 level; u8 16067 x 3968,
// 16 KiB rows in 1 MiB chunks, 26-30 -> 12). Wider elements lost past 1 KiB rows (f64 841 x 9472,
// c128 117 x 34211: 20-30% slower), their direct walk being near the copy.
int64_t staged_row_bytes_max(int elem_size) {
  return elem_size <= 2 ? std::max(kStagedRowBytes, cpu_caches().l2_bytes / 4 / tile_edge(elem_size))
                        : kStagedRowBytes;
}

// Whether the rows of a tile, `ld_bytes` apart, spread over the L1's sets: no set gets more of
// the lines the tile may touch (each row's line and the next, as misaligned rows straddle two)
// than it has ways. Pitches near a multiple of the L1's way (64 sets x 64 bytes on x86) put a
// tile's rows into one or two sets, where a walk one tile wide fetches every line again for each
// row piece it reads (Zen 5, f16 4095 x 4097: 6 GB/s staged, 12 direct with four tiles per row
// visit). Half the ways was too strict: f16 289 x 512 batch 216 (1 KiB pitch, 8 lines in each of
// 8 sets) ran 27-30 GB/s staged, 23-24 direct.
bool tile_rows_spread_over_l1_sets(int64_t ld_bytes, int64_t edge) {
  const CpuCaches& caches = cpu_caches();
  const int64_t sets = std::max<int64_t>(1, caches.l1d_bytes / (64 * int64_t{caches.l1d_ways}));
  std::vector<int64_t> lines;  // each distinct line the tile's rows may touch
  for (int64_t k = 0; k < edge; ++k) lines.insert(lines.end(), {k * ld_bytes / 64, k * ld_bytes / 64 + 1});
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::vector<int> lines_in_set(static_cast<std::size_t>(sets), 0);
  int most = 0;
  for (const int64_t line : lines) most = std::max(most, ++lines_in_set[static_cast<std::size_t>(line % sets)]);
  return most <= caches.l1d_ways;
}

bool packed_output_run(const Transpose2D& p) {
  return p.ld_out == p.rows && (p.batch == 1 || p.stride_out == p.rows * p.cols);
}

// Batches of small matrices of 4- to 16-byte elements: the staged run's chunks are filled by a
// plain element loop (transpose_region_scalar), one load and one store per element from a matrix
// in L1, instead of the region code, whose tiles, edges and records cost more per matrix than
// such a matrix's elements. So the loop pays per element and the region code per matrix: up to
// 512 elements, and not where the matrices are whole aligned tiles of over 512 bytes (one tile
// call each). Zen 5, 2 threads, GB/s, region code -> element loop, two alternating runs: f64 9 x 9
// 15-16 -> 38-39, f64 11 x 3 16 -> 27-33, f64 8 x 8 20 -> 30-31, f64 10 x 13 19 -> 26, c128 9 x 13
// 24-25 -> 33-35, c128 7 x 9 28-30 -> 37-38, f32 17 x 19 16 -> 23, f32 19 x 25 16 -> 21-23, f32 22
// x 23 20-21 -> 23-25; level on f64 7 x 11, c128 20 x 10, f64 16 x 16. Where it lost: 1- and
// 2-byte elements (f16 20 x 20 26-28 -> 15-16), more elements (f32 50 x 20 25-27 -> 21, f32 24 x 40
// 22 -> 20-21), whole aligned tiles (f32 16 x 16 35-36 -> 22-23), and matrices of fewer rows than
// a tile edge over 512 bytes, which the interleaves write whole (f32 12 x 40 34 -> 21-24). With
// AVX-512, matrices of up to 1 KiB go to transpose_small_batch_avx512 before this.
constexpr int64_t kGatheredMatrixElements = 512;
constexpr int64_t kGatheredAnyShapeBytes = 512;

bool gathered_small_matrices(const Transpose2D& p, int64_t edge, TileStores stores) {
  const int64_t bytes = p.rows * p.cols * p.elem_size;
  const bool whole_aligned_tiles = stores == TileStores::stream_aligned && p.rows % edge == 0 && p.cols % edge == 0;
  return p.elem_size >= 4 && p.batch >= 2 && packed_output_run(p) && p.rows * p.cols <= kGatheredMatrixElements &&
         (bytes <= kGatheredAnyShapeBytes || (p.rows >= edge && !whole_aligned_tiles));
}

void transpose_staged_run(const unsigned char* in, unsigned char* out, const Transpose2D& p, int threads,
                          CpuIsa isa, int prefetch_tiles, bool gather) {
  const int64_t e = p.elem_size, row_bytes = p.rows * e;
  const int64_t out_rows = p.batch * p.cols;  // (matrix, column) pairs in output order
  // Whole columns of tiles per chunk: a part column goes through the edge code.
  const int64_t edge = tile_edge(p.elem_size);
  const int64_t tile_chunk_rows = std::max<int64_t>(1, kStageBytes / row_bytes / edge) * edge;
  // Matrices of fewer columns than two such chunks go whole into a chunk (as many as fit, at
  // least one): a chunk that ends inside a matrix leaves two regions of part input rows, whose
  // edge records copy each row piece into a buffer first (few_columns: a memcpy per row; 40% of
  // the time of 736 x 41 u8 batches). Zen 5, 2 threads, GB/s, three alternating rounds: u8 736 x 41
  // batch 2934 12-13 -> 24, 1000 x 50 13-14 -> 22-26, 600 x 100 21-22 -> 26-27, 4000 x 100 17-22 ->
  // 23-26, f16 455 x 35 17 -> 19-21, 2000 x 50 18-24 -> 21-27, f64 15 x 107 batch 19938 16-17 -> 23-26.
  // Threads then split the batch at matrix boundaries too.
  const bool whole_matrices = p.cols < 2 * tile_chunk_rows;
  const int64_t chunk_rows = whole_matrices ? std::max<int64_t>(1, tile_chunk_rows / p.cols) * p.cols : tile_chunk_rows;
  const int64_t split_unit = whole_matrices ? p.cols : 1;
  parallel_for(threads, [&](int t, int count) {
    const int64_t units = out_rows / split_unit;
    const int64_t first = units * t / count * split_unit, last = units * (t + 1) / count * split_unit;
    if (first >= last) return;
    // A chunk and a line either side, on the heap: up to a quarter of the L2.
    std::vector<unsigned char> buffer(static_cast<std::size_t>(chunk_rows * row_bytes + 192));
    unsigned char* area = buffer.data() + (-reinterpret_cast<uintptr_t>(buffer.data()) & 63);
    StagedRun run(area, out + first * row_bytes);
    for (int64_t u = first; u < last;) {
      const int64_t u_end = std::min(last, u + chunk_rows);
      // The next chunk's input lines (its first matrix), a chunk ahead: with many rows, more
      // streams than the hardware prefetcher follows (u8 1000 x 1000 batch 60: 40 -> 50% of memcpy).
      if (u_end < last) {
        const int64_t m = u_end / p.cols, c0 = u_end % p.cols, c1 = std::min(p.cols, c0 + chunk_rows);
        const unsigned char* base = in + (m * p.stride_in + c0) * e;
        for (int64_t i = 0; i < p.rows; ++i)
          for (int64_t b = 0; b < (c1 - c0) * e; b += 64) __builtin_prefetch(base + i * p.ld_in * e + b);
      }
      for (int64_t v = u; v < u_end;) {  // one piece per matrix the chunk touches
        const int64_t m = v / p.cols, c0 = v % p.cols, c1 = std::min(p.cols, c0 + (u_end - v));
        const TileRegion r{in + (m * p.stride_in + c0) * e, run.data() + (v - u) * row_bytes, p.ld_in * e,
                           row_bytes, 0, p.rows, 0, c1 - c0};
        if (gather)
          transpose_scalar_of_size(r, p.elem_size);
        else
          transpose_region(r, p.elem_size, isa, TileStores::plain, prefetch_tiles, 1, 0);
        v += c1 - c0;
      }
      run.flush((u_end - u) * row_bytes, u_end == last);
      u = u_end;
    }
    stream_fence();
  });
}

// Few columns (at most kStagedColumnBytes of each input row) into output rows of 1 to
// kStagedColumnRunBytes: the edge code writes each output row 32 bytes at a time with ordinary
// stores, and the two ends of a short row are a part line each. Instead each thread transposes
// chunks of kStageBytes of its rows into one StagedRun per output row. The runs' areas are kept
// a multiple of 64 bytes apart plus the output's leading dimension, so that the region transposer
// writes them as one matrix with a uniform leading dimension, each in its run's alignment; chunks
// of a multiple of 64 bytes per run keep them there. Longer output rows stay with the edge code
// (Zen 5, 2 threads, % of memcpy, alternating runs: f32 1199 x 10 batch 1335 49-54 -> 68-69;
// level on 20-160 KiB rows; c128 1333357 x 3 78-84 -> 45-50, where the stage's extra pass costs
// more than the ordinary stores of long rows).
constexpr int64_t kStagedColumnBytes = 256;
constexpr int64_t kStagedColumnRunBytes = 8 << 10;
// Shorter rows are mostly their part lines (f32 8 x 41 batch 3235: 41 runs of 32 bytes per
// matrix, 79 -> 11% of memcpy); the interleaves and records take them.
constexpr int64_t kMinStagedColumnRunBytes = 1 << 10;
constexpr int64_t kMaxStagedColumns = kStagedColumnBytes;  // 1-byte elements

void transpose_staged_columns(const unsigned char* in, unsigned char* out, const Transpose2D& p, int threads,
                              CpuIsa isa, int prefetch_tiles) {
  const int64_t e = p.elem_size, cols = p.cols;
  const int64_t ld_in = p.ld_in * e, ld_out = p.ld_out * e;
  const int64_t piece = std::max<int64_t>(64, kStageBytes / cols / 64 * 64);  // bytes per run per chunk
  const int64_t chunk_rows = piece / e;
  // Area stride: a piece and three lines, then up to 63 bytes more so that stride = ld_out (mod 64).
  const int64_t stride = piece + 192 + ((ld_out % 64) + 64) % 64;
  const int64_t units = p.batch * p.rows;  // (matrix, input row) pairs
  parallel_for(threads, [&](int t, int count) {
    const int64_t first = units * t / count, last = units * (t + 1) / count;
    if (first >= last) return;
    std::vector<unsigned char> buffer(static_cast<std::size_t>(kStageBytes + kMaxStagedColumns * (192 + 64) + 128));
    unsigned char* stage = buffer.data() + (-reinterpret_cast<uintptr_t>(buffer.data()) & 63);
    StagedRun runs[kMaxStagedColumns];
    for (int64_t u = first; u < last;) {  // one matrix at a time
      const int64_t m = u / p.rows, row_end = std::min(last - m * p.rows, p.rows);
      int64_t i = u % p.rows;
      unsigned char* matrix_out = out + m * p.stride_out * e;
      const unsigned char* matrix_in = in + m * p.stride_in * e;
      // Run c's area starts on the line of base + c * stride, base mirroring row i's alignment.
      unsigned char* base = stage + 64 + (reinterpret_cast<uintptr_t>(matrix_out + i * e) & 63);
      for (int64_t c = 0; c < cols; ++c) {
        unsigned char* data = base + c * stride;
        runs[c] = StagedRun(data - (reinterpret_cast<uintptr_t>(data) & 63), matrix_out + c * ld_out + i * e);
      }
      for (; i < row_end; i += chunk_rows) {
        const int64_t rows_here = std::min(chunk_rows, row_end - i);
        const TileRegion r{matrix_in + i * ld_in, base, ld_in, stride, 0, rows_here, 0, cols};
        transpose_region(r, p.elem_size, isa, TileStores::plain, prefetch_tiles, 1, 0);
        const bool last_chunk = i + rows_here >= row_end;
        for (int64_t c = 0; c < cols; ++c) runs[c].flush(rows_here * e, last_chunk);
      }
      u = m * p.rows + row_end;
    }
    stream_fence();
  });
}

TileStores choose_stores(const void* out, const Transpose2D& p, int64_t stream_from) {
  if (p.bytes() < stream_from) return TileStores::plain;
  const int64_t e = p.elem_size;
  const bool aligned = reinterpret_cast<uintptr_t>(out) % 64 == 0 && p.ld_out * e % 64 == 0 &&
                       (p.batch == 1 || p.stride_out * e % 64 == 0);
  return aligned ? TileStores::stream_aligned : TileStores::stream_shifted;
}

}  // namespace

int64_t stream_from_bytes() { return cpu_caches().last_level_bytes / 4; }

void transpose_blocked(const void* in, void* out, const Transpose2D& p, int threads) {
  transpose_blocked(in, out, p, threads, BlockedOptions{});
}

void transpose_blocked(const void* in, void* out, const Transpose2D& p, int threads, CpuIsa isa) {
  BlockedOptions options;
  options.isa = isa;
  transpose_blocked(in, out, p, threads, options);
}

void transpose_blocked(const void* in, void* out, const Transpose2D& p, int threads,
                       const BlockedOptions& options) {
  if (p.empty()) return;
  const int n = resolve_threads(threads, p.bytes());
  const CpuIsa isa = cpu_isa_capped(options.isa);
  const bool vector = isa != CpuIsa::portable;
  const int64_t matrix_elements = p.rows * p.cols;
  const bool packed_both_sides = p.ld_in == p.cols && p.ld_out == p.rows &&
                                 (p.batch == 1 || (p.stride_in == matrix_elements && p.stride_out == matrix_elements));
  // One row or one column per matrix, packed on both sides: the transpose is one copy.
  if (packed_both_sides && (p.rows == 1 || p.cols == 1)) {
    parallel_memcpy(out, in, p.bytes(), n);
    return;
  }
  // Batches of tiny matrices into packed output: whole matrices by byte shuffles (the tiles'
  // per-matrix set-up costs more than such a matrix's bytes). Padded input rows too (a slice of a
  // wider tensor) and gapped batches: the shuffles skip the padding (Zen 5, 2 threads, % of memcpy:
  // 800000 x 7 x 7 f16 rows 8 apart 13 -> 60-74, 1000000 x 9 x 11 u8 rows 13 apart 9 -> 49-57).
  // Up to 1 KiB with AVX-512: the same permutation of bytes, in 64-byte chunks by VBMI's
  // two-source byte permute (Zen 5, 2 threads, GB/s, two alternating runs against the region code
  // or element loop: u8 20 x 20 3-4 -> 19, u8 27 x 33 7 -> 19-20, f16 9 x 13 4-5 -> 14-18, f16 5 x
  // 90 7-10 -> 15-22, f32 12 x 20 7-10 -> 15-16, f64 9 x 9 8-14 -> 20-28, c128 7 x 9 9-10 -> 15-29;
  // 1 KiB matrices level to ahead: u8 32 x 32 10-17 -> 16-17, f16 16 x 32 6-13 -> 14-16).
  const TinyBatch tiny{p.rows, p.cols, p.ld_in, p.stride_in, p.batch, p.elem_size};
  void (*whole_matrices)(const unsigned char*, unsigned char*, const TinyBatch&, int64_t, int64_t) = nullptr;
  if (vector && avx2_tiles_available() && packed_output_run(p) && tiny.fits(kTinyMatrixMaxBytes))
    whole_matrices = transpose_tiny_batch_avx2;
  else if (isa == CpuIsa::avx512 && packed_output_run(p) && tiny.fits(kSmallPermutedMatrixBytes))
    whole_matrices = transpose_small_batch_avx512;
  if (whole_matrices != nullptr) {
    const auto* source = static_cast<const unsigned char*>(in);
    auto* target = static_cast<unsigned char*>(out);
    parallel_for(n, [&](int t, int count) {
      whole_matrices(source, target, tiny, p.batch * t / count, p.batch * (t + 1) / count);
    });
    return;
  }
  const int64_t edge = vector ? tile_edge(p.elem_size) : 1;
  const int64_t stream_from =
      options.stream_from_bytes >= 0 ? options.stream_from_bytes : stream_from_bytes();
  const TileStores stores = choose_stores(out, p, stream_from);
  const TileTuning tuning = tile_tuning(p.elem_size, stores);
  const bool gather = vector && gathered_small_matrices(p, edge, stores);
  if (vector && stores != TileStores::plain && packed_output_run(p) &&
      (gather || (p.rows >= edge && p.rows * p.elem_size <= staged_row_bytes_max(p.elem_size) &&
                  !(stores == TileStores::stream_aligned && p.rows % edge == 0) &&
                  tile_rows_spread_over_l1_sets(p.ld_in * p.elem_size, edge)))) {
    transpose_staged_run(static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out), p, n, isa,
                         prefetch_tiles(p.elem_size), gather);
    return;
  }
  if (vector && stores != TileStores::plain && p.cols > 1 && p.cols * p.elem_size <= kStagedColumnBytes &&
      p.rows * p.elem_size >= kMinStagedColumnRunBytes && p.rows * p.elem_size <= kStagedColumnRunBytes) {
    transpose_staged_columns(static_cast<const unsigned char*>(in), static_cast<unsigned char*>(out), p, n, isa,
                             prefetch_tiles(p.elem_size));
    return;
  }
  // Ordinary stores walk one column of tiles: they read each output line into L1, and a visit of
  // four columns writes 4 x edge output rows at one column offset, which at power-of-two strides
  // share an L1 set (Zen 5, in cache: f32 256^2 47 -> 85 GB/s with one column, u8 1024^2 17 -> 20;
  // in-place f32 8192^2 12 -> 17; padded strides lose 10-15%: f64 300 x 400 28 -> 24).
  WorkSplit split{p,
                  static_cast<const unsigned char*>(in),
                  static_cast<unsigned char*>(out),
                  isa,
                  stores,
                  prefetch_tiles(p.elem_size),
                  stores == TileStores::plain ? 1 : tuning.wide,
                  edge,
                  vector ? tuning.strip_tiles * edge : kScalarStripRows,
                  p.cols,
                  0,
                  1};
  split.strips = (p.rows + split.strip_rows - 1) / split.strip_rows;
  // Too few strips to keep every thread busy (few wide matrices): cut the columns into panels.
  const int64_t wanted_units = 4 * int64_t{n};
  if (n > 1 && p.batch * split.strips < wanted_units) {
    const int64_t column_tiles = (p.cols + edge - 1) / edge;
    const int64_t panels = std::min(
        column_tiles, (wanted_units + p.batch * split.strips - 1) / (p.batch * split.strips));
    split.panel_cols = (column_tiles + panels - 1) / panels * edge;
    split.panels = (p.cols + split.panel_cols - 1) / split.panel_cols;
  }
  const bool streaming = vector && split.stores != TileStores::plain;
  const int64_t units = split.units();
  parallel_for(n, [&split, units, streaming](int t, int count) {
    const int64_t begin = units * t / count, end = units * (t + 1) / count;
    for (int64_t unit = begin; unit < end; ++unit) split.run(unit);
    if (streaming) stream_fence();
  });
}

void parallel_memcpy(void* dst, const void* src, int64_t bytes, int threads) {
  if (bytes <= 0) return;  // empty buffers may be null, which memcpy does not accept even for 0 bytes
  const int n = resolve_threads(threads, bytes);
  parallel_for(n, [=](int t, int count) {
    // Chunks start on 64-byte boundaries so that no two threads write one cache line.
    const int64_t chunk = (bytes / count + 63) / 64 * 64;
    const int64_t begin = std::min(bytes, chunk * t);
    const int64_t end = t + 1 == count ? bytes : std::min(bytes, begin + chunk);
    if (end > begin)
      std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                  static_cast<std::size_t>(end - begin));
  });
}

}  // namespace xpose::detail
