// SPDX-License-Identifier: Apache-2.0
#include "random_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <sstream>

namespace xpose::cli {
namespace {

constexpr int64_t kMB = 1000 * 1000;
// The classes of large problems draw their bytes log-uniformly in [64 MB, 1 GB]: several times
// any L2 or L3, and small enough for a few hundred cases to run in minutes.
constexpr int64_t kLargeMinBytes = 64 * kMB;
constexpr int64_t kLargeMaxBytes = 1000 * kMB;
// Small problems, where launch and host overhead count.
constexpr int64_t kSmallMinBytes = 1 * kMB;
constexpr int64_t kSmallMaxBytes = 64 * kMB;
// Over 2^31 elements, at most ~18 GB of view (2^34 + 2^31 bytes): two of them fit an 80 GB GPU.
constexpr int64_t kHugeMinElements = (int64_t{1} << 31) + 1;
constexpr int64_t kHugeMaxElements = int64_t{1} << 33;
constexpr int64_t kHugeMaxBytes = (int64_t{1} << 34) + (int64_t{1} << 31);

const std::vector<ShapeClass> kClasses{
    {"large2d", "one large 2D transpose of any aspect ratio (a side may be 5-200), odd, prime or aligned sides"},
    {"small_batch", "batches of small matrices, each side 1-128"},
    {"narrow_batch", "batches of narrow matrices, one side 1-64, the other 65-16384"},
    {"flat_tall", "one matrix of 2-32 rows or columns"},
    {"huge", "over 2^31 elements (up to ~18 GB), 2D and rank 3-4"},
    {"dl", "deep-learning layouts in f16/bf16/f32: NCHW <-> NHWC, attention heads split/merge, batched K^T"},
    {"permute", "random permutations of rank 3-8, odd and small extents"},
    {"strided", "slices of a larger tensor: padded 2D rows, strided rank 3-5 views"},
    {"small", "1-64 MB problems of the other kinds (launch and host overhead count)"},
};

// Reproducible everywhere: the standard distributions differ between C++ libraries, so only the
// raw 64-bit output of mt19937_64 (fixed by the standard) is used.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t bits() { return engine_(); }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(bits() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi].
  int64_t uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(bits() % static_cast<uint64_t>(hi - lo + 1));
  }
  // Log-uniform integer in [lo, hi] (lo >= 1): every octave equally likely.
  int64_t log_uniform(int64_t lo, int64_t hi) {
    const double x = std::exp(std::log(static_cast<double>(lo)) +
                              unit() * (std::log(static_cast<double>(hi) + 1) - std::log(static_cast<double>(lo))));
    return std::clamp(static_cast<int64_t>(x), lo, hi);
  }
  bool chance(double p) { return unit() < p; }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(uniform(0, static_cast<int64_t>(items.size()) - 1))];
  }

 private:
  std::mt19937_64 engine_;
};

uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint64_t case_seed(uint64_t seed, const std::string& class_name, int index) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the class name
  for (char c : class_name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return splitmix(splitmix(seed ^ h) + static_cast<uint64_t>(index));
}

DType dtype_of_size(int64_t bytes) {
  switch (bytes) {
    case 1: return DType::u8;
    case 2: return DType::f16;
    case 4: return DType::f32;
    case 8: return DType::f64;
    default: return DType::c128;
  }
}

