// SPDX-License-Identifier: Apache-2.0
// In-place transposes on the CPU: every element size on square, rectangular (coprime sides and
// sides with a common factor, prime, skinny, 1 x N), empty and batched shapes, against the
// out-of-place definition, with guard bytes; the decomposition's index maps are permutations;
// bad input is refused with data untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "common/inplace_check.hpp"
#include "core/inplace.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Matrix;
using xpose::Plan;
using xpose::Status;
using xpose_test::first_difference;
using xpose_test::inplace_expected;
using xpose_test::inplace_input;
using xpose_test::kInplaceGuard;

const DType kTypeOfSize[] = {DType::u8, DType::f16, DType::f32, DType::f64, DType::c128};

struct Shape {
  int64_t rows, cols, batch;
};

// Square (tile edges and one tile), coprime, common factors (the rotation step), primes, skinny
// both ways, single rows and columns, empty, batches.
const Shape kShapes[] = {
    {1, 1, 1},   {2, 2, 1},    {7, 7, 1},    {33, 33, 1},  {64, 64, 1},   {100, 100, 1}, {2, 3, 1},
    {3, 2, 1},   {4, 6, 1},    {6, 4, 1},    {12, 18, 1},  {18, 12, 1},   {5, 7, 1},     {37, 101, 1},
    {101, 37, 1}, {64, 96, 1}, {96, 64, 1},  {2, 1000, 1}, {1000, 2, 1},  {3, 999, 1},   {999, 3, 1},
    {1, 17, 1},  {17, 1, 1},   {0, 5, 1},    {5, 0, 1},    {5, 7, 3},     {8, 8, 4},     {6, 10, 5},
    {30, 2, 7},  {256, 384, 1}, {384, 256, 1}, {211, 307, 2},
};

class InplaceCpu : public ::testing::TestWithParam<std::tuple<Shape, int>> {};

TEST_P(InplaceCpu, MatchesTheOutOfPlaceTranspose) {
  const auto [shape, size_index] = GetParam();
  const DType type = kTypeOfSize[size_index];
  const int size = static_cast<int>(xpose::size_of(type));
  for (int threads : {1, 2}) {
    std::vector<unsigned char> data = inplace_input(shape.rows, shape.cols, shape.batch, size, 7 + threads);
    const std::vector<unsigned char> expected = inplace_expected(data, shape.rows, shape.cols, shape.batch, size);
    Matrix matrix{shape.rows, shape.cols};
    matrix.batch = shape.batch;
    xpose::PlanOptions options;
    options.threads = threads;
    Plan plan;
    ASSERT_EQ(Plan::create_inplace(plan, matrix, type, Device::cpu, options), Status::ok) << xpose::last_error_message();
    ASSERT_EQ(plan.execute_inplace(data.data() + kInplaceGuard), Status::ok) << xpose::last_error_message();
    EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
        << shape.rows << " x " << shape.cols << " batch " << shape.batch << " " << xpose::to_string(type) << ", "
        << threads << " threads, " << plan.kernel_name();
  }
}

