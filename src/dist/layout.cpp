// SPDX-License-Identifier: Apache-2.0
// Layout checks and the even split: plain host code, testable without a GPU.
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "xpose/dist.hpp"

namespace xpose::dist {
namespace {

using detail::fail;
using detail::message;

bool fits(int64_t a, int64_t b, int64_t c) {  // a * b * c without overflow
  int64_t product = 0;
  return !__builtin_mul_overflow(a, b, &product) && !__builtin_mul_overflow(product, c, &product);
}

Status check_split(const std::vector<int64_t>& split, const char* name, int ranks, int64_t total,
                   const char* total_name) {
  if (static_cast<int64_t>(split.size()) != ranks)
    return fail(Status::invalid_argument, message("layout.", name, " has ", split.size(),
                                                  " entries but the communicator has ", ranks, " ranks"));
  int64_t sum = 0;
  for (size_t r = 0; r < split.size(); ++r) {
    if (split[r] < 0)
      return fail(Status::invalid_argument,
                  message("layout.", name, "[", r, "] (", split[r], ") is negative"));
    if (__builtin_add_overflow(sum, split[r], &sum))
      return fail(Status::invalid_argument, message("layout.", name, " overflows 64-bit counts"));
  }
  if (sum != total)
    return fail(Status::invalid_argument, message("layout.", name, " sums to ", sum, " but layout.",
                                                  total_name, " is ", total));
  return Status::ok;
}

}  // namespace

std::vector<int64_t> even_split(int64_t count, int ranks) {
  if (ranks <= 0 || count < 0) return {};
  std::vector<int64_t> split(static_cast<size_t>(ranks), count / ranks);
  for (int64_t r = 0; r < count % ranks; ++r) ++split[static_cast<size_t>(r)];
  return split;
}

Status validate_layout(const Layout& layout, int ranks, DType type) {
  if (ranks <= 0)
    return fail(Status::invalid_argument, message("ranks (", ranks, ") must be positive"));
  if (static_cast<int>(type) < 0 || static_cast<int>(type) > static_cast<int>(DType::c128))
    return fail(Status::invalid_argument, message("type (", static_cast<int>(type), ") is not a valid xpose::DType"));
  if (layout.rows < 0)
    return fail(Status::invalid_argument, message("layout.rows (", layout.rows, ") is negative"));
  if (layout.cols < 0)
    return fail(Status::invalid_argument, message("layout.cols (", layout.cols, ") is negative"));
  if (Status s = check_split(layout.in_rows, "in_rows", ranks, layout.rows, "rows"); s != Status::ok) return s;
  if (Status s = check_split(layout.out_rows, "out_rows", ranks, layout.cols, "cols"); s != Status::ok) return s;
  if (layout.ld_in != 0 && layout.ld_in < layout.cols)
    return fail(Status::invalid_argument, message("layout.ld_in (", layout.ld_in,
                                                  ") is less than layout.cols (", layout.cols, ")"));
  if (layout.ld_out != 0 && layout.ld_out < layout.rows)
    return fail(Status::invalid_argument, message("layout.ld_out (", layout.ld_out,
                                                  ") is less than layout.rows (", layout.rows, ")"));
  const int64_t elem_size = static_cast<int64_t>(size_of(type));
  const int64_t ld_in = layout.ld_in != 0 ? layout.ld_in : layout.cols;
  const int64_t ld_out = layout.ld_out != 0 ? layout.ld_out : layout.rows;
  // Every rank's blocks (and so the whole matrix) must have byte counts that fit in 64 bits.
  if (!fits(layout.rows, ld_in, elem_size) || !fits(layout.cols, ld_out, elem_size))
    return fail(Status::invalid_argument,
                message("layout ", layout.rows, " x ", layout.cols, " (ld_in ", ld_in, ", ld_out ",
                        ld_out, ") of ", elem_size, "-byte elements overflows 64-bit byte counts"));
  return Status::ok;
}

}  // namespace xpose::dist
