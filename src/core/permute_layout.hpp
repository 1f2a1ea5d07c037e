// SPDX-License-Identifier: Apache-2.0
// The normalised form of a permutation, which kernels are chosen for and run on.
//
// A permutation is a set of axes, each with a size and a stride on both sides: the element at
// coordinates (x_0, ..., x_n-1) moves from sum(x_k * in_stride_k) to sum(x_k * out_stride_k).
// Normalising (cuTT and HPTT do the same):
//   - drops axes of size 1 (they move nothing);
//   - fuses axes a and b when a steps over exactly all of b on both sides
//     (a.in_stride == b.size * b.in_stride and a.out_stride == b.size * b.out_stride): dims that
//     stay adjacent in the same order become one;
//   - sorts the axes by input stride, outermost first.
// So a packed (b, r, c) -> (b, c, r) stays 3 axes, (a, b, c, d) -> (c, d, a, b) becomes the 2D
// transpose (ab, cd) -> (cd, ab), and any permutation that moves nothing becomes one axis: a copy.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/permute_problem.hpp"

namespace xpose::detail {

struct PermuteAxis {
  int64_t size = 1;
  int64_t in_stride = 0;   // elements
  int64_t out_stride = 0;  // elements
};

struct PermuteLayout {
  int rank = 0;  // axes after normalisation; 0 for a single element (or an empty tensor)
  std::array<PermuteAxis, kMaxPermuteRank> axes{};  // outermost input axis first
  int elem_size = 0;
  int64_t elements = 0;

  const PermuteAxis& operator[](int k) const { return axes[k]; }
  // The axis with unit-most input stride (the last one) and the one with the smallest output
  // stride; -1 when rank is 0.
  int input_inner() const { return rank - 1; }
  int output_inner() const;
  // Axis indices by output stride, outermost first.
  std::array<int, kMaxPermuteRank> output_order() const;
  // The output order is the input order: a (possibly strided) copy.
  bool moves_nothing() const;
  // Moves nothing and is one contiguous block (rank 0 or 1) or rows of one (rank 2 with unit
  // inner strides): what the `copy` kernels of both devices run.
  bool is_block_or_rows_copy() const;
  int64_t bytes() const { return elements * elem_size; }
  // "(384 x 355 x 384) -> [2 1 0] (8-byte elements)" for messages and docs.
  std::string describe() const;
};

// The normalised layout of a validated problem.
PermuteLayout normalise(const PermuteProblem& problem);

// Element widening: when the innermost axis stays innermost with unit strides on both sides and
// its run is 2, 4, 8 or 16 bytes (and every other stride is a multiple of the run), the run
// becomes one element of that size and the axis disappears. (r, c, 4) f32 -> (c, r, 4) is then a
// 2D transpose of 16-byte elements. Pointers must then be aligned to the new element size.
// Returns false (and leaves `widened` alone) when it does not apply.
bool widen_elements(const PermuteLayout& layout, PermuteLayout* widened);

// The layout as a (batched) 2D transpose, which the production 2D kernels run: (r, c) -> (c, r)
// or (b, r, c) -> (b, c, r) with unit strides on the contiguous sides. Returns false when the
// layout is something else.
bool as_matrix(const PermuteLayout& layout, Matrix* matrix);

// A DType of `size` bytes for kernels that only care about the size (u8, u16, u32, u64, c128).
DType dtype_of_size(int size);

}  // namespace xpose::detail
