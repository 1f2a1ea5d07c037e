// SPDX-License-Identifier: Apache-2.0
// `xpose bench --gpus N`: the distributed transpose (xpose::dist) over GPUs 0..N-1 of this
// process, against the bare NCCL exchange of the same bytes and against gathering the matrix onto
// GPU 0, transposing it there and scattering it back. docs/cli.md ("Several GPUs") describes it.
#pragma once

#include <CLI/CLI.hpp>

#include "bench_command.hpp"
#include "dist_options.hpp"

namespace xpose::cli {

// The whole command: checks the arguments (exit status 2 with one line on bad usage), runs,
// reports; returns the exit status.
int run_dist_bench_command(const BenchArguments& arguments, const CLI::App& bench);

// Whether this build has the distributed bench (xpose::dist was built: NCCL was found).
bool dist_bench_built();

// Runs resolved options (dist_bench.cpp; no_dist_bench.cpp without NCCL).
int run_dist_bench(const DistBenchOptions& options);

}  // namespace xpose::cli