// The decomposition on every rectangular shape (forced: on the CPU the plans take square_part
// wherever the rest fits, which is every shape of the table), one and two threads.
TEST_P(InplaceCpu, DecompositionMatchesTheOutOfPlaceTranspose) {
  const auto [shape, size_index] = GetParam();
  if (shape.rows == shape.cols || shape.rows < 2 || shape.cols < 2) GTEST_SKIP() << "no decomposition for this shape";
  const DType type = kTypeOfSize[size_index];
  const int size = static_cast<int>(xpose::size_of(type));
  for (int threads : {1, 2}) {
    std::vector<unsigned char> data = inplace_input(shape.rows, shape.cols, shape.batch, size, 3 + threads);
    const std::vector<unsigned char> expected = inplace_expected(data, shape.rows, shape.cols, shape.batch, size);
    xpose::detail::InplaceProblem p;
    ASSERT_TRUE(xpose_test::forced_inplace_problem(shape.rows, shape.cols, shape.batch, type,
                                                   xpose::detail::InplaceMethod::decomposed, 0, &p));
    ASSERT_EQ(xpose::detail::cpu_transpose_inplace(data.data() + kInplaceGuard, p, threads), Status::ok);
    EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
        << shape.rows << " x " << shape.cols << " batch " << shape.batch << " " << xpose::to_string(type) << ", "
        << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, InplaceCpu, ::testing::Combine(::testing::ValuesIn(kShapes), ::testing::Range(0, 5)));

TEST(InplaceCpuLarge, PrimeAndSkinnyShapesOfEveryElementSize) {
  // Long rows (skinny shapes) and strips narrower than the matrix (square-ish ones), through the
  // plan's choice (square_part: their rests fit) and through the decomposition (forced).
  const Shape shapes[] = {{1009, 2003, 1}, {2003, 1009, 1}, {3, 100003, 1}, {100003, 3, 1}, {1536, 1024, 2}};
  for (const Shape& shape : shapes) {
    for (DType type : kTypeOfSize) {
      const int size = static_cast<int>(xpose::size_of(type));
      const std::vector<unsigned char> input = inplace_input(shape.rows, shape.cols, shape.batch, size, 3);
      const std::vector<unsigned char> expected = inplace_expected(input, shape.rows, shape.cols, shape.batch, size);
      std::vector<unsigned char> data = input;
      Matrix matrix{shape.rows, shape.cols};
      matrix.batch = shape.batch;
      ASSERT_EQ(xpose::transpose_inplace(data.data() + kInplaceGuard, matrix, type), Status::ok)
          << xpose::last_error_message();
      EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
          << shape.rows << " x " << shape.cols << " " << xpose::to_string(type);
      data = input;
      xpose::detail::InplaceProblem p;
      ASSERT_TRUE(xpose_test::forced_inplace_problem(shape.rows, shape.cols, shape.batch, type,
                                                     xpose::detail::InplaceMethod::decomposed, 0, &p));
      ASSERT_EQ(xpose::detail::cpu_transpose_inplace(data.data() + kInplaceGuard, p, 0), Status::ok);
      EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
          << shape.rows << " x " << shape.cols << " " << xpose::to_string(type) << ", decomposed";
    }
  }
}

// square_part on every rectangular shape of the table (forced, as the GPU plans take it from 16 MiB
// per matrix only), every element size, one and two threads, staging of one row and of many.
TEST(InplaceSquarePart, MatchesTheOutOfPlaceTranspose) {
  for (const Shape& shape : kShapes) {
    if (shape.rows == shape.cols || shape.rows < 2 || shape.cols < 2) continue;
    for (DType type : kTypeOfSize) {
      const int size = static_cast<int>(xpose::size_of(type));
      for (int threads : {1, 2}) {
        std::vector<unsigned char> data = inplace_input(shape.rows, shape.cols, shape.batch, size, 5 + threads);
        const std::vector<unsigned char> expected = inplace_expected(data, shape.rows, shape.cols, shape.batch, size);
        xpose::detail::InplaceProblem p;  // with 2 threads, 3 staging rows: the rows move in several steps
        ASSERT_TRUE(xpose_test::forced_inplace_problem(shape.rows, shape.cols, shape.batch, type,
                                                      xpose::detail::InplaceMethod::square_part, threads == 2 ? 3 : 0, &p));
        if (threads == 2) {
          ASSERT_EQ(xpose::detail::SquarePartLayout(p).staging_rows, std::min<int64_t>(3, std::min(shape.rows, shape.cols) - 1));
        }
        ASSERT_EQ(xpose::detail::cpu_transpose_inplace(data.data() + kInplaceGuard, p, threads), Status::ok);
        EXPECT_EQ(first_difference(data, expected, shape.rows * shape.cols, size), "")
            << shape.rows << " x " << shape.cols << " batch " << shape.batch << " " << xpose::to_string(type) << ", "
            << threads << " threads";
      }
    }
  }
}

TEST(InplaceSquarePart, ChosenForLargeNearSquareMatrices) {
  // 16-20 MB matrices whose rest fits the scratch: wide and tall, a batch, 4 and 8 bytes.
  const struct {
    Shape shape;
    DType type;
  } cases[] = {{{2100, 2203, 1}, DType::f32}, {{2203, 2100, 1}, DType::f32}, {{1500, 1601, 2}, DType::f64},
               {{1601, 1500, 1}, DType::f64}};
  for (const auto& c : cases) {
    const int size = static_cast<int>(xpose::size_of(c.type));
    std::vector<unsigned char> data = inplace_input(c.shape.rows, c.shape.cols, c.shape.batch, size, 9);
    const std::vector<unsigned char> expected = inplace_expected(data, c.shape.rows, c.shape.cols, c.shape.batch, size);
    Matrix matrix{c.shape.rows, c.shape.cols};
    matrix.batch = c.shape.batch;
    Plan plan;
    ASSERT_EQ(Plan::create_inplace(plan, matrix, c.type), Status::ok) << xpose::last_error_message();
    EXPECT_STREQ(plan.kernel_name(), "inplace_square_part");
    // The rest and the staging rows, within the 64 MiB budget.
    const int64_t rest = std::abs(c.shape.rows - c.shape.cols) * std::min(c.shape.rows, c.shape.cols) * size;
    EXPECT_GT(static_cast<int64_t>(plan.scratch_bytes()), rest);
    EXPECT_LE(plan.scratch_bytes(), std::size_t{64} << 20);
    ASSERT_EQ(plan.execute_inplace(data.data() + kInplaceGuard), Status::ok) << xpose::last_error_message();
    EXPECT_EQ(first_difference(data, expected, c.shape.rows * c.shape.cols, size), "")
        << c.shape.rows << " x " << c.shape.cols << " " << xpose::to_string(c.type);
  }
}

TEST(InplaceDecomposition, EveryStepIsAPermutation) {
  // Steps 2 and 3 must map [0, N) and [0, M) onto themselves for every view M < N.
  for (int64_t M = 2; M <= 24; ++M) {
    for (int64_t N = M + 1; N <= 40; ++N) {
      xpose::detail::InplaceProblem p;
      ASSERT_EQ(xpose::detail::make_inplace_problem(Matrix{M, N}, DType::u8, Device::cpu, &p), Status::ok);
      const xpose::detail::Decomposition& d = p.decomposition;
      ASSERT_EQ(d.M, M);
      std::vector<int64_t> q, q_inverse;
      xpose::detail::column_shuffle_tables(d, &q, &q_inverse);
      std::vector<int64_t> sorted = q;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int64_t> identity(static_cast<std::size_t>(M));
      std::iota(identity.begin(), identity.end(), 0);
      EXPECT_EQ(sorted, identity) << M << " x " << N << ": q";
      for (int64_t i = 0; i < M; ++i) {
        std::vector<int64_t> columns;
        for (int64_t j = 0; j < N; ++j) columns.push_back(d.shuffled_column(i, j));
        std::sort(columns.begin(), columns.end());
        for (int64_t j = 0; j < N; ++j) ASSERT_EQ(columns[static_cast<std::size_t>(j)], j) << M << " x " << N << " row " << i;
        for (int64_t j = 0; j < N; ++j) ASSERT_EQ(d.unrotated_row(d.rotated_row(i, j), j), i);
      }
    }
  }
}

TEST(InplaceSquareTilePairs, EachPairOfTheUpperTriangleOnceInRowOrder) {
  // Small sides exhaustively, and the last pairs of sides where the square root's rounding counts.
  for (int64_t tiles : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{64}, int64_t{129}}) {
    int64_t k = 0;
    for (int64_t i = 0; i < tiles; ++i)
      for (int64_t j = i; j < tiles; ++j, ++k) {
        const xpose::detail::SquareTilePair pair = xpose::detail::square_tile_pair(k, tiles);
        ASSERT_EQ(pair.i, i) << "pair " << k << " of " << tiles << " tiles a side";
        ASSERT_EQ(pair.j, j) << "pair " << k << " of " << tiles << " tiles a side";
      }
  }
  for (int64_t tiles : {int64_t{4095}, int64_t{65536}, int64_t{3037000}}) {
    const int64_t pairs = tiles * (tiles + 1) / 2;
    for (int64_t k : {int64_t{0}, tiles - 1, tiles, pairs - 3, pairs - 2, pairs - 1}) {
      const xpose::detail::SquareTilePair pair = xpose::detail::square_tile_pair(k, tiles);
      const int64_t start = pair.i * tiles - pair.i * (pair.i - 1) / 2;
      EXPECT_TRUE(pair.i <= pair.j && pair.j < tiles && start + (pair.j - pair.i) == k)
          << "pair " << k << " of " << tiles << " tiles a side: (" << pair.i << ", " << pair.j << ")";
    }
  }
}

