// SPDX-License-Identifier: Apache-2.0
// Helpers of the in-place transpose tests (CPU and GPU): a batch of packed matrices of random
// bytes between guard bytes, and the bytes a correct in-place transpose leaves.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/inplace.hpp"
#include "xpose/xpose.hpp"

namespace xpose_test {

constexpr std::size_t kInplaceGuard = 64;  // guard bytes either side of the matrices
constexpr unsigned char kInplaceGuardByte = 0xA5;

// `batch` rows x cols matrices of `elem_size`-byte elements, random bytes, between guards.
inline std::vector<unsigned char> inplace_input(int64_t rows, int64_t cols, int64_t batch, int elem_size,
                                                uint32_t seed) {
  const std::size_t bytes = static_cast<std::size_t>(rows * cols * batch * elem_size);
  std::vector<unsigned char> buffer(bytes + 2 * kInplaceGuard, kInplaceGuardByte);
  std::mt19937 random(seed);
  for (std::size_t k = 0; k < bytes; ++k) buffer[kInplaceGuard + k] = static_cast<unsigned char>(random());
  return buffer;
}

// The buffer a correct transpose of `input` leaves: each matrix cols x rows, guards unchanged.
inline std::vector<unsigned char> inplace_expected(const std::vector<unsigned char>& input, int64_t rows, int64_t cols,
                                                   int64_t batch, int elem_size) {
  std::vector<unsigned char> expected = input;
  const std::size_t size = static_cast<std::size_t>(elem_size);
  for (int64_t m = 0; m < batch; ++m) {
    const unsigned char* in = input.data() + kInplaceGuard + m * rows * cols * elem_size;
    unsigned char* out = expected.data() + kInplaceGuard + m * rows * cols * elem_size;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(out + (j * rows + i) * elem_size, in + (i * cols + j) * elem_size, size);
  }
  return expected;
}

// The first byte where two buffers differ, as "byte K (matrix m, element e)", or "" if none.
inline std::string first_difference(const std::vector<unsigned char>& got, const std::vector<unsigned char>& want,
                                    int64_t matrix_elements, int elem_size) {
  for (std::size_t k = 0; k < got.size() && k < want.size(); ++k) {
    if (got[k] == want[k]) continue;
    if (k < kInplaceGuard || k >= got.size() - kInplaceGuard) return "guard byte " + std::to_string(k) + " written";
    const int64_t element = static_cast<int64_t>(k - kInplaceGuard) / elem_size;
    const int64_t per_matrix = matrix_elements > 0 ? matrix_elements : 1;
    return "byte " + std::to_string(k) + " (matrix " + std::to_string(element / per_matrix) + ", element " +
           std::to_string(element % per_matrix) + ")";
  }
  return got.size() == want.size() ? "" : "sizes differ";
}

// A batch of rows x cols matrices as an in-place problem forced to `method` (square_part or
// decomposed, each of which the plans take for some shapes only); for square_part, staging_rows > 0
// narrows the scratch budget so that the square's rows move that many at a time. False if the
// problem is refused.
inline bool forced_inplace_problem(int64_t rows, int64_t cols, int64_t batch, xpose::DType type,
                                   xpose::detail::InplaceMethod method, int64_t staging_rows,
                                   xpose::detail::InplaceProblem* problem) {
  xpose::Matrix matrix{rows, cols};
  matrix.batch = batch;
  if (xpose::detail::make_inplace_problem(matrix, type, xpose::Device::cpu, problem) != xpose::Status::ok) return false;
  problem->method = method;
  const int64_t M = rows < cols ? rows : cols, N = rows < cols ? cols : rows;
  if (staging_rows > 0) problem->scratch_budget = (N - M + staging_rows) * M * problem->elem_size;
  return true;
}

}  // namespace xpose_test
