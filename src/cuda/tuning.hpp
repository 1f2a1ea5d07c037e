// Tuning is data: the production tile shape per element size, with where its numbers came from.
// A tile is kTileRows x kTileCols elements of the input (rows x cols); the output tile is its
// transpose. Each output row segment is kTileRows * size bytes and each input row segment
// kTileCols * size bytes; both are at least 128 bytes so that every warp access covers whole
// 32-byte sectors.
#pragma once

namespace xpose::cuda {

template <int Size> struct TileTuning;

// Hopper (sm_90), measured on an H100 80GB HBM3; see docs/kernels.md for the runs.
// kMinBlocks caps registers so that that many blocks fit on an SM (4 x 256 threads: 64 registers).
template <> struct TileTuning<1> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 4; };
template <> struct TileTuning<2> { static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 4; };
template <> struct TileTuning<4> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 4; };
template <> struct TileTuning<8> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 4; };
template <> struct TileTuning<16> { static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 4; };

}  // namespace xpose::cuda
