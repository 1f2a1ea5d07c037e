// SPDX-License-Identifier: Apache-2.0
// The shape-space suite (tools/xpose/random_cases.hpp): draws are repeatable, every class draws
// valid cases of its own character, and the per-class summary computes its percentiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

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

// A report's label is a suite line: any drawn case, strided views included, can be run again with
// --suite from the label a report printed.
TEST(RandomCases, EveryLabelReadsBackAsTheSameCase) {
  const std::vector<BenchCase> drawn = draw(300, 29);
  std::ostringstream lines;
  for (const BenchCase& c : drawn) lines << c.label() << "\n";
  std::istringstream text(lines.str());
  std::vector<BenchCase> read;
  std::string error;
  ASSERT_TRUE(parse_suite(text, "labels", &read, &error)) << error;
  ASSERT_EQ(read.size(), drawn.size());
  for (size_t i = 0; i < drawn.size(); ++i) {
    const BenchCase &a = drawn[i], &b = read[i];
    SCOPED_TRACE(a.label());
    ASSERT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.label(), b.label());
    if (a.kind == BenchCase::Kind::matrix) {
      EXPECT_EQ(a.matrix.rows, b.matrix.rows);
      EXPECT_EQ(a.matrix.cols, b.matrix.cols);
      EXPECT_EQ(a.matrix.dtype, b.matrix.dtype);
      EXPECT_EQ(a.matrix.batch, b.matrix.batch);
      EXPECT_EQ(a.matrix.pad_in, b.matrix.pad_in);
      EXPECT_EQ(a.matrix.pad_out, b.matrix.pad_out);
    } else {
      EXPECT_EQ(a.permute.dims, b.permute.dims);
      EXPECT_EQ(a.permute.perm, b.permute.perm);
      EXPECT_EQ(a.permute.dtype, b.permute.dtype);
      EXPECT_TRUE(b.permute.dtype_given);
      EXPECT_EQ(a.permute.in_strides, b.permute.in_strides);
      EXPECT_EQ(a.permute.out_strides, b.permute.out_strides);
    }
  }
}

TEST(SuiteLines, PermuteLinesWithTypesAndStrides) {
  std::istringstream text(
      "dims 4 5 6 | perm 2 0 1\n"
      "dims 4 5 6 | perm 2 0 1 u8 | in_strides 60 12 1 | out_strides 40 8 1\n"
      "dims 5 1 | perm 1 0 | out_strides 0 1\n");  // a size-1 dim may have stride 0
  std::vector<BenchCase> cases;
  std::string error;
  ASSERT_TRUE(parse_suite(text, "s", &cases, &error)) << error;
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_FALSE(cases[0].permute.dtype_given);
  EXPECT_TRUE(cases[0].permute.in_strides.empty());
  EXPECT_EQ(cases[1].permute.dtype, DType::u8);
  EXPECT_EQ(cases[1].permute.in_strides, (std::vector<int64_t>{60, 12, 1}));
  EXPECT_EQ(cases[1].permute.out_strides, (std::vector<int64_t>{40, 8, 1}));
  EXPECT_EQ(cases[2].permute.out_strides, (std::vector<int64_t>{0, 1}));
  const std::pair<const char*, const char*> bad[] = {
      {"dims 4 5 | perm 1 0 f33", "unknown dtype 'f33'"},
      {"dims 4 5 | perm 1 0 | in_strides 5", "in_strides"},
      {"dims 4 5 | perm 1 0 | in_strides 5 x", "in_strides entry 'x'"},
      {"dims 4 5 | perm 1 0 | in_strides", "in_strides lists no strides"},
      {"dims 4 5 | perm 1 0 | in_strides 5 1 | in_strides 5 1", "in_strides is given twice"},
      {"dims 4 5 | perm 1 0 | pad 3", "got '| pad'"},
      {"dims 4 5 | perm 1 0 | in_strides 1 1", "in_strides"},
      {"4x5 f32 batch", "batch"},
  };
  for (const auto& [line, message] : bad) {
    std::istringstream one(line);
    std::vector<BenchCase> none;
    std::string why;
    EXPECT_FALSE(parse_suite(one, "s", &none, &why)) << line;
    EXPECT_NE(why.find(message), std::string::npos) << line << ": " << why;
  }
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