int64_t draw_element_size(Rng& rng) { return rng.pick(std::vector<int64_t>{1, 2, 4, 8, 16}); }

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// A side as users bring them: a multiple of 64 (sides of 64 or more), an odd number, or a prime,
// with equal odds.
int64_t flavour(Rng& rng, int64_t n) {
  n = std::max<int64_t>(n, 1);
  switch (rng.uniform(0, 2)) {
    case 0: return n >= 64 ? n / 64 * 64 : n;
    case 1: return n | 1;
    default: {
      int64_t p = std::max<int64_t>(n, 2);
      while (!is_prime(p)) ++p;
      return p;
    }
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

BenchCase matrix_case(int64_t rows, int64_t cols, int64_t elem_size, int64_t batch) {
  BenchCase c;
  c.kind = BenchCase::Kind::matrix;
  c.matrix.rows = rows;
  c.matrix.cols = cols;
  c.matrix.dtype = dtype_of_size(elem_size);
  c.matrix.batch = std::max<int64_t>(batch, 1);
  return c;
}

BenchCase permute_case(std::vector<int64_t> dims, std::vector<int> perm, DType dtype) {
  BenchCase c;
  c.kind = BenchCase::Kind::permute;
  c.permute.dims = std::move(dims);
  c.permute.perm = std::move(perm);
  c.permute.dtype = dtype;
  return c;
}

// A random permutation of `rank` axes other than the identity (rank >= 2).
std::vector<int> random_perm(Rng& rng, int rank) {
  std::vector<int> perm(static_cast<size_t>(rank));
  for (;;) {
    std::iota(perm.begin(), perm.end(), 0);
    for (int i = rank - 1; i > 0; --i)
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.uniform(0, i))]);
    if (!std::is_sorted(perm.begin(), perm.end())) return perm;
  }
}

// rows x cols with rows * cols near `elements`: one side 5-200 (30%), else an aspect ratio
// log-uniform in [1/64, 64]; each side then takes a flavour.
std::pair<int64_t, int64_t> any_aspect(Rng& rng, int64_t elements) {
  int64_t rows, cols;
  if (rng.chance(0.3)) {
    rows = rng.log_uniform(5, 200);
    cols = std::max<int64_t>(1, elements / rows);
    if (rng.chance(0.5)) std::swap(rows, cols);
  } else {
    const double aspect = std::exp((rng.unit() * 2 - 1) * std::log(64.0));
    rows = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(static_cast<double>(elements) / aspect)));
    cols = std::max<int64_t>(1, elements / rows);
  }
  return {flavour(rng, rows), flavour(rng, cols)};
}

BenchCase draw_large2d(Rng& rng, int64_t bytes) {
  const int64_t elem = draw_element_size(rng);
  const auto [rows, cols] = any_aspect(rng, bytes / elem);
  return matrix_case(rows, cols, elem, 1);
}

BenchCase draw_small_batch(Rng& rng, int64_t bytes) {
  const int64_t elem = draw_element_size(rng);
  const int64_t rows = rng.log_uniform(1, 128), cols = rng.log_uniform(1, 128);
  return matrix_case(rows, cols, elem, ceil_div(bytes, rows * cols * elem));
}

BenchCase draw_narrow_batch(Rng& rng, int64_t bytes) {
  const int64_t elem = draw_element_size(rng);
  int64_t rows = rng.log_uniform(1, 64), cols = rng.log_uniform(65, 16384);
  if (rng.chance(0.5)) std::swap(rows, cols);
  return matrix_case(rows, cols, elem, ceil_div(bytes, rows * cols * elem));
}

BenchCase draw_flat_tall(Rng& rng, int64_t bytes) {
  const int64_t elem = draw_element_size(rng);
  int64_t rows = rng.log_uniform(2, 32);
  int64_t cols = flavour(rng, std::max<int64_t>(1, bytes / elem / rows));
  if (rng.chance(0.5)) std::swap(rows, cols);
  return matrix_case(rows, cols, elem, 1);
}

// Extents of a rank-`rank` tensor of about `elements` elements: log-shares of the total, each
// extent odd with odds 1/2, small (2-7) with odds 1/5.
std::vector<int64_t> odd_extents(Rng& rng, int rank, int64_t elements) {
  std::vector<double> weights(static_cast<size_t>(rank));
  for (double& w : weights) w = 0.2 + rng.unit();
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<int64_t> dims;
  for (double w : weights) {
    int64_t extent = std::max<int64_t>(
        1, std::llround(std::exp(std::log(static_cast<double>(elements)) * w / sum)));
    if (rng.chance(0.2)) extent = rng.uniform(2, 7);
    else if (rng.chance(0.5)) extent |= 1;
    dims.push_back(extent);
  }
  // Bring the volume back near the target through the largest extent.
  const auto largest = std::max_element(dims.begin(), dims.end());
  const double volume = std::accumulate(dims.begin(), dims.end(), 1.0,
                                        [](double v, int64_t d) { return v * static_cast<double>(d); });
  *largest = std::max<int64_t>(1, std::llround(static_cast<double>(*largest) * static_cast<double>(elements) / volume));
  return dims;
}

