// SPDX-License-Identifier: Apache-2.0
// `xpose bench`: its command-line options, their checks, and the run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_options.hpp"

namespace xpose::cli {

// Exit statuses of every xpose command.
constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // a wrong result, or a failure while running
constexpr int kExitUsage = 2;   // bad command line, missing file, bad suite line

// The options as typed; resolve_bench_options() checks them.
struct BenchArguments {
  std::vector<std::string> rows, cols, dtypes;
  std::string dims, perm;  // --dims "75 96 75 96" --perm "3 0 2 1"
  std::string batch = "1";
  std::string pad_in = "0", pad_out = "0";
  std::string suite;
  std::string random;                // --random N: cases drawn from the shape classes
  std::vector<std::string> classes;  // --class: the classes to draw from (default all)
  std::string max_bytes;             // --max-bytes: cap on a drawn case's bytes
  std::string device;
  std::vector<std::string> kernels;
  int reps = 20, warmup = 3, threads = 0;
  int rounds = 0;  // 0: the device's default (kDefaultGpuRounds, kDefaultCpuRounds)
  uint64_t seed = 0;
  std::string format = "table";
  std::string output, plot;
  bool no_progress = false;
  bool no_launch_gate = false;
  std::string gpus, split, step_bytes, nccl_buffers, exchange;  // the distributed bench (dist_options.hpp)
  bool inplace = false;  // the in-place bench (inplace_bench.hpp)
};

CLI::App* add_bench_command(CLI::App& app, BenchArguments* arguments);

// Turns the typed arguments into a run; false with a one-line message on bad usage.
bool resolve_bench_options(const BenchArguments& arguments, const CLI::App& bench,
                           BenchOptions* options, std::string* error);

// Runs the bench and writes its reports; returns the exit status.
int run_bench_command(const BenchOptions& options);

// Shared with the other bench modes (--gpus, --inplace):
// Cases from --rows/--cols/--dtype/--batch: every combination, square when --cols is absent.
bool command_line_cases(const BenchArguments& arguments, std::vector<BenchCase>* cases, std::string* error);
// --device, or cuda when a GPU is visible; false with one line when CUDA cannot run.
bool choose_device(const BenchArguments& arguments, Device* device, std::string* error);
// Whether a CUDA tool (ncu, nsys, compute-sanitizer) is attached: they inject libraries through
// CUDA_INJECTION64_PATH and LD_PRELOAD. ncu serialises launches, which a held stream would stall.
bool cuda_tool_attached();
std::string utc_now();  // "2026-11-22T02:33:39Z"

}  // namespace xpose::cli
