// SPDX-License-Identifier: Apache-2.0
// The distributed bench's reports. Table: a header naming every GPU, NCCL and the protocol, then
// per case its layout and memory (printed before the buffers are allocated) and one row per
// variant. CSV: one row per case and variant. JSON: the whole run, written at the end. Times are
// milliseconds in the table and microseconds in CSV and JSON, as in the one-GPU reports.
#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "dist_report.hpp"
#include "report.hpp"
#include "report_json.hpp"

namespace xpose::cli {
namespace {

constexpr double kExchangeTarget = 85.0;  // the target for dist, % of the bare exchange

std::string join(const std::vector<int64_t>& values) {
  std::string text;
  for (int64_t v : values) text += (text.empty() ? "" : " ") + std::to_string(v);
  return text;
}

const DistVariantResult* find_variant(const DistCaseResult& result, const char* name) {
  for (const DistVariantResult& v : result.variants)
    if (v.name == name) return &v;
  return nullptr;
}

class TableWriter final : public DistReportWriter {
 public:
  explicit TableWriter(std::ostream& out) : out_(out) {}

  void begin(const DistRunInfo& info) override {
    out_ << "xpose bench --gpus " << info.gpus
         << ": xpose::dist (create_group + execute_group) against the bare NCCL exchange of the same bytes"
            " and a gather-transpose-scatter on GPU 0\n";
    for (size_t p = 0; p < info.devices.size(); ++p)
      out_ << "GPU " << p << ":     " << describe_device(info.devices[p]) << "\n";
    bool every_pair = true;
    for (const auto& row : info.peer_access)
      every_pair = every_pair && std::all_of(row.begin(), row.end(), [](bool b) { return b; });
    out_ << "NCCL:      " << info.nccl_version << "; one process, ncclCommInitAll over GPUs 0.." << info.gpus - 1
         << ", one stream each; NCCL_NVLS_ENABLE=" << (info.nvls_setting.empty() ? "(unset)" : info.nvls_setting)
         << "; CUDA peer access: " << (every_pair ? "every pair" : "NOT every pair") << "\n";
    out_ << "Build:     xpose " << info.xpose_version << ", commit " << info.git_commit << "\n";
    out_ << "Timing:    " << info.reps << " timed runs after " << info.warmup << " warm-up runs per variant, "
         << info.timer << "; median reported; every variant verified once before timing\n";
    out_ << "Pipeline:  dist plans with exchange " << info.exchange_setting << ", step_bytes "
         << (info.step_bytes_default ? std::string("by exchange (the library's default: 1 GiB send/receive; copy engine: "
                                                   "1/8 of the largest pair, 256 MiB..2 GiB)")
                                     : std::to_string(info.step_bytes) + " (--step-bytes)")
         << "; NCCL buffers "
         << (info.registered_buffers ? "registered (ncclMemAlloc + ncclCommRegister)" : "plain (cudaMalloc)")
         << (info.registered_buffers_default ? " (the library's default)" : " (--nccl-buffers)") << "\n";
    out_ << "Columns:   GB moved = bytes the variant moves between GPUs per run; link GB/s = GB moved / median;"
            " % exch = nccl_exchange median / median;\n"
            "           eff GB/s = 2 x matrix bytes / median; vs gather = gather_transpose_scatter median / median"
            " (GB = 1e9 bytes)\n";
    out_ << "Date:      " << info.date_utc << ", seed " << info.seed;
    if (!info.suite_path.empty()) out_ << ", suite " << info.suite_path;
    out_ << "\n" << std::flush;
  }

  void begin_case(const DistCaseResult& result) override {
    write_header(result);
    headed_ = result.number;
  }

