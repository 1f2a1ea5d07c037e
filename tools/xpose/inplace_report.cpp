// SPDX-License-Identifier: Apache-2.0
// The in-place bench's reports. Table: a header naming the device and the protocol, then per case
// its method and scratch and one row per variant. CSV: one row per case and variant. JSON: the
// whole run, written at the end. Times in microseconds, as in the one-device reports.
#include <iomanip>
#include <sstream>

#include "inplace_report.hpp"
#include "report.hpp"
#include "report_json.hpp"

namespace xpose::cli {
namespace {

std::string shape(int64_t rows, int64_t cols) { return std::to_string(rows) + " x " + std::to_string(cols); }

// CSV's and JSON's words for the check and for a variant's status: memcpy is timed, not checked.
const char* check_name(InplaceCheck check) { return check == InplaceCheck::elements ? "elements" : "checksums"; }
std::string status_name(const InplaceVariantResult& v) {
  return v.name == kInplaceMemcpyVariant && v.outcome == Outcome::passed ? "baseline" : to_string(v.outcome);
}

std::string variant_name(const InplaceVariantResult& v) {
  return v.kernel.empty() || v.kernel == v.name ? v.name : v.name + " -> " + v.kernel;
}

// The table's and CSV's check column: what was compared, or why nothing was.
std::string check_text(const InplaceCaseResult& result, const InplaceVariantResult& v) {
  std::string text = status_name(v);
  if (v.checked) {
    text += std::string(" (") + to_string(result.check);
    if (v.name == kInPlaceVariant) text += ", after " + std::to_string(result.executes) + " executes";
    text += ")";
  }
  return text;
}

class TableWriter final : public InplaceReportWriter {
 public:
  explicit TableWriter(std::ostream& out) : out_(out) {}

  void begin(const InplaceRunInfo& info) override {
    out_ << "xpose bench --inplace: Plan::execute_inplace on one buffer (the rows x cols and cols x rows plans "
            "taking turns) against memcpy and the out-of-place Plan::execute\n";
    out_ << "Device:    " << describe_device(info.device) << "\n";
    if (info.device.device == Device::cpu)
      out_ << "Threads:   "
           << (info.threads > 0 ? std::to_string(info.threads) : "all " + std::to_string(info.device.hardware_threads))
           << " for the plans, memcpy and the host's fill and check\n";
    out_ << "Build:     xpose " << info.xpose_version << ", commit " << info.git_commit << "\n";
    out_ << "Timing:    " << (info.budget_seconds > 0 ? "up to " : "") << info.reps << " timed runs";
    if (info.rounds > 1) out_ << " in " << info.rounds << " rounds alternating between the variants";
    out_ << " after " << (info.budget_seconds > 0 ? "up to " : "") << info.warmup << " warm-up runs";
    if (info.rounds > 1 && info.warmup > 0) out_ << " (1 before each later round)";
    out_ << ", " << info.timer << "; median reported";
    if (info.budget_seconds > 0)
      out_ << " (each " << (info.rounds > 1 ? "round's phase" : "phase") << " stops after "
           << fixed_decimals(info.budget_seconds / info.rounds, 2) << " s, keeping at least " << info.min_reps
           << " timed runs)";
    out_ << "\n";
    out_ << "Columns:   GB/s = 2 x bytes / median time (decimal); % memcpy = memcpy time of the same bytes / time\n";
    out_ << "Check:     after the timed runs the data is brought to \"transposed once\" (an odd number of executes)\n"
            "           and compared with the transpose of its index pattern: every element up to "
         << format_gigabytes(kFullCheckMaxBytes) << ",\n           per-row and per-column checksums beyond; "
            "the out_of_place output likewise, once before the timing\n";
    out_ << "Date:      " << info.date_utc;
    if (!info.suite_path.empty()) out_ << ", suite " << info.suite_path;
    out_ << "\n" << std::flush;
  }

  void add_case(const InplaceCaseResult& result) override {
    const MatrixCase& m = result.bench_case.matrix;
    out_ << "\n[" << result.number << "/" << result.total << "] In place " << shape(m.rows, m.cols) << " "
         << xpose::to_string(m.dtype) << ", batch " << m.batch << ": " << format_megabytes(result.bytes);
    if (!result.method.empty()) {
      out_ << "; method " << result.method << ", scratch " << format_megabytes(result.scratch_bytes);
      if (result.scratch_bytes_back != result.scratch_bytes)
        out_ << " (" << shape(m.cols, m.rows) << ": " << format_megabytes(result.scratch_bytes_back) << ")";
      out_ << " per execute";
    }
    if (result.cache_resident) out_ << " (fits the last-level cache: times include cache hits)";
    out_ << "\n";
    if (result.variants.empty()) {
      out_ << "  " << (result.outcome == Outcome::not_run ? "not run" : to_string(result.outcome)) << ": "
           << result.note << "\n"
           << std::flush;
      return;
    }
    out_ << "  " << std::left << std::setw(34) << "variant" << std::right << std::setw(12) << "median us"
         << std::setw(12) << "min us" << std::setw(10) << "GB/s" << std::setw(10) << "% memcpy" << std::setw(6)
         << "runs" << "  check\n";
    for (const InplaceVariantResult& v : result.variants) write_variant(result, v);
    out_ << std::flush;
  }

