// SPDX-License-Identifier: Apache-2.0
// `xpose bench --gpus N`: what a distributed run is asked to do, and how the command line and
// the suite file (bench/suites/dist.txt) become that. Plain host code: compiled in every build,
// so a build without NCCL still checks the arguments before it says it cannot run them.
//
// A distributed suite is text, one case per line, `#` starts a comment:
//   rows cols dtype [even|uneven]     e.g. "65536 65536 f32 uneven"; no split: both
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench_command.hpp"
#include "bench_options.hpp"
#include "xpose/xpose.hpp"

namespace xpose::cli {

// How the rows of A (input) and of A^T (output) are shared among N ranks.
//   even:   xpose::dist::even_split (near-equal, the larger shares first);
//   uneven: rank r gets a share of the input rows proportional to r + 1 and of the output rows
//           proportional to N - r (uneven_split), so the two splits differ and no pair of ranks
//           exchanges the same amount both ways.
enum class Split { even, uneven };

const char* to_string(Split split);

struct DistCase {
  int64_t rows = 0, cols = 0;
  DType dtype = DType::f32;
  Split split = Split::even;
  std::string origin;  // "file:line" or "command line"

  std::string label() const;  // "65536x65536 f32 uneven"
};

// The variants, in run and report order: the bare exchange first (every ratio's baseline).
constexpr const char* kExchangeVariant = "nccl_exchange";
constexpr const char* kDistVariant = "dist";
constexpr const char* kGatherVariant = "gather_transpose_scatter";
const std::vector<std::string>& dist_variant_names();

struct DistBenchOptions {
  int gpus = 2;
  std::vector<DistCase> cases;
  std::string suite_path;             // "" when the cases came from --rows
  std::vector<std::string> variants;  // nccl_exchange first, always
  bool exchange_added = false;        // --kernels did not list nccl_exchange
  int warmup = 3, reps = 20;
  int64_t step_bytes = -1;  // xpose::dist::Options::step_bytes; -1: the library's default
  // --nccl-buffers: every buffer given to NCCL (blocks, gather buffers, the dist workspace) is
  // allocated with ncclMemAlloc and registered ("registered"), or none is ("plain"; NCCL forbids
  // mixing them); "" follows xpose::dist::Options' default.
  std::string nccl_buffers;
  // --exchange: "auto", "copy-engine" or "send-receive" (xpose::dist::Exchange); "" = the library's default.
  std::string exchange;
  uint64_t seed = 0;
  ReportFormat format = ReportFormat::table;
  std::string output_path;
  bool progress = true;
};

// Rows per rank of the uneven split over `ranks` ranks: of A's rows (count = rows) or, with
// `output`, of A^T's rows (count = cols). The even split is the library's even_split.
std::vector<int64_t> uneven_split(int64_t count, int ranks, bool output);

// `count` items in shares proportional to `weights` (positive): share r is
// floor(count * W_{r+1} / W) - floor(count * W_r / W), W_r the sum of the first r weights.
std::vector<int64_t> proportional_split(int64_t count, const std::vector<int64_t>& weights);

// Parses a distributed suite; errors read "<name>:<line>: <what is wrong>".
bool parse_dist_suite(std::istream& text, const std::string& name, std::vector<DistCase>* cases,
                      std::string* error);

// The options of `xpose bench --gpus N ...`; false with a one-line message on bad usage.
// `visible_gpus`: CUDA devices visible now; `nccl_built`: whether this build has xpose::dist.
bool resolve_dist_options(const BenchArguments& arguments, const CLI::App& bench, int visible_gpus,
                          bool nccl_built, DistBenchOptions* options, std::string* error);

}  // namespace xpose::cli
