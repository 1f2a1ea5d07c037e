// SPDX-License-Identifier: Apache-2.0
// What `xpose bench` was asked to do, after parsing and validation (bench_command.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "suite.hpp"
#include "xpose/xpose.hpp"

namespace xpose::cli {

enum class ReportFormat { table, csv, json };

struct BenchOptions {
  Device device = Device::cpu;
  std::vector<BenchCase> cases;
  std::string suite_path;  // "" when the cases came from the command line or the CPU default
  // Variants in run order: the memcpy baseline first (always, even when not asked for). 2D cases
  // run `kernels` (kernel_names), permute cases `permute_kernels` (permute_kernel_names).
  std::vector<std::string> kernels;
  bool baseline_added = false;  // memcpy was not in --kernels and runs anyway
  std::vector<std::string> permute_kernels;
  bool permute_baseline_added = false;
  int warmup = 3;
  int reps = 20;
  // The timed runs of a case's variants are split into this many rounds that alternate between
  // the variants (bench_runner.cpp); at most `reps`.
  int rounds = 1;
  // Stop a variant's warm-up and its timed runs after this many seconds (once `min_reps` timed
  // runs are in); 0 = no limit. Used for the CPU defaults, where the reference is slow.
  double budget_seconds = 0;
  int min_reps = 3;
  int threads = 0;  // CPU threads for the threaded kernels; 0 = all
  uint64_t seed = 0;
  ReportFormat format = ReportFormat::table;
  std::string output_path;  // "" = stdout
  std::string plot_path;    // "" = no plot
  std::string plot_python;  // interpreter with matplotlib, found before the run when plotting
  std::string plot_script;  // tools/plot_bench.py
  bool progress = true;
  // GPU: queue the timed launches behind a held stream (cuda_harness.cpp). Off under tools that
  // serialise launches (ncu), detected from CUDA_INJECTION64_PATH, or with --no-launch-gate.
  bool launch_gate = true;
};

}  // namespace xpose::cli