BenchCase draw_permute(Rng& rng, int64_t bytes) {
  const int64_t elem = draw_element_size(rng);
  const int rank = static_cast<int>(rng.uniform(3, 8));
  return permute_case(odd_extents(rng, rank, bytes / elem), random_perm(rng, rank), dtype_of_size(elem));
}

BenchCase draw_dl(Rng& rng, int64_t bytes) {
  const DType dtype = rng.pick(std::vector<DType>{DType::f16, DType::bf16, DType::f32});
  const int64_t elem = static_cast<int64_t>(size_of(dtype));
  const int64_t elements = bytes / elem;
  switch (rng.uniform(0, 3)) {
    case 0:
    case 1: {  // NCHW -> NHWC, or back
      const int64_t channels = rng.pick(std::vector<int64_t>{3, 4, 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024});
      const int64_t height = rng.pick(std::vector<int64_t>{7, 14, 17, 28, 35, 56, 64, 112, 147, 224, 299});
      const int64_t width = rng.chance(0.75) ? height : rng.pick(std::vector<int64_t>{7, 14, 28, 56, 112, 224});
      const int64_t n = std::max<int64_t>(1, elements / (channels * height * width));
      if (rng.chance(0.5)) return permute_case({n, channels, height, width}, {0, 2, 3, 1}, dtype);
      return permute_case({n, height, width, channels}, {0, 3, 1, 2}, dtype);
    }
    case 2: {  // attention heads: (b, s, h, d) <-> (b, h, s, d)
      const int64_t heads = rng.pick(std::vector<int64_t>{8, 12, 16, 20, 32, 40, 64});
      const int64_t head_dim = rng.pick(std::vector<int64_t>{32, 64, 80, 96, 128, 256});
      const int64_t seq = rng.chance(0.5) ? rng.pick(std::vector<int64_t>{77, 197, 577, 1025})
                                          : (int64_t{1} << rng.uniform(7, 13));
      const int64_t b = std::max<int64_t>(1, elements / (seq * heads * head_dim));
      if (rng.chance(0.5)) return permute_case({b, seq, heads, head_dim}, {0, 2, 1, 3}, dtype);
      return permute_case({b, heads, seq, head_dim}, {0, 2, 1, 3}, dtype);
    }
    default: {  // batched K^T: (b, h, s, d) -> (b, h, d, s)
      const int64_t heads = rng.pick(std::vector<int64_t>{8, 12, 16, 32});
      const int64_t head_dim = rng.pick(std::vector<int64_t>{64, 80, 128});
      const int64_t seq = rng.chance(0.5) ? rng.pick(std::vector<int64_t>{77, 197, 577, 1025})
                                          : (int64_t{1} << rng.uniform(7, 13));
      const int64_t b = std::max<int64_t>(1, elements / (seq * heads * head_dim));
      return permute_case({b, heads, seq, head_dim}, {0, 1, 3, 2}, dtype);
    }
  }
}

BenchCase draw_huge(Rng& rng, int64_t max_bytes) {
  int64_t elements = rng.log_uniform(kHugeMinElements, kHugeMaxElements);
  std::vector<int64_t> sizes;
  for (int64_t size : {1, 2, 4, 8, 16})
    if (size * elements <= kHugeMaxBytes) sizes.push_back(size);
  const int64_t elem = rng.pick(sizes);
  if (max_bytes > 0) elements = std::min(elements, max_bytes / elem);
  if (rng.chance(0.5)) {
    const auto [rows, cols] = any_aspect(rng, elements);
    return matrix_case(rows, cols, elem, 1);
  }
  const int rank = static_cast<int>(rng.uniform(3, 4));
  return permute_case(odd_extents(rng, rank, elements), random_perm(rng, rank), dtype_of_size(elem));
}

