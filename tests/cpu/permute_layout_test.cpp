// SPDX-License-Identifier: Apache-2.0
// Normalisation (size-1 dims dropped, adjacent dims fused, axes sorted), element widening, the 2D
// view of a layout, the kernel choice, fast division, and the reference itself on known answers.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/permute_check.hpp"
#include "core/permute_fast_division.hpp"
#include "core/permute_layout.hpp"
#include "core/permute_plan.hpp"

namespace {

using xpose::Device;
using xpose::DType;
using xpose::Permutation;
using xpose::detail::PermuteLayout;

PermuteLayout layout_of(const Permutation& p, DType type = DType::f32) {
  return xpose::detail::normalise(xpose_test::permute_problem_for(p, type));
}

std::vector<int64_t> sizes(const PermuteLayout& layout) {
  std::vector<int64_t> s;
  for (int k = 0; k < layout.rank; ++k) s.push_back(layout[k].size);
  return s;
}

std::vector<int> order(const PermuteLayout& layout) {
  const auto o = layout.output_order();
  return std::vector<int>(o.begin(), o.begin() + layout.rank);
}

TEST(PermuteLayout, DropsSizeOneDims) {
  const auto layout = layout_of({{1, 5, 1, 3, 1}, {4, 3, 2, 1, 0}, {}, {}});
  EXPECT_EQ(sizes(layout), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(order(layout), (std::vector<int>{1, 0}));
}

TEST(PermuteLayout, FusesDimsThatStayAdjacent) {
  // (a, b, c, d) -> (c, d, a, b) is the 2D transpose (ab, cd) -> (cd, ab).
  auto layout = layout_of({{2, 3, 4, 5}, {2, 3, 0, 1}, {}, {}});
  EXPECT_EQ(sizes(layout), (std::vector<int64_t>{6, 20}));
  EXPECT_EQ(order(layout), (std::vector<int>{1, 0}));
  // NCHW -> NHWC: (n, c, hw) -> (n, hw, c), a batched 2D transpose.
  layout = layout_of({{8, 3, 5, 7}, {0, 2, 3, 1}, {}, {}});
  EXPECT_EQ(sizes(layout), (std::vector<int64_t>{8, 3, 35}));
  EXPECT_EQ(order(layout), (std::vector<int>{0, 2, 1}));
  // No fusion in the TTC cases: every dim moves away from its neighbours.
  layout = layout_of({{15, 15, 32, 15, 15, 32}, {1, 4, 0, 5, 3, 2}, {}, {}});
  EXPECT_EQ(layout.rank, 6);
}

TEST(PermuteLayout, IdentityBecomesOneAxis) {
  const auto layout = layout_of({{4, 5, 6}, {0, 1, 2}, {}, {}});
  EXPECT_EQ(sizes(layout), (std::vector<int64_t>{120}));
  EXPECT_TRUE(layout.moves_nothing());
}

TEST(PermuteLayout, StridedViewsFuseOnlyWhereBothSidesAreContiguous) {
  // Padded input rows: the identity stays a copy of 4 rows of 30.
  const auto layout = layout_of({{4, 5, 6}, {0, 1, 2}, {32, 6, 1}, {}});
  EXPECT_EQ(sizes(layout), (std::vector<int64_t>{4, 30}));
  EXPECT_TRUE(layout.moves_nothing());
}

TEST(PermuteLayout, WidensShortRunsThatStayInnermost) {
  // (r, c, 4) f32 -> (c, r, 4): a 2D transpose of 16-byte elements.
  const auto layout = layout_of({{6, 7, 4}, {1, 0, 2}, {}, {}});
  PermuteLayout widened;
  ASSERT_TRUE(xpose::detail::widen_elements(layout, &widened));
  EXPECT_EQ(widened.elem_size, 16);
  EXPECT_EQ(sizes(widened), (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(widened[1].in_stride, 1);
  EXPECT_EQ(widened[0].out_stride, 1);
  xpose::Matrix m;
  ASSERT_TRUE(xpose::detail::as_matrix(widened, &m));
  EXPECT_EQ(m.rows, 6);
  EXPECT_EQ(m.cols, 7);
  // 20-byte runs and moving inner axes are not widened.
  EXPECT_FALSE(xpose::detail::widen_elements(layout_of({{6, 7, 5}, {1, 0, 2}, {}, {}}), &widened));
  EXPECT_FALSE(xpose::detail::widen_elements(layout_of({{6, 7, 4}, {2, 0, 1}, {}, {}}), &widened));
}

TEST(PermuteLayout, SeesBatched2DTransposes) {
  xpose::Matrix m;
  ASSERT_TRUE(xpose::detail::as_matrix(layout_of({{8, 3, 5, 7}, {0, 2, 3, 1}, {}, {}}), &m));
  EXPECT_EQ(m.batch, 8);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 35);
  EXPECT_EQ(m.stride_in, 105);
  EXPECT_EQ(m.stride_out, 105);
  // (a, b, c) -> (c, a, b) fuses into the 2D transpose (ab, c) -> (c, ab).
  ASSERT_TRUE(xpose::detail::as_matrix(layout_of({{8, 3, 5}, {2, 0, 1}, {}, {}}), &m));
  EXPECT_EQ(m.rows, 24);
  EXPECT_EQ(m.batch, 1);
  // Reversing three dims is not a batched 2D transpose.
  EXPECT_FALSE(xpose::detail::as_matrix(layout_of({{8, 3, 5}, {2, 1, 0}, {}, {}}), &m));
}

TEST(PermuteLayout, AutoChoosesByLayout) {
  const auto chosen = [](const Permutation& p, DType type = DType::f32) {
    xpose::Plan plan;
    EXPECT_EQ(xpose::Plan::create_permute(plan, p, type), xpose::Status::ok) << xpose::last_error_message();
    return std::string(plan.kernel_name());
  };
  EXPECT_EQ(chosen({{4, 5, 6}, {0, 1, 2}, {}, {}}), "copy");
  EXPECT_EQ(chosen({{1, 7, 1}, {2, 0, 1}, {}, {}}), "copy");
  EXPECT_EQ(chosen({{40, 50}, {1, 0}, {}, {}}), "transpose2d:blocked");
  EXPECT_EQ(chosen({{1024, 1024}, {1, 0}, {}, {}}), "transpose2d:threaded");
  EXPECT_EQ(chosen({{8, 3, 5, 7}, {0, 2, 3, 1}, {}, {}}), "transpose2d:blocked");
  EXPECT_EQ(chosen({{6, 7, 4}, {1, 0, 2}, {}, {}}), "transpose2d:blocked");  // widened
  EXPECT_EQ(chosen({{6, 7, 8}, {2, 1, 0}, {}, {}}), "blocked");
  EXPECT_EQ(chosen({{64, 64, 64}, {2, 1, 0}, {}, {}}), "threaded");
  // Threads from kCpuThreadedFromBytes (512 KiB), for 2D and N-D alike.
  EXPECT_EQ(chosen({{255, 512}, {1, 0}, {}, {}}), "transpose2d:blocked");
  EXPECT_EQ(chosen({{256, 512}, {1, 0}, {}, {}}), "transpose2d:threaded");
  EXPECT_EQ(chosen({{7, 16, 32, 32}, {3, 1, 0, 2}, {}, {}}), "blocked");    // 448 KiB
  EXPECT_EQ(chosen({{8, 16, 32, 32}, {3, 1, 0, 2}, {}, {}}), "threaded");   // 512 KiB
}

TEST(PermuteLayout, GpuChoiceFollowsTheRule) {
  // The CUDA rule is plain host code: check it wherever the CUDA backend is compiled.
  if (!xpose::cuda_compiled()) GTEST_SKIP() << "no CUDA backend in this build";
  const auto chosen = [](const Permutation& p, DType type) {
    const auto problem = xpose_test::permute_problem_for(p, type);
    xpose::detail::PreparedPermute primary, fallback;
    xpose::detail::choose_permute_kernel(Device::cuda, problem, xpose::detail::normalise(problem), &primary,
                                         &fallback);
    return primary.name + (fallback.kernel ? std::string("|") + fallback.name : std::string());
  };
  EXPECT_EQ(chosen({{4, 5, 6}, {0, 1, 2}, {}, {}}, DType::f32), "copy");
  EXPECT_EQ(chosen({{4, 5, 6}, {0, 1, 2}, {40, 8, 1}, {}}, DType::f32), "copy");  // padded rows
  EXPECT_EQ(chosen({{4, 5, 6}, {0, 1, 2}, {400, 40, 1}, {}}, DType::f32), "gather");
  // Rows 8 B apart: packed reads them with their gaps, runs longer than gather's 24-byte rows.
  EXPECT_EQ(chosen({{4, 5, 6}, {0, 1, 2}, {80, 8, 1}, {}}, DType::f32), "packed");
  EXPECT_EQ(chosen({{400, 500}, {1, 0}, {}, {}}, DType::f32), "transpose2d:tile");
  EXPECT_EQ(chosen({{96, 75, 96, 80}, {2, 1, 0, 3}, {}, {}}, DType::f64), "gather");
  EXPECT_EQ(chosen({{75, 96, 75, 96}, {3, 0, 2, 1}, {}, {}}, DType::f64), "tiled");
  EXPECT_EQ(chosen({{15, 15, 32, 15, 32, 16}, {4, 1, 0, 3, 2, 5}, {}, {}}, DType::u8), "tiled|gather");
  EXPECT_EQ(chosen({{400, 300, 4}, {1, 0, 2}, {}, {}}, DType::f32), "transpose2d:tile|gather");
  // Short runs: packed, whose box joins short axes into long runs on both sides.
  EXPECT_EQ(chosen({{6, 59, 20, 197, 6, 6, 3}, {4, 3, 0, 1, 2, 6, 5}, {}, {}}, DType::u8), "packed");
  EXPECT_EQ(chosen({{5, 31, 6, 3, 1599, 5, 25}, {4, 5, 3, 0, 2, 1, 6}, {}, {}}, DType::u8), "packed");
  EXPECT_EQ(chosen({{27, 64, 577, 32}, {0, 2, 1, 3}, {}, {}}, DType::f16), "gather");  // 64-byte runs stay
  // Runs of one 32-byte sector stay with gather (TTC 28 u8, 45 f16), shorter ones go to packed.
  EXPECT_EQ(chosen({{48, 28, 28, 48, 32}, {1, 3, 2, 0, 4}, {}, {}}, DType::u8), "gather");
  EXPECT_EQ(chosen({{15, 15, 103, 15, 10, 16}, {4, 1, 0, 3, 2, 5}, {}, {}}, DType::f16), "gather");
  EXPECT_EQ(chosen({{48, 28, 28, 48, 24}, {1, 3, 2, 0, 4}, {}, {}}, DType::u8), "packed");
  EXPECT_EQ(chosen({{4, 5, 6}, {1, 0, 2}, {80, 16, 2}, {}}, DType::f32), "packed");  // no input run
  // Tiled's f32 / f64 runs under 24 elements give way to packed runs at least twice as long (5 ->
  // 26 f64), not runs of 30 f64 or 32 f32 (TTC 49); nor 1-, 2- or 16-byte elements beyond one
  // sector (u8 and f16 tiles of 128-byte runs in TTC 37, 160-byte runs of c128).
  EXPECT_EQ(chosen({{5, 7, 5, 7, 334, 17, 13}, {1, 5, 2, 6, 3, 4, 0}, {}, {}}, DType::f64), "packed");
  EXPECT_EQ(chosen({{38, 37, 25, 5, 7, 30}, {2, 0, 3, 5, 1, 4}, {}, {}}, DType::f64), "tiled");
  EXPECT_EQ(chosen({{28, 28, 28, 48, 48}, {2, 0, 4, 1, 3}, {}, {}}, DType::f32), "tiled");
  EXPECT_EQ(chosen({{15, 15, 15, 32, 15, 32}, {2, 0, 4, 1, 5, 3}, {}, {}}, DType::u8), "tiled");
  EXPECT_EQ(chosen({{15, 15, 15, 32, 15, 32}, {2, 0, 4, 1, 5, 3}, {}, {}}, DType::f16), "tiled");
  EXPECT_EQ(chosen({{2, 6, 5, 1366, 39, 10}, {3, 1, 4, 5, 2, 0}, {}, {}}, DType::c128), "tiled");
  // Odd runs of small elements, which gather could copy only 1, 2 or 4 bytes at a time: from 256
  // bytes as shifted 16-byte vectors (a 782-byte run; odd 4249-byte rows at an odd pitch), shorter
  // ones through packed (a 76-byte run).
  EXPECT_EQ(chosen({{123, 725, 23, 17}, {1, 0, 2, 3}, {}, {}}, DType::f16), "gather");
  EXPECT_EQ(chosen({{146, 29, 4249}, {1, 0, 2}, {128354, 4426, 1}, {}}, DType::u8), "gather");
  EXPECT_EQ(chosen({{3, 5, 21, 3, 23, 7, 45, 19}, {4, 2, 3, 5, 0, 6, 1, 7}, {}, {}}, DType::f32), "packed");
  // Tiled tiles of a few elements (a strided 6 x 2 view of f32 per tile): packed.
  EXPECT_EQ(chosen({{318268, 9, 6, 2}, {1, 0, 3, 2}, {162, 18, 3, 1}, {}}, DType::f32), "packed");
  EXPECT_EQ(chosen({{50}, {0}, {3}, {}}, DType::f32), "naive");                      // a strided copy
}

TEST(PermuteLayout, FastDivisionIsExact) {
  std::mt19937_64 rng(3);
  std::vector<int64_t> divisors{1, 2, 3, 5, 7, 15, 16, 17, 96, 255, 256, 1000, 4095, 65537,
                                (int64_t{1} << 31) - 1, int64_t{1} << 32, (int64_t{1} << 40) + 7,
                                (int64_t{1} << 62) + 1, INT64_MAX};
  for (int k = 0; k < 40; ++k) divisors.push_back(1 + static_cast<int64_t>(rng() >> (1 + rng() % 62)));
  for (int64_t d : divisors) {
    const xpose::detail::FastDivisor divisor(d);
    std::vector<int64_t> numerators{0, 1, d - 1, d, d / 2 * 2 + 1, INT64_MAX, INT64_MAX - 1,
                                    INT64_MAX / d * d, INT64_MAX / d * d - 1};
    for (int k = 0; k < 200; ++k) numerators.push_back(static_cast<int64_t>(rng() >> (1 + rng() % 63)));
    for (int64_t n : numerators) {
      if (n < 0) continue;
      int64_t q = 0;
      const int64_t r = divisor.divide_remainder(n, &q);
      ASSERT_EQ(q, n / d) << n << " / " << d;
      ASSERT_EQ(r, n % d) << n << " % " << d;
    }
  }
}

// The reference on answers worked out by hand (what NumPy's a.transpose(perm).ravel() gives).
TEST(PermuteReference, MatchesNumPyOnSmallTensors) {
  const auto permuted = [](const Permutation& p) {
    const auto problem = xpose_test::permute_problem_for(p, DType::i32);
    std::vector<int32_t> in(static_cast<std::size_t>(problem.input_extent));
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<int32_t>(k);
    std::vector<int32_t> out(static_cast<std::size_t>(problem.output_extent), -1);
    xpose::detail::permute_reference(in.data(), out.data(), problem);
    return out;
  };
  // np.arange(24).reshape(2, 3, 4).transpose(2, 0, 1).ravel()
  EXPECT_EQ(permuted({{2, 3, 4}, {2, 0, 1}, {}, {}}),
            (std::vector<int32_t>{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15,
                                  19, 23}));
  // np.arange(24).reshape(2, 3, 4).transpose(1, 2, 0).ravel()
  EXPECT_EQ(permuted({{2, 3, 4}, {1, 2, 0}, {}, {}}),
            (std::vector<int32_t>{0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22,
                                  11, 23}));
  // A padded input view (rows of 3 in a stride of 4) transposed into a padded output (stride 3).
  EXPECT_EQ(permuted({{2, 3}, {1, 0}, {4, 1}, {3, 1}}), (std::vector<int32_t>{0, 4, -1, 1, 5, -1, 2, 6}));
}

}  // namespace
