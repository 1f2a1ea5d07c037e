// Tuning is data: the production tile shape per element size, with where its numbers came from.
// A tile is kRows x kCols elements of the input (rows x cols); the output tile is its transpose.
// Each output row segment is kRows * size bytes and each input row segment kCols * size bytes,
// at least 64 bytes, so that warp accesses cover whole 32-byte sectors.
//
// Two shapes per size: the large one moves 16-32 KiB per block and iteration (best when there are
// many tiles), the compact one a quarter of that, for problems too small to give every SM several
// large tiles. kMinBlocks caps registers so that that many blocks fit on an SM (1: no cap).
//
// Measured on an NVIDIA H200 (132 SMs, cudaMemcpy D2D 4.2 TB/s), 2026-11-22; docs/kernels.md has
// the runs behind each entry (bench/results/2026-11-22-nvidia-h200-*.json).
#pragma once

namespace xpose::cuda {

template <int Size, bool Compact> struct TileTuning;

// u8 16384^2: 93% of memcpy with the register cap (4 blocks), 90% without.
template <> struct TileTuning<1, false> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 4; };
// f16 16384^2: 97% without a cap, 89% with 4 blocks.
template <> struct TileTuning<2, false> { static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 1; };
// f32 8192^2 and 16384^2: 95-97%; with the 4-block cap 88%.
template <> struct TileTuning<4, false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 1; };
// f64 8192^2: 64x64 96%, 64x32 95%, 32x64 95%, 32x32 86%.
template <> struct TileTuning<8, false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 1; };
// c128 8192^2: 93%.
template <> struct TileTuning<16, false> { static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 1; };

template <> struct TileTuning<1, true> { static constexpr int kRows = 64, kCols = 64, kThreads = 64, kMinBlocks = 1; };
template <> struct TileTuning<2, true> { static constexpr int kRows = 32, kCols = 64, kThreads = 64, kMinBlocks = 1; };
template <> struct TileTuning<4, true> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1; };
template <> struct TileTuning<8, true> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1; };
template <> struct TileTuning<16, true> { static constexpr int kRows = 16, kCols = 16, kThreads = 64, kMinBlocks = 1; };

// The compact shape is used when the large one gives fewer tiles than this many per SM.
constexpr int kLargeTilesPerSmForLarge = 4;

}  // namespace xpose::cuda
