// SPDX-License-Identifier: Apache-2.0
// What a bench run measured: per case, per variant. Filled by bench_runner.cpp, written by
// report.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "suite.hpp"

namespace xpose::cli {

enum class Outcome {
  passed,          // verified run matched the reference (or the input, for a copy baseline)
  failed,          // verified run produced a wrong output
  not_applicable,  // the kernel cannot run this case (Plan::create said unsupported)
  error,           // a call failed: plan, execute, timing
  skipped,         // not run at all
  not_run,         // a case that could not run (no memory for its data), and its variants: nothing verified
};

const char* to_string(Outcome outcome);

struct VariantResult {
  std::string kernel;         // as requested ("auto", "tiled_padded", ...)
  std::string chosen_kernel;  // what the plan runs; differs from `kernel` for "auto"
  std::string launch;         // Plan::describe(): the chosen kernel and what it launches
  bool transposes = true;     // false for the copy baselines
  bool added_as_baseline = false;  // memcpy run although --kernels did not list it
  Outcome outcome = Outcome::error;
  std::string note;              // why n/a, failed or error
  std::vector<double> seconds;   // every timed run
  bool launch_gate = false;      // its timed launches were queued behind the launch gate (GPU)
  // Derived from `seconds` (valid when timed()):
  double median_seconds = 0, min_seconds = 0, max_seconds = 0;
  double gigabytes_per_second = 0;  // 2 x bytes / median, decimal
  double percent_of_memcpy = -1;    // -1: no memcpy figure in this case
  double speedup_vs_naive = -1;     // -1: no naive figure in this case

  bool timed() const { return !seconds.empty(); }
};

struct CaseResult {
  BenchCase bench_case;
  int number = 0, total = 0;  // "case 3 of 8"
  int64_t bytes = 0;          // bytes of the input view's elements (= of the output view's)
  int64_t input_buffer_bytes = 0, output_buffer_bytes = 0;  // with padding
  int buffer_pairs = 1;       // input/output pairs the timed runs rotate over
  bool cache_resident = false;  // all pairs together still fit in twice the last-level cache
  Outcome outcome = Outcome::passed;  // skipped or error for the case as a whole
  std::string note;
  std::vector<VariantResult> variants;
};

// What the run was and where: printed before the first case.
struct RunInfo {
  DeviceInfo device;
  std::string xpose_version, git_commit, date_utc;
  std::string suite_path;
  std::string timer;  // "CUDA events", "std::chrono::steady_clock"
  bool launch_gate = false;  // GPU runs: timed launches queued behind a launch gate
  std::string naive_kernel;  // the kernel speedups are relative to
  std::string naive_permute_kernel;  // the same for permute cases
  bool has_permute_cases = false;
  bool has_matrix_cases = false;
  int warmup = 0, reps = 0;
  int rounds = 1;  // the timed runs' rounds, alternating between the variants
  double budget_seconds = 0;
  int min_reps = 0;
  int threads = 0;
  uint64_t seed = 0;
};

struct RunSummary {
  int passed = 0, failed = 0, not_applicable = 0, errors = 0, skipped_cases = 0;
  int cases = 0, cases_not_run = 0;
  bool ok() const { return failed == 0 && errors == 0 && cases_not_run == 0; }
};

void add_to_summary(const CaseResult& result, RunSummary* summary);

}  // namespace xpose::cli
