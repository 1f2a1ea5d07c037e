// SPDX-License-Identifier: Apache-2.0
// Tuning is data: the production tile shapes per element size. Each entry states its rule and why
// in a line or two; docs/kernels.md explains the kernels, and docs/design/gpu-tuning-notes.md
// holds the measurements behind the entries (section numbers below).
// A tile is kRows x kCols elements of the input (rows x cols); the output tile is its transpose.
// Each output row segment is kRows * size bytes and each input row segment kCols * size bytes,
// at least 64 bytes, so that warp accesses cover whole 32-byte sectors.
//
// Two families of shapes, each with a large and a compact shape per size: TileTuning for views
// whose rows are 16-byte aligned, UnalignedTileTuning (below) for the others. The large shape
// moves 16-32 KiB per block and iteration (best when there are many tiles), the compact one a
// quarter of that, for problems too small to give every SM several large tiles. kMinBlocks caps
// registers so that that many blocks fit on an SM (1: no cap).
//
// Entries keyed by kFasterOn (cuda/device_info.hpp) were measured faster on one class of device
// by memory bandwidth per SM and slower on the other: the H100 and the H200 are both sm_90 with
// 132 SMs, but the H200's faster memory needs about 1.4x the bytes in flight.
#pragma once

#include <cstdint>

#include "cuda/device_info.hpp"

namespace xpose::cuda {

template <int Size, bool Compact> struct TileTuning;

// Bytes in flight per SM (tile bytes x blocks per SM) is the lever that matters most: uncapped,
// the compiler runs these tiles at 2 blocks per SM, 10-15 points below 3 (notes, section 1).
// u8: wider input rows at 2 blocks per SM (64 KiB in flight): 16384^2 95.5% of memcpy on an
// H100, against 93.2 for 128 x 128 at 4 blocks.
template <> struct TileTuning<1, false> { static constexpr int kRows = 128, kCols = 256, kThreads = 256, kMinBlocks = 2; };
// f16 and f32: 3 blocks per SM (48 KiB in flight); 2 and 4 measured slower (on the H200, 4 is
// faster since the kernel changed: DeviceTileTuning below).
template <> struct TileTuning<2, false> { static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 3; };
template <> struct TileTuning<4, false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 3; };
// 8-byte elements have no entry: all their views take the element form (ElementTileTuning, below).
// c128: 3 blocks per SM; at 4 the 64-register cap spills.
template <> struct TileTuning<16, false> { static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 3; };

// The large aligned shapes for high-bandwidth devices, per element size: the same tiles at 4
// blocks per SM (64 KiB in flight per SM against 48; register cap 64, no spills). Sizes without
// an entry have kFasterOn none: every device runs TileTuning's shape.
template <int Size>
struct DeviceTileTuning {
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::none;
};
// f32 on the H200: 8192^2 95.4 -> 96.7% of memcpy; on the H100 0.3% slower (notes, section 1).
template <>
struct DeviceTileTuning<4> {
  static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 4;
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::high;  // measured on an H200
};
// f16 on the H200: 16384^2 93.8 -> 96.4%, 256 x 3136 batch 64 91 -> 98%; on the H100 0.3-0.9% slower.
template <>
struct DeviceTileTuning<2> {
  static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 4;
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::high;
};

template <> struct TileTuning<1, true> { static constexpr int kRows = 64, kCols = 64, kThreads = 64, kMinBlocks = 1; };
template <> struct TileTuning<2, true> { static constexpr int kRows = 32, kCols = 64, kThreads = 64, kMinBlocks = 1; };
template <> struct TileTuning<4, true> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1; };
template <> struct TileTuning<16, true> { static constexpr int kRows = 16, kCols = 16, kThreads = 64, kMinBlocks = 1; };

