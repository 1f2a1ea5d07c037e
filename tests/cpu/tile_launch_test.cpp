// SPDX-License-Identifier: Apache-2.0
// The 2D tile kernels' launch choice (cuda/tile_launch.hpp) on the CPU: shapes, walks and forms
// for the GPUs the tuning was measured on (H100, H200) and ones this project has not run on
// (A100, L40S, B200, a device that reports nothing), from the published properties.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>

#include "core/problem.hpp"
#include "cuda/tile_launch.hpp"

namespace {

using xpose::cuda::DeviceInfo;
using xpose::cuda::select_tile_launch;
using xpose::cuda::TileLaunch;
using xpose::cuda::TilePointers;
using xpose::cuda::TileShapeId;
using xpose::cuda::TileWalk;

const DeviceInfo kH100{132, 3'352'320'000'000};  // 25 GB/s per SM: moderate
const DeviceInfo kH200{132, 4'915'200'000'000};  // 37 GB/s per SM: high
const DeviceInfo kA100{108, 2'039'000'000'000};
const DeviceInfo kL40S{142, 864'000'000'000};
const DeviceInfo kB200{148, 8'000'000'000'000};
const DeviceInfo kUnknown{0, 0};

xpose::detail::Transpose2D view(int64_t rows, int64_t cols, int elem_size, int64_t batch = 1) {
  xpose::detail::Transpose2D p;
  p.rows = rows;
  p.cols = cols;
  p.elem_size = elem_size;
  p.ld_in = cols;
  p.ld_out = rows;
  p.batch = batch;
  p.stride_in = p.stride_out = rows * cols;
  return p;
}

// Every row of both sides on 256 bytes (and so on 16 and on sectors), or on none of them.
constexpr TilePointers kAligned{true, true, true, true};
constexpr TilePointers kUnaligned{false, false, false, false};

TileLaunch launch(int64_t rows, int64_t cols, int size, const DeviceInfo& device, const TilePointers& pointers,
                  int64_t batch = 1) {
  return select_tile_launch(view(rows, cols, size, batch), device, pointers);
}

TEST(TileLaunch, AlignedViewsTakeTheLargeShapeOrTheCompactOne) {
  const TileLaunch square = launch(8192, 8192, 4, kH100, kAligned);
  EXPECT_EQ(square.shape, TileShapeId::aligned);
  EXPECT_EQ(square.rows, 64);
  EXPECT_EQ(square.cols, 64);
  EXPECT_EQ(square.walk, TileWalk::rows_fastest);
  EXPECT_FALSE(square.partial_rows);
  // 16 large tiles where 4 per SM are needed: the compact shape.
  EXPECT_EQ(launch(256, 256, 4, kH100, kAligned).shape, TileShapeId::aligned_compact);
  // The compact rule counts the device's SMs: 4 x 108 tiles are enough on an A100, not on an H100.
  EXPECT_EQ(launch(64 * 24, 64 * 20, 4, kA100, kAligned).shape, TileShapeId::aligned);
  EXPECT_EQ(launch(64 * 24, 64 * 20, 4, kH100, kAligned).shape, TileShapeId::aligned_compact);
  // A device that reports nothing counts as 132 SMs of moderate bandwidth.
  EXPECT_EQ(launch(64 * 24, 64 * 20, 4, kUnknown, kAligned).shape, TileShapeId::aligned_compact);
  EXPECT_EQ(launch(8192, 8192, 2, kUnknown, kAligned).shape, TileShapeId::aligned);
}

TEST(TileLaunch, HighBandwidthDevicesTakeTheirOwnShapes) {
  // f16 and f32 have shapes measured faster on an H200 (37 GB/s per SM); a B200 has more.
  for (const DeviceInfo& device : {kH200, kB200}) {
    EXPECT_EQ(launch(8192, 8192, 4, device, kAligned).shape, TileShapeId::aligned_device);
    EXPECT_EQ(launch(8192, 8192, 2, device, kAligned).shape, TileShapeId::aligned_device);
    EXPECT_EQ(launch(8191, 8193, 4, device, kUnaligned).shape, TileShapeId::unaligned_device);
    EXPECT_EQ(launch(8192, 8192, 1, device, kAligned).shape, TileShapeId::aligned);  // no u8 entry
    EXPECT_EQ(launch(256, 256, 4, device, kAligned).shape, TileShapeId::aligned_compact);  // too small for it
  }
  for (const DeviceInfo& device : {kH100, kA100, kL40S}) {
    EXPECT_EQ(launch(8192, 8192, 4, device, kAligned).shape, TileShapeId::aligned);
    EXPECT_EQ(launch(8191, 8193, 4, device, kUnaligned).shape, TileShapeId::unaligned);
  }
}

TEST(TileLaunch, OutputRowsOffSectorsTakeTheUnalignedShapes) {
  // Input rows on 16 bytes, output rows 16 bytes off 32-byte sectors (f32 with 4 mod 8 rows).
  TilePointers half{true, false, false, false};
  EXPECT_EQ(launch(8188, 8192, 4, kH100, half).shape, TileShapeId::unaligned);
  // 16-byte elements are aligned whatever the flags say (Plan::execute checks the pointers).
  EXPECT_EQ(launch(4096, 4096, 16, kH100, kUnaligned).shape, TileShapeId::aligned);
}

TEST(TileLaunch, TallU8ViewsOnTheDevicesItWasMeasuredOn) {
  // 1000003 x 300 u8: many short rows, off DRAM blocks. The tall shape (measured on an H100), whose
  // row tiles do not fit on the GPU while its 3 column tiles do: column tiles fastest.
  const TileLaunch tall = launch(1000003, 300, 1, kH100, kUnaligned);
  EXPECT_EQ(tall.shape, TileShapeId::unaligned_tall_u8);
  EXPECT_EQ(tall.rows, 256);
  EXPECT_EQ(tall.walk, TileWalk::columns_fastest);
  EXPECT_NE(launch(1000003, 300, 1, kH200, kUnaligned).shape, TileShapeId::unaligned_tall_u8);
  EXPECT_NE(launch(1000, 300, 1, kH100, kUnaligned).shape, TileShapeId::unaligned_tall_u8);  // too few rows
}

TEST(TileLaunch, FewRowTilesTheLastPartialTakeThePartialRowForm) {
  // 300 rows: three row tiles of the large unaligned f32 shape (128 rows), the last partial.
  const TileLaunch few = launch(300, 200003, 4, kH100, kUnaligned);
  EXPECT_EQ(few.shape, TileShapeId::unaligned_partial_rows);
  EXPECT_TRUE(few.partial_rows);
  EXPECT_TRUE(few.describe().find("partial-row form") != std::string::npos);
  // Whole row tiles, or many of them: the large shape without the form.
  EXPECT_EQ(launch(256, 200003, 4, kH100, kUnaligned).shape, TileShapeId::unaligned);
  EXPECT_FALSE(launch(256, 200003, 4, kH100, kUnaligned).partial_rows);
  EXPECT_EQ(launch(128 * 9 + 5, 200003, 4, kH100, kUnaligned).shape, TileShapeId::unaligned);
  // The H200's own unaligned f32 shape has the form too (64-row tiles: 5, the last partial).
  const TileLaunch device = launch(300, 200003, 4, kH200, kUnaligned);
  EXPECT_EQ(device.shape, TileShapeId::unaligned_device);
  EXPECT_TRUE(device.partial_rows);
  // Aligned shapes never take it.
  EXPECT_FALSE(launch(300, 200000, 4, kH100, kAligned).partial_rows);
}

TEST(TileLaunch, BatchesThatFillTheCompactTilesBetterTakeThem) {
  // 96 x 289 bf16 (output rows off 16 bytes): 56% of the H200's 64 x 128 tiles, 90% of the
  // compact 32 x 64 ones.
  EXPECT_EQ(launch(96, 289, 2, kH200, kUnaligned, 2306).shape, TileShapeId::unaligned_compact);
  // 288 x 112 u8 on 16 bytes: 33% of the aligned 128 x 256 tiles, 79% of the compact 64 x 64.
  EXPECT_EQ(launch(288, 112, 1, kH100, kAligned, 3968).shape, TileShapeId::aligned_compact);
  EXPECT_EQ(launch(288, 112, 1, kH200, kAligned, 3968).shape, TileShapeId::aligned_compact);
  // 328 x 129 f32: 57% against 75%, on every device (the large shape and the H200's own).
  EXPECT_EQ(launch(328, 129, 4, kH100, kUnaligned, 756).shape, TileShapeId::unaligned_compact);
  EXPECT_EQ(launch(328, 129, 4, kH200, kUnaligned, 756).shape, TileShapeId::unaligned_compact);
  // As full either way (361 x 256 bf16: 94%): the large shapes.
  EXPECT_EQ(launch(361, 256, 2, kH200, kUnaligned, 692).shape, TileShapeId::unaligned_device);
  EXPECT_EQ(launch(384, 361, 4, kH200, kUnaligned, 230).shape, TileShapeId::unaligned_device);
  // The H200's f16 shape needs its tiles 85% full: 189 x 324 fills both shapes' tiles 83%.
  EXPECT_EQ(launch(189, 324, 2, kH200, kUnaligned, 1045).shape, TileShapeId::unaligned_compact);
  // Unaligned u8 batches keep the large shape (its compact one lost where small_batch does not
  // take the view), and so do 8- and 16-byte elements.
  EXPECT_NE(launch(80, 992, 1, kH200, kUnaligned, 1612).shape, TileShapeId::unaligned_compact);
  EXPECT_EQ(launch(968, 84, 8, kH200, kAligned, 196).shape, TileShapeId::element_square);
  EXPECT_EQ(launch(100, 100, 16, kH200, kAligned, 2000).shape, TileShapeId::aligned);
  // Flat matrices of many tiles keep their shapes whatever the fill (300 rows: 78% of 128-row
  // tiles) and the batch.
  EXPECT_EQ(launch(300, 200003, 4, kH100, kUnaligned).shape, TileShapeId::unaligned_partial_rows);
  EXPECT_EQ(launch(300, 100000, 4, kH100, kUnaligned, 2).shape, TileShapeId::unaligned_partial_rows);
  // The medium matrices it was measured on: 2304 x 182 bf16 (72 large tiles) takes it, 141 x 2261
  // f32 (108) does not.
  EXPECT_EQ(launch(2304, 182, 2, kH200, kUnaligned, 114).shape, TileShapeId::unaligned_compact);
  EXPECT_EQ(launch(141, 2261, 4, kH200, kUnaligned, 75).shape, TileShapeId::unaligned_device);
}

TEST(TileLaunch, EightByteElementsTakeTheElementForm) {
  // Rows on DRAM blocks: the fine shape on the class it was measured on (H100), walking column
  // tiles fastest where the output rows are on blocks too.
  const TileLaunch fine = launch(8192, 8192, 8, kH100, kAligned);
  EXPECT_EQ(fine.shape, TileShapeId::element_fine);
  EXPECT_TRUE(fine.block_rows);
  EXPECT_EQ(fine.walk, TileWalk::columns_fastest);
  EXPECT_EQ(launch(8192, 8192, 8, kH100, TilePointers{true, true, true, false}).walk, TileWalk::rows_fastest);
  // Elsewhere the square shape, or the wide one when more row tiles than SMs.
  EXPECT_EQ(launch(8192, 8192, 8, kH200, kAligned).shape, TileShapeId::element_square);
  EXPECT_EQ(launch(16384, 16384, 8, kH200, kAligned).shape, TileShapeId::element_wide);
  // Rows off blocks: the square shape, element loads that fetch the whole block around them.
  const TileLaunch off = launch(8191, 8193, 8, kH100, kUnaligned);
  EXPECT_EQ(off.shape, TileShapeId::element_square);
  EXPECT_FALSE(off.block_rows);
  // Too few large tiles: the compact shape, with the loads the rows allow.
  EXPECT_EQ(launch(512, 512, 8, kH100, kAligned).shape, TileShapeId::element_compact);
  EXPECT_TRUE(launch(512, 512, 8, kH100, kAligned).block_rows);
}

TEST(TileLaunch, EveryChoiceHasAnInstantiationForItsElementSize) {
  // The shapes tile_kernel.cu and element_tile_kernel.cu instantiate per element size.
  const auto instantiated = [](TileShapeId shape, int size, bool block_rows) {
    switch (shape) {
      case TileShapeId::aligned:
      case TileShapeId::aligned_compact: return size != 8;
      case TileShapeId::aligned_device:
      case TileShapeId::unaligned_device: return size == 2 || size == 4;
      case TileShapeId::unaligned:
      case TileShapeId::unaligned_compact:
      case TileShapeId::unaligned_partial_rows: return size == 1 || size == 2 || size == 4;
      case TileShapeId::unaligned_tall_u8: return size == 1;
      case TileShapeId::element_square:
      case TileShapeId::element_compact: return size == 8;
      case TileShapeId::element_wide:
      case TileShapeId::element_fine: return size == 8 && block_rows;
    }
    return false;
  };
  std::mt19937_64 rng(34);
  std::set<TileShapeId> seen;
  for (int trial = 0; trial < 20000; ++trial) {
    const int size = 1 << (rng() % 5);
    const int64_t rows = 1 + static_cast<int64_t>(rng() % (trial % 2 ? 3000 : 3000000));
    const int64_t cols = 1 + static_cast<int64_t>(rng() % (trial % 3 ? 3000 : 300000));
    const DeviceInfo device = std::vector<DeviceInfo>{kH100, kH200, kA100, kL40S, kB200, kUnknown}[rng() % 6];
    const TilePointers pointers{(rng() & 1) != 0, (rng() & 1) != 0, (rng() & 1) != 0, (rng() & 1) != 0};
    const TileLaunch chosen = launch(rows, cols, size, device, pointers, 1 + static_cast<int64_t>(rng() % 3));
    seen.insert(chosen.shape);
    EXPECT_TRUE(instantiated(chosen.shape, size, chosen.block_rows))
        << rows << " x " << cols << " of " << size << " bytes: " << chosen.describe();
    EXPECT_GT(chosen.rows, 0);
    EXPECT_GT(chosen.threads, 0);
  }
  EXPECT_EQ(seen.size(), 12u) << "every shape is reached by some view";
}

TEST(TileLaunch, DescribeNamesShapeBlockAndWalk) {
  EXPECT_EQ(launch(8192, 8192, 4, kH100, kAligned).describe(), "aligned 64x64, 256 threads, 3 blocks/SM, rows fastest");
  EXPECT_EQ(launch(1000003, 300, 1, kH100, kUnaligned).describe(),
            "unaligned_tall_u8 256x128, 512 threads, 2 blocks/SM, columns fastest");
}

// Pointers at these addresses (only their alignment is read).
const void* at(uintptr_t address) { return reinterpret_cast<const void*>(address); }

// What pointers at given addresses allow a view, and the description
// Plan::describe() gives: the launch for pointers as cudaMalloc returns them, then the one for
// pointers off 16 bytes where it differs (never for 16-byte elements, which are always on 16).
TEST(TileLaunch, DescriptionsNameTheLaunchForEachPointerClass) {
  const TilePointers on_blocks = xpose::cuda::tile_pointers(view(8192, 8192, 4), at(0), at(0));
  EXPECT_TRUE(on_blocks.input_rows_on_16 && on_blocks.output_rows_on_sector && on_blocks.input_rows_on_dram_block &&
              on_blocks.output_rows_on_dram_block);
  const TilePointers off_16 = xpose::cuda::tile_pointers(view(8192, 8192, 4), at(4), at(4));
  EXPECT_FALSE(off_16.input_rows_on_16 || off_16.output_rows_on_sector || off_16.input_rows_on_dram_block ||
               off_16.output_rows_on_dram_block);
  const TilePointers odd = xpose::cuda::tile_pointers(view(8191, 8193, 4), at(0), at(0));  // ld 8193: rows off 16
  EXPECT_FALSE(odd.input_rows_on_16);
  EXPECT_FALSE(odd.output_rows_on_sector);  // ld_out 8191
  // Each side by its own address: input on a DRAM block, output one sector past one.
  const TilePointers sides = xpose::cuda::tile_pointers(view(8192, 8192, 4), at(512), at(256 + 32));
  EXPECT_TRUE(sides.input_rows_on_16 && sides.input_rows_on_dram_block && sides.output_rows_on_sector);
  EXPECT_FALSE(sides.output_rows_on_dram_block);

  EXPECT_EQ(xpose::cuda::describe_tile_launches(view(8192, 8192, 4), kH100),
            "aligned 64x64, 256 threads, 3 blocks/SM, rows fastest; pointers off 16 bytes: unaligned 128x64, 256 "
            "threads, 2 blocks/SM, rows fastest");
  EXPECT_EQ(xpose::cuda::describe_tile_launches(view(8191, 8193, 4), kH100),
            "unaligned 128x64, 256 threads, 2 blocks/SM, rows fastest");
  EXPECT_EQ(xpose::cuda::describe_tile_launches(view(4096, 4096, 16), kH100),
            "aligned 32x32, 256 threads, 3 blocks/SM, rows fastest");
  EXPECT_EQ(xpose::cuda::describe_tile_launches(view(8192, 8192, 4), kH200).rfind("aligned_device 64x64", 0), 0u);
}

}  // namespace
