// SPDX-License-Identifier: Apache-2.0
// What an in-place bench run (`xpose bench --inplace`) measured: per case, per variant. Filled by
// inplace_bench.cpp, written by inplace_report.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_results.hpp"
#include "inplace_check.hpp"
#include "suite.hpp"

namespace xpose::cli {

// The variants, in run and report order: memcpy first (every ratio's baseline).
constexpr const char* kInplaceMemcpyVariant = "memcpy";
constexpr const char* kOutOfPlaceVariant = "out_of_place";
constexpr const char* kInPlaceVariant = "in_place";

struct InplaceVariantResult {
  std::string name;            // memcpy, out_of_place, in_place
  std::string kernel;          // what its plan runs: "memcpy", "tile", "inplace_decomposed", ...
  Outcome outcome = Outcome::error;  // memcpy: passed once timed (it is not checked); skipped: no room
  std::string note;            // why skipped, error or FAILED
  bool checked = false;        // out_of_place, in_place: compared with the expected transpose
  std::vector<double> seconds;  // every timed run
  // in_place: per timed run, whether it ran the rows x cols plan (true) or the cols x rows one.
  std::vector<bool> forward;
  int64_t timed_bytes = 0;     // bytes one run moves; memcpy: a chunk when the case's size did not fit
  bool launch_gate = false;    // its timed launches were queued behind the launch gate (GPU)
  // Derived from `seconds` (valid when timed()); memcpy's are scaled to the case's bytes.
  double median_seconds = 0, min_seconds = 0, max_seconds = 0;
  double median_forward_seconds = -1, median_back_seconds = -1;  // in_place, per direction; -1: none
  double gigabytes_per_second = 0;  // 2 x bytes / median, decimal
  double percent_of_memcpy = -1;    // -1: no memcpy figure in this case

  bool timed() const { return !seconds.empty(); }
};

struct InplaceCaseResult {
  BenchCase bench_case;        // a packed 2D case
  int number = 0, total = 0;   // "case 3 of 8"
  int64_t bytes = 0;           // rows x cols x batch x element size
  std::string method;          // kernel_name() of the rows x cols in-place plan
  int64_t scratch_bytes = 0, scratch_bytes_back = 0;  // scratch_bytes() of the two in-place plans
  InplaceCheck check = InplaceCheck::elements;
  bool cache_resident = false;  // the matrix fits the last-level cache: times include cache hits
  bool second_buffer = false;   // a second buffer of the case's size fit (memcpy of it, out_of_place)
  int64_t memcpy_bytes = 0;     // bytes the memcpy baseline copied (a chunk when < bytes)
  int64_t free_bytes = -1;      // device memory free once the matrix was allocated and filled
  int64_t executes = 0;         // in-place executes on the data in all (odd once checked)
  Outcome outcome = Outcome::passed;  // failed, error, or not_run (no memory for the matrix)
  std::string note;
  std::vector<InplaceVariantResult> variants;
};

struct InplaceRunInfo {
  DeviceInfo device;
  std::string xpose_version, git_commit, date_utc;
  std::string suite_path;
  std::string timer;
  bool launch_gate = false;  // GPU: timed launches of the single-launch plans queued behind a gate
  int warmup = 0, reps = 0, rounds = 1;
  double budget_seconds = 0;
  int min_reps = 0;
  int threads = 0;
};

struct InplaceSummary {
  int cases = 0;
  int passed = 0, failed = 0;  // checks (in_place and out_of_place)
  int skipped = 0;             // out_of_place without room for its output
  int errors = 0;              // variants or cases that could not run (a library or device error)
  int cases_not_run = 0;       // no memory for the matrix
  bool ok() const { return failed == 0 && errors == 0 && cases_not_run == 0; }
};

}  // namespace xpose::cli
