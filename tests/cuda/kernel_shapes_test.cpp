// SPDX-License-Identifier: Apache-2.0
// Every CUDA kernel in kernel_names(Device::cuda) ("auto" included; the list grows with the
// backend) on every element size, over square, odd, skinny, strided, batched and grid-limit
// shapes, against the CPU reference with padding and guards checked. A kernel that answers
// unsupported for a case skips it; the copy baselines are checked as copies on packed shapes.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"

namespace {

using xpose::DType;
using xpose::Matrix;

struct KernelAndType {
  std::string kernel;
  DType type;
};

// How gtest prints the parameter in its output ("threaded f32").
void PrintTo(const KernelAndType& c, std::ostream* out) {
  *out << c.kernel << " " << xpose::to_string(c.type);
}

// One DType per element size; f32, f64 and c128 are also the types cuBLAS geam takes.
std::vector<KernelAndType> every_kernel_and_size() {
  std::vector<KernelAndType> cases;
  for (const std::string& kernel : xpose::kernel_names(xpose::Device::cuda))
    for (DType type : {DType::u8, DType::u16, DType::f32, DType::f64, DType::c128})
      cases.push_back({kernel, type});
  return cases;
}

class TransposeCudaKernel : public ::testing::TestWithParam<KernelAndType> {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }

  // Whether the kernel under test walks tiles by device_types.cuh's tile_walk (the production tile
  // kernels, directly or through "auto").
  bool takes_tile_walk() const { return GetParam().kernel == "tile" || GetParam().kernel == "auto"; }

  // Runs every matrix of `shapes`; skips the test when the kernel supports none of them.
  void expect_all(const std::vector<Matrix>& shapes) {
    const auto& [kernel, type] = GetParam();
    int ran_count = 0, too_large = 0;
    for (const Matrix& matrix : shapes) {
      if (xpose_test::too_large_for_this_run(matrix)) {
        ++too_large;
        continue;
      }
      bool ran = false;
      xpose_test::run_and_check(kernel, type, matrix, &ran);
      if (HasFatalFailure()) return;
      ran_count += ran;
    }
    if (ran_count == 0 && too_large == static_cast<int>(shapes.size()))
      GTEST_SKIP() << "every case is above the XPOSE_TEST_SMALL limit";
    if (ran_count == 0)
      GTEST_SKIP() << kernel << " supports none of these cases for " << xpose::to_string(type);
  }
};

TEST_P(TransposeCudaKernel, SquareShapesMatchReference) {
  expect_all({{1, 1}, {32, 32}, {64, 64}, {256, 256}, {1000, 1000}, {1024, 1024}});
}

TEST_P(TransposeCudaKernel, OddShapesMatchReference) {
  expect_all(
      {{7, 13}, {13, 7}, {33, 65}, {65, 33}, {1023, 1025}, {1025, 1023}, {8191, 3}, {3, 8191}});
}

TEST_P(TransposeCudaKernel, SkinnyShapesMatchReference) {
  std::vector<Matrix> shapes;
  for (int64_t n : {17, 1000, 100003})
    for (Matrix m : std::vector<Matrix>{{1, n}, {n, 1}, {2, n}, {n, 2}, {3, n}, {n, 3}})
      shapes.push_back(m);
  expect_all(shapes);
}

// Few columns, on both sides of the production rule's deinterleave limit for 4-byte elements
// (48 columns, tuning.hpp): several deinterleave chunks and a partial last one, padded and odd
// (unaligned) output rows, whose vectors straddle the chunks, up to the 1-byte limit, a batch.
TEST_P(TransposeCudaKernel, FewColumnsMatchReference) {
  expect_all({{1000, 4}, {1000, 5}, {1000, 33}, {1000, 48}, {1000, 49}, {1000, 63}, {20011, 33}, {4099, 31},
              {1000, 33, 0, 1003}, {997, 33, 0, 0, 3}, {100003, 7}, {5001, 100}, {3001, 127, 0, 3005}});
}

// Many short rows: more row tiles than the GPU runs at once, few column tiles, rows off 256-byte
// blocks, so that the production tile kernels walk column tiles fastest (device_types.cuh,
// tile_walk) for every element size; odd and padded leading dimensions, and a batch (which walks
// columns for every size but u8, whose 313 row tiles fit on a GPU of 132 SMs). Only the
// kernels with that walk ("tile", and "auto", which routes these views to it): the shapes are
// large (21 M elements), and every other kernel meets its own walk's edge cases on smaller ones.
TEST_P(TransposeCudaKernel, TallShapesMatchReference) {
  if (!takes_tile_walk()) GTEST_SKIP() << "the tile walk is the tile kernels' (\"tile\", \"auto\")";
  expect_all({{70001, 300}, {70001, 301}, {70001, 300, 304, 70011}, {40001, 129, 0, 0, 2}});
}

