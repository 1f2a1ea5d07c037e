// SPDX-License-Identifier: Apache-2.0
// The shape-space suite (tools/xpose/random_cases.hpp): draws are repeatable, every class draws
// valid cases of its own character, and the per-class summary computes its percentiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/permute_problem.hpp"
#include "core/problem.hpp"
#include "random_cases.hpp"

namespace xpose::cli {
namespace {

std::vector<BenchCase> draw(int count, uint64_t seed, std::vector<std::string> classes = {},
                            int64_t max_bytes = 0) {
  RandomDraw request;
  request.count = count;
  request.seed = seed;
  request.classes = std::move(classes);
  request.max_bytes = max_bytes;
  std::vector<BenchCase> cases;
  std::string error;
  EXPECT_TRUE(draw_random_cases(request, &cases, &error)) << error;
  return cases;
}

int64_t view_bytes(const BenchCase& c) {
  if (c.kind == BenchCase::Kind::matrix) {
    detail::Transpose2D problem;
    EXPECT_EQ(detail::make_problem(c.matrix.matrix(), c.matrix.dtype, &problem), Status::ok);
    return problem.bytes();
  }
  detail::PermuteProblem problem;
  EXPECT_EQ(detail::make_permute_problem(c.permute.permutation(), c.permute.dtype, &problem), Status::ok);
  return problem.bytes();
}

int64_t elements(const BenchCase& c) {
  const size_t elem = size_of(c.kind == BenchCase::Kind::matrix ? c.matrix.dtype : c.permute.dtype);
  return view_bytes(c) / static_cast<int64_t>(elem);
}

TEST(RandomCases, SameSeedSameCases) {
  const std::vector<BenchCase> first = draw(90, 7), second = draw(90, 7), other = draw(90, 8);
  ASSERT_EQ(first.size(), 90u);
  int differing = 0;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].label(), second[i].label()) << i;
    EXPECT_EQ(first[i].origin, second[i].origin);
    differing += first[i].label() != other[i].label();
  }
  EXPECT_GT(differing, 80);
}

TEST(RandomCases, ACaseDependsOnlyOnItsClassAndIndex) {
  // Case k of a class is the same whether the class is drawn alone or dealt among all classes.
  const std::vector<BenchCase> all = draw(static_cast<int>(shape_classes().size()) * 3, 11);
  const std::vector<BenchCase> alone = draw(3, 11, {"permute"});
  std::vector<std::string> from_all;
  for (const BenchCase& c : all)
    if (c.shape_class == "permute") from_all.push_back(c.label());
  ASSERT_EQ(from_all.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(from_all[i], alone[i].label());
}

TEST(RandomCases, CasesAreDealtToEveryClassInTurn) {
  const size_t classes = shape_classes().size();
  const std::vector<BenchCase> cases = draw(static_cast<int>(classes) * 4, 3);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].shape_class, shape_classes()[i % classes].name);
    EXPECT_EQ(cases[i].origin, "random:" + cases[i].shape_class + ":" + std::to_string(i / classes));
  }
}

TEST(RandomCases, EachClassKeepsItsCharacter) {
  std::set<size_t> element_sizes;
  for (uint64_t seed : {1u, 2u, 3u}) {
    for (const BenchCase& c : draw(20, seed, {"large2d", "small_batch", "narrow_batch", "flat_tall"})) {
      ASSERT_EQ(c.kind, BenchCase::Kind::matrix) << c.label();
      const MatrixCase& m = c.matrix;
      element_sizes.insert(size_of(m.dtype));
      EXPECT_GE(view_bytes(c), 50'000'000) << c.label();  // 64 MB, less the rounding of a side
      if (c.shape_class == "small_batch") {
        EXPECT_LE(std::max(m.rows, m.cols), 128) << c.label();
      } else if (c.shape_class == "narrow_batch") {
        EXPECT_LE(std::min(m.rows, m.cols), 64) << c.label();
      } else if (c.shape_class == "flat_tall") {
        EXPECT_LE(std::min(m.rows, m.cols), 32) << c.label();
        EXPECT_EQ(m.batch, 1);
      } else {
        EXPECT_EQ(m.batch, 1);
      }
    }
  }
  EXPECT_EQ(element_sizes, (std::set<size_t>{1, 2, 4, 8, 16}));
}

