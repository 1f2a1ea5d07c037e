// Property test: thousands of random problems (shape skewed towards 0, 1 and 2, any element size,
// random row padding, batches with random gaps) on "auto" and every transposing CPU kernel but
// the reference itself, each compared with the reference with padding and guards checked.
//
// XPOSE_TEST_SEED (default kDefaultSeed) and XPOSE_TEST_CASES (default kDefaultCases) override
// the run; a failure prints the seed and the case so it can be replayed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/transpose_check.hpp"

namespace {

using xpose::DType;
using xpose::Matrix;
using xpose::Status;

constexpr uint64_t kDefaultSeed = 20261122;
constexpr uint64_t kDefaultCases = 3000;

// A small generator with the same sequence on every platform (std distributions differ).
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

 private:
  uint64_t state_;
};

struct RandomCase {
  Matrix matrix;
  DType type;
};

RandomCase random_case(CaseGenerator& random) {
  RandomCase c;
  const auto& types = xpose::all_dtypes();
  c.type = types[static_cast<std::size_t>(random.below(static_cast<int64_t>(types.size())))];
  Matrix& m = c.matrix;
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

std::vector<std::string> kernels_under_test() {
  std::vector<std::string> names;
  for (const std::string& name : xpose_test::transposing_kernels(xpose::Device::cpu))
    if (name != "reference") names.push_back(name);
  return names;
}

class RandomProblemsCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomProblemsCpu, MatchReference) {
  const uint64_t seed = xpose_test::env_or("XPOSE_TEST_SEED", kDefaultSeed);
  const uint64_t cases = xpose_test::env_or("XPOSE_TEST_CASES", kDefaultCases);
  RecordProperty("seed", std::to_string(seed));
  CaseGenerator random(seed);
  for (uint64_t k = 0; k < cases && !HasFailure(); ++k) {
    const RandomCase c = random_case(random);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (XPOSE_TEST_SEED), case " + std::to_string(k) +
                 ": kernel " + GetParam() + ", " + xpose_test::describe(c.matrix, c.type));
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, c.matrix, c.type, xpose::Device::cpu, {GetParam(), 0}),
              Status::ok)
        << xpose::last_error_message();
    const auto problem = xpose_test::problem_for(c.matrix, c.type);
    const auto input = xpose_test::make_input(problem, 0, /*salt=*/k);
    auto output = xpose_test::make_output(problem);
    ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
    EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));
  }
}

INSTANTIATE_TEST_SUITE_P(TransposeCpu, RandomProblemsCpu, ::testing::ValuesIn(kernels_under_test()),
                         [](const auto& info) { return info.param; });

}  // namespace
