// SPDX-License-Identifier: Apache-2.0
// `xpose bench --inplace`: its options, checked before anything runs.
#include <algorithm>
#include <string>

#include "diagnostics.hpp"
#include "inplace_bench.hpp"
#include "output_file.hpp"
#include "paths.hpp"

namespace xpose::cli {
namespace {

constexpr const char* kDefaultGpuSuite = "inplace";
// As the one-device bench (bench_command.cpp): rounds on the GPU share drifts among the variants;
// on the CPU each phase stops after a second unless --reps or --warmup ask for exact counts.
constexpr int kDefaultGpuRounds = 4;
constexpr int kDefaultCpuRounds = 1;
constexpr double kCpuBudgetSeconds = 1.0;

// Options of the one-device bench that mean nothing for an in-place run, and why.
struct Refused {
  const char* option;
  const char* why;
};
constexpr Refused kRefusedOptions[] = {
    {"--kernels", "the in-place plans choose their method by shape, and the baselines are fixed (memcpy, out-of-place auto)"},
    {"--random", "give the cases with --rows or --suite"},
    {"--class", "give the cases with --rows or --suite"},
    {"--max-bytes", "give the cases with --rows or --suite"},
    {"--pad-in", "an in-place transpose takes packed matrices only"},
    {"--pad-out", "an in-place transpose takes packed matrices only"},
    {"--dims", "it transposes matrices (2D) only"},
    {"--perm", "it transposes matrices (2D) only"},
    {"--plot", "the plot script draws the one-device bench's JSON"},
    {"--seed", "its data is a fixed pattern of the element indices, not random"},
};

// Without --rows or --suite on the CPU: a square, a wide and a tall matrix (the decomposition and
// its inverse), and prime sides (gcd 1: no column rotation), float32; about 25 s on 2 cores.
std::vector<BenchCase> default_cpu_cases() {
  std::vector<BenchCase> cases;
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{4096, 4096}, {3072, 4096}, {4096, 3072}, {4093, 4099}}) {
    BenchCase bench_case;
    bench_case.matrix.rows = rows;
    bench_case.matrix.cols = cols;
    bench_case.matrix.dtype = DType::f32;
    bench_case.origin = "CPU default";
    cases.push_back(bench_case);
  }
  return cases;
}

// A suite's lines must be packed 2D cases.
bool check_suite_cases(const std::vector<BenchCase>& cases, std::string* error) {
  for (const BenchCase& bench_case : cases) {
    if (bench_case.kind == BenchCase::Kind::permute) {
      *error = bench_case.origin + ": permute lines do not apply to --inplace (it transposes matrices only)";
      return false;
    }
    if (bench_case.matrix.pad_in > 0 || bench_case.matrix.pad_out > 0) {
      *error = bench_case.origin + ": " + bench_case.label() +
               ": --inplace takes packed matrices only (no pad_in or pad_out)";
      return false;
    }
  }
  return true;
}

}  // namespace

bool resolve_inplace_options(const BenchArguments& a, const CLI::App& bench, InplaceBenchOptions* o,
                             std::string* error) {
  for (const Refused& refused : kRefusedOptions) {
    if (bench.count(refused.option) > 0) {
      *error = std::string(refused.option) + " does not apply to --inplace: " + refused.why;
      return false;
    }
  }
  if (!choose_device(a, &o->device, error)) return false;

  if (!a.suite.empty()) {
    if (!a.dtypes.empty()) {
      *error = "--dtype needs --rows with --inplace (suite lines name their own dtype)";
      return false;
    }
    if (!locate_suite(a.suite, &o->suite_path, error) || !load_suite(o->suite_path, &o->cases, error) ||
        !check_suite_cases(o->cases, error))
      return false;
  } else if (!a.rows.empty()) {
    if (!command_line_cases(a, &o->cases, error)) return false;
    for (const BenchCase& bench_case : o->cases) {
      std::string why;
      if (!validate_matrix_case(bench_case.matrix, &why)) {
        *error = "--rows/--cols: " + bench_case.label() + ": " + why;
        return false;
      }
    }
  } else if (!a.dtypes.empty()) {
    *error = "--dtype needs --rows with --inplace";
    return false;
  } else if (o->device == Device::cuda) {
    o->suite_path = find_suite(kDefaultGpuSuite);
    if (o->suite_path.empty()) {
      *error = std::string("the default suite bench/suites/") + kDefaultGpuSuite +
               ".txt was not found (give --suite FILE or --rows)";
      return false;
    }
    if (!load_suite(o->suite_path, &o->cases, error) || !check_suite_cases(o->cases, error)) return false;
  } else {
    o->cases = default_cpu_cases();
  }

  const bool exact_counts = bench.count("--reps") > 0 || bench.count("--warmup") > 0;
  o->reps = a.reps;
  o->warmup = a.warmup;
  o->budget_seconds = o->device == Device::cpu && !exact_counts ? kCpuBudgetSeconds : 0;
  o->min_reps = std::min(3, o->reps);
  const int default_rounds = o->device == Device::cuda ? kDefaultGpuRounds : kDefaultCpuRounds;
  o->rounds = std::min(bench.count("--rounds") > 0 ? a.rounds : default_rounds, o->reps);
  o->threads = a.threads;
  o->format = a.format == "csv" ? ReportFormat::csv : a.format == "json" ? ReportFormat::json : ReportFormat::table;
  o->output_path = a.output;
  o->progress = !a.no_progress;
  o->launch_gate = !a.no_launch_gate && !cuda_tool_attached();
  return o->output_path.empty() || check_output_path(o->output_path, "--output", error);
}

int run_inplace_bench_command(const BenchArguments& arguments, const CLI::App& bench) {
  InplaceBenchOptions options;
  std::string error;
  if (!resolve_inplace_options(arguments, bench, &options, &error)) {
    print_error(error);
    return kExitUsage;
  }
  // Said once, on stderr, as the one-device bench does: a run the user did not place on the CPU
  // reports CPU figures.
  if (arguments.device.empty() && options.device == Device::cpu)
    print_note(std::string("running on the CPU: ") +
               (cuda_compiled() ? "no CUDA device is visible" : "this xpose build has no CUDA backend") +
               " (--device cpu chooses the CPU explicitly)");
  return run_inplace_bench(options);
}

}  // namespace xpose::cli
