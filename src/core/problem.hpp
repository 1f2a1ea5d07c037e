// SPDX-License-Identifier: Apache-2.0
// The 2D problem every kernel receives: a validated Matrix with its packed defaults filled in and
// the element size that selects the kernel instantiation. All counts are in elements.
#pragma once

#include <cstdint>

#include "xpose/xpose.hpp"

namespace xpose::detail {

struct Transpose2D {
  int64_t rows = 0, cols = 0;         // input is rows x cols, output cols x rows
  int64_t ld_in = 0, ld_out = 0;      // >= cols, >= rows
  int64_t batch = 1;
  int64_t stride_in = 0, stride_out = 0;
  int elem_size = 0;                  // bytes: 1, 2, 4, 8 or 16
  DType type = DType::u8;             // for the few kernels that compute (cuBLAS geam)

  bool empty() const { return rows == 0 || cols == 0 || batch == 0; }
  int64_t elements_per_matrix() const { return rows * cols; }
  int64_t elements() const { return rows * cols * batch; }
  // Bytes one transpose must read (and write): the figure bandwidth is computed from.
  int64_t bytes() const { return elements() * elem_size; }
  bool packed() const {
    return ld_in == cols && ld_out == rows && (batch == 1 ||
           (stride_in == rows * cols && stride_out == rows * cols));
  }
  // Elements spanned by the input and output views, from the first element to one past the last.
  int64_t input_extent() const {
    return empty() ? 0 : (batch - 1) * stride_in + (rows - 1) * ld_in + cols;
  }
  int64_t output_extent() const {
    return empty() ? 0 : (batch - 1) * stride_out + (cols - 1) * ld_out + rows;
  }
};

// Validates `matrix` for `type` and fills in the packed defaults. On failure records the message
// (naming the argument and its value) and returns the Status; `problem` is then unspecified.
Status make_problem(const Matrix& matrix, DType type, Transpose2D* problem);

// Checks the pointers of one execute(): non-null for a non-empty problem, and input and output
// views that do not overlap.
Status check_pointers(const void* in, const void* out, const Transpose2D& problem);

}  // namespace xpose::detail
