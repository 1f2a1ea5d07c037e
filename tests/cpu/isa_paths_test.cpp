// SPDX-License-Identifier: Apache-2.0
// Every instruction-set path of the CPU fast path (portable, AVX2, AVX-512: each one this CPU
// runs, forced), with ordinary and with streaming stores forced, against the reference: every
// element size on odd, skinny, size-1, empty, batched, strided and misaligned shapes, for the 2D
// transpose and the N-D permute. Also the choice of the set, the cache sizes and the stream copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "common/transpose_check.hpp"
#include "core/permute_layout.hpp"
#include "cpu/cpu_caches.hpp"
#include "cpu/cpu_isa.hpp"
#include "cpu/permute_blocked.hpp"
#include "cpu/stream_copy.hpp"
#include "cpu/transpose_blocked.hpp"
#include "xpose/xpose.hpp"

namespace {

using xpose::DType;
using xpose::Matrix;
using xpose::Permutation;
using xpose::detail::BlockedOptions;
using xpose::detail::CpuIsa;

struct PathCase {
  CpuIsa isa;
  bool stream;  // streaming stores forced on every size (else ordinary stores forced)
};

std::vector<PathCase> supported_paths() {
  std::vector<PathCase> paths;
  for (CpuIsa isa : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512})
    if (xpose::detail::cpu_isa_supported(isa))
      for (bool stream : {false, true}) paths.push_back({isa, stream});
  return paths;
}

std::string path_name(const ::testing::TestParamInfo<PathCase>& info) {
  return std::string(xpose::detail::to_string(info.param.isa)) +
         (info.param.stream ? "_streaming" : "_ordinary");
}

BlockedOptions options_of(const PathCase& path) {
  BlockedOptions options;
  options.isa = path.isa;
  options.stream_from_bytes = path.stream ? 0 : std::numeric_limits<int64_t>::max();
  return options;
}

// One type per element size: 1, 2, 4, 8, 16 bytes.
const DType kOnePerSize[] = {DType::u8, DType::u16, DType::f32, DType::f64, DType::c128};

class CpuIsaPath : public ::testing::TestWithParam<PathCase> {};

// Every matrix at every element size, on and off alignment, at each thread count, on `path`.
void expect_transposes(const PathCase& path, const std::vector<Matrix>& matrices,
                       std::initializer_list<int> thread_counts) {
  const BlockedOptions options = options_of(path);
  for (DType type : kOnePerSize)
    for (const Matrix& matrix : matrices)
      for (std::size_t misalign : {std::size_t{0}, std::size_t{3}})
        for (int threads : thread_counts) {
          SCOPED_TRACE(xpose_test::describe(matrix, type) + ", misaligned by " +
                       std::to_string(misalign) + ", threads " + std::to_string(threads));
          const auto problem = xpose_test::problem_for(matrix, type);
          const auto input = xpose_test::make_input(problem, misalign);
          auto output = xpose_test::make_output(problem, 2 * misalign);
          const auto expected = xpose_test::expected_transpose(input, output, problem);
          xpose::detail::transpose_blocked(input.view(), output.view(), problem, threads, options);
          ASSERT_TRUE(xpose_test::output_matches(output.data(), expected, output, problem));
        }
}

TEST_P(CpuIsaPath, TransposeMatchesReferenceOnEveryShapeClass) {
  const std::vector<Matrix> matrices{
      Matrix{0, 5},       Matrix{5, 0},       Matrix{1, 1},  Matrix{1, 77},
      Matrix{77, 1},      Matrix{3, 1000},    Matrix{1000, 3},
      Matrix{64, 64},     Matrix{65, 63},     Matrix{67, 131},
      Matrix{129, 257},   // whole tiles, then one row and column more for every size
      Matrix{256, 352},   // f32: 22 columns of tiles (a wide visit of 4 leaves 2)
      Matrix{600, 200},   // several strips for every size (joined when streaming)
      Matrix{1100, 90},   // several strips of 512 rows (4- to 16-byte elements, rows off lines)
      Matrix{130, 70, 75, 133},                      // padded leading dimensions
      Matrix{9, 11, 0, 0, 50},                       // many small matrices
      Matrix{100, 41, 0, 0, 7},                      // staged: several whole matrices per chunk
      Matrix{300, 100, 0, 0, 3},                     // staged: one whole matrix per chunk (u8)
      Matrix{20, 30, 31, 21, 4, 20 * 31 + 5, 30 * 21 + 7},  // batch with gaps
  };
  expect_transposes(GetParam(), matrices, {1, 2});
}