TEST(RandomCases, PermuteAndDeepLearningClasses) {
  for (const BenchCase& c : draw(40, 5, {"permute", "dl"})) {
    ASSERT_EQ(c.kind, BenchCase::Kind::permute) << c.label();
    const size_t rank = c.permute.dims.size();
    if (c.shape_class == "permute") {
      EXPECT_GE(rank, 3u);
      EXPECT_LE(rank, 8u);
      EXPECT_FALSE(std::is_sorted(c.permute.perm.begin(), c.permute.perm.end())) << c.label();
    } else {
      EXPECT_EQ(rank, 4u) << c.label();
      const DType t = c.permute.dtype;
      EXPECT_TRUE(t == DType::f16 || t == DType::bf16 || t == DType::f32) << c.label();
    }
  }
}

TEST(RandomCases, HugeCasesHaveMoreThan2To31Elements) {
  for (const BenchCase& c : draw(12, 9, {"huge"})) {
    EXPECT_GT(elements(c), int64_t{1} << 31) << c.label();
    EXPECT_LE(view_bytes(c), (int64_t{1} << 34) + (int64_t{1} << 31) + (int64_t{1} << 28)) << c.label();
  }
}

TEST(RandomCases, StridedCasesAreViews) {
  int two_d = 0, n_d = 0;
  for (const BenchCase& c : draw(30, 4, {"strided"})) {
    if (c.kind == BenchCase::Kind::matrix) {
      ++two_d;
      EXPECT_GT(c.matrix.pad_in, 0) << c.label();
    } else {
      ++n_d;
      ASSERT_EQ(c.permute.in_strides.size(), c.permute.dims.size()) << c.label();
      detail::PermuteProblem problem;
      ASSERT_EQ(detail::make_permute_problem(c.permute.permutation(), c.permute.dtype, &problem), Status::ok);
      EXPECT_GT(problem.input_extent, problem.bytes() / static_cast<int64_t>(problem.elem_size)) << c.label();
    }
  }
  EXPECT_GT(two_d, 0);
  EXPECT_GT(n_d, 0);
}

TEST(RandomCases, SmallClassAndMaxBytes) {
  for (const BenchCase& c : draw(30, 6, {"small"})) {
    EXPECT_LE(view_bytes(c), 70'000'000) << c.label();
    EXPECT_GE(view_bytes(c), 500'000) << c.label();
  }
  for (const BenchCase& c : draw(18, 6, {}, 32'000'000))
    EXPECT_LE(view_bytes(c), 40'000'000) << c.shape_class << ": " << c.label();
}

TEST(RandomCases, BadRequestsSayWhy) {
  RandomDraw request;
  std::vector<BenchCase> cases;
  std::string error;
  request.count = 0;
  EXPECT_FALSE(draw_random_cases(request, &cases, &error));
  EXPECT_NE(error.find("positive"), std::string::npos) << error;
  request.count = 3;
  request.classes = {"large2d", "tiny"};
  EXPECT_FALSE(draw_random_cases(request, &cases, &error));
  EXPECT_NE(error.find("unknown class 'tiny'"), std::string::npos) << error;
  EXPECT_TRUE(cases.empty());
}

CaseResult timed_result(const std::string& shape_class, double percent, Outcome outcome = Outcome::passed) {
  CaseResult result;
  result.bench_case.shape_class = shape_class;
  VariantResult baseline;
  baseline.kernel = "memcpy";
  VariantResult automatic;
  automatic.kernel = "auto";
  automatic.outcome = outcome;
  automatic.percent_of_memcpy = percent;
  result.variants = {baseline, automatic};
  return result;
}

TEST(RandomCases, ClassSummaryPercentiles) {
  std::vector<CaseResult> results;
  for (int i = 1; i <= 10; ++i) results.push_back(timed_result("a", 10.0 * i));  // 10 .. 100
  results.push_back(timed_result("b", 90));
  results.push_back(timed_result("b", 50, Outcome::failed));  // not a timing figure
  const std::vector<ClassFigures> figures = summarize_classes(results);
  ASSERT_EQ(figures.size(), 3u);
  EXPECT_EQ(figures[0].name, "a");
  EXPECT_EQ(figures[0].cases, 10);
  EXPECT_DOUBLE_EQ(figures[0].min, 10);
  EXPECT_DOUBLE_EQ(figures[0].p10, 20);     // nearest rank: index round(0.1 * 9) = 1
  EXPECT_DOUBLE_EQ(figures[0].median, 60);  // index round(0.5 * 9) = 5 (rounds half up)
  EXPECT_EQ(figures[0].below_85, 8);
  EXPECT_EQ(figures[1].name, "b");
  EXPECT_EQ(figures[1].cases, 2);
  EXPECT_EQ(figures[1].timed, 1);
  EXPECT_EQ(figures[2].name, "all");
  EXPECT_EQ(figures[2].cases, 12);
  EXPECT_EQ(figures[2].timed, 11);
  EXPECT_NE(class_summary_table(results).find("median"), std::string::npos);
}

}  // namespace
}  // namespace xpose::cli
