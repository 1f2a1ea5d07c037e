// SPDX-License-Identifier: Apache-2.0
#include "dist_options.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "diagnostics.hpp"
#include "dist_bench.hpp"
#include "output_file.hpp"
#include "paths.hpp"
#include "suite.hpp"

namespace xpose::cli {
namespace {

constexpr const char* kDefaultDistSuite = "dist";

// Options of the one-GPU bench that mean nothing for a distributed run.
constexpr const char* kSingleDeviceOptions[] = {"--device", "--batch",   "--pad-in", "--pad-out",
                                                "--dims",   "--perm",    "--threads", "--plot",
                                                "--no-launch-gate", "--rounds"};

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

bool parse_split(const std::string& text, Split* split) {
  if (text == "even") *split = Split::even;
  else if (text == "uneven") *split = Split::uneven;
  else return false;
  return true;
}

// A case's size must fit the 64-bit byte counts the library uses.
bool check_size(const DistCase& c, std::string* why) {
  const int64_t element = static_cast<int64_t>(size_of(c.dtype));
  int64_t bytes = 0;
  if (__builtin_mul_overflow(c.rows, c.cols, &bytes) || __builtin_mul_overflow(bytes, element, &bytes)) {
    *why = std::to_string(c.rows) + " x " + std::to_string(c.cols) + " " + xpose::to_string(c.dtype) +
           " overflows 64-bit byte counts";
    return false;
  }
  return true;
}

// "67108864", "64M", "1G", "0" (one step); K, M, G are powers of 1024.
bool parse_byte_count(const std::string& text, int64_t* bytes) {
  if (text == "0") {
    *bytes = 0;
    return true;
  }
  std::string digits = text;
  int shift = 0;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
    if (shift > 0) digits.pop_back();
  }
  int64_t value = 0;
  if (!parse_positive(digits, &value) || value > (INT64_MAX >> shift)) return false;
  *bytes = value << shift;
  return true;
}

bool command_line_cases(const BenchArguments& a, const std::vector<Split>& splits,
                        std::vector<DistCase>* cases, std::string* error) {
  std::vector<int64_t> rows, cols;
  if (!parse_sizes(a.rows, "--rows", &rows, error) || !parse_sizes(a.cols, "--cols", &cols, error)) return false;
  std::vector<DType> dtypes;
  for (const std::string& name : a.dtypes.empty() ? std::vector<std::string>{"f32"} : a.dtypes) {
    DType dtype;
    if (parse_dtype(name, &dtype) != Status::ok) {
      *error = std::string("--dtype: ") + last_error_message();
      return false;
    }
    dtypes.push_back(dtype);
  }
  for (int64_t row_count : rows)
    for (int64_t col_count : cols.empty() ? std::vector<int64_t>{row_count} : cols)
      for (DType dtype : dtypes)
        for (Split split : splits) {
          DistCase c{row_count, col_count, dtype, split, "command line"};
          std::string why;
          if (!check_size(c, &why)) {
            *error = "--rows/--cols: " + why;
            return false;
          }
          cases->push_back(c);
        }
  return true;
}

}  // namespace

const char* to_string(Split split) { return split == Split::even ? "even" : "uneven"; }

std::string DistCase::label() const {
  return std::to_string(rows) + "x" + std::to_string(cols) + " " + xpose::to_string(dtype) + " " +
         to_string(split);
}

const std::vector<std::string>& dist_variant_names() {
  static const std::vector<std::string> names = {kExchangeVariant, kDistVariant, kGatherVariant};
  return names;
}

std::vector<int64_t> proportional_split(int64_t count, const std::vector<int64_t>& weights) {
  unsigned __int128 total = 0;
  for (int64_t w : weights) total += static_cast<unsigned __int128>(w);
  std::vector<int64_t> shares;
  unsigned __int128 before = 0;
  int64_t boundary = 0;
  for (int64_t w : weights) {
    before += static_cast<unsigned __int128>(w);
    const auto next = static_cast<int64_t>(static_cast<unsigned __int128>(count) * before / total);
    shares.push_back(next - boundary);
    boundary = next;
  }
  return shares;
}

std::vector<int64_t> uneven_split(int64_t count, int ranks, bool output) {
  std::vector<int64_t> weights;
  for (int r = 0; r < ranks; ++r) weights.push_back(output ? ranks - r : r + 1);
  return proportional_split(count, weights);
}

bool parse_dist_suite(std::istream& text, const std::string& name, std::vector<DistCase>* cases,
                      std::string* error) {
  int line_number = 0;
  for (std::string line; std::getline(text, line);) {
    ++line_number;
    const std::vector<std::string> words = split_words(line.substr(0, line.find('#')));
    if (words.empty()) continue;
    const std::string origin = name + ":" + std::to_string(line_number);
    const auto fail = [&](const std::string& why) {
      *error = origin + ": " + why;
      return false;
    };
    if (words[0] == "dims") return fail("permute lines do not apply to a distributed run (--gpus)");
    if (words.size() < 3 || words.size() > 4) {
      std::string got;
      for (const std::string& word : words) got += (got.empty() ? "" : " ") + word;
      return fail("expected 'rows cols dtype [even|uneven]', got '" + got + "'");
    }
    DistCase c;
    c.origin = origin;
    if (!parse_positive(words[0], &c.rows)) return fail("rows '" + words[0] + "' is not a positive integer");
    if (!parse_positive(words[1], &c.cols)) return fail("cols '" + words[1] + "' is not a positive integer");
    if (parse_dtype(words[2], &c.dtype) != Status::ok) return fail(last_error_message());
    std::string why;
    if (!check_size(c, &why)) return fail(why);
    if (words.size() == 4) {
      if (!parse_split(words[3], &c.split)) return fail("split '" + words[3] + "' is not even or uneven");
      cases->push_back(c);
    } else {
      for (Split split : {Split::even, Split::uneven}) {
        c.split = split;
        cases->push_back(c);
      }
    }
  }
  if (cases->empty()) {
    *error = name + ": the suite lists no cases";
    return false;
  }
  return true;
}