// Large odd views, on both sides of the production tile kernels' choice of shape by size, for the
// kernels that choose ("tile", "auto"); 17-42 M elements each. Large unaligned u8 views of at least
// 2048 rows and 9 tall tiles per SM take a shape of their own on the H100 80GB HBM3 (tuning.hpp):
// 5121 x 8193 and its padded forms do on one of up to 138 SMs, with output rows packed (5121),
// padded (5131), and 16-byte aligned but 16 bytes off 32-byte sectors (5136, which the production
// rule sends to the unaligned shapes). 4099 x 8193 (8.4 tall tiles per SM on 132 SMs) and 2047 x
// 8193 take the large u8 shape on any GPU, the latter's last row tile partial. On an H200 the f16
// and f32 views take that device's own large unaligned shapes (tuning.hpp, DeviceUnalignedTileTuning).
TEST_P(TransposeCudaKernel, LargeOddShapesMatchReference) {
  if (!takes_tile_walk()) GTEST_SKIP() << "the large shapes are the tile kernels' (\"tile\", \"auto\")";
  expect_all({{4099, 4097}, {4099, 8193}, {2047, 8193}, {5121, 8193}, {5121, 8193, 8200, 5131}, {5121, 8193, 8208, 5136}});
}

// Aligned views with enough tiles for each size's large aligned shape (more than 4 large tiles per
// SM on up to 160 SMs; 8-byte elements: the element form's square and wide shapes, on an H100 its
// fine shape), packed and padded to aligned leading dimensions. On an H200 the f16 and f32 ones
// take that device's own large shapes (tuning.hpp, DeviceTileTuning). 4-34 M elements; the tile
// kernels only.
TEST_P(TransposeCudaKernel, LargeAlignedShapesMatchReference) {
  if (!takes_tile_walk()) GTEST_SKIP() << "the large shapes are the tile kernels' (\"tile\", \"auto\")";
  expect_all({{2048, 2112}, {2112, 2048, 2048 + 64, 2112 + 32}, {8192, 4096}});
}

// Views of few row tiles whose last row tile is partial (tuning.hpp, kPartialFormMaxRowTiles): for
// 1-, 2- and 4-byte elements, the partial-row shapes (UnalignedPartialRowsTuning; on an H200 the
// f16 and f32 views take DeviceUnalignedTileTuning's shapes), whose instantiation for them loads
// the last row tile's tiles inside the view as full tiles are loaded. Odd and padded
// leading dimensions; last row tiles of 44, 104 and 1 rows of the large shapes (300, 1000 and 129
// rows; wide enough for them: more than 4 tiles per SM on up to 160 SMs), batches, and views small
// enough for XPOSE_TEST_SMALL (the sanitizer runs), which take the compact shapes.
TEST_P(TransposeCudaKernel, FewRowTilesMatchReference) {
  if (!takes_tile_walk()) GTEST_SKIP() << "the partial-row instantiation is the tile kernels' (\"tile\", \"auto\")";
  if (xpose::size_of(GetParam().type) > 4) GTEST_SKIP() << "8- and 16-byte views take other forms";
  expect_all({{300, 100003}, {300, 100003, 100011, 307}, {1000, 20011}, {129, 50001, 50003, 131}, {300, 5003, 0, 0, 3},
              {100, 2001}, {129, 2001, 2003, 131}, {100, 1001, 1005, 0, 2}});
}

// 16-byte-aligned views whose output rows start 16 bytes off 32-byte sectors, for the element
// sizes whose production rule sends them to the unaligned shapes (1, 2 and 4 bytes;
// tuning.hpp, kOutputSectorBytes): ld_out 2064 u8, 2056 f16 and 2052 f32 are 16 bytes off, the
// input rows (ld_in 8208) 16-byte aligned for every size; large enough for the large shapes.
TEST_P(TransposeCudaKernel, OutputRowsOffSectorsMatchReference) {
  if (!takes_tile_walk()) GTEST_SKIP() << "the production rule is the tile kernels' (\"tile\", \"auto\")";
  if (xpose::size_of(GetParam().type) > 4) GTEST_SKIP() << "8- and 16-byte views take other forms";
  expect_all({{2049, 8193, 8208, 2064}, {2049, 8193, 8208, 2056}, {2049, 8193, 8208, 2052}});
}