// UnalignedTileTuning: the tile kernel's instantiation for views whose rows are not 16-byte
// aligned (odd leading dimensions), which takes only the general form (realigning loads and
// stores) for 1-, 2- and 4-byte elements; unaligned 8-byte views take the element form
// (ElementTileTuning, below), and 16-byte views are always aligned (Plan::execute rejects
// pointers not aligned to the element). kUnmasked: whether full tiles inside the view take the
// general form's unmasked variant (load_realigned_full / store_realigned_full). kPartialRowsForm:
// whether views of few row tiles whose last row tile is partial take an instantiation in which
// that tile, where it spans the tile's width, loads as the unmasked variant does (its halo in the
// same batch) and stores as the masked form (kPartialFormMaxRowTiles, below). The large shapes
// have none: such views take the partial-row shapes (UnalignedPartialRowsTuning, below).
// The rule: long output row segments (kRows * size: f32 512 bytes, f16 256), because the output
// side is what unaligned views pay for (notes, section 2: with the output padded to 16 bytes an
// odd view ran nearly as fast as an aligned one, with the input padded as slowly as both odd).
// The compact shapes follow the large ones' choice of form (not measured on their own).
template <int Size, bool Compact> struct UnalignedTileTuning;
// u8: 4 blocks per SM (64 registers, no spills): its warps wait on memory, and more of them hide
// it (H200 8191 x 8193 82.3 -> 85.5% of memcpy against 3 blocks). At that cap the partial-row
// instantiation spills and lost 8-17%, so this shape has none (UnalignedPartialRowsTuning<1>).
// f16: 512 threads at 2 blocks per SM (63 registers: 32 warps per SM, against 16 for 256 x 64 at
// 256 threads; 8191 x 8193 94.4 -> 96.1%, 300 x 1000003 63.5 -> 85.8% on an H100). f32: 128 x 64
// at 2 blocks per SM.
template <> struct UnalignedTileTuning<1, false> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 4; static constexpr bool kUnmasked = true, kPartialRowsForm = false; };
template <> struct UnalignedTileTuning<2, false> { static constexpr int kRows = 128, kCols = 128, kThreads = 512, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = false; };
template <> struct UnalignedTileTuning<4, false> { static constexpr int kRows = 128, kCols = 64, kThreads = 256, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = false; };

// The large unaligned shapes for high-bandwidth devices, per element size, as DeviceTileTuning is
// for the aligned ones: the views that take the large unaligned shape take these there (counted
// in the large shape's tiles, so small views route as elsewhere). The same 64 KiB in flight per SM
// in four blocks of 128 threads instead of two larger ones: blocks that alternate their load and
// store phases keep more loads in flight (H200: 8191 x 8193 f32 86 -> 91.5% of memcpy, f16 82.5 ->
// 86.7; on the H100 f32 1-8% and f16 15-22% slower; u8 1-10% slower on the H200). Notes, section 5.
template <int Size>
struct DeviceUnalignedTileTuning {
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::none;
};
template <>
struct DeviceUnalignedTileTuning<4> {
  static constexpr int kRows = 64, kCols = 64, kThreads = 128, kMinBlocks = 4;
  static constexpr bool kUnmasked = true, kPartialRowsForm = true;
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::high;  // measured on an H200
  static constexpr double kMinFill = 0;
};
// Its 121 registers leave it 25% occupancy, which holds only while its tiles are nearly full:
// below kMinFill the compact shape beat it by 3-13 points at the same fill (H200: 189 x 324 f16
// batch 54 -> 67% of memcpy, 427 x 202 56 -> 70, 192 x 196 71 -> 76; at 90-96% full it won by 2).
template <>
struct DeviceUnalignedTileTuning<2> {
  static constexpr int kRows = 64, kCols = 128, kThreads = 128, kMinBlocks = 4;
  static constexpr bool kUnmasked = true, kPartialRowsForm = true;
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::high;
  static constexpr double kMinFill = 0.85;
};

// A third unaligned shape, for u8 views of at least kMinRows rows and kMinTilesPerSm of its tiles
// per SM: 256 x 128 at 512 threads and 2 blocks per SM (64 registers; 32 warps per SM against the
// large shape's 24, and half the halo rows per tile row). On an H100 it is 8-15% faster than the
// large shape at 9.8 or more of its tiles per SM (8191 x 8193 63 -> 54 us) and slower below 9
// (kMinTilesPerSm) and on views of few rows (kMinRows). On an H200 it lost 2.6% on 8191 x 8193,
// hence kFasterOn: high-bandwidth devices keep the large shape.
// No partial-row instantiation (kPartialRowsForm): compiled into this shape's kernel it spilled
// at the 64-register cap (8191 x 8193 55.2 -> 65.0 us); and the shape takes only views of at least
// kMinRows rows: with a partial last row tile, more than kPartialFormMaxRowTiles.
struct UnalignedTallU8Tuning {
  static constexpr int kRows = 256, kCols = 128, kThreads = 512, kMinBlocks = 2;
  static constexpr bool kUnmasked = true, kPartialRowsForm = false;
  static constexpr int64_t kMinRows = 2048;
  static constexpr int kMinTilesPerSm = 9;
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::moderate;  // measured on an H100
};