bool resolve_dist_options(const BenchArguments& a, const CLI::App& bench, int visible_gpus,
                          bool nccl_built, DistBenchOptions* o, std::string* error) {
  int64_t gpus = 0;
  if (!parse_positive(a.gpus, &gpus)) {
    *error = "--gpus: '" + a.gpus + "' is not a positive integer";
    return false;
  }
  if (gpus < 2) {
    *error = "--gpus: '" + a.gpus + "': a distributed run needs at least 2 GPUs (one GPU: xpose bench --device cuda)";
    return false;
  }
  if (!nccl_built) {
    *error = "--gpus " + a.gpus + ": this xpose build has no multi-GPU support (xpose::dist was not built: NCCL not found, or XPOSE_WITH_NCCL=OFF)";
    return false;
  }
  for (const char* name : kSingleDeviceOptions) {
    if (bench.count(name) > 0) {
      *error = std::string(name) + " does not apply to a distributed run (--gpus)";
      return false;
    }
  }

  std::vector<Split> splits = {Split::even, Split::uneven};
  if (!a.split.empty() && a.split != "both") {
    Split split;
    if (!parse_split(a.split, &split)) {
      *error = "--split: '" + a.split + "' is not even, uneven or both";
      return false;
    }
    splits = {split};
  }

  if (!a.suite.empty() || a.rows.empty()) {
    if (!a.dtypes.empty()) {
      *error = "--dtype needs --rows with --gpus (suite lines name their own dtype)";
      return false;
    }
    if (a.suite.empty()) {
      o->suite_path = find_suite(kDefaultDistSuite);
      if (o->suite_path.empty()) {
        *error = "the default suite bench/suites/dist.txt was not found (give --suite FILE or --rows)";
        return false;
      }
    } else if (!locate_suite(a.suite, &o->suite_path, error)) {
      return false;
    }
    std::ifstream file(o->suite_path);
    if (!file) {
      *error = "cannot open suite file '" + o->suite_path + "' (" + std::strerror(errno) + ")";
      return false;
    }
    std::vector<DistCase> listed;
    if (!parse_dist_suite(file, o->suite_path, &listed, error)) return false;
    for (const DistCase& c : listed)
      if (std::find(splits.begin(), splits.end(), c.split) != splits.end()) o->cases.push_back(c);
    if (o->cases.empty()) {
      *error = "--split " + a.split + ": the suite " + o->suite_path + " has no " + a.split + " case";
      return false;
    }
  } else if (!command_line_cases(a, splits, &o->cases, error)) {
    return false;
  }

  const std::vector<std::string>& known = dist_variant_names();
  std::vector<std::string> wanted = a.kernels.empty() ? known : a.kernels;
  for (const std::string& name : wanted) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      *error = "--kernels: unknown variant '" + name + "' for --gpus (known: nccl_exchange dist gather_transpose_scatter)";
      return false;
    }
  }
  o->exchange_added = std::find(wanted.begin(), wanted.end(), kExchangeVariant) == wanted.end();
  for (const std::string& name : known)  // the report order, whatever order they were asked in
    if (name == kExchangeVariant || std::find(wanted.begin(), wanted.end(), name) != wanted.end())
      o->variants.push_back(name);

  if (!a.step_bytes.empty() && !parse_byte_count(a.step_bytes, &o->step_bytes)) {
    *error = "--step-bytes: '" + a.step_bytes + "' is not a byte count (0, or a positive integer with an optional K, M or G)";
    return false;
  }
  o->nccl_buffers = a.nccl_buffers;
  o->exchange = a.exchange;
  o->warmup = a.warmup;
  o->reps = a.reps;
  o->seed = bench.count("--seed") > 0 ? a.seed : (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  o->format = a.format == "csv" ? ReportFormat::csv : a.format == "json" ? ReportFormat::json : ReportFormat::table;
  o->output_path = a.output;
  o->progress = !a.no_progress;
  if (!o->output_path.empty() && !check_output_path(o->output_path, "--output", error)) return false;

  // Last, so that a machine with fewer GPUs still reports a malformed argument as such.
  if (gpus > visible_gpus) {
    *error = "--gpus " + a.gpus + ": only " + std::to_string(visible_gpus) + " CUDA device" +
             (visible_gpus == 1 ? " is" : "s are") + " visible";
    return false;
  }
  o->gpus = static_cast<int>(gpus);
  return true;
}

int run_dist_bench_command(const BenchArguments& arguments, const CLI::App& bench) {
  const bool built = dist_bench_built();
  DistBenchOptions options;
  std::string error;
  if (!resolve_dist_options(arguments, bench, built ? cuda_device_count() : 0, built, &options, &error)) {
    print_error(error);
    return kExitUsage;
  }
  return run_dist_bench(options);
}

}  // namespace xpose::cli
