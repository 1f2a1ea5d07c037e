// SPDX-License-Identifier: Apache-2.0
// CSV: a header row, then one row per case and variant (permute cases leave the 2D columns empty).
// Empty fields mean "not measured".
#include <cstdio>
#include <string>
#include <vector>

#include "report.hpp"

namespace xpose::cli {
namespace {

class CsvWriter final : public ReportWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}

  void begin(const RunInfo& info) override {
    device_ = xpose::to_string(info.device.device);
    device_name_ = info.device.name;
    rounds_ = std::to_string(info.rounds);
    write_row({"device", "device_name", "case", "rows", "cols", "dtype", "batch", "ld_in", "ld_out",
               "bytes", "kernel", "chosen_kernel", "transposes", "status", "median_us", "min_us",
               "max_us", "gbps", "pct_memcpy", "speedup_vs_naive", "runs", "buffer_pairs",
               "cache_resident", "rounds", "launch_gate", "note"});
  }

  void add_case(const CaseResult& result) override {
    const BenchCase& bench_case = result.bench_case;
    const bool permute = bench_case.kind == BenchCase::Kind::permute;
    if (result.variants.empty()) {
      write_row({device_, device_name_, bench_case.label(), "", "", "", "", "", "", "", "", "", "",
                 to_string(result.outcome), "", "", "", "", "", "", "", "", "", "", "", result.note});
      return;
    }
    // A permute case has no rows, cols, batch or leading dimensions: its label names the dims.
    const MatrixCase& m = bench_case.matrix;
    const Matrix view = m.matrix();
    const auto matrix_field = [permute](int64_t value) { return permute ? std::string() : std::to_string(value); };
    for (const VariantResult& variant : result.variants) {
      const bool timed = variant.timed();
      write_row({device_, device_name_, bench_case.label(), matrix_field(m.rows), matrix_field(m.cols),
                 xpose::to_string(permute ? bench_case.permute.dtype : m.dtype), matrix_field(m.batch),
                 matrix_field(view.ld_in ? view.ld_in : m.cols),
                 matrix_field(view.ld_out ? view.ld_out : m.rows), std::to_string(result.bytes),
                 variant.kernel, variant.chosen_kernel, variant.transposes ? "true" : "false",
                 to_string(variant.outcome),
                 timed ? fixed_decimals(variant.median_seconds * 1e6, 3) : "",
                 timed ? fixed_decimals(variant.min_seconds * 1e6, 3) : "",
                 timed ? fixed_decimals(variant.max_seconds * 1e6, 3) : "",
                 timed ? fixed_decimals(variant.gigabytes_per_second, 3) : "",
                 variant.percent_of_memcpy >= 0 ? fixed_decimals(variant.percent_of_memcpy, 2) : "",
                 variant.speedup_vs_naive >= 0 ? fixed_decimals(variant.speedup_vs_naive, 3) : "",
                 std::to_string(variant.seconds.size()), std::to_string(result.buffer_pairs),
                 result.cache_resident ? "true" : "false", rounds_, variant.launch_gate ? "true" : "false",
                 variant.note});
    }
    out_ << std::flush;
  }

  void end(const RunSummary&) override { out_ << std::flush; }

 private:
  void write_row(const std::vector<std::string>& fields) { write_csv_row(out_, fields); }

  std::ostream& out_;
  std::string device_, device_name_, rounds_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_csv_writer(std::ostream& out) {
  return std::make_unique<CsvWriter>(out);
}

}  // namespace xpose::cli
