// SPDX-License-Identifier: Apache-2.0
// In-place transposes of packed matrices: the validated problem, the choice of method, and the
// index maps of the decomposition that both backends run (docs/inplace.md).
//
// Square matrices swap tile pairs across the diagonal. Any other matrix is transposed by the
// decomposition of Catanzaro, Keller and Garland (PPoPP 2014): viewed as M x N with M <= N, with
// c = gcd(M, N), a = M / c and b = N / c, the transpose of a row-major M x N matrix is
//   1. (c > 1 only) a column rotation:  A[i][j] <- A[(i + j / b) mod M][j]
//   2. a row shuffle:                   A[i][d_i(j)] <- A[i][j],  d_i(j) = ((i + j / b) mod M + j M) mod N
//   3. a column shuffle:                A[i][j] <- A[(q(i) + j) mod M][j],  q(i) = (i N - i / a) mod M
// Each step permutes within rows or within columns, so it needs scratch for one line at most, not
// for the matrix. A matrix with more rows than columns is viewed as its transpose's shape (the
// same bytes read as cols x rows, which has M <= N) and gets the three steps' inverses in reverse
// order, since transposing rows x cols undoes transposing cols x rows.
//
// A rectangular matrix whose part beyond its leading square (the rest: (N - M) x M elements) fits
// half the scratch budget (on the GPU: and holds 16 MiB or more) takes a shorter way,
// `square_part`, each step a copy or a transpose that
// streams memory. Wide (M rows of N): the rest's columns are copied out to scratch, the square's
// rows moved together (row i from i N to i M, through a staging buffer, rows in increasing order),
// the square transposed in place, and the rest transposed from scratch into the rows after it.
// Tall (N rows of M): the same steps undone, in reverse order (the rest's rows copied out, the
// square transposed, its rows moved apart, decreasing order, the rest transposed into the gaps).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/permute_fast_division.hpp"  // XPOSE_HOST_DEVICE
#include "xpose/xpose.hpp"

namespace xpose::detail {

// Square matrices swap pairs of tiles across the diagonal. Pair k of a matrix of `tiles` tiles a
// side is tile (i, j), i <= j, with its mirror (j, i), in row-major order of the upper triangle
// (row i holds tiles - i pairs and starts at pair i * tiles - i (i - 1) / 2), so that consecutive
// pairs walk along a row of tiles and down a column of mirrors.
struct SquareTilePair {
  int64_t i = 0, j = 0;
};
XPOSE_HOST_DEVICE inline SquareTilePair square_tile_pair(int64_t k, int64_t tiles) {
  const auto row_start = [tiles](int64_t row) { return row * tiles - row * (row - 1) / 2; };
  // The root of row_start(i) = k, then corrected for rounding.
  const double b = 2.0 * static_cast<double>(tiles) + 1.0;
  int64_t i = static_cast<int64_t>((b - sqrt(b * b - 8.0 * static_cast<double>(k))) / 2.0);
  if (i < 0) i = 0;
  if (i > tiles - 1) i = tiles - 1;
  while (i > 0 && row_start(i) > k) --i;
  while (i + 1 < tiles && row_start(i + 1) <= k) ++i;
  return {i, i + k - row_start(i)};
}

enum class InplaceMethod {
  nothing,     // empty, or a single row or column: the bytes already are the transpose
  square,      // tile pairs swapped across the diagonal
  decomposed,  // the three permutations above
  square_part,  // the leading square in place, the rest through scratch (above)
};

// The decomposition's view and constants (M <= N).
struct Decomposition {
  int64_t M = 0, N = 0;  // the view the steps work on: M rows of N elements
  int64_t a = 1, b = 1;  // M / gcd(M, N), N / gcd(M, N)
  bool rotate = false;   // gcd(M, N) > 1: step 1 runs
  bool inverse = false;  // the input has more rows than columns: the inverse steps, in reverse

  // Step 1's source row for element (i, j), and its inverse's.
  XPOSE_HOST_DEVICE int64_t rotated_row(int64_t i, int64_t j) const { return (i + j / b) % M; }
  XPOSE_HOST_DEVICE int64_t unrotated_row(int64_t i, int64_t j) const {
    const int64_t shift = (j / b) % M;
    return i >= shift ? i - shift : i + M - shift;
  }
  // Step 2: where row i's element j goes.
  XPOSE_HOST_DEVICE int64_t shuffled_column(int64_t i, int64_t j) const {
    return ((i + j / b) % M + j * M) % N;
  }
  // Step 3's row map q (a permutation of [0, M)).
  XPOSE_HOST_DEVICE int64_t q(int64_t i) const { return (i * N - i / a) % M; }
};

struct InplaceProblem {
  int64_t rows = 0, cols = 0, batch = 1;  // each matrix rows x cols, packed, one after another
  int elem_size = 0;
  DType type = DType::u8;
  InplaceMethod method = InplaceMethod::nothing;
  Decomposition decomposition;  // M, N and inverse (tall) for decomposed and square_part; a, b, rotate for decomposed
  int64_t scratch_budget = 0;   // 0: inplace_scratch_budget's rule; tests set less to force small steps

  int64_t matrix_elements() const { return rows * cols; }
  int64_t bytes() const { return rows * cols * batch * elem_size; }
};

// Validates `matrix` (packed views only) for an in-place transpose and chooses the method for
// `device`. On failure records the message and returns the Status.
Status make_inplace_problem(const Matrix& matrix, DType type, Device device, InplaceProblem* problem);

// q(i) for every i of [0, M), and its inverse: the column shuffle's tables.
void column_shuffle_tables(const Decomposition& d, std::vector<int64_t>* q, std::vector<int64_t>* q_inverse);

// The scratch a backend takes per execute: the budget it may use, max(64 MiB, 1% of the data)
// (or the problem's own scratch_budget).
int64_t inplace_scratch_budget(const InplaceProblem& problem);

// square_part's scratch: the rest ((N - M) x M elements), then a staging buffer of whole rows of
// the square: what the budget leaves, at most `staging_bytes` and the M - 1 rows that move; one
// row at least. The CPU passes half its last-level cache, so that the rows it copies to staging are
// read back from the cache; the GPU passes nothing (half the L2 measured slower there).
struct SquarePartLayout {
  int64_t rest_bytes = 0;
  int64_t staging_rows = 0;
  explicit SquarePartLayout(const InplaceProblem& problem, int64_t staging_bytes = INT64_MAX);
  int64_t scratch_bytes(const InplaceProblem& problem) const;
};

// The backends. Arguments are validated and the method is not `nothing`.
Status cpu_transpose_inplace(void* data, const InplaceProblem& problem, int threads);
int64_t cpu_inplace_scratch_bytes(const InplaceProblem& problem, int threads);
Status cuda_transpose_inplace(void* data, const InplaceProblem& problem, void* stream);
int64_t cuda_inplace_scratch_bytes(const InplaceProblem& problem);

}  // namespace xpose::detail
