// SPDX-License-Identifier: Apache-2.0
// The table: a header naming the device and the protocol, then one block per case, in the
// manner of the seeds' transpose_timed (sizes in decimal MB, median time, GB/s, speedups).
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "report.hpp"

namespace xpose::cli {
namespace {

// "75 x 96 x 75 x 96"
std::string join_dims(const std::vector<int64_t>& dims) {
  std::string text;
  for (int64_t d : dims) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text;
}

std::string variant_name(const VariantResult& variant) {
  std::string name = variant.kernel;
  if (!variant.chosen_kernel.empty() && variant.chosen_kernel != variant.kernel)
    name += " -> " + variant.chosen_kernel;
  return name;
}

class TableWriter final : public ReportWriter {
 public:
  explicit TableWriter(std::ostream& out) : out_(out) {}

  void begin(const RunInfo& info) override {
    run_gated_ = info.launch_gate;
    out_ << "xpose bench: every variant runs through the public API (Plan::create + execute)\n";
    out_ << "Device:    " << describe_device(info.device) << "\n";
    if (info.device.device == Device::cpu)
      out_ << "Threads:   " << (info.threads > 0 ? std::to_string(info.threads)
                                               : "all " + std::to_string(info.device.hardware_threads))
           << " for the threaded kernels and memcpy\n";
    out_ << "Build:     xpose " << info.xpose_version << ", commit " << info.git_commit << "\n";
    out_ << "Timing:    " << (info.budget_seconds > 0 ? "up to " : "") << info.reps << " timed runs";
    if (info.rounds > 1)
      out_ << " in " << info.rounds << " rounds alternating between the variants";
    out_ << " after " << (info.budget_seconds > 0 ? "up to " : "") << info.warmup << " warm-up runs";
    if (info.rounds > 1 && info.warmup > 0) out_ << " (1 before each later round)";
    out_ << ", " << info.timer << "; median reported";
    if (info.budget_seconds > 0)
      out_ << " (each " << (info.rounds > 1 ? "round's phase" : "phase") << " stops after "
           << fixed_decimals(info.budget_seconds / info.rounds, 2) << " s, keeping at least "
           << info.min_reps << " timed runs)";
    out_ << "\n";
    out_ << "Columns:   GB/s = 2 x bytes / median time (decimal); % memcpy = memcpy time / time;"
         << " speedup = ";
    if (info.has_matrix_cases || !info.has_permute_cases) out_ << info.naive_kernel << " time / time";
    if (info.has_matrix_cases && info.has_permute_cases) out_ << " (permute cases: ";
    if (info.has_permute_cases) out_ << info.naive_permute_kernel << " time / time";
    if (info.has_matrix_cases && info.has_permute_cases) out_ << ")";
    out_ << "\n";
    out_ << "Date:      " << info.date_utc << ", seed " << info.seed;
    if (!info.suite_path.empty()) out_ << ", suite " << info.suite_path;
    out_ << "\n" << std::flush;
  }

  void add_case(const CaseResult& result) override {
    const BenchCase& bench_case = result.bench_case;
    out_ << "\n[" << result.number << "/" << result.total << "] ";
    if (bench_case.kind == BenchCase::Kind::permute) {
      const PermuteCase& p = bench_case.permute;
      out_ << "Permute " << join_dims(p.dims) << " -> ";
      std::vector<int64_t> out_dims;
      for (int axis : p.perm) out_dims.push_back(axis >= 0 && axis < static_cast<int>(p.dims.size()) ? p.dims[axis] : 0);
      out_ << join_dims(out_dims) << " (perm";
      for (int axis : p.perm) out_ << " " << axis;
      out_ << ") " << xpose::to_string(p.dtype);
    } else {
      const MatrixCase& m = bench_case.matrix;
      out_ << "Matrix " << m.rows << " x " << m.cols << " " << xpose::to_string(m.dtype) << ", batch " << m.batch;
    }
    out_ << ": input " << format_megabytes(result.bytes) << ", output " << format_megabytes(result.bytes);
    if (result.input_buffer_bytes != result.bytes || result.output_buffer_bytes != result.bytes)
      out_ << " (buffers with row padding: " << format_megabytes(result.input_buffer_bytes) << " in, "
           << format_megabytes(result.output_buffer_bytes) << " out)";
    out_ << "\n";
    if (result.buffer_pairs > 1)
      out_ << "  timed runs rotate over " << result.buffer_pairs << " input/output buffer pairs\n";
    if (result.cache_resident)
      out_ << "  note: all buffers fit in twice the last-level cache; times include cache hits\n";
    if ((result.outcome == Outcome::error || result.outcome == Outcome::not_run) && !result.note.empty())
      out_ << "  " << (result.outcome == Outcome::error ? "error" : "not run") << ": " << result.note << "\n";

    size_t name_width = 24;
    for (const VariantResult& variant : result.variants)
      name_width = std::max(name_width, variant_name(variant).size() + 1);
    out_ << "  " << std::left << std::setw(static_cast<int>(name_width)) << "kernel" << std::right
         << std::setw(12) << "median us" << std::setw(11) << "GB/s" << std::setw(10) << "% memcpy"
         << std::setw(10) << "speedup" << std::setw(6) << "runs" << "  check\n";
    for (const VariantResult& variant : result.variants) write_variant(variant, name_width);
    out_ << std::flush;
  }

  void end(const RunSummary& summary) override {
    out_ << "\n" << summary_line(summary) << "\n" << verification_line(summary) << "\n" << std::flush;
  }

 private:
  void write_variant(const VariantResult& variant, size_t name_width) {
    out_ << "  " << std::left << std::setw(static_cast<int>(name_width)) << variant_name(variant)
         << std::right;
    if (variant.timed()) {
      out_ << std::setw(12) << fixed_decimals(variant.median_seconds * 1e6, 2) << std::setw(11)
           << fixed_decimals(variant.gigabytes_per_second, 2) << std::setw(10)
           << (variant.percent_of_memcpy >= 0 ? fixed_decimals(variant.percent_of_memcpy, 1, "%") : "-")
           << std::setw(10)
           << (variant.speedup_vs_naive >= 0 ? fixed_decimals(variant.speedup_vs_naive, 2, "x") : "-")
           << std::setw(6) << variant.seconds.size();
    } else {
      out_ << std::setw(12) << "-" << std::setw(11) << "-" << std::setw(10) << "-" << std::setw(10)
           << "-" << std::setw(6) << "-";
    }
    out_ << "  " << to_string(variant.outcome);
    if (variant.added_as_baseline) out_ << " (baseline, always run)";
    if (run_gated_ && variant.timed() && !variant.launch_gate) out_ << " (timed without the launch gate)";
    if (variant.outcome == Outcome::not_applicable || variant.outcome == Outcome::error)
      out_ << ": " << variant.note;
    out_ << "\n";
    if (variant.outcome == Outcome::failed) out_ << "      wrong output: " << variant.note << "\n";
  }

  std::ostream& out_;
  bool run_gated_ = false;  // the run's GPU launches were gated; a variant timed without says so
};

}  // namespace

std::unique_ptr<ReportWriter> make_table_writer(std::ostream& out) {
  return std::make_unique<TableWriter>(out);
}

}  // namespace xpose::cli
