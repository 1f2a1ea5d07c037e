// SPDX-License-Identifier: Apache-2.0
#include "core/problem.hpp"

#include <cstdint>

#include "core/error.hpp"

namespace xpose::detail {
namespace {

// a * b + c without signed overflow; false if it would overflow.
bool mul_add(int64_t a, int64_t b, int64_t c, int64_t* result) {
  int64_t product = 0;
  return !__builtin_mul_overflow(a, b, &product) && !__builtin_add_overflow(product, c, result);
}

Status invalid(const std::string& text) { return fail(Status::invalid_argument, text); }

}  // namespace

Status make_problem(const Matrix& m, DType type, Transpose2D* p) {
  const std::size_t elem_size = size_of(type);
  if (elem_size == 0)
    return invalid(message("dtype (", static_cast<int>(type), ") is not a valid xpose::DType"));
  if (m.rows < 0) return invalid(message("rows (", m.rows, ") is negative"));
  if (m.cols < 0) return invalid(message("cols (", m.cols, ") is negative"));
  if (m.batch < 0) return invalid(message("batch (", m.batch, ") is negative"));
  if (m.ld_in < 0) return invalid(message("ld_in (", m.ld_in, ") is negative"));
  if (m.ld_out < 0) return invalid(message("ld_out (", m.ld_out, ") is negative"));
  if (m.stride_in < 0) return invalid(message("stride_in (", m.stride_in, ") is negative"));
  if (m.stride_out < 0) return invalid(message("stride_out (", m.stride_out, ") is negative"));

  Transpose2D q;
  q.rows = m.rows;
  q.cols = m.cols;
  q.batch = m.batch;
  q.elem_size = static_cast<int>(elem_size);
  q.type = type;
  q.ld_in = m.ld_in ? m.ld_in : m.cols;
  q.ld_out = m.ld_out ? m.ld_out : m.rows;
  if (q.ld_in < q.cols)
    return invalid(message("ld_in (", q.ld_in, ") is smaller than cols (", q.cols, ")"));
  if (q.ld_out < q.rows)
    return invalid(message("ld_out (", q.ld_out, ") is smaller than rows (", q.rows, ")"));

  // One matrix of the input spans (rows - 1) * ld_in + cols elements; batches must not overlap.
  int64_t span_in = 0, span_out = 0, packed_in = 0, packed_out = 0;
  if (!mul_add(q.rows, q.ld_in, 0, &packed_in) || !mul_add(q.cols, q.ld_out, 0, &packed_out))
    return invalid(message("matrix of ", q.rows, " x ", q.cols, " with ld_in ", q.ld_in,
                           " and ld_out ", q.ld_out, " overflows 64-bit sizes"));
  span_in = q.rows == 0 ? 0 : packed_in - q.ld_in + q.cols;
  span_out = q.cols == 0 ? 0 : packed_out - q.ld_out + q.rows;
  q.stride_in = m.stride_in ? m.stride_in : packed_in;
  q.stride_out = m.stride_out ? m.stride_out : packed_out;
  if (q.batch > 1 && q.stride_in < span_in)
    return invalid(message("stride_in (", q.stride_in, ") is smaller than one input matrix (",
                           span_in, " elements): batches would overlap"));
  if (q.batch > 1 && q.stride_out < span_out)
    return invalid(message("stride_out (", q.stride_out, ") is smaller than one output matrix (",
                           span_out, " elements): batches would overlap"));

  // Every element and byte offset must fit in int64_t.
  int64_t extent = 0, bytes = 0;
  const int64_t last = q.batch > 0 ? q.batch - 1 : 0;
  if (!mul_add(last, q.stride_in, span_in, &extent) ||
      !mul_add(extent, static_cast<int64_t>(elem_size), 0, &bytes))
    return invalid(message("input of ", q.batch, " x ", q.rows, " x ", q.cols, " ", to_string(type),
                           " (strides ", q.ld_in, ", ", q.stride_in, ") overflows 64-bit byte counts"));
  if (!mul_add(last, q.stride_out, span_out, &extent) ||
      !mul_add(extent, static_cast<int64_t>(elem_size), 0, &bytes))
    return invalid(message("output of ", q.batch, " x ", q.cols, " x ", q.rows, " ",
                           to_string(type), " (strides ", q.ld_out, ", ", q.stride_out,
                           ") overflows 64-bit byte counts"));
  int64_t total = 0;
  if (!mul_add(q.rows, q.cols, 0, &total) || !mul_add(total, q.batch, 0, &total) ||
      !mul_add(total, static_cast<int64_t>(elem_size), 0, &total))
    return invalid(message(q.batch, " x ", q.rows, " x ", q.cols, " ", to_string(type),
                           " overflows 64-bit byte counts"));
  *p = q;
  return Status::ok;
}

Status check_pointers(const void* in, const void* out, const Transpose2D& p) {
  if (p.empty()) return Status::ok;
  if (in == nullptr) return invalid("in is a null pointer for a non-empty matrix");
  if (out == nullptr) return invalid("out is a null pointer for a non-empty matrix");
  const auto in_begin = reinterpret_cast<std::uintptr_t>(in);
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out);
  const auto in_end = in_begin + static_cast<std::uintptr_t>(p.input_extent()) * p.elem_size;
  const auto out_end = out_begin + static_cast<std::uintptr_t>(p.output_extent()) * p.elem_size;
  if (in_begin < out_end && out_begin < in_end)
    return invalid(message("in and out overlap (in spans ", p.input_extent() * p.elem_size,
                           " bytes, out ", p.output_extent() * p.elem_size,
                           " bytes): transpose is out-of-place"));
  return Status::ok;
}

}  // namespace xpose::detail