// A slice of a larger tensor: 2D with padded rows, or a rank 3-5 view into a parent tensor up to
// 25% larger in some inner dims (the view's strides are the parent's; the outermost dim's extent
// does not change a stride).
BenchCase draw_strided(Rng& rng, int64_t bytes) {
  const int64_t elem = draw_element_size(rng);
  if (rng.chance(0.5)) {
    const auto [rows, cols] = any_aspect(rng, bytes / elem);
    BenchCase c = matrix_case(rows, cols, elem, 1);
    c.matrix.pad_in = rng.uniform(1, std::max<int64_t>(1, cols / 8));
    if (rng.chance(0.5)) c.matrix.pad_out = rng.uniform(1, std::max<int64_t>(1, rows / 8));
    c.matrix.pad_in_given = c.matrix.pad_out_given = true;
    return c;
  }
  const int rank = static_cast<int>(rng.uniform(3, 5));
  BenchCase c = permute_case(odd_extents(rng, rank, bytes / elem), random_perm(rng, rank), dtype_of_size(elem));
  std::vector<int64_t> parent = c.permute.dims;
  bool sliced = false;
  for (size_t k = 1; k < parent.size(); ++k) {
    if (rng.chance(0.5)) {
      parent[k] += rng.uniform(1, std::max<int64_t>(1, parent[k] / 4));
      sliced = true;
    }
  }
  if (!sliced) parent.back() += rng.uniform(1, std::max<int64_t>(1, parent.back() / 4));
  c.permute.in_strides.assign(parent.size(), 1);
  for (size_t k = parent.size() - 1; k > 0; --k)
    c.permute.in_strides[k - 1] = c.permute.in_strides[k] * parent[k];
  return c;
}

BenchCase draw_small(Rng& rng, int64_t bytes) {
  switch (rng.uniform(0, 5)) {
    case 0: return draw_large2d(rng, bytes);
    case 1: return draw_small_batch(rng, bytes);
    case 2: return draw_narrow_batch(rng, bytes);
    case 3: return draw_permute(rng, bytes);
    case 4: return draw_dl(rng, bytes);
    default: return draw_strided(rng, bytes);
  }
}

int64_t draw_bytes(Rng& rng, int64_t lo, int64_t hi, int64_t max_bytes) {
  const int64_t bytes = rng.log_uniform(lo, hi);
  return max_bytes > 0 ? std::min(bytes, max_bytes) : bytes;
}

BenchCase draw_case(const std::string& name, Rng& rng, int64_t max_bytes) {
  if (name == "huge") return draw_huge(rng, max_bytes);
  if (name == "small") return draw_small(rng, draw_bytes(rng, kSmallMinBytes, kSmallMaxBytes, max_bytes));
  const int64_t bytes = draw_bytes(rng, kLargeMinBytes, kLargeMaxBytes, max_bytes);
  if (name == "large2d") return draw_large2d(rng, bytes);
  if (name == "small_batch") return draw_small_batch(rng, bytes);
  if (name == "narrow_batch") return draw_narrow_batch(rng, bytes);
  if (name == "flat_tall") return draw_flat_tall(rng, bytes);
  if (name == "dl") return draw_dl(rng, bytes);
  if (name == "permute") return draw_permute(rng, bytes);
  return draw_strided(rng, bytes);
}

