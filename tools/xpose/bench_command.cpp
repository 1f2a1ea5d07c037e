// SPDX-License-Identifier: Apache-2.0
#include "bench_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>

#include "argument_checks.hpp"
#include "bench_device.hpp"
#include "bench_runner.hpp"
#include "build_info.hpp"
#include "diagnostics.hpp"
#include "output_file.hpp"
#include "paths.hpp"
#include "plot.hpp"
#include "random_cases.hpp"
#include "report.hpp"

namespace xpose::cli {
namespace {

constexpr const char* kDefaultGpuSuite = "seeds";
// The CPU is timed until each phase has taken this long (the reference needs seconds per run on
// 8192 x 8192), unless --reps or --warmup ask for exact counts.
constexpr double kCpuBudgetSeconds = 1.0;
// Rounds of timed runs that alternate between the variants (bench_runner.cpp). On the GPU the
// first 11 of a variant's 20 back-to-back launches ran slower than the last 9 in every gated run
// looked at (1024^2 f32: 7.0-8.0 against 6.5-7.2 us), so one median of 20 sat on that edge and one
// kernel timed under two names differed by 1% (docs/kernels.md v24, v25); in rounds every variant
// gets the same share of such effects. The CPU default keeps one round: its budgeted phases give
// the slow reference only a few runs.
constexpr int kDefaultGpuRounds = 4;
constexpr int kDefaultCpuRounds = 1;
// Drawn cases on the CPU are capped at this many bytes unless --max-bytes says otherwise: the
// classes keep their shapes' character at a size a host bench runs in minutes.
constexpr int64_t kDefaultCpuMaxBytes = 256 * 1000 * 1000;

// Without a suite or sizes on the CPU: the seeds' largest squares, float and double.
std::vector<BenchCase> default_cpu_cases() {
  std::vector<BenchCase> cases;
  for (int64_t size : {4096, 8192}) {
    for (DType dtype : {DType::f32, DType::f64}) {
      BenchCase bench_case;
      bench_case.matrix.rows = bench_case.matrix.cols = size;
      bench_case.matrix.dtype = dtype;
      bench_case.origin = "CPU default";
      cases.push_back(bench_case);
    }
  }
  return cases;
}

bool parse_count(const std::string& text, const char* option, bool allow_zero, int64_t* value,
                 std::string* error) {
  if (allow_zero && text == "0") {
    *value = 0;
    return true;
  }
  if (parse_positive(text, value)) return true;
  *error = std::string(option) + ": '" + text + "' is not a " +
           (allow_zero ? "non-negative" : "positive") + " integer";
  return false;
}

}  // namespace

bool command_line_cases(const BenchArguments& arguments, std::vector<BenchCase>* cases,
                        std::string* error) {
  std::vector<int64_t> rows, cols;
  if (!parse_sizes(arguments.rows, "--rows", &rows, error) ||
      !parse_sizes(arguments.cols, "--cols", &cols, error))
    return false;
  int64_t batch = 1;
  if (!parse_count(arguments.batch, "--batch", false, &batch, error)) return false;
  std::vector<DType> dtypes;
  for (const std::string& name : arguments.dtypes.empty() ? std::vector<std::string>{"f32"} : arguments.dtypes) {
    DType dtype;
    if (parse_dtype(name, &dtype) != Status::ok) {
      *error = std::string("--dtype: ") + last_error_message();
      return false;
    }
    dtypes.push_back(dtype);
  }
  for (int64_t row_count : rows) {
    for (int64_t col_count : cols.empty() ? std::vector<int64_t>{row_count} : cols) {
      for (DType dtype : dtypes) {
        BenchCase bench_case;
        bench_case.matrix.rows = row_count;
        bench_case.matrix.cols = col_count;
        bench_case.matrix.dtype = dtype;
        bench_case.matrix.batch = batch;
        bench_case.origin = "command line";
        cases->push_back(bench_case);
      }
    }
  }
  return true;
}

namespace {

bool parse_dtypes(const std::vector<std::string>& names, std::vector<DType>* dtypes, std::string* error) {
  for (const std::string& name : names) {
    DType dtype;
    if (parse_dtype(name, &dtype) != Status::ok) {
      *error = std::string("--dtype: ") + last_error_message();
      return false;
    }
    dtypes->push_back(dtype);
  }
  return true;
}

// The case of --dims/--perm, once per --dtype (default f32).
bool command_line_permute_cases(const BenchArguments& arguments, std::vector<BenchCase>* cases,
                                std::string* error) {
  PermuteCase permute_case;
  std::vector<int64_t> perm;
  if (!parse_integer_list(arguments.dims, "--dims", &permute_case.dims, error) ||
      !parse_integer_list(arguments.perm, "--perm", &perm, error))
    return false;
  for (int64_t axis : perm)
    permute_case.perm.push_back(axis > INT32_MAX ? -1 : static_cast<int>(axis));
  std::vector<DType> dtypes;
  if (!parse_dtypes(arguments.dtypes.empty() ? std::vector<std::string>{"f32"} : arguments.dtypes, &dtypes, error))
    return false;
  for (DType dtype : dtypes) {
    BenchCase bench_case;
    bench_case.kind = BenchCase::Kind::permute;
    bench_case.permute = permute_case;
    bench_case.permute.dtype = dtype;
    bench_case.origin = "command line";
    std::string why;
    if (!validate_permute_case(bench_case.permute, &why)) {
      *error = "--dims/--perm: " + why;
      return false;
    }
    cases->push_back(bench_case);
  }
  return true;
}

// --dtype with a suite: each permute line once per type (2D lines, and permute lines that name
// a type, keep their own).
bool apply_suite_dtypes(const BenchArguments& arguments, std::vector<BenchCase>* cases, std::string* error) {
  if (arguments.dtypes.empty()) return true;
  std::vector<DType> dtypes;
  if (!parse_dtypes(arguments.dtypes, &dtypes, error)) return false;
  std::vector<BenchCase> expanded;
  bool any_permute = false;
  for (const BenchCase& bench_case : *cases) {
    if (bench_case.kind != BenchCase::Kind::permute || bench_case.permute.dtype_given) {
      expanded.push_back(bench_case);
      continue;
    }
    any_permute = true;
    for (DType dtype : dtypes) {
      BenchCase typed = bench_case;
      typed.permute.dtype = dtype;
      std::string why;
      if (!validate_permute_case(typed.permute, &why)) {
        *error = typed.origin + ": " + typed.label() + ": " + why;
        return false;
      }
      expanded.push_back(typed);
    }
  }
  if (!any_permute) {
    *error = "--dtype: with --suite it applies to the suite's permute lines that name no dtype, and this "
             "suite has none (its other lines name their own dtype)";
    return false;
  }
  *cases = std::move(expanded);
  return true;
}

// --random: the drawn cases (random_cases.hpp).
bool draw_command_line_cases(const BenchArguments& arguments, Device device, uint64_t seed,
                             std::vector<BenchCase>* cases, std::string* error) {
  int64_t count = 0;
  if (!parse_count(arguments.random, "--random", false, &count, error)) return false;
  if (count > INT32_MAX) {
    *error = "--random: '" + arguments.random + "' cases are too many";
    return false;
  }
  RandomDraw draw;
  draw.count = static_cast<int>(count);
  draw.seed = seed;
  draw.classes = arguments.classes;
  draw.max_bytes = device == Device::cpu ? kDefaultCpuMaxBytes : 0;
  if (!arguments.max_bytes.empty() && !parse_count(arguments.max_bytes, "--max-bytes", false, &draw.max_bytes, error))
    return false;
  if (!arguments.dtypes.empty()) {
    *error = "--dtype: --random draws the element types with the shapes";
    return false;
  }
  return draw_random_cases(draw, cases, error);
}

// A drawn run times the production choice against its baseline unless --kernels asks for more:
// the seeds' variants would multiply the run's time, and cuBLAS geam, one call per matrix, takes
// about a second per call on batches of 10^5 small matrices (minutes per case with its runs).
BenchArguments with_random_defaults(const BenchArguments& arguments) {
  BenchArguments defaults = arguments;
  defaults.kernels = {kBaselineKernel, "auto"};
  return defaults;
}

}  // namespace

bool choose_device(const BenchArguments& arguments, Device* device, std::string* error) {
  if (arguments.device.empty()) {
    *device = cuda_device_count() > 0 ? Device::cuda : Device::cpu;
    return true;
  }
  if (parse_device(arguments.device, device) != Status::ok) {
    *error = std::string("--device: ") + last_error_message();
    return false;
  }
  if (*device == Device::cuda && !cuda_compiled()) {
    *error = "--device cuda: this xpose build has no CUDA backend (the library was built without it)";
    return false;
  }
  if (*device == Device::cuda && cuda_device_count() == 0) {
    *error = "--device cuda: no CUDA device is visible";
    return false;
  }
  return true;
}

namespace {

// The variants in run order for one kind of case: memcpy first (the baseline of every ratio),
// "auto" last. `listed`: --kernels was given, and `wanted` holds the names of it this kind knows
// (possibly none: then memcpy alone).
std::vector<std::string> order_kernels(const std::vector<std::string>& known, std::vector<std::string> wanted,
                                       bool listed, bool* baseline_added) {
  if (!listed) {
    wanted.clear();
    for (const std::string& name : known)
      if (name != "auto") wanted.push_back(name);
    wanted.emplace_back("auto");
  }
  std::vector<std::string> kernels;
  for (const std::string& name : wanted)
    if (std::find(kernels.begin(), kernels.end(), name) == kernels.end()) kernels.push_back(name);
  const auto baseline = std::find(kernels.begin(), kernels.end(), kBaselineKernel);
  *baseline_added = baseline == kernels.end();
  if (*baseline_added) {
    kernels.insert(kernels.begin(), kBaselineKernel);
  } else {
    std::rotate(kernels.begin(), baseline, baseline + 1);
  }
  return kernels;
}

// 2D cases run the transpose kernels, permute cases the permute kernels. A name in --kernels must
// be known to a kind of case the run has.
bool choose_kernels(const BenchArguments& arguments, BenchOptions* options, std::string* error) {
  bool has_matrix = false, has_permute = false;
  for (const BenchCase& bench_case : options->cases)
    (bench_case.kind == BenchCase::Kind::permute ? has_permute : has_matrix) = true;
  const std::vector<std::string> matrix_known = kernel_names(options->device);
  const std::vector<std::string> permute_known = permute_kernel_names(options->device);
  const auto knows = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<std::string> matrix_wanted, permute_wanted;
  for (const std::string& name : arguments.kernels) {
    const bool matrix_name = has_matrix && knows(matrix_known, name);
    const bool permute_name = has_permute && knows(permute_known, name);
    if (!matrix_name && !permute_name) {
      std::string list;
      if (has_matrix) {
        list += " transpose:";
        for (const std::string& k : matrix_known) list += " " + k;
      }
      if (has_permute) {
        list += has_matrix ? "; permute:" : " permute:";
        for (const std::string& k : permute_known) list += " " + k;
      }
      // A kernel of the other device is not unknown: say where it runs.
      const Device other = options->device == Device::cpu ? Device::cuda : Device::cpu;
      if (knows(kernel_names(other), name) || knows(permute_kernel_names(other), name)) {
        const std::string why = !arguments.device.empty() ? "--device " + arguments.device
                                : cuda_compiled()         ? std::string("no CUDA device is visible")
                                                          : std::string("this build has no CUDA backend");
        *error = "--kernels: '" + name + "' exists only on " + (other == Device::cuda ? "CUDA" : "the CPU") +
                 ", and this run is on " + (other == Device::cuda ? "the CPU" : "CUDA") + " (" + why +
                 "; known here:" + list + ")";
        return false;
      }
      *error = "--kernels: unknown kernel '" + name + "' for " + xpose::to_string(options->device) +
               " (known:" + list + ")";
      if (options->device == Device::cpu && !cuda_compiled())
        *error += "; CUDA kernels are not known to this build, which has no CUDA backend";
      return false;
    }
    if (matrix_name) matrix_wanted.push_back(name);
    if (permute_name) permute_wanted.push_back(name);
  }
  const bool listed = !arguments.kernels.empty();
  options->kernels = order_kernels(matrix_known, matrix_wanted, listed, &options->baseline_added);
  options->permute_kernels =
      order_kernels(permute_known, permute_wanted, listed, &options->permute_baseline_added);
  return true;
}

}  // namespace

bool cuda_tool_attached() {
  const char* injection = std::getenv("CUDA_INJECTION64_PATH");
  if (injection != nullptr && *injection != '\0') return true;
  const char* preload = std::getenv("LD_PRELOAD");
  const std::string preloaded = preload != nullptr ? preload : "";
  return preloaded.find("Injection") != std::string::npos ||
         preloaded.find("injection") != std::string::npos;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

namespace {

RunInfo make_run_info(const BenchOptions& options, const DeviceInfo& device) {
  RunInfo info;
  info.device = device;
  info.xpose_version = xpose_version();
  info.git_commit = git_commit();
  info.date_utc = utc_now();
  info.suite_path = options.suite_path;
  info.launch_gate = options.device == Device::cuda && options.launch_gate;
  if (options.device == Device::cpu)
    info.timer = "std::chrono::steady_clock around each run";
  else if (info.launch_gate)
    info.timer = "CUDA events around each launch, launches queued on a held stream then released";
  else
    info.timer = "CUDA events around each launch (no launch gate)";
  info.naive_kernel = naive_kernel_name(options.device);
  info.naive_permute_kernel = naive_permute_kernel_name(options.device);
  for (const BenchCase& bench_case : options.cases)
    (bench_case.kind == BenchCase::Kind::permute ? info.has_permute_cases : info.has_matrix_cases) = true;
  info.warmup = options.warmup;
  info.reps = options.reps;
  info.rounds = options.rounds;
  info.budget_seconds = options.budget_seconds;
  info.min_reps = options.min_reps;
  info.threads = options.threads;
  info.seed = options.seed;
  return info;
}

// A file for the plot's JSON when the run writes none itself.
std::string temporary_json_path() {
  char path[] = "/tmp/xpose-bench-XXXXXX.json";
  const int fd = mkstemps(path, 5);
  if (fd < 0) return "";
  close(fd);
  return path;
}

// CLI11's own number checks print the range as a 300-digit double; these say it plainly.
CLI::Validator integer_at_least(int minimum) {
  const char* kind = minimum > 0 ? "an integer from 1 to 2147483647" : "an integer from 0 to 2147483647";
  return CLI::Validator(
      [minimum, kind](std::string& text) -> std::string {
        int64_t value = 0;
        const bool ok = (minimum <= 0 && text == "0") ||
                        (parse_positive(text, &value) && value >= minimum && value <= INT32_MAX);
        return ok ? std::string() : "'" + text + "' is not " + kind;
      },
      minimum > 0 ? "N>0" : "N>=0");
}

}  // namespace

CLI::App* add_bench_command(CLI::App& app, BenchArguments* a) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Time and verify every transpose or permute variant on a device (see docs/cli.md)");
  // Comma lists are split by check_bench_arguments(), which refuses empty items (CLI11's
  // delimiter drops them).
  CLI::Option* rows = bench->add_option("--rows", a->rows, "Rows of the input, e.g. 8192 or 1024,4096")
                          ->type_name("N[,N...]");
  bench->add_option("--cols", a->cols, "Columns of the input (default: = rows)")
      ->type_name("N[,N...]")->needs(rows);
  bench->add_option("--dtype", a->dtypes,
                    "Element types, e.g. f32,f64 (default f32; for a suite's permute lines f64)")
      ->type_name("TYPE[,TYPE...]");
  bench->add_option("--batch", a->batch, "Matrices per case (default 1)")->type_name("N")->needs(rows);
  bench->add_option("--pad-in", a->pad_in, "Extra elements at the end of each input row (strided view; a suite line's pad_in wins)")
      ->type_name("N");
  bench->add_option("--pad-out", a->pad_out, "Extra elements at the end of each output row (a suite line's pad_out wins)")
      ->type_name("N");
  CLI::Option* perm = bench->add_option("--perm", a->perm,
                                        "Permutation for --dims: output dim i is input dim perm[i]")
                          ->type_name("\"P0 P1 ...\"");
  CLI::Option* dims = bench->add_option("--dims", a->dims,
                                        "Input dims of a permutation, the last contiguous (with --perm)")
                          ->type_name("\"D0 D1 ...\"")->excludes(rows)->needs(perm);
  perm->needs(dims);
  bench->add_option("--suite", a->suite,
                    "Suite file, or a name in bench/suites/ (seeds, shapes2d, tall2d, ttc57)")
      ->type_name("FILE")->excludes(rows)->excludes(dims);
  CLI::Option* random = bench->add_option("--random", a->random,
                                          "Draw N cases from the shape classes (docs/shape-space.md); --seed "
                                          "makes the draw repeatable")
                            ->type_name("N")->excludes(rows)->excludes(dims)->excludes("--suite");
  bench->add_option("--class", a->classes, "With --random: the classes to draw from (default: all)")
      ->type_name("CLASS[,CLASS...]")->needs(random);
  bench->add_option("--max-bytes", a->max_bytes,
                    "With --random: scale drawn cases down to at most this many bytes (default: none on "
                    "the GPU, 256000000 on the CPU)")
      ->type_name("BYTES")->needs(random);
  bench->add_option("--device", a->device, "cpu or cuda (default: cuda when a GPU is visible)")
      ->type_name("DEVICE");
  bench->add_option("--kernels", a->kernels, "Variants to run (default: all of the device)")
      ->type_name("NAME[,NAME...]");
  bench->add_option("--reps", a->reps, "Timed runs per variant; the median is reported (default 20)")
      ->check(integer_at_least(1))->type_name("N");
  bench->add_option("--warmup", a->warmup, "Untimed runs before timing (default 3)")
      ->check(integer_at_least(0))->type_name("N");
  bench->add_option("--rounds", a->rounds,
                    "Split each variant's timed runs into N rounds that alternate between the variants "
                    "(default: 4 on the GPU, 1 on the CPU; at most --reps)")
      ->check(integer_at_least(1))->type_name("N");
  bench->add_option("--threads", a->threads, "CPU threads for the threaded kernels (default: all)")
      ->check(integer_at_least(0))->type_name("N");
  bench->add_option("--seed", a->seed, "Seed of the random input (default: random, printed)")
      ->check(unsigned_64_bit_integer())->type_name("N");
  bench->add_option("--format", a->format, "Report format: table, csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}))->type_name("FORMAT");
  bench->add_option("--output", a->output, "Write the report there (the table still goes to stdout)")
      ->type_name("FILE");
  bench->add_option("--plot", a->plot, "Draw GB/s per variant and case into a PNG (Python, matplotlib)")
      ->type_name("FILE.png");
  bench->add_flag("--no-progress", a->no_progress, "No progress line on stderr");
  bench->add_flag("--no-launch-gate", a->no_launch_gate,
                  "GPU: enqueue timed launches without holding the stream first (for profilers; "
                  "automatic when a CUDA tool such as ncu is attached)");
  // The distributed bench (dist_bench.hpp): main() hands the run to it when --gpus is given.
  CLI::Option* gpus = bench->add_option("--gpus", a->gpus,
                                        "Distributed transpose over GPUs 0..N-1 (xpose::dist, NCCL) against the "
                                        "bare exchange and a gather on GPU 0; N >= 2")
                          ->type_name("N");
  bench->add_option("--split", a->split, "With --gpus: how rows are shared, even, uneven or both (default both)")
      ->type_name("SPLIT")->needs(gpus);
  bench->add_option("--step-bytes", a->step_bytes,
                    "With --gpus: the dist plans' pipeline step per peer, e.g. 256M; 0 = one step")
      ->type_name("BYTES")->needs(gpus);
  bench->add_option("--nccl-buffers", a->nccl_buffers,
                    "With --gpus: 'registered' (ncclMemAlloc + ncclCommRegister for every buffer NCCL sees, "
                    "the dist workspace included) or 'plain' (cudaMalloc); default: the library's default")
      ->check(CLI::IsMember({"registered", "plain"}))->type_name("KIND")->needs(gpus);
  bench->add_option("--exchange", a->exchange,
                    "With --gpus: how the dist plans move data between GPUs, 'copy-engine' (copy engines copy "
                    "packed blocks into the peer's NCCL symmetric memory), 'send-receive' (ncclSend/ncclRecv of "
                    "packed blocks) or 'auto'; default: the library's default (auto)")
      ->check(CLI::IsMember({"auto", "copy-engine", "send-receive"}))->type_name("KIND")->needs(gpus);
  // The in-place bench (inplace_bench.hpp): main() hands the run to it when --inplace is given.
  bench->add_flag("--inplace", a->inplace,
                  "Time Plan::execute_inplace (rows x cols and back, on one buffer) against memcpy and the "
                  "out-of-place transpose; every case verified")
      ->excludes(gpus);
  return bench;
}

bool resolve_bench_options(const BenchArguments& a, const CLI::App& bench, BenchOptions* options,
                           std::string* error) {
  if (!choose_device(a, &options->device, error)) return false;
  // The seed draws the random cases as well as the input data.
  options->seed = bench.count("--seed") > 0 ? a.seed : (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();

  if (!a.random.empty()) {
    if (!draw_command_line_cases(a, options->device, options->seed, &options->cases, error)) return false;
  } else if (!a.suite.empty()) {
    if (!locate_suite(a.suite, &options->suite_path, error)) return false;
    if (!load_suite(options->suite_path, &options->cases, error)) return false;
    if (!apply_suite_dtypes(a, &options->cases, error)) return false;
  } else if (!a.rows.empty()) {
    if (!command_line_cases(a, &options->cases, error)) return false;
  } else if (!a.dims.empty()) {
    if (!command_line_permute_cases(a, &options->cases, error)) return false;
  } else if (!a.dtypes.empty()) {
    *error = "--dtype needs --rows, --dims or --suite";
    return false;
  } else if (options->device == Device::cuda) {
    options->suite_path = find_suite(kDefaultGpuSuite);
    if (options->suite_path.empty()) {
      *error = std::string("the default suite bench/suites/") + kDefaultGpuSuite +
               ".txt was not found (give --suite FILE or --rows)";
      return false;
    }
    if (!load_suite(options->suite_path, &options->cases, error)) return false;
  } else {
    options->cases = default_cpu_cases();
  }

  int64_t pad_in = 0, pad_out = 0;
  if (!parse_count(a.pad_in, "--pad-in", true, &pad_in, error) ||
      !parse_count(a.pad_out, "--pad-out", true, &pad_out, error))
    return false;
  // --pad-in / --pad-out pad every 2D case whose suite line gives no padding of its own.
  for (BenchCase& bench_case : options->cases) {
    if (bench_case.kind != BenchCase::Kind::matrix) continue;
    if (!bench_case.matrix.pad_in_given) bench_case.matrix.pad_in = pad_in;
    if (!bench_case.matrix.pad_out_given) bench_case.matrix.pad_out = pad_out;
    std::string why;
    if (!validate_matrix_case(bench_case.matrix, &why)) {
      *error = bench_case.origin + ": " + bench_case.label() + ": " + why;
      return false;
    }
  }

  if (!choose_kernels(a.random.empty() || !a.kernels.empty() ? a : with_random_defaults(a), options, error))
    return false;

  const bool exact_counts = bench.count("--reps") > 0 || bench.count("--warmup") > 0;
  options->reps = a.reps;
  options->warmup = a.warmup;
  options->budget_seconds = options->device == Device::cpu && !exact_counts ? kCpuBudgetSeconds : 0;
  options->min_reps = std::min(3, options->reps);
  const int default_rounds = options->device == Device::cuda ? kDefaultGpuRounds : kDefaultCpuRounds;
  options->rounds = std::min(bench.count("--rounds") > 0 ? a.rounds : default_rounds, options->reps);
  options->threads = a.threads;
  options->format = a.format == "csv" ? ReportFormat::csv
                    : a.format == "json" ? ReportFormat::json : ReportFormat::table;
  options->output_path = a.output;
  options->plot_path = a.plot;
  options->progress = !a.no_progress;
  options->launch_gate = !a.no_launch_gate && !cuda_tool_attached();
  // Every file the run will write is checked before it starts.
  if ((!options->output_path.empty() && !check_output_path(options->output_path, "--output", error)) ||
      (!options->plot_path.empty() && !check_output_path(options->plot_path, "--plot", error)))
    return false;
  if (!options->plot_path.empty() && options->plot_path == options->output_path) {
    *error = "--plot: '" + options->plot_path + "' is also the --output file";
    return false;
  }
  if (!options->plot_path.empty() &&
      !find_plot_tools(&options->plot_python, &options->plot_script, error))
    return false;
  return true;
}

int run_bench_command(const BenchOptions& options) {
  std::string error;
  std::unique_ptr<BenchDevice> device =
      options.device == Device::cuda ? make_cuda_device(options.launch_gate, &error) : make_cpu_device();
  if (!device) {
    print_error(error);
    return kExitFailed;
  }

  // The report file appears when the run is complete (output_file.hpp); an interrupted run
  // leaves no file, or the earlier one.
  OutputFile output_file;
  if (!options.output_path.empty() && !output_file.open(options.output_path, &error)) {
    print_error(error);
    return kExitUsage;
  }
  // The plot reads JSON: the --output file when it is JSON, else a temporary file.
  const bool output_is_json = !options.output_path.empty() && options.format == ReportFormat::json;
  std::string plot_json_path;
  std::ofstream plot_json_file;
  RemovalGuard plot_json_removal;
  if (!options.plot_path.empty()) {
    plot_json_path = output_is_json ? options.output_path : temporary_json_path();
    if (plot_json_path.empty()) {
      print_error("--plot: cannot create a temporary JSON file");
      return kExitFailed;
    }
    if (!output_is_json) {
      plot_json_removal.watch(plot_json_path);
      plot_json_file.open(plot_json_path);
    }
  }

  std::vector<std::unique_ptr<ReportWriter>> writers;
  if (options.output_path.empty()) {
    writers.push_back(make_report_writer(options.format, std::cout));
  } else {
    writers.push_back(make_report_writer(options.format, output_file.stream()));
    writers.push_back(make_table_writer(std::cout));
  }
  if (plot_json_file.is_open()) writers.push_back(make_json_writer(plot_json_file));

  const RunInfo info = make_run_info(options, device->info());
  for (auto& writer : writers) writer->begin(info);
  Progress progress(count_steps(options), options.progress);
  RunSummary summary;
  std::vector<CaseResult> drawn_results;  // --random: for the per-class summary
  run_bench(*device, options, progress, [&](const CaseResult& result) {
    add_to_summary(result, &summary);
    for (auto& writer : writers) writer->add_case(result);
    if (!result.bench_case.shape_class.empty()) drawn_results.push_back(result);
  });
  for (auto& writer : writers) writer->end(summary);
  if (!drawn_results.empty()) std::fputs(class_summary_table(drawn_results).c_str(), stdout);
  if (options.output_path.empty() && options.format != ReportFormat::table)
    std::fprintf(stderr, "%s\n%s\n", summary_line(summary).c_str(), verification_line(summary).c_str());

  int status = summary.ok() ? kExitOk : kExitFailed;
  // A complete run keeps its report, failed cases included: it says which failed.
  bool report_written = true;
  if (!options.output_path.empty() && !output_file.commit(&error)) {
    print_error(error);
    status = kExitFailed;
    report_written = false;
  }
  if (!options.plot_path.empty() && (report_written || !output_is_json)) {
    plot_json_file.close();
    if (!draw_plot(options.plot_python, options.plot_script, plot_json_path, options.plot_path, &error)) {
      print_error(error);
      status = kExitFailed;
    }
  }
  return status;
}

}  // namespace xpose::cli
