// SPDX-License-Identifier: Apache-2.0
// `xpose bench --inplace`: Plan::execute_inplace on one buffer per case, the rows x cols plan and
// the cols x rows plan taking turns (so the data goes back and forth), against a memcpy of the
// same bytes and the out-of-place Plan::execute, timed in the same process; after the timed runs
// the data is brought to "transposed once" and checked. docs/cli.md ("In-place transposes")
// describes it.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_command.hpp"
#include "bench_options.hpp"
#include "suite.hpp"

namespace xpose::cli {

struct InplaceBenchOptions {
  Device device = Device::cpu;
  std::vector<BenchCase> cases;  // packed 2D cases only
  std::string suite_path;        // "" when the cases came from --rows or the CPU default
  int warmup = 3, reps = 20;
  int rounds = 1;  // timed runs split into rounds that alternate between the variants
  double budget_seconds = 0;  // CPU without --reps/--warmup: each phase stops after this long
  int min_reps = 3;
  int threads = 0;  // CPU threads of the plans (and of the host's fill and check); 0 = all
  ReportFormat format = ReportFormat::table;
  std::string output_path;
  bool progress = true;
  bool launch_gate = true;  // GPU: as the one-GPU bench (--no-launch-gate, CUDA tools)
};

// The options of `xpose bench --inplace ...`; false with a one-line message on bad usage.
bool resolve_inplace_options(const BenchArguments& arguments, const CLI::App& bench, InplaceBenchOptions* options,
                             std::string* error);

// The whole command: checks the arguments (exit status 2 with one line on bad usage), runs,
// reports; returns the exit status.
int run_inplace_bench_command(const BenchArguments& arguments, const CLI::App& bench);

// Runs resolved options and writes the reports; returns the exit status.
int run_inplace_bench(const InplaceBenchOptions& options);

}  // namespace xpose::cli