TEST(InplacePlan, NamesItsMethodAndScratch) {
  Plan plan;
  ASSERT_EQ(Plan::create_inplace(plan, Matrix{64, 64}, DType::f32), Status::ok);
  EXPECT_TRUE(plan.is_inplace());
  EXPECT_STREQ(plan.kernel_name(), "inplace_square");
  EXPECT_EQ(plan.scratch_bytes(), 0u);
  ASSERT_EQ(Plan::create_inplace(plan, Matrix{1, 640}, DType::f32), Status::ok);
  EXPECT_STREQ(plan.kernel_name(), "inplace_none");
  ASSERT_EQ(Plan::create_inplace(plan, Matrix{3000, 2000}, DType::f64), Status::ok);
  EXPECT_STREQ(plan.kernel_name(), "inplace_square_part");  // the 16 MB rest fits half the budget
  EXPECT_GT(plan.scratch_bytes(), std::size_t{16'000'000});
  EXPECT_LE(plan.scratch_bytes(), std::size_t{64} << 20);
  ASSERT_EQ(Plan::create_inplace(plan, Matrix{3000, 200}, DType::f64), Status::ok);
  EXPECT_STREQ(plan.kernel_name(), "inplace_square_part");  // the CPU: whenever the rest fits
  xpose::detail::InplaceProblem gpu;  // the GPU: from 16 MiB per matrix (4.8 MB here)
  ASSERT_EQ(xpose::detail::make_inplace_problem(Matrix{3000, 200}, DType::f64, Device::cuda, &gpu), Status::ok);
  EXPECT_EQ(gpu.method, xpose::detail::InplaceMethod::decomposed);
  ASSERT_EQ(Plan::create_inplace(plan, Matrix{8000, 2000}, DType::f64), Status::ok);
  EXPECT_STREQ(plan.kernel_name(), "inplace_decomposed");  // a 96 MB rest
  // A row per thread and a strip: far below the 128 MB matrix, within the 64 MiB budget.
  EXPECT_GT(plan.scratch_bytes(), 0u);
  EXPECT_LE(plan.scratch_bytes(), std::size_t{64} << 20);
  EXPECT_EQ(plan.matrix().ld_in, 2000);
  EXPECT_EQ(plan.matrix().ld_out, 8000);
  Plan other;
  ASSERT_EQ(Plan::create(other, Matrix{3000, 2000}, DType::f64), Status::ok);
  EXPECT_FALSE(other.is_inplace());
  EXPECT_EQ(other.scratch_bytes(), 0u);
}