// Fewer rows or columns than a tile, for every element size (the AVX2 set's 16-byte records: a
// partial group of rows or columns, whole blocks and the columns or rows after them; AVX-512's
// permutes of 3 to 8 packed columns of 1- and 2-byte elements, whole blocks of 64 / size rows and
// the rows after them), packed and padded, one matrix and batches.
TEST_P(CpuIsaPath, ThinMatricesMatchReference) {
  std::vector<Matrix> matrices;
  for (int64_t thin : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63})
    for (int64_t long_side : {1, 31, 32, 33, 100, 257}) {
      matrices.push_back({thin, long_side});
      matrices.push_back({long_side, thin});
    }
  for (const Matrix& matrix : std::vector<Matrix>{{5, 333, 340, 9},
                                                  {333, 5, 9, 340},
                                                  {17, 100, 0, 0, 3},
                                                  {100, 17, 0, 0, 3},
                                                  {3, 70, 75, 4, 2, 3 * 75 + 1, 70 * 4 + 2},
                                                  {1000, 6, 0, 0, 3},
                                                  {64, 7},
                                                  {129, 4, 0, 0, 2}})
    matrices.push_back(matrix);
  expect_transposes(GetParam(), matrices, {1, 3});
}

// Batches of matrices of at most 128 bytes into packed output (the AVX2 byte shuffles of whole
// matrices: 1 to 8 chunks of 16 bytes, the range ends through a buffer), every shape up to 8 x 8
// that fits, odd batches, one to three threads; padded input rows and gaps between matrices.
TEST_P(CpuIsaPath, TinyMatrixBatchesMatchReference) {
  std::vector<Matrix> matrices;
  for (int64_t rows = 1; rows <= 8; ++rows)
    for (int64_t cols = 1; cols <= 8; ++cols)
      for (int64_t batch : {2, 7, 61}) matrices.push_back({rows, cols, 0, 0, batch});
  // 65-128 bytes of u8: 5 to 8 chunks.
  for (const Matrix& matrix :
       std::vector<Matrix>{{9, 14, 0, 0, 5}, {16, 8, 0, 0, 9}, {11, 11, 0, 0, 3}, {5, 13, 0, 0, 7}})
    matrices.push_back(matrix);
  matrices.push_back({3, 5, 5, 3, 9, 16, 15});  // input matrices one element apart
  // Padded input rows (the shuffles skip the padding), matrices apart in the input too, and
  // input spans of 113-128 bytes of u8 whose output is smaller.
  for (const Matrix& matrix : std::vector<Matrix>{{7, 7, 8, 0, 61},
                                                  {3, 5, 7, 0, 9},
                                                  {2, 3, 4, 0, 7},
                                                  {1, 5, 9, 0, 13},
                                                  {3, 5, 6, 0, 9, 3 * 6 + 2, 0},
                                                  {4, 4, 5, 0, 11, 4 * 5 + 7, 0},
                                                  {9, 11, 13, 0, 5},
                                                  {2, 8, 120, 0, 7}})
    matrices.push_back(matrix);
  expect_transposes(GetParam(), matrices, {1, 3});
}

// Batches of matrices of 129 bytes to 1 KiB into packed output (with AVX-512, two-source byte
// permutes of whole matrices: 3 to 16 chunks of 64 bytes, odd counts whose last pair is half past
// the span, the range ends through a buffer): odd and square shapes, thin ones, padded input rows
// and gaps between matrices, odd batches, one to three threads.
TEST_P(CpuIsaPath, SmallPermutedMatrixBatchesMatchReference) {
  expect_transposes(GetParam(),
                    {{20, 20, 0, 0, 31}, {27, 33, 0, 0, 7}, {9, 13, 0, 0, 61}, {5, 90, 0, 0, 9}, {32, 32, 0, 0, 5},
                     {16, 32, 0, 0, 5}, {11, 11, 13, 0, 17}, {7, 30, 33, 0, 9, 7 * 33 + 5, 0}, {200, 3, 0, 0, 9},
                     {3, 200, 0, 0, 9}, {9, 57, 0, 0, 3}, {2, 70, 0, 0, 11}, {31, 33, 0, 0, 2}},
                    {1, 2, 3});
}

// Batches of matrices of 128 bytes to 8 KiB into packed output (a region per matrix, or with
// streaming stores the staged run, filled by the element loop for up to 512 elements of 4 to 16
// bytes): matrices of whole tiles and of partial ones, thin ones, fewer rows than a tile, padded
// input rows, odd batches, one to three threads, streamed and not (the path's parameter).
TEST_P(CpuIsaPath, SmallMatrixBatchesMatchReference) {
  expect_transposes(GetParam(),
                    {{21, 32, 0, 0, 37}, {17, 29, 0, 0, 9}, {5, 100, 0, 0, 17}, {100, 5, 0, 0, 17}, {16, 16, 0, 0, 70},
                     {31, 33, 0, 0, 3}, {64, 32, 0, 0, 5}, {9, 9, 0, 0, 50}, {6, 9, 0, 0, 61}, {11, 3, 0, 0, 33},
                     {8, 8, 0, 0, 40}, {13, 9, 15, 0, 17}, {22, 23, 25, 0, 9}, {5, 7, 0, 0, 101}},
                    {1, 2, 3});
}

