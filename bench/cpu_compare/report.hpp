// SPDX-License-Identifier: Apache-2.0
// What xpose_cpu_compare measured, as a table for people and JSON for bench/results/.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "contenders.hpp"

struct Measurement {
  BenchCase bench_case;
  std::string contender, method;
  int threads = 1;
  std::vector<double> seconds;  // every timed repetition, in run order
  double median = 0, min = 0, max = 0;
  bool passed = false;
  std::string check;  // "PASSED", or what was wrong
};

struct RunInfo {
  std::string cpu, compiler, glibc, openblas, eigen, transparent_huge_pages, git_commit, date;
  int hardware_threads = 0, threads = 0, reps = 0, warmup = 0;
  bool huge_pages = false;  // buffers advised to use huge pages
};

// The machine, libraries and settings of this run.
RunInfo describe_run(int threads, int reps, int warmup, bool huge_pages);

void set_statistics(Measurement* m);

// Median time of the contender named `name` for the same case, or 0.
double median_of(const std::vector<Measurement>& all, const BenchCase& c, const std::string& name);

// The table: one line per case and contender with time, GB/s (2 x bytes / s, decimal), % of the
// memcpy and of the stream copy of the same case, and the check.
std::string format_table(const RunInfo& info, const std::vector<Measurement>& all);

nlohmann::json to_json(const RunInfo& info, const std::vector<Measurement>& all);
