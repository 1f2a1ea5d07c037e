// SPDX-License-Identifier: Apache-2.0
// The N-D problem as the user described it, validated: dims, perm and both strides filled in
// (packed defaults), the element size, and the extents the pointer checks need. All counts are in
// elements. Kernels receive the normalised form (permute_layout.hpp); the reference uses this one,
// so that it stays the definition even where normalisation is wrong.
#pragma once

#include <cstdint>

#include "xpose/xpose.hpp"

namespace xpose::detail {

struct PermuteProblem {
  Permutation permutation;  // strides filled in: in_strides per input dim, out_strides per output dim
  int rank = 0;
  int elem_size = 0;
  DType type = DType::u8;
  int64_t elements = 0;       // product of the dims (1 for rank 0)
  int64_t input_extent = 0;   // elements from the first to one past the last of the input view
  int64_t output_extent = 0;

  bool empty() const { return elements == 0; }
  int64_t bytes() const { return elements * elem_size; }
  // Each view covers exactly its elements, without gaps: `bytes()` contiguous bytes each (row-major
  // when the strides were left empty, but any dense order counts).
  bool dense() const { return input_extent == elements && output_extent == elements; }
};

// Validates `permutation` for `type` and fills in the packed defaults. On failure records a
// message naming the argument and its value and returns the Status; `problem` is then unchanged.
Status make_permute_problem(const Permutation& permutation, DType type, PermuteProblem* problem);

// The pointers of one execute(): non-null for a non-empty problem, views that do not overlap.
Status check_permute_pointers(const void* in, const void* out, const PermuteProblem& problem);

}  // namespace xpose::detail