  void add_case(const DistCaseResult& result) override {
    if (headed_ != result.number) write_header(result);
    if (result.steps > 0)
      out_ << "  dist pipeline: " << result.steps << (result.steps == 1 ? " step" : " steps") << ", "
           << result.exchange << "\n";
    if (result.outcome == Outcome::error && result.variants.empty()) {
      out_ << "  error: " << result.note << "\n" << std::flush;
      return;
    }
    out_ << "  " << std::left << std::setw(26) << "variant" << std::right << std::setw(11) << "median ms"
         << std::setw(10) << "min ms" << std::setw(10) << "max ms" << std::setw(10) << "GB moved" << std::setw(11)
         << "link GB/s" << std::setw(9) << "% exch" << std::setw(10) << "eff GB/s" << std::setw(11) << "vs gather"
         << std::setw(6) << "runs" << "  check\n";
    for (const DistVariantResult& v : result.variants) write_variant(v);
    const DistVariantResult* dist = find_variant(result, kDistVariant);
    if (dist != nullptr && dist->timed()) {
      out_ << "  dist: ";
      if (dist->percent_of_exchange >= 0)
        out_ << fixed_decimals(dist->percent_of_exchange, 1, "%") << " of the bare exchange (target >= "
             << fixed_decimals(kExchangeTarget, 0, "%") << (dist->percent_of_exchange >= kExchangeTarget ? ", met)" : ", NOT met)");
      const DistVariantResult* gather = find_variant(result, kGatherVariant);
      if (dist->speedup_vs_gather >= 0)
        out_ << "; speedup over gather_transpose_scatter " << fixed_decimals(dist->speedup_vs_gather, 2, "x");
      else if (gather != nullptr)
        out_ << "; gather_transpose_scatter " << to_string(gather->outcome);
      out_ << "\n";
    }
    out_ << std::flush;
  }

  void end(const DistSummary& summary) override {
    out_ << "\n" << dist_summary_line(summary) << "\n"
         << (summary.ok() ? "Verification: PASSED" : "Verification: FAILED") << "\n"
         << std::flush;
  }

 private:
  void write_header(const DistCaseResult& result) {
    const DistCase& c = result.dist_case;
    out_ << "\n[" << result.number << "/" << result.total << "] " << c.rows << " x " << c.cols << " "
         << xpose::to_string(c.dtype) << ", " << to_string(c.split) << " split over " << result.gpus
         << " GPUs: matrix " << format_gigabytes(result.matrix_bytes) << ", " << format_gigabytes(result.exchange_bytes)
         << " cross between GPUs\n";
    out_ << "  rows of A per GPU:    " << join(result.in_rows) << "\n";
    out_ << "  rows of A^T per GPU:  " << join(result.out_rows) << "\n";
    for (size_t p = 0; p < result.memory.size(); ++p) {
      const GpuMemory& m = result.memory[p];
      out_ << "  memory on GPU " << p << ": input " << format_gigabytes(m.input_bytes) << " + output "
           << format_gigabytes(m.output_bytes) << " + dist workspace " << format_gigabytes(m.workspace_bytes) << "; "
           << (m.free_bytes < 0 ? std::string("unknown") : format_gigabytes(m.free_bytes)) << " free before the blocks";
      if (p == 0) out_ << "; the gather baseline adds " << format_gigabytes(result.gather_bytes);
      out_ << "\n";
    }
    out_ << std::flush;
  }

  void write_variant(const DistVariantResult& v) {
    out_ << "  " << std::left << std::setw(26) << v.name << std::right;
    if (v.timed()) {
      out_ << std::setw(11) << fixed_decimals(v.median_seconds * 1e3, 3) << std::setw(10) << fixed_decimals(v.min_seconds * 1e3, 3)
           << std::setw(10) << fixed_decimals(v.max_seconds * 1e3, 3) << std::setw(10)
           << fixed_decimals(static_cast<double>(v.link_bytes) / 1e9, 2) << std::setw(11)
           << fixed_decimals(v.link_gigabytes_per_second, 1) << std::setw(9)
           << (v.percent_of_exchange >= 0 ? fixed_decimals(v.percent_of_exchange, 1, "%") : "-") << std::setw(10)
           << fixed_decimals(v.effective_gigabytes_per_second, 1) << std::setw(11)
           << (v.speedup_vs_gather >= 0 ? fixed_decimals(v.speedup_vs_gather, 2, "x") : "-") << std::setw(6)
           << v.seconds.size();
    } else {
      for (int width : {11, 10, 10, 10, 11, 9, 10, 11, 6}) out_ << std::setw(width) << "-";
    }
    out_ << "  " << to_string(v.outcome);
    if (v.added_as_baseline) out_ << " (baseline, always run)";
    if (v.outcome == Outcome::skipped || v.outcome == Outcome::error) out_ << ": " << v.note;
    out_ << "\n";
    if (v.outcome == Outcome::failed) out_ << "      wrong output: " << v.note << "\n";
  }

  std::ostream& out_;
  int headed_ = 0;  // number of the case whose header was printed by begin_case
};

class CsvWriter final : public DistReportWriter {
 public:
  explicit CsvWriter(std::ostream& out) : out_(out) {}

