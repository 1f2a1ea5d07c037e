// SPDX-License-Identifier: Apache-2.0
#include "bench_runner.hpp"

#include <algorithm>
#include <cstdio>
#include <new>

#include "core/permute_problem.hpp"
#include "cpu/permute_reference.hpp"
#include "cpu/reference.hpp"
#include "test_data.hpp"

namespace xpose::cli {
namespace {

// Rotation against the cache: a case whose input and output together are smaller than twice the
// last-level cache is timed over several buffer pairs, so that consecutive runs do not find their
// data in the cache. kRotationCacheMultiple x cache bytes in all, at most kMaxBufferPairs pairs.
constexpr int64_t kRotationCacheMultiple = 4;
constexpr int kMaxBufferPairs = 64;
// Leave some device memory to the library (cuBLAS workspace, plan metadata).
constexpr double kUsableFreeMemory = 0.9;

std::string megabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

// "kernel 'memcpy' cannot run 1024 x 1024 f32 (batch 1): <reason>" -> "<reason>"
std::string reason_only(const std::string& message) {
  const auto colon = message.find("): ");
  return colon == std::string::npos ? message : message.substr(colon + 3);
}

uint64_t case_seed(uint64_t run_seed, int case_number) {
  return run_seed ^ (0x9E3779B97F4A7C15ull * static_cast<uint64_t>(case_number));
}

// Input/output buffer pairs on the device, released together.
struct CaseBuffers {
  std::vector<DeviceBuffer> inputs, outputs;
  int pairs() const { return static_cast<int>(inputs.size()); }
};

int wanted_buffer_pairs(int64_t pair_bytes, int64_t cache_bytes) {
  if (cache_bytes <= 0 || pair_bytes >= 2 * cache_bytes) return 1;
  const int64_t pairs = (kRotationCacheMultiple * cache_bytes + pair_bytes - 1) / pair_bytes;
  return static_cast<int>(std::min<int64_t>(pairs, kMaxBufferPairs));
}

// Allocates up to `wanted` pairs (at least one, else false with the reason), fills each input
// with `input` and poisons each output.
bool allocate_buffers(BenchDevice& device, int wanted, const std::vector<unsigned char>& input,
                      int64_t output_bytes, CaseBuffers* buffers, std::string* error) {
  const int64_t input_bytes = static_cast<int64_t>(input.size());
  const int64_t pair_bytes = input_bytes + output_bytes;
  const int64_t free_bytes = device.free_memory_bytes();
  if (free_bytes >= 0) {
    const auto fitting = static_cast<int64_t>(kUsableFreeMemory * static_cast<double>(free_bytes)) / pair_bytes;
    if (fitting < 1) {
      *error = "this case needs " + megabytes(pair_bytes) + " of " + xpose::to_string(device.info().device) +
               " memory (one input and one output buffer); " + megabytes(free_bytes) + " free";
      return false;
    }
    wanted = static_cast<int>(std::min<int64_t>(wanted, fitting));
  }
  for (int pair = 0; pair < wanted; ++pair) {
    std::string why;
    void* in = device.allocate(input_bytes, &why);
    DeviceBuffer in_buffer(&device, in);
    void* out = in ? device.allocate(output_bytes, &why) : nullptr;
    DeviceBuffer out_buffer(&device, out);
    if (in == nullptr || out == nullptr) {
      if (pair > 0) break;  // fewer pairs: less rotation, still a measurement
      *error = why + "; this case needs " + megabytes(pair_bytes) + " (one input and one output buffer)";
      return false;
    }
    if (!device.copy_from_host(in, input.data(), input_bytes, error) ||
        !device.fill_bytes(out, 0xFF, output_bytes, error))
      return false;
    buffers->inputs.push_back(std::move(in_buffer));
    buffers->outputs.push_back(std::move(out_buffer));
  }
  return true;
}

// What the runner needs of a case, whatever its kind: sizes, and how to check an output.
struct CaseChecks {
  int64_t output_bytes = 0;  // the output view's extent, padding included
  // A transposing (permuting) variant's output against the expected bytes; a copy baseline's
  // against the input.
  std::function<bool(const unsigned char* actual, const unsigned char* expected, std::string* why)> result;
  std::function<bool(const unsigned char* actual, const unsigned char* input, std::string* why)> copy;
};

// The verified run: pair 0's output poisoned, one execute, every byte compared.
void verify_variant(BenchDevice& device, const Plan& plan, const CaseChecks& checks,
                    const CaseBuffers& buffers, const std::vector<unsigned char>& input,
                    const std::vector<unsigned char>& expected, VariantResult* result) {
  const int64_t output_bytes = checks.output_bytes;
  std::string error;
  if (!device.fill_bytes(buffers.outputs[0].data(), 0xFF, output_bytes, &error)) {
    result->outcome = Outcome::error;
    result->note = error;
    return;
  }
  if (plan.execute(buffers.inputs[0].data(), buffers.outputs[0].data(), device.stream()) != Status::ok) {
    result->outcome = Outcome::error;
    result->note = std::string("execute: ") + last_error_message();
    return;
  }
  const unsigned char* actual = device.read_back(buffers.outputs[0].data(), output_bytes, &error);
  if (actual == nullptr) {
    result->outcome = Outcome::error;
    result->note = error;
    return;
  }
  const bool correct = result->transposes ? checks.result(actual, expected.data(), &result->note)
                                          : checks.copy(actual, input.data(), &result->note);
  result->outcome = correct ? Outcome::passed : Outcome::failed;
}

// One variant's timing across the rounds: a variant whose launches stalled behind the launch gate
// goes without it afterwards.
struct VariantTiming {
  bool gate_allowed = true;
  bool every_round_gated = true;
  bool failed = false;  // a round's timing failed: no more rounds, no times
};

// Times one round of a variant and appends its times; an error ends the variant's timing.
// `runs_launched` counts the case's launches, every variant's: each launch takes the next buffer
// pair, so that a variant does not find in the cache the pairs the variant before it just used.
void time_round(BenchDevice& device, const Plan& plan, const CaseBuffers& buffers,
                TimingRequest request, int* runs_launched, VariantTiming* timing, VariantResult* result) {
  const int first_run = *runs_launched;
  const auto launch = [&](int run) {
    const int pair = (first_run + run) % buffers.pairs();
    return plan.execute(buffers.inputs[pair].data(), buffers.outputs[pair].data(), device.stream());
  };
  request.allow_launch_gate = timing->gate_allowed;
  std::vector<double> seconds;
  std::string error;
  const bool timed = device.time_runs(launch, request, &seconds, &error);
  *runs_launched += request.warmup + request.reps;
  if (!timed) {
    timing->failed = true;
    if (result->outcome == Outcome::passed) result->outcome = Outcome::error;
    result->note += (result->note.empty() ? "" : "; ") + ("timed runs: " + error);
    result->seconds.clear();
    return;
  }
  const bool gated = device.last_runs_gated();
  // A gated request that came back ungated stalled: later rounds skip the gate (2 s each).
  if (request.allow_launch_gate && !gated) timing->gate_allowed = false;
  timing->every_round_gated = timing->every_round_gated && gated;
  result->seconds.insert(result->seconds.end(), seconds.begin(), seconds.end());
}

// The timed runs of every runnable variant, in `rounds` rounds that alternate between the
// variants (each round starting one variant later), so that effects of a variant's position in
// the run (the slow first launches of a gated burst, bench_command.cpp; a drift of clocks or
// temperature) fall on every variant alike instead of on whichever ran last. The first round has
// the full warm-up; later rounds one warm-up run, after the other variants' runs. Round r takes
// reps / rounds timed runs (the first reps % rounds rounds one more), and a budget is shared
// equally by the rounds.
void time_variants(BenchDevice& device, const BenchOptions& options, const std::vector<Plan>& plans,
                   const CaseBuffers& buffers, const std::vector<bool>& runnable,
                   std::vector<VariantResult>* variants) {
  const int rounds = std::max(1, std::min(options.rounds, options.reps));
  const int count = static_cast<int>(plans.size());
  std::vector<VariantTiming> timings(plans.size());
  int runs_launched = 0;
  for (int round = 0; round < rounds; ++round) {
    TimingRequest request;
    request.warmup = round == 0 ? options.warmup : std::min(options.warmup, 1);
    request.reps = options.reps / rounds + (round < options.reps % rounds ? 1 : 0);
    request.budget_seconds = options.budget_seconds / rounds;
    request.min_reps = std::max(1, (options.min_reps + rounds - 1) / rounds);
    for (int i = 0; i < count; ++i) {
      const int k = (i + round) % count;
      VariantResult& variant = (*variants)[k];
      if (!runnable[k] || timings[k].failed) continue;
      time_round(device, plans[k], buffers, request, &runs_launched, &timings[k], &variant);
    }
  }
  for (int k = 0; k < count; ++k)
    if (runnable[k]) (*variants)[k].launch_gate = timings[k].every_round_gated && !(*variants)[k].seconds.empty();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void derive_figures(const std::string& naive_kernel, int64_t bytes, CaseResult* result) {
  double memcpy_seconds = -1, naive_seconds = -1;
  for (VariantResult& variant : result->variants) {
    if (!variant.timed()) continue;
    variant.median_seconds = median(variant.seconds);
    variant.min_seconds = *std::min_element(variant.seconds.begin(), variant.seconds.end());
    variant.max_seconds = *std::max_element(variant.seconds.begin(), variant.seconds.end());
    variant.gigabytes_per_second = 2.0 * static_cast<double>(bytes) / variant.median_seconds / 1e9;
    if (variant.kernel == kBaselineKernel) memcpy_seconds = variant.median_seconds;
    if (variant.kernel == naive_kernel) naive_seconds = variant.median_seconds;
  }
  for (VariantResult& variant : result->variants) {
    if (!variant.timed()) continue;
    if (memcpy_seconds > 0) variant.percent_of_memcpy = 100.0 * memcpy_seconds / variant.median_seconds;
    if (naive_seconds > 0) variant.speedup_vs_naive = naive_seconds / variant.median_seconds;
  }
}

// One plan per variant. A kernel that cannot run the case is n/a, found before any memory is
// spent on it. `create` makes the plan of one kernel; `transposes` says whether a kernel computes
// the result (false for the copy baselines).
void create_plans(const std::vector<std::string>& kernels, bool baseline_added,
                  const std::function<Status(Plan&, const PlanOptions&)>& create,
                  const std::function<bool(const std::string&)>& transposes, int threads,
                  std::vector<Plan>* plans, std::vector<VariantResult>* variants) {
  plans->assign(kernels.size(), Plan{});
  for (size_t k = 0; k < kernels.size(); ++k) {
    VariantResult variant;
    variant.kernel = kernels[k];
    variant.transposes = transposes(variant.kernel);
    variant.added_as_baseline = baseline_added && variant.kernel == kBaselineKernel;
    PlanOptions plan_options;
    plan_options.kernel = variant.kernel;
    plan_options.threads = threads;
    const Status status = create((*plans)[k], plan_options);
    if (status == Status::ok) {
      variant.chosen_kernel = (*plans)[k].kernel_name();
      variant.launch = (*plans)[k].describe();
    } else if (status == Status::unsupported) {
      variant.outcome = Outcome::not_applicable;
      variant.note = reason_only(last_error_message());
    } else {
      variant.outcome = Outcome::error;
      variant.note = std::string("Plan::create: ") + last_error_message();
    }
    variants->push_back(std::move(variant));
  }
}

// The host side of the verified run: random input (padding included) and, when a transposing
// variant will run, the reference output over a 0xFF background.
struct HostData {
  std::vector<unsigned char> input, expected;
};

bool prepare_host_data(int64_t input_bytes, int64_t output_bytes, DType type,
                       const std::function<void(const unsigned char*, unsigned char*)>& reference,
                       bool needs_expected, uint64_t seed, HostData* data, std::string* error) {
  // Checked before trying: an allocation far beyond memory may be granted and then fail page by
  // page, or abort the process (sanitizers), instead of throwing.
  const int64_t needed = input_bytes + (needs_expected ? output_bytes : 0);
  const int64_t available = host_available_memory_bytes();
  auto too_large = [&] {
    *error = "cannot allocate host memory for the input and expected output (" + megabytes(needed) +
             " needed, " + (available < 0 ? std::string("unknown") : megabytes(available)) + " available)";
    return false;
  };
  if (available >= 0 && needed > available) return too_large();
  try {
    data->input.resize(static_cast<size_t>(input_bytes));
    fill_random(data->input.data(), input_bytes, type, seed);
    if (needs_expected) {
      data->expected.assign(static_cast<size_t>(output_bytes), 0xFF);
      reference(data->input.data(), data->expected.data());
    }
  } catch (const std::bad_alloc&) {
    return too_large();
  }
  return true;
}

// A case failed when a variant failed, and is an error when a variant could not run; a case that
// could not run at all (not_run) stays so.
Outcome case_outcome(const CaseResult& result) {
  Outcome outcome = result.outcome;
  for (const VariantResult& variant : result.variants) {
    if (variant.outcome == Outcome::error) return Outcome::error;
    if (variant.outcome == Outcome::failed) outcome = Outcome::failed;
  }
  return outcome;
}

// The part of a case common to both kinds, once its plans exist: host data, buffers, the
// verified run and the timed runs of every variant, and the derived figures.
void run_variants(BenchDevice& device, const BenchOptions& options, const BenchCase& bench_case,
                  int case_number, DType type,
                  const std::function<void(const unsigned char*, unsigned char*)>& reference,
                  const CaseChecks& checks, const std::vector<Plan>& plans, const char* naive_kernel,
                  Progress& progress, CaseResult* result) {
  const int64_t pair_bytes = result->input_buffer_bytes + result->output_buffer_bytes;
  bool any_runnable = false, any_transposing = false;
  for (size_t k = 0; k < plans.size(); ++k) {
    any_runnable = any_runnable || plans[k].valid();
    any_transposing = any_transposing || (plans[k].valid() && result->variants[k].transposes);
  }

  HostData host;
  CaseBuffers buffers;
  std::string error;
  if (any_runnable &&
      (!prepare_host_data(result->input_buffer_bytes, result->output_buffer_bytes, type, reference,
                          any_transposing, case_seed(options.seed, case_number), &host, &error) ||
       !allocate_buffers(device, wanted_buffer_pairs(pair_bytes, device.info().cache_bytes), host.input,
                         result->output_buffer_bytes, &buffers, &error))) {
    buffers = CaseBuffers{};
    result->outcome = Outcome::not_run;
    result->note = error;
  }
  result->buffer_pairs = std::max(buffers.pairs(), 1);
  const int64_t cache_bytes = device.info().cache_bytes;
  result->cache_resident = cache_bytes > 0 && result->buffer_pairs * pair_bytes < 2 * cache_bytes;

  // Every variant is verified first, then the variants are timed together in rounds.
  std::vector<bool> runnable(plans.size(), false);
  for (size_t k = 0; k < plans.size(); ++k) {
    VariantResult& variant = result->variants[k];
    progress.step(bench_case.label() + " " + variant.kernel);
    if (!plans[k].valid()) continue;
    if (buffers.pairs() == 0) {
      variant.outcome = Outcome::not_run;  // the case's note says why, once
      continue;
    }
    verify_variant(device, plans[k], checks, buffers, host.input, host.expected, &variant);
    runnable[k] = variant.outcome != Outcome::error;
  }
  progress.step(bench_case.label() + " timing");
  if (buffers.pairs() > 0) time_variants(device, options, plans, buffers, runnable, &result->variants);
  derive_figures(naive_kernel, result->bytes, result);
  result->outcome = case_outcome(*result);
}

CaseResult run_matrix_case(BenchDevice& device, const BenchOptions& options,
                           const BenchCase& bench_case, int case_number, Progress& progress) {
  CaseResult result;
  result.bench_case = bench_case;
  const Device target = device.info().device;
  detail::Transpose2D problem;
  if (detail::make_problem(bench_case.matrix.matrix(), bench_case.matrix.dtype, &problem) != Status::ok) {
    result.outcome = Outcome::error;
    result.note = last_error_message();
    return result;
  }
  result.bytes = problem.bytes();
  result.input_buffer_bytes = problem.input_extent() * problem.elem_size;
  result.output_buffer_bytes = problem.output_extent() * problem.elem_size;

  std::vector<Plan> plans;
  create_plans(
      options.kernels, options.baseline_added,
      [&](Plan& plan, const PlanOptions& plan_options) {
        // A strided view's baseline copies as many bytes as the view has, packed: both buffers
        // hold at least that many.
        if (plan_options.kernel == kBaselineKernel && !problem.packed())
          return Plan::create(plan, Matrix{1, problem.elements()}, bench_case.matrix.dtype, target, plan_options);
        return Plan::create(plan, bench_case.matrix.matrix(), bench_case.matrix.dtype, target, plan_options);
      },
      [&](const std::string& kernel) { return kernel_transposes(target, kernel); }, options.threads, &plans,
      &result.variants);
  CaseChecks checks;
  checks.output_bytes = result.output_buffer_bytes;
  checks.result = [&](const unsigned char* actual, const unsigned char* expected, std::string* why) {
    return compare_transposed(actual, expected, problem, why);
  };
  checks.copy = [&](const unsigned char* actual, const unsigned char* input, std::string* why) {
    return compare_copied(actual, input, problem, why);
  };
  run_variants(
      device, options, bench_case, case_number, problem.type,
      [&](const unsigned char* input, unsigned char* expected) {
        detail::transpose_reference(input, expected, problem);
      },
      checks, plans, naive_kernel_name(target), progress, &result);
  return result;
}

CaseResult run_permute_case(BenchDevice& device, const BenchOptions& options,
                            const BenchCase& bench_case, int case_number, Progress& progress) {
  CaseResult result;
  result.bench_case = bench_case;
  const Device target = device.info().device;
  const PermuteCase& permute_case = bench_case.permute;
  detail::PermuteProblem problem;
  if (detail::make_permute_problem(permute_case.permutation(), permute_case.dtype, &problem) != Status::ok) {
    result.outcome = Outcome::error;
    result.note = last_error_message();
    return result;
  }
  result.bytes = problem.bytes();
  result.input_buffer_bytes = problem.input_extent * problem.elem_size;
  result.output_buffer_bytes = problem.output_extent * problem.elem_size;

  std::vector<Plan> plans;
  create_plans(
      options.permute_kernels, options.permute_baseline_added,
      [&](Plan& plan, const PlanOptions& plan_options) {
        if (plan_options.kernel == kBaselineKernel && !problem.dense())  // as for a strided 2D view
          return Plan::create_permute(plan, Permutation{{problem.elements}, {0}, {}, {}}, permute_case.dtype, target,
                                      plan_options);
        return Plan::create_permute(plan, permute_case.permutation(), permute_case.dtype, target, plan_options);
      },
      [&](const std::string& kernel) { return permute_kernel_permutes(target, kernel); }, options.threads,
      &plans, &result.variants);
  CaseChecks checks;
  checks.output_bytes = result.output_buffer_bytes;
  checks.result = [&](const unsigned char* actual, const unsigned char* expected, std::string* why) {
    return compare_permuted(actual, expected, problem, why);
  };
  checks.copy = [&](const unsigned char* actual, const unsigned char* input, std::string* why) {
    return compare_copied(actual, input, problem, why);
  };
  run_variants(
      device, options, bench_case, case_number, problem.type,
      [&](const unsigned char* input, unsigned char* expected) {
        detail::permute_reference(input, expected, problem);
      },
      checks, plans, naive_permute_kernel_name(target), progress, &result);
  return result;
}

}  // namespace

const char* naive_kernel_name(Device device) {
  return device == Device::cuda ? "naive_read_contiguous" : "reference";
}

const char* naive_permute_kernel_name(Device device) {
  return device == Device::cuda ? "naive" : "reference";
}

int count_steps(const BenchOptions& options) {
  int steps = 0;
  for (const BenchCase& bench_case : options.cases)
    steps += 1 + static_cast<int>(bench_case.kind == BenchCase::Kind::matrix ? options.kernels.size()
                                                                             : options.permute_kernels.size());
  return steps;
}

void run_bench(BenchDevice& device, const BenchOptions& options, Progress& progress,
               const std::function<void(const CaseResult&)>& on_case) {
  const int total = static_cast<int>(options.cases.size());
  for (int index = 0; index < total; ++index) {
    const BenchCase& bench_case = options.cases[index];
    CaseResult result = bench_case.kind == BenchCase::Kind::permute
                            ? run_permute_case(device, options, bench_case, index + 1, progress)
                            : run_matrix_case(device, options, bench_case, index + 1, progress);
    result.number = index + 1;
    result.total = total;
    progress.clear();
    on_case(result);
  }
}

}  // namespace xpose::cli