TEST_P(TransposeCudaKernel, StridedShapesLeavePaddingUntouched) {
  // {rows, cols, ld_in, ld_out}: padding on the input only, the output only, and both.
  expect_all({{33, 65, 80, 0},
              {33, 65, 0, 40},
              {33, 65, 67, 37},
              {1000, 1000, 1024, 1031},
              {8191, 3, 4, 8200},
              {3, 8191, 8192, 5},
              {1, 100, 128, 2},
              {100, 1, 3, 128}});
}

TEST_P(TransposeCudaKernel, BatchesMatchReference) {
  expect_all({{129, 67, 0, 0, 3},
              {64, 64, 0, 0, 4},
              {33, 65, 70, 40, 5, 33 * 70 + 9, 65 * 40 + 3},
              {17, 29, 0, 0, 3, 17 * 29 + 5, 29 * 17 + 11},
              {2, 3, 0, 0, 1000}});
}

// Packed batches of small matrices (the small_batch kernel: whole matrices per block, up to 16 KiB
// each; chunks of several matrices, or of one that fills most of the buffer, that start on or off
// 16-byte vectors, one matrix of an odd number of elements as 7 x 451 among them, a partial last
// chunk, transpose-step walks along rows and down columns), and of one-row and one-column matrices
// (one contiguous copy).
TEST_P(TransposeCudaKernel, BatchesOfSmallMatricesMatchReference) {
  expect_all({{2, 3, 0, 0, 1001}, {3, 2, 0, 0, 777}, {21, 3, 0, 0, 5001}, {3, 21, 0, 0, 4999}, {16, 16, 0, 0, 999},
              {17, 31, 0, 0, 333}, {64, 64, 0, 0, 7}, {127, 16, 0, 0, 9}, {5, 128, 0, 0, 65}, {1, 7, 0, 0, 1001},
              {9, 1, 0, 0, 777}, {2, 2, 0, 0, 2}, {32, 32, 0, 0, 37}, {41, 182, 0, 0, 5}, {182, 41, 0, 0, 5},
              {14, 24, 0, 0, 333}, {128, 64, 0, 0, 3}, {17, 63, 0, 0, 31}, {2, 584, 0, 0, 29}, {5, 3, 0, 0, 1111},
              {12, 3, 0, 0, 555}, {95, 105, 0, 0, 13}, {127, 129, 0, 0, 5}, {90, 91, 0, 0, 7}, {128, 128, 0, 0, 3},
              {7, 451, 0, 0, 9}, {13, 201, 0, 0, 7}, {3, 677, 0, 0, 11}});
}

// Batches of small matrices whose input rows, or whole packed matrices, are padded by a little
// (slices of wider or taller tensors; the small_batch kernel reads each chunk's span, padding
// included, and stages the rows packed): many matrices per chunk and one, rows, matrices and chunks
// off 16-byte vectors, a partial last chunk, one column.
TEST_P(TransposeCudaKernel, BatchesOfSmallPaddedMatricesMatchReference) {
  expect_all({{7, 7, 8, 0, 1001}, {21, 3, 5, 0, 1001}, {3, 21, 22, 0, 777}, {2, 3, 4, 0, 999}, {16, 16, 20, 0, 333},
              {64, 64, 70, 0, 7}, {127, 129, 140, 0, 5}, {5, 3, 4, 0, 1111}, {9, 1, 2, 0, 777}, {33, 17, 19, 0, 61},
              {138, 7, 0, 0, 333, 138 * 7 + 126, 0}, {7, 7, 0, 0, 1001, 7 * 7 + 3, 0},
              {21, 3, 0, 0, 1001, 21 * 3 + 1, 0}, {2, 3, 0, 0, 999, 2 * 3 + 1, 0}, {64, 64, 0, 0, 7, 64 * 64 + 100, 0},
              {9, 1, 0, 0, 777, 9 + 2, 0}, {127, 129, 0, 0, 5, 127 * 129 + 31, 0}, {45, 45, 48, 0, 99}});
}