  void begin(const DistRunInfo& info) override {
    device_name_ = info.devices.empty() ? "" : info.devices[0].name;
    write_row({"gpus", "device_name", "case", "rows", "cols", "dtype", "split", "in_rows", "out_rows",
               "matrix_bytes", "exchange_bytes", "steps", "exchange", "variant", "status", "median_us", "min_us", "max_us",
               "link_bytes", "link_gbps", "pct_exchange", "effective_gbps", "speedup_vs_gather", "runs",
               "wrong_elements", "note"});
  }

  void begin_case(const DistCaseResult&) override {}

  void add_case(const DistCaseResult& result) override {
    const DistCase& c = result.dist_case;
    const std::vector<std::string> head = {std::to_string(result.gpus), device_name_, c.label(),
                                           std::to_string(c.rows), std::to_string(c.cols), xpose::to_string(c.dtype),
                                           to_string(c.split), join(result.in_rows), join(result.out_rows),
                                           std::to_string(result.matrix_bytes), std::to_string(result.exchange_bytes),
                                           std::to_string(result.steps), result.exchange};
    if (result.variants.empty()) {
      std::vector<std::string> row = head;
      for (const std::string& field : std::vector<std::string>{"", to_string(result.outcome), "", "", "", "", "", "",
                                                               "", "", "", "", result.note})
        row.push_back(field);
      write_row(row);
    }
    for (const DistVariantResult& v : result.variants) {
      const bool timed = v.timed();
      std::vector<std::string> row = head;
      for (const std::string& field : std::vector<std::string>{
               v.name, to_string(v.outcome), timed ? fixed_decimals(v.median_seconds * 1e6, 3) : "",
               timed ? fixed_decimals(v.min_seconds * 1e6, 3) : "", timed ? fixed_decimals(v.max_seconds * 1e6, 3) : "",
               std::to_string(v.link_bytes), timed ? fixed_decimals(v.link_gigabytes_per_second, 3) : "",
               v.percent_of_exchange >= 0 ? fixed_decimals(v.percent_of_exchange, 2) : "",
               timed ? fixed_decimals(v.effective_gigabytes_per_second, 3) : "",
               v.speedup_vs_gather >= 0 ? fixed_decimals(v.speedup_vs_gather, 3) : "", std::to_string(v.seconds.size()),
               std::to_string(v.wrong_elements), v.note})
        row.push_back(field);
      write_row(row);
    }
    out_ << std::flush;
  }

  void end(const DistSummary&) override { out_ << std::flush; }

 private:
  void write_row(const std::vector<std::string>& fields) { write_csv_row(out_, fields); }

