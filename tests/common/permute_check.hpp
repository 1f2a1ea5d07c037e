// SPDX-License-Identifier: Apache-2.0
// Test helpers for permutations (plain C++, header-only; the GPU tests use them too): guarded
// buffers for a tensor view, inputs whose elements encode their index, poisoned outputs, and a
// check of the whole output allocation against the reference permutation.
//
// Layout of every buffer:  [kGuard bytes][misalign bytes][view: extent * elem_size][kGuard bytes]
// Input bytes outside the view are kPadding; output bytes start as kPoison, so a check proves
// that nothing outside the output view was written and that nothing was read from input padding.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/permute_problem.hpp"
#include "cpu/permute_reference.hpp"
#include "xpose/xpose.hpp"

namespace xpose_test {

constexpr unsigned char kPermutePoison = 0xFF;
constexpr unsigned char kPermutePadding = 0xA5;
constexpr std::size_t kPermuteGuard = 64;

// "dims 3 x 5 x 2 | perm 2 0 1 | in_strides 40 8 1 | f32" for traces.
inline std::string describe(const xpose::Permutation& p, xpose::DType type) {
  std::ostringstream text;
  text << "dims";
  for (int64_t d : p.dims) text << ' ' << d;
  text << " | perm";
  for (int a : p.perm) text << ' ' << a;
  if (!p.in_strides.empty()) {
    text << " | in_strides";
    for (int64_t s : p.in_strides) text << ' ' << s;
  }
  if (!p.out_strides.empty()) {
    text << " | out_strides";
    for (int64_t s : p.out_strides) text << ' ' << s;
  }
  text << " | " << xpose::to_string(type);
  return text.str();
}

// The validated problem; a test failure (and an empty problem) when validation rejects it.
inline xpose::detail::PermuteProblem permute_problem_for(const xpose::Permutation& p, xpose::DType type) {
  xpose::detail::PermuteProblem problem;
  EXPECT_EQ(xpose::detail::make_permute_problem(p, type, &problem), xpose::Status::ok)
      << xpose::last_error_message();
  return problem;
}

// Bytes of element `index`: each in 1..254 (never padding-like 0x00, never the poison), the first
// min(size, 3) a bijection of the index modulo 254^k, the rest a hash of it and the salt.
inline void encode_permute_element(uint64_t index, uint64_t salt, int size, unsigned char* out) {
  uint64_t rest = index;
  uint64_t hash = (index + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xD1B54A32D192ED03ull);
  for (int b = 0; b < size; ++b) {
    uint64_t digit;
    if (b < 3) {
      digit = rest % 254;
      rest /= 254;
    } else {
      hash ^= hash >> 29;
      hash *= 0xBF58476D1CE4E5B9ull;
      digit = hash % 254;
    }
    out[b] = static_cast<unsigned char>(digit + 1);
  }
}

class PermuteBuffer {
 public:
  PermuteBuffer(int64_t extent, int elem_size, std::size_t misalign, unsigned char fill)
      : bytes_(2 * kPermuteGuard + misalign + static_cast<std::size_t>(extent) * elem_size, fill),
        view_offset_(kPermuteGuard + misalign) {}
  unsigned char* view() { return bytes_.data() + view_offset_; }
  const unsigned char* view() const { return bytes_.data() + view_offset_; }
  unsigned char* data() { return bytes_.data(); }
  const unsigned char* data() const { return bytes_.data(); }
  std::size_t size() const { return bytes_.size(); }
  std::size_t view_offset() const { return view_offset_; }

 private:
  std::vector<unsigned char> bytes_;
  std::size_t view_offset_;
};

// Offsets (in elements) of the input view's elements in row-major order of the input dims.
inline std::vector<int64_t> input_offsets(const xpose::detail::PermuteProblem& p) {
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<std::size_t>(p.elements));
  std::vector<int64_t> j(p.rank, 0);
  for (int64_t n = 0; n < p.elements; ++n) {
    int64_t offset = 0;
    for (int k = 0; k < p.rank; ++k) offset += j[k] * p.permutation.in_strides[k];
    offsets.push_back(offset);
    for (int k = p.rank - 1; k >= 0; --k) {
      if (++j[k] < p.permutation.dims[k]) break;
      j[k] = 0;
    }
  }
  return offsets;
}

