// SPDX-License-Identifier: Apache-2.0
// Random problems for the property tests, CPU and GPU: a generator with the same sequence on every
// platform (std distributions differ between standard libraries), random 2D problems and random
// permutations with strided views. A failure prints the seed and the case number; the same seed
// gives the same cases everywhere, so it can be replayed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose_test {

// XPOSE_TEST_SEED overrides it, XPOSE_TEST_CASES the number of cases.
constexpr uint64_t kDefaultPropertySeed = 20261122;

// splitmix64.
class CaseGenerator {
 public:
  explicit CaseGenerator(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t x = (state_ += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  // Uniform in [0, n).
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  bool percent(int chance) { return below(100) < chance; }

  // A row or column count in [0, 300], skewed towards the edge cases.
  int64_t extent() {
    const int64_t pick = below(100);
    if (pick < 4) return 0;
    if (pick < 20) return 1;
    if (pick < 32) return 2;
    if (pick < 45) return 3 + below(30);
    return below(301);
  }

  xpose::DType dtype() {
    const auto& types = xpose::all_dtypes();
    return types[static_cast<std::size_t>(below(static_cast<int64_t>(types.size())))];
  }

  // A view offset in bytes that keeps elements of `elem_size` aligned but, a quarter of the time,
  // not 16-byte aligned (the GPU kernels' vector forms must step aside).
  std::size_t misalign(std::size_t elem_size) {
    if (elem_size >= 16 || !percent(25)) return 0;
    return elem_size * static_cast<std::size_t>(1 + below(static_cast<int64_t>(16 / elem_size) - 1));
  }

 private:
  uint64_t state_;
};

struct RandomMatrixCase {
  xpose::Matrix matrix;
  xpose::DType type;
};

// rows and cols in [0, 300] (see extent()), any DType, row padding 0..19 on either side half the
// time, batch 1..4, gaps of 0..49 elements between batch matrices half the time.
inline RandomMatrixCase random_matrix_case(CaseGenerator& random) {
  RandomMatrixCase c;
  c.type = random.dtype();
  xpose::Matrix& m = c.matrix;
  m.rows = random.extent();
  m.cols = random.extent();
  // 0 asks for the packed default; otherwise pad by 0..19 elements.
  m.ld_in = random.percent(50) ? 0 : m.cols + random.below(20);
  m.ld_out = random.percent(50) ? 0 : m.rows + random.below(20);
  m.batch = 1 + random.below(4);
  const int64_t ld_in = m.ld_in ? m.ld_in : m.cols, ld_out = m.ld_out ? m.ld_out : m.rows;
  const int64_t span_in = m.rows ? (m.rows - 1) * ld_in + m.cols : 0;
  const int64_t span_out = m.cols ? (m.cols - 1) * ld_out + m.rows : 0;
  m.stride_in = random.percent(50) ? 0 : span_in + random.below(50);
  m.stride_out = random.percent(50) ? 0 : span_out + random.below(50);
  return c;
}

struct RandomPermuteCase {
  xpose::Permutation permutation;
  xpose::DType type;
};

// Strides for a view of `dims` whose dims are nested in a random order (row-major 60 % of the
// time), with 0..3 unused elements after each level half the time, and size-1 dims given any
// stride (they are never stepped). Views built this way never overlap.
inline std::vector<int64_t> random_view_strides(const std::vector<int64_t>& dims, CaseGenerator& random) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int> inner_first(rank);
  for (int k = 0; k < rank; ++k) inner_first[k] = rank - 1 - k;
  if (!random.percent(60))
    for (int k = rank - 1; k > 0; --k) std::swap(inner_first[k], inner_first[random.below(k + 1)]);
  const bool padded = random.percent(50);
  std::vector<int64_t> strides(rank, 1);
  int64_t next = 1;
  for (int k : inner_first) {
    strides[k] = next;
    next = next * dims[k] + (padded ? random.below(4) : 0);
  }
  for (int k = 0; k < rank; ++k)
    if (dims[k] == 1 && random.percent(30)) strides[k] = random.below(1000);
  return strides;
}

// Rank 1..8; dims mostly small and odd (2..9), 15 % size 1, a third of the tensors of rank <= 3
// with dims up to 71 (whole GPU tiles); 2 % empty tensors; at most `max_elements` elements (the
// largest dim is halved until it fits). Any DType. Input and output views are each packed half the
// time and strided otherwise (random_view_strides); a view whose extent would pass 4 x
// max_elements stays packed.
inline RandomPermuteCase random_permute_case(CaseGenerator& random, int64_t max_elements) {
  RandomPermuteCase c;
  c.type = random.dtype();
  xpose::Permutation& p = c.permutation;
  const int rank = 1 + static_cast<int>(random.below(8));
  const bool large = rank <= 3 && random.percent(33);
  for (int k = 0; k < rank; ++k) {
    const int64_t pick = random.below(100);
    p.dims.push_back(pick < 15 ? 1 : large ? 2 + random.below(70) : 2 + random.below(8));
  }
  if (random.percent(2)) p.dims[random.below(rank)] = 0;
  auto elements = [&] {
    int64_t n = 1;
    for (int64_t d : p.dims) n *= d;
    return n;
  };
  while (elements() > max_elements) {
    auto largest = std::max_element(p.dims.begin(), p.dims.end());
    *largest = (*largest + 1) / 2;
  }
  p.perm.resize(rank);
  for (int k = 0; k < rank; ++k) p.perm[k] = k;
  for (int k = rank - 1; k > 0; --k) std::swap(p.perm[k], p.perm[random.below(k + 1)]);
  if (elements() == 0) return c;  // packed: strides of an empty view say nothing

  auto extent = [](const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
    int64_t last = 0;
    for (std::size_t k = 0; k < dims.size(); ++k) last += (dims[k] - 1) * strides[k];
    return last + 1;
  };
  std::vector<int64_t> out_dims(rank);
  for (int i = 0; i < rank; ++i) out_dims[i] = p.dims[p.perm[i]];
  if (random.percent(50)) p.in_strides = random_view_strides(p.dims, random);
  if (random.percent(50)) p.out_strides = random_view_strides(out_dims, random);
  if (!p.in_strides.empty() && extent(p.dims, p.in_strides) > 4 * max_elements) p.in_strides.clear();
  if (!p.out_strides.empty() && extent(out_dims, p.out_strides) > 4 * max_elements) p.out_strides.clear();
  return c;
}

}  // namespace xpose_test