  std::ostream& out_;
  std::string device_name_;
};

Json device_json(const DeviceInfo& info, size_t index) {
  Json device;
  device["index"] = index;
  device["kind"] = xpose::to_string(info.device);
  device["name"] = info.name;
  device["compute_capability"] = info.compute_capability;
  device["multiprocessors"] = info.multiprocessors;
  device["driver_version"] = info.driver_version;
  device["runtime_version"] = info.runtime_version;
  device["memory_bytes"] = info.memory_bytes;
  device["cache_name"] = info.cache_name;
  device["cache_bytes"] = info.cache_bytes;
  return device;
}

Json variant_json(const DistVariantResult& v) {
  const bool timed = v.timed();
  Json json;
  json["variant"] = v.name;
  json["added_as_baseline"] = v.added_as_baseline;
  json["status"] = to_string(v.outcome);
  json["note"] = v.note;
  json["wrong_elements"] = v.wrong_elements;
  json["runs"] = v.seconds.size();
  json["median_us"] = or_null(timed, v.median_seconds * 1e6);
  json["min_us"] = or_null(timed, v.min_seconds * 1e6);
  json["max_us"] = or_null(timed, v.max_seconds * 1e6);
  json["link_bytes"] = v.link_bytes;
  json["link_gbps"] = or_null(timed, v.link_gigabytes_per_second);
  json["effective_gbps"] = or_null(timed, v.effective_gigabytes_per_second);
  json["pct_exchange"] = or_null(v.percent_of_exchange >= 0, v.percent_of_exchange);
  json["speedup_vs_gather"] = or_null(v.speedup_vs_gather >= 0, v.speedup_vs_gather);
  Json samples = Json::array();
  for (double seconds : v.seconds) samples.push_back(seconds * 1e6);
  json["samples_us"] = samples;
  return json;
}

Json case_json(const DistCaseResult& result) {
  const DistCase& c = result.dist_case;
  Json json;
  json["label"] = c.label();
  json["origin"] = c.origin;
  json["kind"] = "dist_transpose";
  json["rows"] = c.rows;
  json["cols"] = c.cols;
  json["dtype"] = xpose::to_string(c.dtype);
  json["element_bytes"] = size_of(c.dtype);
  json["split"] = to_string(c.split);
  json["gpus"] = result.gpus;
  json["in_rows"] = result.in_rows;
  json["out_rows"] = result.out_rows;
  json["matrix_bytes"] = result.matrix_bytes;
  json["exchange_bytes"] = result.exchange_bytes;
  json["pair_bytes"] = result.pair_bytes;
  Json memory = Json::array();
  for (size_t p = 0; p < result.memory.size(); ++p) {
    const GpuMemory& m = result.memory[p];
    Json gpu;
    gpu["gpu"] = p;
    gpu["input_bytes"] = m.input_bytes;
    gpu["output_bytes"] = m.output_bytes;
    gpu["workspace_bytes"] = m.workspace_bytes;
    gpu["free_bytes"] = m.free_bytes < 0 ? Json(nullptr) : Json(m.free_bytes);
    memory.push_back(gpu);
  }
  json["memory"] = memory;
  json["gather_bytes"] = result.gather_bytes;
  json["steps"] = result.steps;
  json["exchange"] = result.exchange;
  add_case_outcome(json, result, variant_json);
  return json;
}

class JsonWriter final : public DistReportWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin(const DistRunInfo& info) override {
    run_ = report_head("xpose bench --gpus", info);
    run_["gpus"] = info.gpus;
    Json devices = Json::array();
    for (size_t p = 0; p < info.devices.size(); ++p) devices.push_back(device_json(info.devices[p], p));
    run_["devices"] = devices;
    run_["peer_access"] = info.peer_access;
    Json nccl;
    nccl["version"] = info.nccl_version;
    nccl["init"] = "ncclCommInitAll, one process, one stream per GPU";
    nccl["nvls_enable"] = info.nvls_setting.empty() ? Json(nullptr) : Json(info.nvls_setting);
    run_["nccl"] = nccl;
    Json settings;
    settings["suite"] = info.suite_path.empty() ? Json(nullptr) : Json(info.suite_path);
    settings["timer"] = info.timer;
    settings["warmup"] = info.warmup;
    settings["reps"] = info.reps;
    settings["seed"] = info.seed;
    settings["step_bytes"] = info.step_bytes_default ? Json(nullptr) : Json(info.step_bytes);
    settings["exchange"] = info.exchange_setting;
    settings["step_bytes_default"] = info.step_bytes_default;
    settings["nccl_buffers"] = info.registered_buffers ? "registered" : "plain";
    settings["nccl_buffers_default"] = info.registered_buffers_default;
    settings["baseline_variant"] = kExchangeVariant;
    settings["uneven_split"] = "rows of A in shares proportional to rank + 1, rows of A^T proportional to N - rank";
    settings["bandwidth"] = "2 * matrix_bytes / median_seconds / 1e9";
    settings["link_bandwidth"] = "link_bytes / median_seconds / 1e9";
    run_["settings"] = settings;
    run_["cases"] = Json::array();
  }

  void begin_case(const DistCaseResult&) override {}

  void add_case(const DistCaseResult& result) override { run_["cases"].push_back(case_json(result)); }

  void end(const DistSummary& summary) override {
    Json counts;
    counts["passed"] = summary.passed;
    counts["failed"] = summary.failed;
    counts["skipped"] = summary.skipped;
    counts["errors"] = summary.errors;
    run_["summary"] = counts;
    run_["verification"] = summary.ok() ? "PASSED" : "FAILED";
    out_ << run_.dump(2) << "\n" << std::flush;
  }

 private:
  std::ostream& out_;
  Json run_;
};

}  // namespace

std::string dist_summary_line(const DistSummary& summary) {
  std::ostringstream text;
  text << "Summary: " << summary.passed << " passed, " << summary.failed << " failed, " << summary.skipped
       << " skipped, " << summary.errors << " errors";
  return text.str();
}

std::unique_ptr<DistReportWriter> make_dist_report_writer(ReportFormat format, std::ostream& out) {
  switch (format) {
    case ReportFormat::csv: return std::make_unique<CsvWriter>(out);
    case ReportFormat::json: return std::make_unique<JsonWriter>(out);
    case ReportFormat::table: break;
  }
  return std::make_unique<TableWriter>(out);
}

}  // namespace xpose::cli
