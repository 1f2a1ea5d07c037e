// SPDX-License-Identifier: Apache-2.0
#include "core/inplace.hpp"

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace xpose::detail {
namespace {

// square_part on the GPU from this many bytes per matrix: below it the decomposition's few launches
// per matrix should cost less than square_part's six (copies, the square, the rest) per matrix of
// a batch (expected, not measured). The CPU takes square_part whenever the rest fits: its steps per matrix cost microseconds
// (docs/inplace.md: 64 x 1000 x 1001 f32 6.9% of memcpy decomposed, 51% through the square).
constexpr int64_t kSquarePartFromBytesGpu = int64_t{16} << 20;

}  // namespace

Status make_inplace_problem(const Matrix& m, DType type, Device device, InplaceProblem* problem) {
  const auto invalid = [](const std::string& text) { return fail(Status::invalid_argument, text); };
  const std::size_t elem_size = size_of(type);
  if (elem_size == 0) return invalid(message("dtype (", static_cast<int>(type), ") is not a valid xpose::DType"));
  if (m.rows < 0) return invalid(message("rows (", m.rows, ") is negative"));
  if (m.cols < 0) return invalid(message("cols (", m.cols, ") is negative"));
  if (m.batch < 0) return invalid(message("batch (", m.batch, ") is negative"));
  int64_t elements = 0, bytes = 0;
  const bool empty = m.rows == 0 || m.cols == 0 || m.batch == 0;  // any size of the others is fine
  if (!empty && (__builtin_mul_overflow(m.rows, m.cols, &elements) || __builtin_mul_overflow(elements, m.batch, &bytes) ||
                 __builtin_mul_overflow(bytes, static_cast<int64_t>(elem_size), &bytes)))
    return invalid(message("a batch of ", m.batch, " matrices of ", m.rows, " x ", m.cols, " overflows 64-bit sizes"));
  // The transpose must land where the matrix was, packed: only packed views have that shape.
  const auto packed_only = [&](const char* name, int64_t value, int64_t packed) -> Status {
    if (value == 0 || value == packed) return Status::ok;
    return invalid(message(name, " (", value, ") is not ", packed, ": an in-place transpose takes packed matrices "
                           "only (leave it 0)"));
  };
  if (Status s = packed_only("ld_in", m.ld_in, m.cols); s != Status::ok) return s;
  if (Status s = packed_only("ld_out", m.ld_out, m.rows); s != Status::ok) return s;
  if (!empty) {
    if (Status s = packed_only("stride_in", m.stride_in, elements); s != Status::ok) return s;
    if (Status s = packed_only("stride_out", m.stride_out, elements); s != Status::ok) return s;
  }

  InplaceProblem p;
  p.rows = m.rows;
  p.cols = m.cols;
  p.batch = m.batch;
  p.elem_size = static_cast<int>(elem_size);
  p.type = type;
  if (empty || m.rows == 1 || m.cols == 1) {
    p.method = InplaceMethod::nothing;
  } else if (m.rows == m.cols) {
    p.method = InplaceMethod::square;
  } else {
    Decomposition& d = p.decomposition;
    d.M = std::min(m.rows, m.cols);
    d.N = std::max(m.rows, m.cols);
    const int64_t c = std::gcd(d.M, d.N);
    d.a = d.M / c;
    d.b = d.N / c;
    d.rotate = c > 1;
    d.inverse = m.rows > m.cols;
    // The rest within half the budget (so that staging gets the other half), and on the GPU
    // matrices large enough that square_part's launches per matrix do not count.
    const bool rest_fits = (d.N - d.M) * d.M * p.elem_size <= inplace_scratch_budget(p) / 2;
    const int64_t from_bytes = device == Device::cuda ? kSquarePartFromBytesGpu : 0;
    p.method = rest_fits && elements * p.elem_size >= from_bytes ? InplaceMethod::square_part : InplaceMethod::decomposed;
  }
  *problem = std::move(p);
  return Status::ok;
}

void column_shuffle_tables(const Decomposition& d, std::vector<int64_t>* q, std::vector<int64_t>* q_inverse) {
  q->resize(static_cast<std::size_t>(d.M));
  q_inverse->resize(static_cast<std::size_t>(d.M));
  for (int64_t i = 0; i < d.M; ++i) {
    const int64_t row = d.q(i);
    (*q)[static_cast<std::size_t>(i)] = row;
    (*q_inverse)[static_cast<std::size_t>(row)] = i;
  }
}

int64_t inplace_scratch_budget(const InplaceProblem& problem) {
  if (problem.scratch_budget > 0) return problem.scratch_budget;
  return std::max<int64_t>(int64_t{64} << 20, problem.bytes() / 100);
}

SquarePartLayout::SquarePartLayout(const InplaceProblem& p, int64_t staging_bytes) {
  const Decomposition& d = p.decomposition;
  const int64_t row_bytes = d.M * p.elem_size;
  rest_bytes = (d.N - d.M) * row_bytes;
  const int64_t room = std::min(inplace_scratch_budget(p) - rest_bytes, staging_bytes);
  staging_rows = std::clamp<int64_t>(room / row_bytes, 1, std::max<int64_t>(d.M - 1, 1));
}

int64_t SquarePartLayout::scratch_bytes(const InplaceProblem& p) const {
  return rest_bytes + staging_rows * p.decomposition.M * p.elem_size;
}

}  // namespace xpose::detail