// An input whose element n (row-major over the input dims) encodes n; padding elsewhere.
inline PermuteBuffer make_permute_input(const xpose::detail::PermuteProblem& p, std::size_t misalign = 0,
                                        uint64_t salt = 0) {
  PermuteBuffer buffer(p.input_extent, p.elem_size, misalign, kPermutePadding);
  const std::vector<int64_t> offsets = input_offsets(p);
  for (std::size_t n = 0; n < offsets.size(); ++n)
    encode_permute_element(n, salt, p.elem_size, buffer.view() + offsets[n] * p.elem_size);
  return buffer;
}

inline PermuteBuffer make_permute_output(const xpose::detail::PermuteProblem& p, std::size_t misalign = 0) {
  return PermuteBuffer(p.output_extent, p.elem_size, misalign, kPermutePoison);
}

// The whole output allocation a correct run leaves: poison, and the reference result in the view
// (or, for the memcpy baseline, the dense input bytes).
inline std::vector<unsigned char> expected_permute(const PermuteBuffer& input, const PermuteBuffer& output,
                                                   const xpose::detail::PermuteProblem& p, bool permutes = true) {
  PermuteBuffer expected(output);
  if (permutes)
    xpose::detail::permute_reference(input.view(), expected.view(), p);
  else
    std::memcpy(expected.view(), input.view(), static_cast<std::size_t>(p.bytes()));
  return std::vector<unsigned char>(expected.data(), expected.data() + expected.size());
}

// Compares a whole output allocation with `expected`; a failure names the first wrong byte, the
// output element it belongs to and whether it lies in the view.
inline ::testing::AssertionResult permute_output_matches(const unsigned char* actual,
                                                         const std::vector<unsigned char>& expected,
                                                         const PermuteBuffer& output,
                                                         const xpose::detail::PermuteProblem& p) {
  for (std::size_t b = 0; b < expected.size(); ++b) {
    if (actual[b] == expected[b]) continue;
    const auto where = static_cast<int64_t>(b) - static_cast<int64_t>(output.view_offset());
    auto failure = ::testing::AssertionFailure();
    if (where < 0 || where >= p.output_extent * p.elem_size) {
      failure << "byte " << where << " outside the output view (guard) changed to "
              << int(actual[b]);
      return failure;
    }
    const int64_t element = where / p.elem_size;
    // Coordinates of the output element at that offset, when it is one of the view's.
    std::vector<int64_t> coords;
    int64_t rest = element;
    std::vector<int> order(p.rank);
    for (int i = 0; i < p.rank; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int c) {
      return p.permutation.out_strides[a] > p.permutation.out_strides[c];
    });
    std::vector<int64_t> j(p.rank, 0);
    bool in_view = true;
    for (int i : order) {
      const int64_t size = p.permutation.dims[p.permutation.perm[i]];
      const int64_t stride = p.permutation.out_strides[i];
      j[i] = size > 1 && stride > 0 ? rest / stride : 0;
      if (j[i] >= size) in_view = false;
      rest -= j[i] * stride;
    }
    if (rest != 0) in_view = false;
    failure << "output byte " << where << " (byte " << where % p.elem_size << " of element "
            << element << ") is " << int(actual[b]) << ", expected " << int(expected[b]);
    if (in_view) {
      failure << " at output coordinates (";
      for (int i = 0; i < p.rank; ++i) failure << (i ? ", " : "") << j[i];
      failure << ")";
    } else {
      failure << " (padding between the output view's elements: must stay untouched)";
    }
    return failure;
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult all_poison(const unsigned char* bytes, std::size_t count) {
  for (std::size_t b = 0; b < count; ++b)
    if (bytes[b] != kPermutePoison)
      return ::testing::AssertionFailure() << "byte " << b << " was written (" << int(bytes[b]) << ")";
  return ::testing::AssertionSuccess();
}

// Row-major strides of `dims` with `extra` unused elements after each row of every level (0:
// packed): a padded view.
inline std::vector<int64_t> padded_strides(const std::vector<int64_t>& dims, int64_t extra) {
  std::vector<int64_t> strides(dims.size(), 1);
  int64_t next = 1;
  for (std::size_t k = dims.size(); k-- > 0;) {
    strides[k] = next;
    next = strides[k] * dims[k] + extra;
  }
  return strides;
}

// A random permutation of 0..rank-1.
inline std::vector<int> random_perm(int rank, std::mt19937_64& rng) {
  std::vector<int> perm(rank);
  for (int k = 0; k < rank; ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), rng);
  return perm;
}

// The DTypes of each element size: u8, f16, f32, f64, c128.
inline std::vector<xpose::DType> one_dtype_per_size() {
  return {xpose::DType::u8, xpose::DType::f16, xpose::DType::f32, xpose::DType::f64, xpose::DType::c128};
}

}  // namespace xpose_test