  void end(const InplaceSummary& summary) override {
    out_ << "\n" << inplace_summary_line(summary) << "\n" << inplace_verification_line(summary) << "\n" << std::flush;
  }

 private:
  void write_variant(const InplaceCaseResult& result, const InplaceVariantResult& v) {
    const MatrixCase& m = result.bench_case.matrix;
    out_ << "  " << std::left << std::setw(34) << variant_name(v) << std::right;
    if (v.timed()) {
      out_ << std::setw(12) << fixed_decimals(v.median_seconds * 1e6, 2) << std::setw(12)
           << fixed_decimals(v.min_seconds * 1e6, 2) << std::setw(10) << fixed_decimals(v.gigabytes_per_second, 2)
           << std::setw(10) << (v.percent_of_memcpy >= 0 ? fixed_decimals(v.percent_of_memcpy, 1, "%") : "-")
           << std::setw(6) << v.seconds.size();
    } else {
      for (int width : {12, 12, 10, 10, 6}) out_ << std::setw(width) << "-";
    }
    out_ << "  " << check_text(result, v);
    if (v.outcome == Outcome::skipped || v.outcome == Outcome::error) out_ << ": " << v.note;
    out_ << "\n";
    if (v.outcome == Outcome::failed) out_ << "      wrong output: " << v.note << "\n";
    if (v.outcome == Outcome::passed && !v.note.empty()) out_ << "      " << v.note << "\n";
    if (v.median_forward_seconds >= 0 || v.median_back_seconds >= 0) {
      out_ << "      median per direction: " << shape(m.rows, m.cols) << " -> " << shape(m.cols, m.rows) << " "
           << (v.median_forward_seconds >= 0 ? fixed_decimals(v.median_forward_seconds * 1e6, 2) + " us" : "-")
           << ", back " << (v.median_back_seconds >= 0 ? fixed_decimals(v.median_back_seconds * 1e6, 2) + " us" : "-")
           << "\n";
    }
  }

  std::ostream& out_;
};

std::string or_empty(bool present, double value, int decimals) {
  return present ? fixed_decimals(value, decimals) : std::string();
}

class CsvWriter final : public InplaceReportWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}

  void begin(const InplaceRunInfo& info) override {
    device_ = info.device;
    write_row({"device", "device_name", "case", "rows", "cols", "dtype", "batch", "bytes", "method", "scratch_bytes",
               "scratch_bytes_back", "check", "executes", "variant", "kernel", "status", "median_us", "min_us",
               "max_us", "median_forward_us", "median_back_us", "gbps", "pct_memcpy", "runs", "timed_bytes",
               "launch_gate", "note"});
  }

  void add_case(const InplaceCaseResult& result) override {
    const MatrixCase& m = result.bench_case.matrix;
    const std::vector<std::string> head = {xpose::to_string(device_.device), device_.name, result.bench_case.label(),
                                           std::to_string(m.rows), std::to_string(m.cols), xpose::to_string(m.dtype),
                                           std::to_string(m.batch), std::to_string(result.bytes), result.method,
                                           std::to_string(result.scratch_bytes), std::to_string(result.scratch_bytes_back),
                                           check_name(result.check), std::to_string(result.executes)};
    if (result.variants.empty()) {
      std::vector<std::string> row = head;
      for (const std::string& field : std::vector<std::string>{"", "", to_string(result.outcome), "", "", "", "", "",
                                                               "", "", "", "", "", result.note})
        row.push_back(field);
      write_row(row);
    }
    for (const InplaceVariantResult& v : result.variants) {
      const bool timed = v.timed();
      std::vector<std::string> row = head;
      for (const std::string& field : std::vector<std::string>{
               v.name, v.kernel, status_name(v), or_empty(timed, v.median_seconds * 1e6, 3),
               or_empty(timed, v.min_seconds * 1e6, 3), or_empty(timed, v.max_seconds * 1e6, 3),
               or_empty(v.median_forward_seconds >= 0, v.median_forward_seconds * 1e6, 3),
               or_empty(v.median_back_seconds >= 0, v.median_back_seconds * 1e6, 3),
               or_empty(timed, v.gigabytes_per_second, 3), or_empty(v.percent_of_memcpy >= 0, v.percent_of_memcpy, 2),
               std::to_string(v.seconds.size()), std::to_string(v.timed_bytes), v.launch_gate ? "true" : "false",
               v.note})
        row.push_back(field);
      write_row(row);
    }
    out_ << std::flush;
  }

  void end(const InplaceSummary&) override { out_ << std::flush; }

 private:
  void write_row(const std::vector<std::string>& fields) { write_csv_row(out_, fields); }

  std::ostream& out_;
  DeviceInfo device_;
};

