// SPDX-License-Identifier: Apache-2.0
#include "core/permute_layout.hpp"

#include <algorithm>
#include <sstream>

namespace xpose::detail {

int PermuteLayout::output_inner() const {
  int inner = -1;
  for (int k = 0; k < rank; ++k)
    if (inner < 0 || axes[k].out_stride < axes[inner].out_stride) inner = k;
  return inner;
}

std::array<int, kMaxPermuteRank> PermuteLayout::output_order() const {
  std::array<int, kMaxPermuteRank> order{};
  for (int k = 0; k < rank; ++k) order[k] = k;
  std::sort(order.begin(), order.begin() + rank,
            [this](int a, int b) { return axes[a].out_stride > axes[b].out_stride; });
  return order;
}

bool PermuteLayout::moves_nothing() const {
  for (int k = 1; k < rank; ++k)
    if (axes[k - 1].out_stride < axes[k].out_stride) return false;
  return true;
}

bool PermuteLayout::is_block_or_rows_copy() const {
  const bool contiguous_rows =
      rank == 0 || (axes[rank - 1].in_stride == 1 && axes[rank - 1].out_stride == 1);
  return moves_nothing() && rank <= 2 && contiguous_rows;
}

std::string PermuteLayout::describe() const {
  std::ostringstream text;
  text << "(";
  for (int k = 0; k < rank; ++k) text << (k ? " x " : "") << axes[k].size;
  text << ") -> [";
  const auto order = output_order();
  for (int i = 0; i < rank; ++i) text << (i ? " " : "") << order[i];
  text << "] (" << elem_size << "-byte elements)";
  return text.str();
}

PermuteLayout normalise(const PermuteProblem& p) {
  PermuteLayout layout;
  layout.elem_size = p.elem_size;
  layout.elements = p.elements;
  if (p.empty()) return layout;

  // Axis k of the input; its output stride is that of the output dim i with perm[i] = k.
  const Permutation& given = p.permutation;
  std::array<int64_t, kMaxPermuteRank> out_stride_of_input{};
  for (int i = 0; i < p.rank; ++i) out_stride_of_input[given.perm[i]] = given.out_strides[i];
  int n = 0;
  for (int k = 0; k < p.rank; ++k)
    if (given.dims[k] > 1) layout.axes[n++] = {given.dims[k], given.in_strides[k], out_stride_of_input[k]};

  // Fuse until nothing fuses. At most 15 fusions of 16 axes: cheap enough to search all pairs.
  for (bool fused = true; fused;) {
    fused = false;
    for (int a = 0; a < n && !fused; ++a)
      for (int b = 0; b < n && !fused; ++b) {
        PermuteAxis& outer = layout.axes[a];
        const PermuteAxis& inner = layout.axes[b];
        int64_t in_span = 0, out_span = 0;  // what the inner axis steps over on each side
        if (a == b || __builtin_mul_overflow(inner.size, inner.in_stride, &in_span) ||
            __builtin_mul_overflow(inner.size, inner.out_stride, &out_span) ||
            outer.in_stride != in_span || outer.out_stride != out_span)
          continue;
        outer = {outer.size * inner.size, inner.in_stride, inner.out_stride};
        layout.axes[b] = layout.axes[--n];
        fused = true;
      }
  }
  std::sort(layout.axes.begin(), layout.axes.begin() + n,
            [](const PermuteAxis& a, const PermuteAxis& b) { return a.in_stride > b.in_stride; });
  layout.rank = n;
  return layout;
}

bool widen_elements(const PermuteLayout& layout, PermuteLayout* widened) {
  if (layout.rank < 2) return false;
  const PermuteAxis& run = layout.axes[layout.rank - 1];
  if (layout.output_inner() != layout.rank - 1 || run.in_stride != 1 || run.out_stride != 1) return false;
  const int64_t run_bytes = run.size * layout.elem_size;
  if (run_bytes != 2 && run_bytes != 4 && run_bytes != 8 && run_bytes != 16) return false;
  PermuteLayout w;
  w.rank = layout.rank - 1;
  w.elem_size = static_cast<int>(run_bytes);
  w.elements = layout.elements / run.size;
  for (int k = 0; k < w.rank; ++k) {
    const PermuteAxis& a = layout.axes[k];
    if (a.in_stride % run.size != 0 || a.out_stride % run.size != 0) return false;
    w.axes[k] = {a.size, a.in_stride / run.size, a.out_stride / run.size};
  }
  *widened = w;
  return true;
}

bool as_matrix(const PermuteLayout& layout, Matrix* matrix) {
  const int n = layout.rank;
  if (n != 2 && n != 3) return false;
  // rows x cols are the last two input axes; the output must hold them the other way round.
  const PermuteAxis& rows = layout.axes[n - 2];
  const PermuteAxis& cols = layout.axes[n - 1];
  if (cols.in_stride != 1 || rows.out_stride != 1 || cols.out_stride <= rows.out_stride) return false;
  Matrix m{rows.size, cols.size, rows.in_stride, cols.out_stride, 1, 0, 0};
  if (n == 3) {
    // The batch axis must be outermost on the output side too.
    const PermuteAxis& batch = layout.axes[0];
    if (batch.out_stride < cols.out_stride) return false;
    m.batch = batch.size;
    m.stride_in = batch.in_stride;
    m.stride_out = batch.out_stride;
  }
  *matrix = m;
  return true;
}

DType dtype_of_size(int size) {
  switch (size) {
    case 2: return DType::u16;
    case 4: return DType::u32;
    case 8: return DType::u64;
    case 16: return DType::c128;
    default: return DType::u8;
  }
}

}  // namespace xpose::detail