// Short output rows packed matrix after matrix (rows of at most 1 KiB; 1- and 2-byte elements up to
// a quarter of the L2 per tile edge of rows): with streaming stores the
// output is staged chunk by chunk in a buffer that mirrors its line alignment; chunks that cross
// matrices, thread ranges that start inside a matrix, partial lines carried between chunks.
TEST_P(CpuIsaPath, ShortPackedOutputRowsMatchReference) {
  expect_transposes(GetParam(),
                    {{70, 50, 0, 0, 9}, {130, 20, 0, 0, 5}, {40, 3000}, {17, 700, 0, 0, 3}, {64, 64, 0, 0, 4},
                     {250, 33, 0, 0, 2}, {1500, 150}, {3000, 70, 0, 0, 2}},  // the last two: u8 and u16 rows of KiBs
                    {1, 2, 3});
}

// Few columns (at most 256 bytes of each input row) into long output rows: with streaming stores
// each output row is a staged run; padded rows, batches, thread ranges that start inside a
// matrix, last chunks shorter than the others.
TEST_P(CpuIsaPath, FewColumnsIntoLongRowsMatchReference) {
  expect_transposes(GetParam(),
                    {{5000, 3}, {3001, 21, 25, 3100}, {700, 10, 0, 0, 4}, {2000, 64}, {1500, 17, 0, 0, 3},
                     {4100, 2, 2, 4103}},
                    {1, 2, 3});
}

TEST_P(CpuIsaPath, PermuteMatchesReference) {
  const Permutation permutations[] = {
      {{2, 48, 7, 9}, {0, 2, 3, 1}, {}, {}},    // NCHW -> NHWC (a batch of 2D slices)
      {{3, 5, 40, 36}, {1, 3, 2, 0}, {}, {}},   // slices batched over two outer axes
      {{6, 33, 70}, {2, 0, 1}, {}, {}},         // rank 3, odd sizes
      {{4, 24, 20}, {0, 2, 1}, {24 * 23, 23, 1}, {}},  // strided input rows
      {{5, 6, 7, 8, 3}, {4, 2, 0, 3, 1}, {}, {}},      // rank 5: the generic tiles
      {{40, 8, 3}, {1, 0, 2}, {}, {}},                 // the innermost axis stays: runs
      // Tiles over several axes, whose unit-stride axes are register transposes (4- and 8-byte
      // elements): blocks of under one vector tile each way with loops around them, blocks of
      // several tiles with partial ones at both ends, inner axes of 64-255 bytes, strided input
      // rows and a padded output.
      {{7, 7, 31, 4, 13}, {3, 2, 0, 4, 1}, {}, {}},
      {{12, 30, 20, 10, 8}, {4, 2, 0, 3, 1}, {}, {}},
      {{5, 37, 3, 21}, {0, 3, 2, 1}, {}, {}},
      {{6, 40, 30, 50}, {0, 3, 2, 1}, {}, {}},
      {{9, 10, 12, 20}, {1, 3, 0, 2}, {10 * 12 * 23 + 1, 12 * 23, 23, 1}, {}},
      {{7, 11, 13, 5}, {2, 3, 1, 0}, {}, {5 * 11 * 8 + 3, 11 * 8, 8, 1}},
  };
  const BlockedOptions options = options_of(GetParam());
  for (DType type : kOnePerSize)
    for (const Permutation& p : permutations)
      for (int threads : {1, 2}) {
        SCOPED_TRACE(xpose_test::describe(p, type) + ", threads " + std::to_string(threads));
        const auto problem = xpose_test::permute_problem_for(p, type);
        const auto input = xpose_test::make_permute_input(problem, 1);
        auto output = xpose_test::make_permute_output(problem, 3);
        const auto expected = xpose_test::expected_permute(input, output, problem);
        xpose::detail::permute_blocked(input.view(), output.view(), xpose::detail::normalise(problem),
                                       threads, options);
        ASSERT_TRUE(xpose_test::permute_output_matches(output.data(), expected, output, problem));
      }
}

INSTANTIATE_TEST_SUITE_P(CpuIsa, CpuIsaPath, ::testing::ValuesIn(supported_paths()), path_name);

