// SPDX-License-Identifier: Apache-2.0
#include "core/permute_problem.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace xpose::detail {
namespace {

Status invalid(const std::string& text) { return fail(Status::invalid_argument, text); }

bool checked_mul(int64_t a, int64_t b, int64_t* result) { return !__builtin_mul_overflow(a, b, result); }
bool checked_add(int64_t a, int64_t b, int64_t* result) { return !__builtin_add_overflow(a, b, result); }

std::string join(const std::vector<int64_t>& values) {
  std::string text;
  for (std::size_t k = 0; k < values.size(); ++k) text += (k ? " x " : "") + std::to_string(values[k]);
  return text.empty() ? "a scalar" : text;
}

// Checks that one view's strides give every element its own place, and computes its extent (the
// elements from the first to one past the last). `name` is "in_strides" or "out_strides", `side`
// "input" or "output". Sorted by stride, each dim of size > 1 must step over the whole span of the
// dims before it.
Status check_view(const char* name, const char* side, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides, int64_t* extent) {
  std::array<std::pair<int64_t, int>, kMaxPermuteRank> order;  // (stride, dim)
  int count = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] > 1) order[count++] = {strides[k], static_cast<int>(k)};
  std::sort(order.begin(), order.begin() + count);
  int64_t span = 1;  // elements spanned by the dims checked so far
  for (int i = 0; i < count; ++i) {
    const auto [stride, dim] = order[i];
    if (stride < span)
      return invalid(message(name, "[", dim, "] (", stride, ") is too small: ", side, " dim ", dim,
                             " (size ", sizes[dim], ") would overlap the ", side,
                             " dims of smaller stride, which span ", span, " elements"));
    int64_t step = 0;
    if (!checked_mul(sizes[dim] - 1, stride, &step) || !checked_add(span, step, &span))
      return invalid(message("the ", side, " view (", name, "[", dim, "] = ", stride, " for size ",
                             sizes[dim], ") overflows 64-bit element offsets"));
  }
  *extent = span;
  return Status::ok;
}

// Row-major strides of `sizes`. Saturates instead of overflowing: only an empty tensor can get
// that far with such sizes, and its strides are never used.
std::vector<int64_t> packed_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;)
    if (!checked_mul(strides[k], std::max<int64_t>(sizes[k], 1), &strides[k - 1]))
      strides[k - 1] = INT64_MAX;
  return strides;
}

Status check_strides(const char* name, const std::vector<int64_t>& strides, int rank) {
  if (!strides.empty() && static_cast<int>(strides.size()) != rank)
    return invalid(message(name, " has ", strides.size(), " entries for rank ", rank,
                           " (give one per dim, or none for a packed view)"));
  for (std::size_t k = 0; k < strides.size(); ++k)
    if (strides[k] < 0) return invalid(message(name, "[", k, "] (", strides[k], ") is negative"));
  return Status::ok;
}

}  // namespace

Status make_permute_problem(const Permutation& given, DType type, PermuteProblem* problem) {
  const std::size_t elem_size = size_of(type);
  if (elem_size == 0)
    return invalid(message("dtype (", static_cast<int>(type), ") is not a valid xpose::DType"));
  const int rank = static_cast<int>(given.dims.size());
  if (given.dims.size() > static_cast<std::size_t>(kMaxPermuteRank))
    return invalid(message("rank ", given.dims.size(), " exceeds the limit of ", kMaxPermuteRank));
  if (given.perm.size() != given.dims.size())
    return invalid(message("perm has ", given.perm.size(), " entries for rank ", rank,
                           " (dims has ", rank, ")"));
  for (int k = 0; k < rank; ++k)
    if (given.dims[k] < 0) return invalid(message("dims[", k, "] (", given.dims[k], ") is negative"));
  std::array<bool, kMaxPermuteRank> seen{};
  for (int i = 0; i < rank; ++i) {
    const int axis = given.perm[i];
    if (axis < 0 || axis >= rank)
      return invalid(message("perm[", i, "] (", axis, ") is out of range for rank ", rank));
    if (seen[axis]) return invalid(message("perm repeats ", axis));
    seen[axis] = true;
  }
  if (Status s = check_strides("in_strides", given.in_strides, rank); s != Status::ok) return s;
  if (Status s = check_strides("out_strides", given.out_strides, rank); s != Status::ok) return s;

  PermuteProblem p;
  p.permutation.dims = given.dims;
  p.permutation.perm = given.perm;
  p.rank = rank;
  p.elem_size = static_cast<int>(elem_size);
  p.type = type;
  std::vector<int64_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) out_dims[i] = given.dims[given.perm[i]];
  p.permutation.in_strides = given.in_strides.empty() ? packed_strides(given.dims) : given.in_strides;
  p.permutation.out_strides = given.out_strides.empty() ? packed_strides(out_dims) : given.out_strides;

  p.elements = 1;
  const bool empty = std::find(given.dims.begin(), given.dims.end(), 0) != given.dims.end();
  if (empty) {
    p.elements = 0;
  } else {
    int64_t bytes = 0;
    for (int64_t dim : given.dims)
      if (!checked_mul(p.elements, dim, &p.elements) ||
          !checked_mul(p.elements, static_cast<int64_t>(elem_size), &bytes))
        return invalid(message("dims ", join(given.dims), " of ", to_string(type),
                               " overflow 64-bit byte counts"));
    if (Status s = check_view("in_strides", "input", given.dims, p.permutation.in_strides,
                              &p.input_extent);
        s != Status::ok)
      return s;
    if (Status s = check_view("out_strides", "output", out_dims, p.permutation.out_strides,
                              &p.output_extent);
        s != Status::ok)
      return s;
    if (!checked_mul(p.input_extent, static_cast<int64_t>(elem_size), &bytes))
      return invalid(message("the input view (", p.input_extent, " elements of ", to_string(type),
                             ") overflows 64-bit byte counts"));
    if (!checked_mul(p.output_extent, static_cast<int64_t>(elem_size), &bytes))
      return invalid(message("the output view (", p.output_extent, " elements of ", to_string(type),
                             ") overflows 64-bit byte counts"));
  }
  *problem = std::move(p);
  return Status::ok;
}

Status check_permute_pointers(const void* in, const void* out, const PermuteProblem& p) {
  if (p.empty()) return Status::ok;
  if (in == nullptr) return invalid("in is a null pointer for a non-empty tensor");
  if (out == nullptr) return invalid("out is a null pointer for a non-empty tensor");
  const auto in_begin = reinterpret_cast<std::uintptr_t>(in);
  const auto out_begin = reinterpret_cast<std::uintptr_t>(out);
  const auto in_end = in_begin + static_cast<std::uintptr_t>(p.input_extent) * p.elem_size;
  const auto out_end = out_begin + static_cast<std::uintptr_t>(p.output_extent) * p.elem_size;
  if (in_begin < out_end && out_begin < in_end)
    return invalid(message("in and out overlap (in spans ", p.input_extent * p.elem_size,
                           " bytes, out ", p.output_extent * p.elem_size,
                           " bytes): permute is out-of-place"));
  return Status::ok;
}

}  // namespace xpose::detail
