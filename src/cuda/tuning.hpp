// Tuning is data: the production tile shapes per element size, with where their numbers came from.
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
// TileTuning: measured on an NVIDIA H200 (132 SMs, cudaMemcpy D2D 4.2 TB/s), 2026-11-22, except
// the large u8 shape (H100 only, not re-measured on an H200); docs/kernels.md has the runs behind
// each entry (bench/results/2026-11-22-nvidia-h200-*.json, ...-h100-*).
#pragma once

#include <cstdint>

namespace xpose::cuda {

template <int Size, bool Compact> struct TileTuning;

// Blocks per SM is the lever that mattered most (docs/kernels.md, runs 5-7): for the f16 and f32
// shapes below, 2 blocks per SM (what the compiler picks with no cap) loses 10-15 points; the
// larger u8 tile runs best at 2.
// u8: on the H100 (2026-11-22, docs/kernels.md v12), 128 x 256 at 2 blocks per SM: 16384^2 95.5%
// of memcpy, 8192^2 95.5; 128 x 128 at 4 blocks (the H200's choice: 93% there, 90% at 3): 93.2
// and 93.9; 256 x 128 at 2-3 blocks 93.5 and 94-94.6. Wider input rows were what helped.
template <> struct TileTuning<1, false> { static constexpr int kRows = 128, kCols = 256, kThreads = 256, kMinBlocks = 2; };
// f16 16384^2: 93-97% with 3 blocks per SM, 89% with 4, 80% with 2.
template <> struct TileTuning<2, false> { static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 3; };
// f32 8192^2: 93-97% with 3 blocks per SM, 88% with 4, 81% with 2.
template <> struct TileTuning<4, false> { static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 3; };
// 8-byte elements have no entry: all their views take the element form (ElementTileTuning, below).
// c128 8192^2: 92-93% with 4 blocks per SM (but 64 registers spill 16 bytes), 82% with 2; 3 blocks: no spill.
template <> struct TileTuning<16, false> { static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 3; };

// The large aligned shapes for one device model, per element size: the same tiles at 4 blocks
// per SM (64 KiB in flight per SM against 48; register cap 64, no spills). The H200's bandwidth
// wants more bytes in flight (walk probe, docs/kernels.md v24). Sizes without an entry have
// kMeasuredFasterOn null: every device runs TileTuning's shape.
template <int Size>
struct DeviceTileTuning {
  static constexpr const char* kMeasuredFasterOn = nullptr;
};
// f32. 2026-11-23, us, `tile` against memcpy, alternating processes (docs/kernels.md v25;
// bench/results/2026-11-23-nvidia-h200-v25-experiments.txt, ...-h100-v25-experiments.txt):
//   H200, 2 rounds: 8192^2 134.3 -> 132.4 (95.4 -> 96.7% of memcpy), 16384^2 528.1 -> 520.7,
//   256 x 256 batch 1024 132.1-132.2 -> 131.1-131.2, 3136 x 256 batch 64 102.7-102.8 ->
//   101.9-102.2, 256 x 3136 batch 64 102.7 -> 100.3; 128 x 64 at 512 threads and 2 blocks, also 64
//   KiB: 133.8-134.2, 525.1-525.3, 131.5-131.7, 103.3-103.7, 102.1-102.2.
//   H100, 3 rounds, where it loses: 8192^2 185.7-185.8 -> 186.3-186.4, 16384^2 734.9-735.1 ->
//   736.4-736.8, 256 x 256 batch 1024 183.9-184.3 -> 184.8-185.4, 3136 x 256 141.2-141.6 ->
//   141.9-142.1, 256 x 3136 139.3-139.6 -> 140.1-140.6.
// (The entry above was measured on an H200 too, on 2026-11-22, when 4 blocks lost: 88% against
// 93-97; the kernel has changed since, v8-v15.)
template <>
struct DeviceTileTuning<4> {
  static constexpr int kRows = 64, kCols = 64, kThreads = 256, kMinBlocks = 4;
  static constexpr const char* kMeasuredFasterOn = "NVIDIA H200";  // the start of the device name
};
// f16. 2026-11-23, us, `tile` against memcpy, alternating processes (docs/kernels.md v26;
// bench/results/2026-11-23-nvidia-h{200,100}-v26-experiments.txt):
//   H200, 2 rounds: 16384^2 274.1-274.3 -> 266.2-266.4 (93.6-93.9 -> 96.4% of memcpy), 8192^2
//   71.9 -> 70.1, 256 x 256 batch 1024 69.4-70.8 -> 68.9, 3136 x 256 batch 64 54.4-54.8 ->
//   53.6-54.3, 256 x 3136 batch 64 56.7-56.8 -> 52.7-53.7 (90.6-91.2 -> 97.4-98.1%).
//   H100, 2 rounds, where it loses (call 3): 16384^2 374.0-374.2 -> 375.3, 8192^2 96.2-96.4 ->
//   97.1-97.2, 256 x 256 batch 1024 93.2 -> 94.0-94.1, 3136 x 256 72.4-72.8 -> 73.2-73.4,
//   256 x 3136 72.5-72.7 -> 73.1-73.2.
// (TileTuning<2, false>'s notes come from an H200 on 2026-11-22, when 4 blocks ran 89% against
// 93-97; the kernel has changed since, v8-v15.)
template <>
struct DeviceTileTuning<2> {
  static constexpr int kRows = 64, kCols = 128, kThreads = 256, kMinBlocks = 4;
  static constexpr const char* kMeasuredFasterOn = "NVIDIA H200";
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
// What decided these views before v15 was the output side: with the input's leading dimension
// padded to 16 bytes and the output's left odd, 8191 x 8193 ran as slowly as with both odd, and with the
// output's padded as fast as aligned (u8 84 / 93, f16 89 / 94, f32 92 / 94.5 % of memcpy;
// 8-byte elements, in the element form, the other way round). So the shapes here make output row
// segments long (kRows * size: f32 512 bytes, the most a warp's 32 vectors cover; u8 had 256 until
// v15, f16 512 until v18, when twice the warps with 256 bytes paid more), and every aligned vector of an output row is stored whole once (the halo,
// tile_kernel.cu). Since v15 the input loads fetch whole 256-byte blocks, which moved the balance
// for u8 to a smaller tile with more blocks per SM (below). (v15 also found that a padded input
// stride that is not a multiple of 256 bytes had cost f32 4 points by itself: device_types.cuh.)
// H100, 2026-11-22, 8191 x 8193, % of memcpy (docs/kernels.md v12, v13):
//   u8: 128 x 128 (the aligned shape of then) 74-76, 256 x 128 at 2 blocks per SM 83, 512 x 64
//   73, 256 x 64 at 3-4 blocks 81-83, 128 x 256 67; with whole vectors 88.3 (12345 x 6789: 89.5);
//   f16: 64 x 128 masked 77.7, 256 x 64 unmasked at 2 blocks 88.5, 128 x 64 unmasked 88.3, 128 x
//   128 masked 75; with whole vectors 91;
//   f32: 64 x 64 at 3 blocks 90, 128 x 64 at 3 92.5, 128 x 32 91.5, 64 x 128 89.6; with whole
//   vectors 92 at 3 blocks (4 bytes spilled), 93.4 at 2.
// With the input loads fetching whole 256-byte blocks (v15, 2026-11-23): f32 128 x 64 96.2-96.5
// (64 x 128 93.4 before the hint, not re-measured after); u8 256 x 128 at 2 blocks 92.0, 128 x 128
// at 3 blocks (80 registers) 93.5, 95.7 in the suite run (12345 x 6789: 93.3 -> 94.3; 300 x
// 1000003, whose second row tile of 256 held 44 rows: 57 -> 78), 256 x 64 at 3 89.6, 128 x 256 at
// 2 85.6.
// Twice the warps (v18, H100, 2026-11-23, us, two rounds each; calls 7 and 8 of
// bench/results/2026-11-23-nvidia-h100-v18-experiments.txt): f16 at 128 x 128 with 512 threads and
// 2 blocks per SM (63 registers, 32 warps per SM; 256 x 64 at 256 threads took 121 registers, 16
// warps): 8191 x 8193 101.5-101.7 -> 99.5-100.1 (94.2-94.6 -> 95.9-96.4% of memcpy), 12345 x 6789
// 125.2 -> 123.1-123.3, 16383 x 16385 382.2-382.5 -> 382.0-382.2, 300 x 1000003 632.9 -> 468.0
// (63.5 -> 85.8%), 1000003 x 301 708.3-708.5 -> 633.9-634.6, 3001 x 5003 30.6-30.7 -> 28.5-28.8,
// 8192^2 with both leading dimensions 8193 101.9 -> 100.4-100.5; 128 x 128 at 256 threads: faster
// than 256 x 64 on few-row views (484.0), equal or slower on large ones (101.5-101.6, 385.2-385.4);
// 256 x 64 at 512 threads: 100.5-100.6 on 8191 x 8193. On an H200 (call 10): 8191 x 8193 87.3-87.7
// -> 83.7-83.8, 12345 x 6789 106.7 -> 103.1, 300 x 1000003 611.6 -> 412.7-412.8, 3001 x 5003
// 27.4-27.5 -> 25.0-25.1. The same for u8 and f32 did not pay: u8 256 x 128 at 512 threads 8191 x
// 8193 55.5 -> 55.1-55.2, 16383 x 16385 200.1 -> 196.3-196.5, but 12345 x 6789 67.3 -> 67.6 and 300
// x 1000003 78.1 -> 66.7-67.0%; u8 128 x 256 at 512 threads 86% on 8191 x 8193 (128-byte output
// segments); f32 128 x 64 at 512 threads 190.7 -> 190.2 (8191 x 8193), 237.6-237.8 -> 237.5-237.8
// (12345 x 6789); f32 64 x 128 at 512 threads slower (192.2, 242.8).
// The compact shapes follow the large ones' choice of form (not measured on their own).
template <int Size, bool Compact> struct UnalignedTileTuning;
// u8 at 4 blocks per SM (v27, 2026-11-24; 64 registers, no spills, 32 warps per SM against 24;
// bench/results/2026-11-24-nvidia-h{200,100}-v27-experiments.txt, us, 3 -> 4 blocks, two
// alternating rounds): H200 8191 x 8193 46.4-46.9 -> 44.6-44.7 (82.3 -> 85.2-85.5% of memcpy),
// 12345 x 6789 57.1-57.6 -> 53.5-54.1, 16383 x 16385 166.0-166.3 -> 159.4-160.3, 4099 x 8193 27.1-27.2
// -> 25.3-25.4, 2049 x 8193 16.7-16.8 -> 15.7-15.8, 3001 x 5003 16.0 -> 15.0, 1000003 x 300 226.0-226.3
// -> 206.8-207.3, 100003 x 1000 72.0-73.0 -> 70.7-71.6, 43408 x 1216 36.8 -> 35.4-35.5 (ncu on
// 8191 x 8193: issue slots 46% busy, long-scoreboard stalls first at 36% warps active, so more
// warps, not fewer instructions); H100 2049 x 8193 18.0 -> 17.8, 3001 x 5003 17.2 -> 16.6, the
// views that take the tall shape there unchanged. At 4 blocks the partial-row instantiation spills
// (12-16 bytes) and views of few row tiles lost: H200 1000 x 200003 125.0-125.3 -> 145.9-146.2, 300 x
// 1000003 224.5-225.4 -> 250.6-251.5; H100 149.2-149.6 -> 161.8-162.0, 249.6-250.2 -> 274.2-274.5.
// So this shape has no partial-row instantiation, and those views take UnalignedPartialRowsTuning<1>
// (below), the 3-block shape they ran at before.
template <> struct UnalignedTileTuning<1, false> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 4; static constexpr bool kUnmasked = true, kPartialRowsForm = false; };
template <> struct UnalignedTileTuning<2, false> { static constexpr int kRows = 128, kCols = 128, kThreads = 512, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = false; };
template <> struct UnalignedTileTuning<4, false> { static constexpr int kRows = 128, kCols = 64, kThreads = 256, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = false; };

// The large unaligned shapes for one device model, per element size, as DeviceTileTuning is for
// the aligned ones: the views that take the large unaligned shape take these on that model (counted
// in the large shape's tiles, so small views route as elsewhere). The same 64 KiB in flight per SM,
// in four blocks of 128 threads instead of two of 256 (f32) or 512 (f16), 121-128 registers, no
// spills: on the H200 the odd f32 view was not moving extra bytes (ncu, DRAM bytes and L2 sectors
// as on the H100) but waiting on memory with 24% of warps active, and four blocks that alternate
// their load and store phases keep more of it busy than two. 2026-11-24, us, `tile` against
// memcpy, two alternating rounds (docs/kernels.md v28; bench/results/2026-11-24-nvidia-h{200,100}-
// v28-experiments.txt):
//   f32, H200 (calls 5 and 6): 8191 x 8193 151.7-153.3 -> 143.2-144.5 (86 -> 91.5% of memcpy),
//   12345 x 6789 189.6-190.7 -> 178.9-179.9, 16383 x 16385 589.1-589.3 -> 559.2-559.4, 2049 x 8193
//   44.1-44.5 -> 40.7-41.0, 300 x 1000003 752.0-757.2 -> 636.9-640.8 (75 -> 88.7%), 1000003 x 300
//   720.8-726.0 -> 708.3-715.0. 128 x 32 at 128 threads and 4 blocks: 87-87.3% on the odd views
//   (but 1000003 x 300 680.1-680.2); 64 x 32 at 64 threads and 8: 86.4-87.4. H100 (call 7), where
//   it loses: 8191 x 8193 190.1-190.2 -> 191.7-192.5, 12345 x 6789 237.4-237.6 -> 239.9, 1000003 x
//   300 866.9-867.4 -> 937.8-938.1 (but 300 x 1000003 882.6-882.8 -> 839.5-839.9).
//   f16, H200 (call 6): 8191 x 8193 84.1-84.3 -> 80.1-80.2 (82.5 -> 86.7%), 12345 x 6789
//   103.6-103.8 -> 98.0, 2049 x 8193 26.3-26.6 -> 25.2, 300 x 1000003 414.2-414.4 -> 346.6-346.7
//   (69.7 -> 83.3%), 1000003 x 301 429.2-429.4 -> 408.6-409.1. H100 (call 7): 15-22% slower
//   (8191 x 8193 99.1-99.3 -> 121.0-121.7).
//   u8 (128 x 128 at 128 threads and 4 blocks against 256 threads), H200 (call 6): 1-10% slower, so
//   no entry.
template <int Size>
struct DeviceUnalignedTileTuning {
  static constexpr const char* kMeasuredFasterOn = nullptr;
};
template <>
struct DeviceUnalignedTileTuning<4> {
  static constexpr int kRows = 64, kCols = 64, kThreads = 128, kMinBlocks = 4;
  static constexpr bool kUnmasked = true, kPartialRowsForm = true;
  static constexpr const char* kMeasuredFasterOn = "NVIDIA H200";  // the start of the device name
};
template <>
struct DeviceUnalignedTileTuning<2> {
  static constexpr int kRows = 64, kCols = 128, kThreads = 128, kMinBlocks = 4;
  static constexpr bool kUnmasked = true, kPartialRowsForm = true;
  static constexpr const char* kMeasuredFasterOn = "NVIDIA H200";
};

// A third unaligned shape, for u8 views of at least kMinRows rows and kMinTilesPerSm of its tiles
// per SM: 256 x 128 at 512 threads and 2 blocks per SM (64 registers; 32 warps per SM against the
// large shape's 24, and half the halo rows per tile row). H100, 2026-11-23, us, alternating
// rounds (calls 12 and 13 in bench/results/2026-11-23-nvidia-h100-v19-experiments.txt):
// 16383 x 16385 199.3-200.3 -> 196.3-196.7 (92.2 -> 93.7% of memcpy), 100003 x 1000 90.9-92.6 ->
// 82.4-82.6 (79.6 -> 88.4), 1000003 x 300 264.4 -> 252.6-253.1 (77.4 -> 81.0), 8191 x 8193
// 55.4-56.1 -> 55.0-55.4 (93.0-93.9 -> 93.9-94.4), 12345 x 6789 67.1-67.4 -> 67.2-67.6 (a tie).
// Views with few tiles of it lose: 2049 x 8193 18.7-18.8 -> 19.9-20.2 (4.4 tiles per SM), 3001 x
// 5003 18.0-18.1 -> 19.5-19.7 (3.6 per SM), hence kMinTilesPerSm (8 then: the winners had 15.8 or
// more). Against the large u8 shape at 4 blocks per SM (v27, H100, 2026-11-24, us, large -> tall,
// two alternating rounds; calls 5 and 9 of bench/results/2026-11-24-nvidia-h100-v27-experiments.txt;
// tall tiles per SM on 132 SMs in brackets): 4099 x 8193 (8.4) 30.3-30.5 -> 31.2-31.4, 2049 x 16385
// (8.8) 30.4-31.1 -> 31.3-31.6, but 5121 x 8193 (9.8) 40.1-40.2 -> 37.0, 3001 x 16385 (11.7)
// 46.8-47.3 -> 42.4-42.6, 6143 x 8193 (11.8) 47.1-47.3 -> 42.8-42.9, 8191 x 8193 (15.8) 62.9-63.5 ->
// 53.9-54.0, 12345 x 6789 (20.0) 75.4-76.1 -> 66.1; hence 9. Views of few rows lose too (300 x
// 1000003: 78.1 -> 67%, v18's call 7; its second row tile of 256 holds 44 rows), hence kMinRows.
// On an H200 it loses where the H100 gains (2026-11-23, the shapes2d and tall2d suites at
// 19981d7 without it and at f327dc4 with it, bench/results/...-h200-{shapes2d,tall2d}-v19{,c}.*):
// 8191 x 8193 47.94 -> 49.18 us (81.7 -> 79.1% of memcpy), 1000003 x 300 224.8 -> 224.9, while
// 100003 x 1000 gained 72.3 -> 70.9; hence kMeasuredFasterOn: devices of other models keep the
// large shape (other H100 models too: not measured).
// No partial-row instantiation (kPartialRowsForm): with that path compiled into this shape's kernel
// (v23, H100, call 2 of bench/results/2026-11-23-nvidia-h100-v23-experiments.txt) ptxas spilled 8
// bytes at its 64-register cap and 8191 x 8193 ran 55.2 -> 65.0 us; and the shape takes only views
// of at least kMinRows rows: with a partial last row tile, more than kPartialFormMaxRowTiles.
struct UnalignedTallU8Tuning {
  static constexpr int kRows = 256, kCols = 128, kThreads = 512, kMinBlocks = 2;
  static constexpr bool kUnmasked = true, kPartialRowsForm = false;
  static constexpr int64_t kMinRows = 2048;
  static constexpr int kMinTilesPerSm = 9;
  static constexpr const char* kMeasuredFasterOn = "H100 80GB HBM3";  // the device name it was measured on
};

// The unaligned shapes for views that would take the large unaligned shape but have few row tiles
// of it, the last partial (kPartialFormMaxRowTiles, below; counted in the large shape's tiles),
// per element size, with the partial-row instantiation. The large shapes have none, so that each
// size tunes these views on their own (the large u8 shape spills with it at its register cap).
// On an H200 the f16 and f32 views take DeviceUnalignedTileTuning's shapes instead, which have
// that instantiation.
//   u8: the large u8 shape's tile at 3 blocks per SM (80 registers), as before v27 (see
//   UnalignedTileTuning<1, false>).
//   f16: the large f16 shape (v18, above), with the instantiation it had until v28.
//   f32: the large f32 shape. The H200's (64 x 64 at 128 threads and 4 blocks per SM) measured
//   faster on the H100 only where the last row tile of 128 is nearly empty: 2026-11-24, H100, us,
//   two alternating rounds (docs/kernels.md v28, call 12): 129 x 1000003 525.7 -> 409.9-410.2, 300 x
//   1000003 882.0-882.2 -> 839.5-840.4, but 1000 x 200003 556.2-556.3 -> 558.0-558.7, 500 x 400003
//   558.9-559.2 -> 566.5-567.6, and 300 x 100003 (ld_in 100011, ld_out 307) 105.9 -> 108.8-109.8.
//   A rule by the last row tile's fill was not measured further.
template <int Size> struct UnalignedPartialRowsTuning;
template <> struct UnalignedPartialRowsTuning<1> { static constexpr int kRows = 128, kCols = 128, kThreads = 256, kMinBlocks = 3; static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedPartialRowsTuning<2> { static constexpr int kRows = 128, kCols = 128, kThreads = 512, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedPartialRowsTuning<4> { static constexpr int kRows = 128, kCols = 64, kThreads = 256, kMinBlocks = 2; static constexpr bool kUnmasked = true, kPartialRowsForm = true; };

// What the aligned family needs of output rows besides 16-byte vectors: that they start on whole
// 32-byte sectors (16-byte elements: their own size; those views are always 16-byte aligned and
// have no unaligned shape). Views whose output rows are 16 bytes off sectors take the unaligned
// shapes instead. H100, 2026-11-23, 8191 x 8193 u8, us (docs/kernels.md v21): the aligned kernel
// with ld_in / ld_out 8448 / 8208 63.1-63.4 and 8208 / 8208 63.2-63.7, against 54.3-54.5 with the
// output on sectors (8448 / 8224); the unaligned kernel 54.7-55.0 at 8193 / 8208. With this rule
// (H100, 2026-11-23, docs/kernels.md v22, 8191 x 8193, ld_in / ld_out, us, before -> after): u8
// 8208 / 8208 63.9 -> 54.0-54.3, u8 8448 / 8208 63.3-63.5 -> 54.8-55.1, f16 8200 / 8200 116.2-116.6
// -> 99.4; views on sectors unchanged (u8 8224 / 8224 53.9, f32 8196 / 8196 191.4-191.8).
template <int Size> constexpr int64_t kOutputSectorBytes = Size < 16 ? 32 : 16;

// The compact shapes: the aligned family's compact shapes, no register cap.
template <> struct UnalignedTileTuning<1, true> : TileTuning<1, true> { static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedTileTuning<2, true> : TileTuning<2, true> { static constexpr bool kUnmasked = true, kPartialRowsForm = true; };
template <> struct UnalignedTileTuning<4, true> : TileTuning<4, true> { static constexpr bool kUnmasked = true, kPartialRowsForm = true; };

// Views of unaligned shapes (kPartialRowsForm) with at most this many row tiles, the last of them
// partial, take the partial-row instantiation: there the last row tile is a large share of the
// tiles, and in the masked form it loaded its halo in a round trip of its own. Not for views of
// more row tiles, whose full tiles it slowed when compiled into the kernel that runs them (it
// changed the full tiles' code). H100, 2026-11-23 (docs/kernels.md v23; calls 2, 3 and 5 of
// bench/results/2026-11-23-nvidia-h100-v23-experiments.txt), us, without -> with, two alternating
// rounds. The instantiation as committed (call 5): 300 x 1000003 (3 row tiles of 128, the last 44
// rows) f32 910.1-910.4 -> 882.9-883.3 (87.6 -> 90.2% of memcpy), u8 261.8-262.0 -> 253.3-253.9
// (78.1 -> 80.6), f16 467.6-467.7 -> 465.6-466.0; 1000 x 200003 f32 (8 row tiles, the last 104
// rows) 556.2-556.3 -> 556.6-557.0. The path compiled into every unaligned kernel instead (calls 2
// and 3): 3001 x 5003 f32 (24 row tiles) 48.75-48.96 -> 48.72-48.83, 2049 x 8193 u8 (17) 18.6 ->
// 18.5-18.7, but 8191 x 8193 f32 (64) 190.7-190.9 -> 191.7-191.8, 12345 x 6789 f32 (97)
// 238.0-238.1 -> 238.9-239.0, and the tall u8 shape's views 18-19% slower. Row counts between 8
// and 24 row tiles were not measured.
constexpr int64_t kPartialFormMaxRowTiles = 8;

// The element form for 8-byte views (element_tile_kernel.cu): one element per access.
// Until v17 its large shape was 64 x 64 for every view (still so for most).
// Unaligned views at 64 x 64, 8193 x 8191 f64 on an H100, 2026-11-22: 93.1% of memcpy with 2
// blocks per SM (90 registers), 93.1-93.2% with 3 (75 registers). With whole 256-byte blocks
// fetched (v15, 2026-11-23): 256 threads at 2 blocks 94.0-94.3, at 3 94.1; 512 threads at 2 blocks
// (48 registers, 8 loads per thread, twice the warps) 95.8 (12345 x 6789: 92.5-92.8 -> 94.5). The
// same form for 4-byte elements: 80.6% at 4 blocks, 75% at 6, against 88% for the tile kernel's
// general form (docs/kernels.md v10).
// Aligned views (v16, 2026-11-23, 8192^2 / 16384^2 f64, % of memcpy; the tile kernel's 64 x 64
// vector form before, 256 threads, 2 blocks per SM: H100 97.5-97.6 / 96.6, H200 96.2 / 92.8):
// 64 x 64 at 512 threads and 2 blocks with block-fetching loads H100 97.7 / 96.6, H200 97.7-98.1 /
// 94.1; with plain loads (what block-aligned rows take) H100 97.6-97.8 / 96.8, H200 98.1-98.2 /
// 94.4. Walking column tiles fastest with plain loads: H100 97.7-97.8 / 97.0, but H200 94.5 /
// 88.8, so not kept. The seed tiled_padded_rows in the same runs: H100 97.7-97.9 / 96.9, H200 95.3
// / 88.8. Other shapes on the H100, block-fetching loads: 32 x 32 at 256 threads 96.4-96.5 / 95.0
// (8 blocks per SM: 97.3 / 96.4), 32 x 64 and 64 x 32 at 4 blocks 97.3-97.5 / 96.4-96.5. The
// vector form at other shapes and caps was no faster: 64 x 64 at 3 blocks 97.2 / 96.3, at 512
// threads 97.5 / 96.6, 32 x 64 and 64 x 32 at 4 blocks 97.2-97.4 / 96.4-96.5, 32 x 32 at 128
// threads and 8 blocks 97.3 / 96.3-96.4; with the column-tiles-fastest walk, 64 x 64 97.2 / 96.4
// and 32 x 32 97.0 / 96.3.
// The floor under all of these (docs/kernels.md v24, bench/probes/walk_bands.cu): the tiles in flight
// span the whole matrix on one side of any transpose, which costs about 2.5% against a copy on the
// H100 (8192^2 f64: copy 100.4% of memcpy, transposes walked either way 97.5-98), with 48-64 KiB of
// loads in flight per SM, as every shape above holds. With 40 KiB the floor is lower (v29: 98.6):
// the fine shape below.
// Three shapes, and a fourth on the H100 (element_tile_kernel.cu picks one; v17, 2026-11-23, % of
// memcpy; calls 4, 6 and 9 in bench/results/2026-11-23-nvidia-h100-v17-experiments.txt):
//   - square, 64 x 64: every view off 256-byte blocks, and block-aligned views with at most as many
//     row tiles of 64 as the GPU has SMs. With 2 blocks per SM the tiles in flight then span two
//     columns of tiles or more: 1 KiB of every input row at a time.
//   - wide, 32 x 128: block-aligned views with more row tiles than that, where the 64 x 64 tiles
//     in flight cover less than two columns of tiles and read only 512 bytes of many input rows at
//     a time (16384^2: 264 tiles over 256 row tiles); 32 x 128 tiles read 1 KiB of each.
//     H100: 16384^2 f64 96.7 -> 97.1 (1468.9 -> 1461.9 us, both rounds; the suite run 97.3); H200:
//     95.0 either way. Not for 8192^2 (128 row tiles on 132 SMs), where it lost: H100 97.7-97.9 ->
//     97.6-97.8, H200 98.3-98.6 -> 98.2. Against the seed tiled_padded_rows in the same process
//     (call 9, us, 8192^2 / 16384^2): the seed 368.4-368.9 / 1466.2-1467.1, 64 x 64 368.8-368.9 /
//     1469.4-1469.6, 32 x 128 369.5-369.6 / 1462.2-1462.5. The rule between the two is set by
//     these two sizes; sizes between them were not measured. Other shapes for 16384^2 on the H100:
//     32 x 128 at 256 threads and 3 blocks 96.8; 128 x 32 96.6 (any count); 32 x 64 at 4 blocks
//     96.4; 64 x 64 at 1024 threads 83.2; 64 x 128 at 1024 threads (dynamic shared memory)
//     1459.6-1460.4 us but 370.9-371.0 on 8192^2.
//   - compact, 32 x 32: problems of fewer than kLargeTilesPerSmForLarge large tiles per SM.
// Views off blocks keep 64 x 64: 128 x 32 (1 KiB output row segments) ran 8193 x 8191 f64
// 95.8-95.9 -> 96.2-96.3 on the H100 but 93.5-93.8 -> 92.3-92.4 on the H200; 32 x 128 86 on the
// H100 (256-byte output segments, each straddling sectors on an odd output stride).
//   - fine, 32 x 32 at 256 threads and 5 blocks per SM (H100 only, kMeasuredFasterOn): on that
//     model, every block-aligned view that would take square or wide. See the entry below.
enum class ElementShape { square, wide, compact, fine };
template <ElementShape Shape> struct ElementTileTuning;
template <> struct ElementTileTuning<ElementShape::square> { static constexpr int kRows = 64, kCols = 64, kThreads = 512, kMinBlocks = 2; };
template <> struct ElementTileTuning<ElementShape::wide> { static constexpr int kRows = 32, kCols = 128, kThreads = 512, kMinBlocks = 2; };
template <> struct ElementTileTuning<ElementShape::compact> { static constexpr int kRows = 32, kCols = 32, kThreads = 128, kMinBlocks = 1; };
// The fine shape: fewer bytes in flight per SM, which lowers the transpose floor above (docs/kernels.md
// v29). The seed tiled_padded_rows (the same 32 x 32 tile and 256 threads; 40 registers, so 6 blocks
// per SM, 48 KiB of loads in flight) ran 8192^2 f64 at 97.9% of memcpy at its 6 blocks, 98.7 capped
// at 5 (40 KiB), 96.9 at 4 and 90.1 at 3: below 40 KiB per SM the loads no longer cover the DRAM's
// latency, above it the extra tiles in flight spread the accesses further (v24's cost). Our 64 x 64
// square holds 64 KiB per SM (2 blocks). This shape: the register cap of 5 blocks (48 registers,
// no spills; a cap of 6 forces 40 registers, which spilled and ran 87%) and:
//   - the walk: column tiles fastest where the output rows start on 256-byte blocks, as the seed
//     walks (reads in a band of row tiles, each output segment one whole block); rows fastest
//     elsewhere, where neighbouring tiles share the output's blocks: 6000 x 8192 (rows of 48000
//     bytes) ran 94.6% of memcpy walking columns, 97.0 walking rows (head 96.8).
//   - the most shared memory the SM can carve out (kMaxSharedCarveout): 8192^2 366.8-366.9 ->
//     366.2-366.3 us; the seed at its 6 blocks 368.6 -> 366.9. The tile kernels lost with it (8191
//     x 8193 f32 96.8 -> 83.4%, u8 96.1 -> 80.4; c128 and the aligned squares within 0.3), so only
//     this shape asks for it.
// H100, 2026-11-24, % of memcpy, head (square or wide) -> this shape (calls 2 and 3 of
// bench/results/2026-11-24-nvidia-h100-v29-experiments.txt): 8192^2 97.8 -> 98.6 (368.6 -> 366.2
// us; the seed 368.5 in the same processes, 200 runs each), 4096^2 97.2 -> 98.3, 2048^2 96.5 ->
// 97.6, 16384^2 (wide) 97.3 -> 97.6, 12288^2 97.3 -> 97.4, 4096^2 batch 8 97.7 -> 98.6, 8192^2
// batch 2 97.7 -> 98.1, 256^2 batch 1024 99.4 -> 101.7, 1024^2 batch 16 99.4 -> 100.1, 8192 x 4096
// 97.1 -> 97.7, 8192 x 6144 96.4 -> 97.2, 16384 x 2048 97.3 -> 97.9, 10000 x 8192 96.1 -> 96.7;
// within 0.3 either way: 4096 x 8192, 6144 x 8192, 2048 x 16384, 6000 x 8192, 8192^2 with padded
// rows (ld 8224: 369.5 -> 368.0 us; output ld 8208: 370.6 -> 371.4). On an H200 the same shape lost
// 5-9 points (call 6 of bench/results/2026-11-24-nvidia-h200-v29-experiments.txt: 8192^2 98.3 ->
// 90.4, 4096^2 96.1 -> 89.6, 16384^2 94.9 -> 88.1): that GPU needs more bytes in flight (v28).
// Devices of other models keep square and wide (other H100 models too: not measured).
template <> struct ElementTileTuning<ElementShape::fine> {
  static constexpr int kRows = 32, kCols = 32, kThreads = 256, kMinBlocks = 5;
  static constexpr bool kMaxSharedCarveout = true;
  static constexpr const char* kMeasuredFasterOn = "H100 80GB HBM3";  // the device name it was measured on
};

// The production rule takes `deinterleave` up to this many columns and the tile kernel above
// (deinterleave_fits alone allows fewer columns than the aligned large tile's width). H100, % of
// memcpy, deinterleave / tile, about 256-512 MB each:
//   4-byte elements (2026-11-22, bench/results/2026-11-22-nvidia-h100-deinterleave-columns.txt):
//   33 columns 91.4 / 72.8, 40 94.3 / 79.6, 48 90.5 / 85.5, 56 77.5 / 90.7, 63 74.0 / 93.3;
//   1- and 2-byte elements (2026-11-23, the first v14 deinterleave, 23ca127, docs/kernels.md;
//   bench/results/2026-11-23-nvidia-h100-deinterleave-sizes.txt): u8 33 columns 63 / 32, 64
//   55.5 / 32, 100 59 / 68, 127 60 / 76; f16 33 85 / 56, 60 78 / 80.6, 100 48 / 69, 127 82 / 74.
//   The final v14 (a9009e6): u8 33 columns 89, 64 56; f16 60 80.6 / 80.6 (not re-swept above).
//   8- and 16-byte elements keep the width the aligned tile had then, less one (f64 60 columns
//   93 / 83, c128 31 columns 93 / 91 in the same run).
constexpr int deinterleave_max_cols(int size) {
  switch (size) {
    case 1: return 64;
    case 2: return 60;
    case 4: return 48;
    case 8: return 63;
    default: return 31;
  }
}

// Blocks per SM the deinterleave kernel (256 threads, 32 KiB of staging) asks registers to allow
// for; 0: no cap. The 1-byte kernel takes 77 registers uncapped (3 blocks per SM; 64 before the
// loads took the L2 hint of v15); capped at 5 blocks (48 registers), H100, 2026-11-23, % of
// memcpy: 8388608 x 33 u8 82.8 -> 89.0, 4194304 x 63 78.3 -> 86.9, 8388607 x 17 75.3 -> 77.0 (4
// blocks: 87.3, 84.5, 76.7). Not for the others: 2-byte at 5 blocks (48 registers, spilling)
// 4194304 x 33 f16 92.5 -> 89.6, x 59 93.6 -> 89.9, 8388607 x 17 90.1 -> 73.4; every size at 5
// blocks: 4194304 x 33 f32 95.0 -> 93.4 (docs/kernels.md v16).
constexpr int deinterleave_min_blocks(int size) { return size == 1 ? 5 : 0; }

// The compact shape is used when the large one gives fewer tiles than this many per SM.
constexpr int kLargeTilesPerSmForLarge = 4;

}  // namespace xpose::cuda