Json variant_json(const InplaceVariantResult& v) {
  const bool timed = v.timed();
  Json json;
  json["variant"] = v.name;
  json["kernel"] = v.kernel.empty() ? Json(nullptr) : Json(v.kernel);
  json["status"] = status_name(v);
  json["note"] = v.note;
  json["checked"] = v.checked;
  json["runs"] = v.seconds.size();
  json["timed_bytes"] = v.timed_bytes;
  json["launch_gate"] = v.launch_gate;
  json["median_us"] = or_null(timed, v.median_seconds * 1e6);
  json["min_us"] = or_null(timed, v.min_seconds * 1e6);
  json["max_us"] = or_null(timed, v.max_seconds * 1e6);
  json["gbps"] = or_null(timed, v.gigabytes_per_second);
  json["pct_memcpy"] = or_null(v.percent_of_memcpy >= 0, v.percent_of_memcpy);
  if (v.name == kInPlaceVariant) {
    json["median_forward_us"] = or_null(v.median_forward_seconds >= 0, v.median_forward_seconds * 1e6);
    json["median_back_us"] = or_null(v.median_back_seconds >= 0, v.median_back_seconds * 1e6);
  }
  // As measured: memcpy's samples are of `timed_bytes`, its median and extremes scaled to the case.
  Json samples = Json::array();
  for (double seconds : v.seconds) samples.push_back(seconds * 1e6);
  json["samples_us"] = samples;
  if (v.name == kInPlaceVariant) json["samples_forward"] = v.forward;
  return json;
}

Json case_json(const InplaceCaseResult& result) {
  const MatrixCase& m = result.bench_case.matrix;
  Json json;
  json["label"] = result.bench_case.label();
  json["origin"] = result.bench_case.origin;
  json["kind"] = "inplace_transpose";
  json["rows"] = m.rows;
  json["cols"] = m.cols;
  json["dtype"] = xpose::to_string(m.dtype);
  json["element_bytes"] = size_of(m.dtype);
  json["batch"] = m.batch;
  json["bytes"] = result.bytes;
  json["method"] = result.method.empty() ? Json(nullptr) : Json(result.method);
  json["scratch_bytes"] = result.scratch_bytes;
  json["scratch_bytes_back"] = result.scratch_bytes_back;
  json["check"] = check_name(result.check);
  json["executes"] = result.executes;
  json["cache_resident"] = result.cache_resident;
  json["second_buffer"] = result.second_buffer;
  json["memcpy_bytes"] = result.memcpy_bytes;
  json["free_bytes"] = result.free_bytes < 0 ? Json(nullptr) : Json(result.free_bytes);
  add_case_outcome(json, result, variant_json);
  return json;
}

class JsonWriter final : public InplaceReportWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin(const InplaceRunInfo& info) override {
    run_ = report_head("xpose bench --inplace", info);
    run_["device"] = device_json(info.device);
    Json settings = timing_settings(info);
    settings["baseline_variant"] = kInplaceMemcpyVariant;
    settings["bandwidth"] = "2 * bytes / median_seconds / 1e9";
    settings["full_check_max_bytes"] = kFullCheckMaxBytes;
    settings["pattern"] = "word w of element (i, j) of matrix b = P_w(i) * Q_w(j) * R_w(b) mod p (docs/cli.md)";
    run_["settings"] = settings;
    run_["cases"] = Json::array();
  }

  void add_case(const InplaceCaseResult& result) override { run_["cases"].push_back(case_json(result)); }

  void end(const InplaceSummary& summary) override {
    Json counts;
    counts["cases"] = summary.cases;
    counts["passed"] = summary.passed;
    counts["failed"] = summary.failed;
    counts["skipped"] = summary.skipped;
    counts["errors"] = summary.errors;
    counts["cases_not_run"] = summary.cases_not_run;
    run_["summary"] = counts;
    run_["verification"] = inplace_verification_status(summary);
    out_ << run_.dump(2) << "\n" << std::flush;
  }

 private:
  std::ostream& out_;
  Json run_;
};

RunSummary as_run_summary(const InplaceSummary& summary) {
  RunSummary run;
  run.passed = summary.passed;
  run.failed = summary.failed;
  run.errors = summary.errors;
  run.cases = summary.cases;
  run.cases_not_run = summary.cases_not_run;
  return run;
}

}  // namespace

std::string inplace_summary_line(const InplaceSummary& summary) {
  std::ostringstream text;
  text << "Summary: " << summary.passed << " passed, " << summary.failed << " failed, " << summary.skipped
       << " skipped, " << summary.errors << " errors";
  if (summary.cases_not_run > 0)
    text << "; " << summary.cases_not_run << " of " << summary.cases << (summary.cases == 1 ? " case" : " cases")
         << " not run";
  return text.str();
}

std::string inplace_verification_status(const InplaceSummary& summary) {
  return verification_status(as_run_summary(summary));
}

std::string inplace_verification_line(const InplaceSummary& summary) {
  return verification_line(as_run_summary(summary));
}

std::unique_ptr<InplaceReportWriter> make_inplace_report_writer(ReportFormat format, std::ostream& out) {
  switch (format) {
    case ReportFormat::csv: return std::make_unique<CsvWriter>(out);
    case ReportFormat::json: return std::make_unique<JsonWriter>(out);
    case ReportFormat::table: break;
  }
  return std::make_unique<TableWriter>(out);
}

}  // namespace xpose::cli
