// Tuning is data: the production tile shape per element size, with where its numbers came from.
// A tile is kRows x kCols elements of the input (rows x cols); the output tile is its transpose.
// Each output row segment is kRows * size bytes and each input row segment kCols * size bytes,
// at least 64 bytes, so that warp accesses cover whole 32-byte sectors.
//
// Two shapes per size: the large one moves 16-32 KiB per block and iteration (best when there are
// many tiles), the compact one a quarter of that, for problems too small to give every SM several
// large tiles. kMinBlocks caps registers so that that many blocks fit on an SM (1: no cap);
// kGeneralMinBlocks does the same for the instantiation that serves views that are not 16-byte
// aligned (odd leading dimensions), whose realigning loads hold twice the registers per load
// (for 1-, 2- and 4-byte elements: unaligned 8-byte views take the element form, below, and
// 16-byte elements are always aligned).
// kGeneralUnmasked: whether full tiles inside the view take the general form's unmasked variant
// (load_realigned_full / store_realigned_full: 40% fewer instructions). Fewer instructions did not
// mean faster by themselves: at the old register caps the unmasked variant was 7-10 points slower
// (ncu: the same DRAM bytes, but loads waited twice as long), and it needs fewer blocks per SM to
// win. Measured on an H100, 2026-11-22 (8191 x 8193, % of memcpy; docs/kernels.md v11):
//   f32: masked at 4 blocks 88.7-89.4; unmasked at 4 blocks 81-82, at 3 89.7-90.2, at 2 81.4;
//   u8: masked at 4 blocks 64-66; unmasked at 4 62-63, at 3 69-70, at 2 75.2-75.8;
//   f16: masked at 3 blocks 77.2-77.7; unmasked at 3 66-67, with the grid capped at 2 and 1
//   blocks per SM 53 and 42: f16 keeps the masked form.
// History, before v11 (the masked form everywhere; one more block than the caps of then, H100):
// f32 8191 x 8193 4 blocks +6-8% over 3 (5 spills); f16 8191 x 8193 3 blocks: +19% over 4 in one
// run, -4% in the other, so kept; u8 4 blocks +20-41% over 5. bench/results/2026-11-22-nvidia-h100-realign-experiments.txt.
// kGeneralMinBlocks and kGeneralUnmasked of the 8- and 16-byte shapes are not used: unaligned
// 8-byte views take the element form (below) and 16-byte views are always aligned.
// The compact shapes follow their large shape's choice (not measured on their own).
//
// Measured on an NVIDIA H200 (132 SMs, cudaMemcpy D2D 4.2 TB/s), 2026-11-22; docs/kernels.md has
// the runs behind each entry (bench/results/2026-11-22-nvidia-h200-*.json).
#pragma once

namespace xpose::cuda {

template <int Size, bool Compact> struct TileTuning;

// Blocks per SM is the lever that mattered most (docs/kernels.md, runs 5-7): 2 blocks per SM
// (what the compiler picks with no cap for these shapes) loses 10-15 points.
// u8 16384^2: 93% of memcpy with 4 blocks per SM, 90% with 3.
template <> struct TileTuning<1, false> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 4, kGeneralMinBlocks = 2; static constexpr bool kGeneralUnmasked = true; };
// f16 16384^2: 93-97% with 3 blocks per SM, 89% with 4, 80% with 2.
template <> struct TileTuning<2, false> { static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 3, kGeneralMinBlocks = 3; static constexpr bool kGeneralUnmasked = false; };
// f32 8192^2: 93-97% with 3 blocks per SM, 88% with 4, 81% with 2.
template <> struct TileTuning<4, false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 3, kGeneralMinBlocks = 3; static constexpr bool kGeneralUnmasked = true; };
// f64 8192^2: 64x64 96%, 64x32 95%, 32x64 95%, 32x32 86% (no cap: 2 blocks of 32 KiB).
template <> struct TileTuning<8, false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 1, kGeneralMinBlocks = 2; static constexpr bool kGeneralUnmasked = false; };
// c128 8192^2: 92-93% with 4 blocks per SM (but 64 registers spill 16 bytes), 82% with 2; 3 blocks: no spill.
template <> struct TileTuning<16, false> { static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 3, kGeneralMinBlocks = 3; static constexpr bool kGeneralUnmasked = false; };

template <> struct TileTuning<1, true> { static constexpr int kRows = 64, kCols = 64, kThreads = 64, kMinBlocks = 1, kGeneralMinBlocks = 1; static constexpr bool kGeneralUnmasked = true; };
template <> struct TileTuning<2, true> { static constexpr int kRows = 32, kCols = 64, kThreads = 64, kMinBlocks = 1, kGeneralMinBlocks = 1; static constexpr bool kGeneralUnmasked = false; };
template <> struct TileTuning<4, true> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1, kGeneralMinBlocks = 1; static constexpr bool kGeneralUnmasked = true; };
template <> struct TileTuning<8, true> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1, kGeneralMinBlocks = 1; static constexpr bool kGeneralUnmasked = false; };
template <> struct TileTuning<16, true> { static constexpr int kRows = 16, kCols = 16, kThreads = 64, kMinBlocks = 1, kGeneralMinBlocks = 1; static constexpr bool kGeneralUnmasked = false; };

// The element form for unaligned 8-byte views (element_tile_kernel.cu): one element per access.
// 8193 x 8191 f64 on an H100, 2026-11-22: 93.1% of memcpy with 2 blocks per SM (90 registers),
// 93.1-93.2% with 3 (75 registers). The same form for 4-byte elements: 80.6% at 4 blocks, 75% at
// 6, against 88% for the tile kernel's general form (docs/kernels.md v10).
template <bool Compact> struct ElementTileTuning;
template <> struct ElementTileTuning<false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 2; };
template <> struct ElementTileTuning<true> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1; };

// The production rule takes `deinterleave` for 4-byte elements up to this many columns and the
// tile kernel above (deinterleave_fits alone allows up to the tile's 63). H100, 2026-11-22, about
// 512 MB each, % of memcpy, deinterleave / tile: 33 columns 91.4 / 72.8, 40 94.3 / 79.6, 48
// 90.5 / 85.5, 56 77.5 / 90.7, 63 74.0 / 93.3 (bench/results/2026-11-22-nvidia-h100-deinterleave-columns.txt).
// Other sizes were not measured and keep the tile's width as their limit.
constexpr int kDeinterleaveMaxCols4 = 48;

// The compact shape is used when the large one gives fewer tiles than this many per SM.
constexpr int kLargeTilesPerSmForLarge = 4;

}  // namespace xpose::cuda