// Batches of few-row matrices whose output runs start off 16-byte vectors (rows x cols x size not a
// multiple of 16; padded batch strides): the interleave stores the aligned vectors inside each run
// and the partial ones at its ends.
TEST_P(TransposeCudaKernel, FewRowsBatchesOffSixteenBytesMatchReference) {
  expect_all({{15, 1149, 0, 0, 41}, {12, 1061, 0, 0, 17}, {3, 1001, 0, 0, 9}, {7, 999, 1003, 0, 5},
              {5, 777, 0, 0, 7, 5 * 777 + 3, 5 * 777 + 1}, {31, 301, 0, 0, 3}});
}

// Few-column matrices against the deinterleave's chunks (1- and 2-byte elements: the walk kernel,
// its output rows at a pitch that lines up their vectors): whole chunks and a shorter last one
// per matrix, matrices shorter than a chunk, output rows of every alignment (odd and padded
// leading dimensions, padded batch strides), power-of-two column counts.
TEST_P(TransposeCudaKernel, FewColumnsChunksMatchReference) {
  expect_all({{1239, 63, 0, 0, 5}, {593, 52, 0, 0, 3, 593 * 52 + 5, 52 * 593 + 3}, {20011, 36}, {4099, 2, 0, 4103},
              {7635, 2, 0, 0, 3}, {100, 13, 0, 0, 9, 100 * 13 + 1, 13 * 100 + 7}, {8191, 32, 0, 8197}, {5000, 16},
              {257, 5, 0, 0, 31}});
}

// Few-column matrices whose input rows are padded (ld_in > cols): the deinterleave stages each
// chunk's span, padding included, where the padding is under 32 bytes or a quarter of a row, and
// reads it at the row pitch; whole chunks and a shorter last one, odd pitches (rows off 16 bytes),
// padded output rows, batches with padded strides. The last, padded by more than both, is not the
// deinterleave's.
TEST_P(TransposeCudaKernel, FewColumnsPaddedRowsMatchReference) {
  expect_all({{20011, 13, 14, 0}, {4099, 17, 19, 0}, {1000, 33, 41, 1003}, {997, 5, 6, 0, 3}, {5001, 100, 103, 0},
              {3001, 2, 3, 3005}, {100, 13, 15, 0, 9, 100 * 15 + 1, 13 * 100 + 7}, {8191, 32, 40, 8197},
              {257, 60, 75, 0, 5}, {4099, 13, 60, 0}});
}

// Few-row matrices against the interleave's chunks: whole matrices that just fill its staging
// (58 x 282 u8, columns not a multiple of the vector width), matrices split into chunks with a
// shorter last one (58 x 600, 2 x 9001), rows off 16 bytes, padded batch strides; power-of-two
// row counts whose staged rows the 1- and 2-byte walks read across (4, 64).
TEST_P(TransposeCudaKernel, FewRowsChunksMatchReference) {
  expect_all({{58, 282, 0, 0, 7}, {58, 282, 291, 0, 3}, {58, 600, 0, 0, 2}, {2, 9001, 0, 0, 2},
              {128, 127, 0, 0, 3, 128 * 127 + 5, 128 * 127 + 2}, {5, 3277, 3281, 0, 2}, {95, 105, 0, 0, 11},
              {24, 27539, 27545, 0}, {4, 15215, 15232, 0}, {40, 358, 0, 0, 5}, {64, 700, 701, 0}});
}

// grid.y and grid.z stop at 65535: kernels must loop or fold to cover any shape and batch.
TEST_P(TransposeCudaKernel, LargeGridDimensionsAreCovered) {
  const DType type = GetParam().type;
  if (type != DType::u8 && type != DType::f32)
    GTEST_SKIP() << "grid limits are checked on u8 and f32 only (the shapes are large)";
  const int64_t beyond = 65536 * 32 + 1;  // more 32-row tiles than grid.y holds
  std::vector<Matrix> shapes{{beyond, 2}, {2, beyond}, {3, 5, 0, 0, 70000}, {2, 2, 0, 0, 65536 * 2 + 3}};
  // f32 and the tile kernel by name ("auto" takes the deinterleave for 3 columns): more 128-row
  // tiles (unaligned f32, 100 MB) than grid.y holds, walked column tiles fastest (the row tiles in
  // grid.y).
  if (type == DType::f32 && GetParam().kernel == "tile") shapes.push_back({65536 * 128 + 1, 3});
  expect_all(shapes);
}

INSTANTIATE_TEST_SUITE_P(TransposeCuda, TransposeCudaKernel,
                         ::testing::ValuesIn(every_kernel_and_size()), [](const auto& info) {
                           return info.param.kernel + "_" + xpose::to_string(info.param.type);
                         });

}  // namespace