const VariantResult* auto_variant(const CaseResult& result) {
  for (const VariantResult& variant : result.variants)
    if (variant.kernel == "auto") return &variant;
  return nullptr;
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double fraction) {
  const size_t index = static_cast<size_t>(fraction * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

const std::vector<ShapeClass>& shape_classes() { return kClasses; }

bool draw_random_cases(const RandomDraw& draw, std::vector<BenchCase>* cases, std::string* error) {
  if (draw.count <= 0) {
    *error = "--random: the number of cases must be positive";
    return false;
  }
  if (draw.max_bytes < 0) {
    *error = "--max-bytes must not be negative";
    return false;
  }
  std::vector<std::string> names;
  for (const std::string& name : draw.classes) {
    const bool known = std::any_of(kClasses.begin(), kClasses.end(),
                                   [&](const ShapeClass& c) { return name == c.name; });
    if (!known) {
      std::string list;
      for (const ShapeClass& c : kClasses) list += std::string(list.empty() ? "" : ", ") + c.name;
      *error = "--class: unknown class '" + name + "' (known: " + list + ")";
      return false;
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty())
    for (const ShapeClass& c : kClasses) names.emplace_back(c.name);

  std::vector<int> drawn(names.size(), 0);
  for (int i = 0; i < draw.count; ++i) {
    const size_t which = static_cast<size_t>(i) % names.size();
    const std::string& name = names[which];
    const int index = drawn[which]++;
    Rng rng(case_seed(draw.seed, name, index));
    BenchCase bench_case = draw_case(name, rng, draw.max_bytes);
    bench_case.shape_class = name;
    bench_case.origin = "random:" + name + ":" + std::to_string(index);
    std::string why;
    const bool valid = bench_case.kind == BenchCase::Kind::matrix ? validate_matrix_case(bench_case.matrix, &why)
                                                                   : validate_permute_case(bench_case.permute, &why);
    if (!valid) {
      *error = bench_case.origin + ": " + bench_case.label() + ": " + why;
      return false;
    }
    cases->push_back(std::move(bench_case));
  }
  return true;
}

std::vector<ClassFigures> summarize_classes(const std::vector<CaseResult>& results) {
  std::vector<std::string> order;
  for (const CaseResult& result : results) {
    const std::string& name = result.bench_case.shape_class;
    if (!name.empty() && std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  if (order.empty()) return {};
  order.emplace_back("all");
  std::vector<ClassFigures> figures;
  for (const std::string& name : order) {
    ClassFigures f;
    f.name = name;
    std::vector<double> percents;
    for (const CaseResult& result : results) {
      if (result.bench_case.shape_class.empty()) continue;
      if (name != "all" && result.bench_case.shape_class != name) continue;
      ++f.cases;
      const VariantResult* automatic = auto_variant(result);
      if (automatic == nullptr || automatic->outcome != Outcome::passed || automatic->percent_of_memcpy < 0) continue;
      percents.push_back(automatic->percent_of_memcpy);
    }
    f.timed = static_cast<int>(percents.size());
    if (!percents.empty()) {
      std::sort(percents.begin(), percents.end());
      f.min = percents.front();
      f.p10 = percentile(percents, 0.1);
      f.median = percentile(percents, 0.5);
      f.below_85 = static_cast<int>(std::count_if(percents.begin(), percents.end(), [](double p) { return p < 85.0; }));
    }
    figures.push_back(f);
  }
  return figures;
}

std::string class_summary_table(const std::vector<CaseResult>& results) {
  const std::vector<ClassFigures> figures = summarize_classes(results);
  if (figures.empty()) return "";
  std::ostringstream text;
  text << "\nauto, % of memcpy by class (min / p10 / median over the verified cases)\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-14s %6s %6s %8s %7s %7s %7s\n", "class", "cases", "timed", "<85%",
                "min", "p10", "median");
  text << line;
  for (const ClassFigures& f : figures) {
    if (f.timed == 0) {
      std::snprintf(line, sizeof line, "%-14s %6d %6d %8s %7s %7s %7s\n", f.name.c_str(), f.cases, 0, "-", "-",
                    "-", "-");
    } else {
      std::snprintf(line, sizeof line, "%-14s %6d %6d %8d %7.1f %7.1f %7.1f\n", f.name.c_str(), f.cases, f.timed,
                    f.below_85, f.min, f.p10, f.median);
    }
    text << line;
  }
  return text.str();
}

}  // namespace xpose::cli