TEST(InplaceValidation, RefusesWhatItCannotDoAndWritesNothing) {
  std::vector<unsigned char> data = inplace_input(6, 10, 1, 4, 1);
  const std::vector<unsigned char> before = data;
  void* view = data.data() + kInplaceGuard;
  const auto refused = [&](const Matrix& matrix, const char* text) {
    EXPECT_EQ(xpose::transpose_inplace(view, matrix, DType::f32), Status::invalid_argument);
    EXPECT_THAT(xpose::last_error_message(), HasSubstr(text));
  };
  Matrix padded{6, 10};
  padded.ld_in = 12;
  refused(padded, "ld_in (12) is not 10");
  Matrix padded_out{6, 10};
  padded_out.ld_out = 7;
  refused(padded_out, "ld_out (7) is not 6");
  Matrix spread{6, 10};
  spread.batch = 2;
  spread.stride_in = 70;
  refused(spread, "stride_in (70) is not 60");
  refused(Matrix{-1, 10}, "rows (-1) is negative");
  Matrix negative_batch{6, 10};
  negative_batch.batch = -2;
  refused(negative_batch, "batch (-2) is negative");
  refused(Matrix{int64_t{1} << 40, int64_t{1} << 40}, "overflows");
  EXPECT_EQ(xpose::transpose_inplace(nullptr, 6, 10, DType::f32), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("data is null"));
  EXPECT_EQ(xpose::transpose_inplace(nullptr, 0, 10, DType::f32), Status::ok);  // nothing to touch
  Matrix empty_huge{0, int64_t{1} << 62};  // empty: the other sizes may be anything
  empty_huge.batch = int64_t{1} << 62;
  EXPECT_EQ(xpose::transpose_inplace(nullptr, empty_huge, DType::c128), Status::ok) << xpose::last_error_message();

  xpose::PlanOptions options;
  options.kernel = "tile";
  Plan plan;
  EXPECT_EQ(Plan::create_inplace(plan, Matrix{6, 10}, DType::f32, Device::cpu, options), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("must be 'auto'"));
  EXPECT_FALSE(plan.valid());  // a failed create leaves the plan as it was

  ASSERT_EQ(Plan::create_inplace(plan, Matrix{6, 10}, DType::f32), Status::ok);
  EXPECT_EQ(plan.execute(view, view), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("execute_inplace"));
  Plan out_of_place;
  ASSERT_EQ(Plan::create(out_of_place, Matrix{6, 10}, DType::f32), Status::ok);
  EXPECT_EQ(out_of_place.execute_inplace(view), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("not in place"));
  EXPECT_EQ(Plan().execute_inplace(view), Status::invalid_argument);
  EXPECT_EQ(data, before);
}

}  // namespace