// The unaligned shapes for views that would take the large unaligned shape but have few row tiles
// of it, the last partial (kPartialFormMaxRowTiles, below; counted in the large shape's tiles),
// per element size, with the partial-row instantiation. The large shapes have none, so that each
// size tunes these views on their own (the large u8 shape spills with it at its register cap).
// On an H200 the f16 and f32 views take DeviceUnalignedTileTuning's shapes instead, which have
// that instantiation.
//   u8: the large u8 shape's tile at 3 blocks per SM (80 registers), which does not spill.
//   f16, f32: the large shapes' tiles. The H200's f32 shape on the H100 gained only where the
//   last row tile is nearly empty (129 x 1000003: 22%) and lost where it is nearly full (up to
//   3%); a rule by the last row tile's fill is unmeasured (docs/kernels.md, open questions).
template <int Size> struct UnalignedPartialRowsTuning;
template <> struct UnalignedPartialRowsTuning<1> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 3; static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedPartialRowsTuning<2> { static constexpr int kRows = 128, kCols = 128, kThreads = 512, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedPartialRowsTuning<4> { static constexpr int kRows = 128, kCols = 64, kThreads = 256, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = true; };

// What the aligned family needs of output rows besides 16-byte vectors: that they start on whole
// 32-byte sectors (16-byte elements: their own size; those views are always 16-byte aligned and
// have no unaligned shape). The aligned shapes store exactly their output segments, so rows 16
// bytes off sectors leave every tile boundary inside a sector, written half by each tile; such
// views take the unaligned shapes, which store each aligned vector whole once (8191 x 8193 u8,
// ld_out 8208: 63.9 -> 54.2 us on an H100; views on sectors unchanged). Notes, section 2.
template <int Size> constexpr int64_t kOutputSectorBytes = Size < 16 ? 32 : 16;

// The compact shapes: the aligned family's compact shapes, no register cap.
template <> struct UnalignedTileTuning<1, true> : TileTuning<1, true> { static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedTileTuning<2, true> : TileTuning<2, true> { static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedTileTuning<4, true> : TileTuning<4, true> { static constexpr bool kUnmasked = true, kPartialRowsForm = true; };

// Views of unaligned shapes (kPartialRowsForm) with at most this many row tiles, the last of them
// partial, take the partial-row instantiation: there the last row tile is a large share of the
// tiles, and in the masked form it loaded its halo in a round trip of its own (300 x 1000003 f32
// 910 -> 883 us on an H100). Not for views of more row tiles, whose full tiles it slowed by
// 0.4-0.5% when compiled into the kernel that runs them. Counts between 8 and 24 row tiles were
// not measured.
constexpr int64_t kPartialFormMaxRowTiles = 8;

// The element form for 8-byte views (element_tile_kernel.cu): one element per access, which beat
// the general form on unaligned views (8193 x 8191 f64 87 -> 93% of memcpy) and the vector form on
// aligned ones. The large shapes run 512 threads at 2 blocks per SM (48 registers; twice the warps
// of 256 threads: 8193 x 8191 f64 94.0 -> 95.8%).
// Four shapes (element_tile_kernel.cu picks one; docs/kernels.md, the element form):
//   - square, 64 x 64: views off 256-byte blocks, and block-aligned views with at most as many row
//     tiles of 64 as the GPU has SMs (64 KiB in flight per SM).
//   - wide, 32 x 128: block-aligned views with more row tiles than that, where two 64 x 64 tiles
//     per SM would read only 512 bytes of each input row at a time; 32 x 128 tiles read 1 KiB
//     (16384^2 f64 96.7 -> 97.1% on an H100, unchanged on an H200; 8192^2 0.1-0.4 slower).
//   - compact, 32 x 32: problems of fewer than kLargeTilesPerSmForLarge large tiles per SM.
//   - fine, 32 x 32 at 256 threads and 5 blocks per SM (moderate-bandwidth devices, kFasterOn):
//     there, every block-aligned view that would take square or wide. See the entry below.
// Views off blocks keep 64 x 64: 128 x 32 gained 0.4 on the H100 and lost 1.2 on the H200.
enum class ElementShape { square, wide, compact, fine };
template <ElementShape Shape> struct ElementTileTuning;
template <> struct ElementTileTuning<ElementShape::square> { static constexpr int kRows = 64, kCols = 64, kThreads = 512, kMinBlocks = 2; };
template <> struct ElementTileTuning<ElementShape::wide> { static constexpr int kRows = 32, kCols = 128, kThreads = 512, kMinBlocks = 2; };
template <> struct ElementTileTuning<ElementShape::compact> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1; };
// The fine shape: 40 KiB of loads in flight per SM (8 KiB tiles, 5 blocks; 48 registers, no
// spills), which lowers the transpose floor: more bytes in flight spread the accesses further,
// fewer no longer cover the DRAM's latency (8192^2 f64 on an H100: 40 KiB 98.6% of memcpy, 48 or
// 64 KiB 97.8, 32 KiB 96.9; notes, sections 1 and 3). Column tiles first where the output rows
// start on 256-byte blocks (select_tile_launch), and the most shared-memory carveout
// (kMaxSharedCarveout: +0.2% here; it cost the tile kernels up to 16 points, so only this shape
// asks). On an H200 it lost 5-9 points (its memory wants more in flight), hence kFasterOn:
// high-bandwidth devices keep square and wide.
template <> struct ElementTileTuning<ElementShape::fine> {
  static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 5;
  static constexpr bool kMaxSharedCarveout = true;
  static constexpr BandwidthPerSm kFasterOn = BandwidthPerSm::moderate;  // measured on an H100
};

// The production rule takes the 4- to 16-byte `deinterleave` up to this many columns and the tile
// kernel above (deinterleave_fits alone allows fewer columns than the aligned large tile's width):
// where each measured faster on an H100 in sweeps of column counts (f32 deinterleave 90.5% of
// memcpy against the tile's 85.5 at 48 columns, 77.5 against 90.7 at 56). 8- and 16-byte elements
// keep the width of the aligned tile less one (f64 60 columns: 93 against 83). 1- and 2-byte
// elements are ruled by their output segments instead (deinterleave_preferred, skinny_kernels.cu).
constexpr int deinterleave_max_cols(int size) {
  switch (size) {
    case 4: return 48;
    case 8: return 63;
    default: return 31;  // 16 bytes
  }
}

// The compact shape is used when the large one gives fewer tiles than this many per SM.
constexpr int kLargeTilesPerSmForLarge = 4;

// ... or when it fills its tiles this much better (1-, 2- and 4-byte elements): a tile costs
// about its whole area, so matrices that leave much of the large tiles empty (288 x 112 u8: 33%
// full against 79%) run faster in the compact shape despite its lower speed on full tiles (7-14
// points under the large shapes on 8191 x 8193). H200, 60 batches of medium matrices, each shape
// forced: this ratio gained the most over all of them (288 x 112 u8 batch 33 -> 70% of memcpy,
// 96 x 289 bf16 54 -> 81, 328 x 129 f32 54 -> 70); 8-byte elements' compact shape lost even where
// it filled its tiles a third better (968 x 84 f64 90 -> 84), so the element form keeps its rule.
constexpr double kCompactFillAdvantage = 1.15;
// ... for matrices of at most this many large tiles. Compact won on matrices of up to 72 large
// tiles (2304 x 182 bf16 batch 114: 72 -> 82% of memcpy), lost 6 points at 108 (141 x 2261 f32
// batch 75) and 4-20 on every single flat or tall matrix of 33-450 rows or columns (thousands of
// tiles: 426651 x 150 u8 66 -> 48), whatever the batch.
constexpr int64_t kCompactFillMaxLargeTiles = 100;

}  // namespace xpose::cuda
