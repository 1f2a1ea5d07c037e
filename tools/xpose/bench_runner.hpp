// SPDX-License-Identifier: Apache-2.0
// The device-agnostic bench loop. For each case: create a plan per variant (Plan::create, or
// Plan::create_permute for a permute case, with PlanOptions{kernel = name}); fill the input with
// fresh random data; run each variant once into an output poisoned with 0xFF and check every
// byte against the reference (or, for the copy baselines, against the input); then time the
// variants together, in rounds that alternate between them (BenchOptions::rounds). Derived
// figures (GB/s, % of memcpy, speedup over the naive kernel) are filled in once every variant of
// the case has run.
#pragma once

#include <functional>

#include "bench_device.hpp"
#include "bench_options.hpp"
#include "bench_results.hpp"
#include "progress.hpp"

namespace xpose::cli {

// The kernel whose speed the others are compared with: the seeds' naive read-contiguous kernel
// on the GPU, the plain reference loops on the CPU.
const char* naive_kernel_name(Device device);
// The same for permute cases: the naive permute kernel on the GPU, the reference on the CPU.
const char* naive_permute_kernel_name(Device device);
constexpr const char* kBaselineKernel = "memcpy";

// Measurement steps (per case: one per variant, and the timing) a run will take, for the progress line.
int count_steps(const BenchOptions& options);

// Runs every case in order and hands each result to `on_case` as soon as it is complete.
void run_bench(BenchDevice& device, const BenchOptions& options, Progress& progress,
               const std::function<void(const CaseResult&)>& on_case);

}  // namespace xpose::cli