TEST(CpuIsaChoice, NamesRoundTripAndUnknownNamesAreRejected) {
  for (CpuIsa isa : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512}) {
    CpuIsa parsed = CpuIsa::portable;
    ASSERT_TRUE(xpose::detail::parse_cpu_isa(xpose::detail::to_string(isa), &parsed));
    EXPECT_EQ(parsed, isa);
  }
  CpuIsa untouched = CpuIsa::avx2;
  EXPECT_FALSE(xpose::detail::parse_cpu_isa("AVX2", &untouched));
  EXPECT_FALSE(xpose::detail::parse_cpu_isa("sse2", &untouched));
  EXPECT_FALSE(xpose::detail::parse_cpu_isa("", &untouched));
  EXPECT_EQ(untouched, CpuIsa::avx2);
}

TEST(CpuIsaChoice, ActiveAndCappedSetsAreOnesThisCpuRuns) {
  EXPECT_TRUE(xpose::detail::cpu_isa_supported(CpuIsa::portable));
  const CpuIsa detected = xpose::detail::cpu_isa_detected();
  EXPECT_TRUE(xpose::detail::cpu_isa_supported(detected));
  for (CpuIsa wanted : {CpuIsa::portable, CpuIsa::avx2, CpuIsa::avx512}) {
    const CpuIsa capped = xpose::detail::cpu_isa_capped(wanted);
    EXPECT_TRUE(xpose::detail::cpu_isa_supported(capped));
    EXPECT_LE(capped, wanted);
    if (xpose::detail::cpu_isa_supported(wanted)) {
      EXPECT_EQ(capped, wanted);
    }
  }
  // The override, when the environment of this test run sets it.
  const char* text = std::getenv("XPOSE_CPU_ISA");
  CpuIsa wanted = CpuIsa::avx512;
  if (text == nullptr || !xpose::detail::parse_cpu_isa(text, &wanted)) wanted = CpuIsa::avx512;
  EXPECT_EQ(xpose::detail::cpu_isa_active(), xpose::detail::cpu_isa_capped(wanted));
#if !defined(__x86_64__)
  EXPECT_EQ(detected, CpuIsa::portable);  // the vector sets are x86-64 only
#endif
}

TEST(CpuCaches, SizesAreReportedOrDefaulted) {
  const auto& caches = xpose::detail::cpu_caches();
  EXPECT_GE(caches.l1d_bytes, 4 << 10);
  EXPECT_GE(caches.last_level_bytes, caches.l1d_bytes);
  EXPECT_GE(caches.l2_bytes, caches.l1d_bytes);
  EXPECT_LE(caches.l2_bytes, caches.last_level_bytes);
  EXPECT_GE(caches.line_bytes, 16);  // a power of two, at most a page
  EXPECT_LE(caches.line_bytes, 4096);
  EXPECT_EQ(caches.line_bytes & (caches.line_bytes - 1), 0);
  EXPECT_EQ(xpose::detail::stream_from_bytes(), caches.last_level_bytes / 4);
}

TEST(StreamCopy, CopiesEveryByteAtAnyAlignment) {
  for (int64_t bytes : {int64_t{0}, int64_t{1}, int64_t{15}, int64_t{64}, int64_t{1000},
                        (int64_t{5} << 20) + 7})
    for (std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{9}}) {
      std::vector<unsigned char> src(static_cast<std::size_t>(bytes) + shift);
      std::vector<unsigned char> dst(src.size() + 1, 0xFF);
      for (std::size_t k = 0; k < src.size(); ++k) src[k] = static_cast<unsigned char>(k * 7 + 1);
      xpose::detail::parallel_stream_copy(dst.data() + shift, src.data() + shift, bytes, 0);
      EXPECT_TRUE(std::equal(src.begin() + shift, src.end(), dst.begin() + shift))
          << bytes << " bytes, shift " << shift;
      EXPECT_EQ(dst.back(), 0xFF) << bytes << " bytes, shift " << shift;
      for (std::size_t k = 0; k < shift; ++k) EXPECT_EQ(dst[k], 0xFF);
    }
}

TEST(StreamCopy, IsACopyBaselineOfBothRegistries) {
  EXPECT_FALSE(xpose::kernel_transposes(xpose::Device::cpu, "stream_copy"));
  EXPECT_FALSE(xpose::permute_kernel_permutes(xpose::Device::cpu, "stream_copy"));
  const auto problem = xpose_test::problem_for(Matrix{300, 500}, DType::f32);
  const auto input = xpose_test::make_input(problem);
  auto output = xpose_test::make_output(problem);
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, Matrix{300, 500}, DType::f32, xpose::Device::cpu,
                                {"stream_copy", 2}),
            xpose::Status::ok);
  ASSERT_EQ(plan.execute(input.view(), output.view()), xpose::Status::ok);
  EXPECT_TRUE(xpose_test::copied_correctly(input, output, problem));
  // Only dense problems: a strided one is refused and nothing is written.
  EXPECT_EQ(xpose::Plan::create(plan, Matrix{300, 500, 501}, DType::f32, xpose::Device::cpu,
                                {"stream_copy", 2}),
            xpose::Status::unsupported);
}

}  // namespace
