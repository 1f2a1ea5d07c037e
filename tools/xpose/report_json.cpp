// SPDX-License-Identifier: Apache-2.0
// JSON: the whole run in one document (schema in docs/cli.md), written when the run ends.
// Figures that were not measured are null.
#include "report_json.hpp"

#include <cstdint>
#include <vector>

#include "report.hpp"

namespace xpose::cli {

Json device_json(const DeviceInfo& info) {
  Json device;
  device["kind"] = xpose::to_string(info.device);
  device["name"] = info.name;
  if (info.device == Device::cuda) {
    device["compute_capability"] = info.compute_capability;
    device["multiprocessors"] = info.multiprocessors;
    device["peak_memory_bytes_per_second"] = info.peak_memory_bytes_per_second;
    device["driver_version"] = info.driver_version;
    device["runtime_version"] = info.runtime_version;
  } else {
    device["hardware_threads"] = info.hardware_threads;
  }
  device["memory_bytes"] = info.memory_bytes;
  device["cache_name"] = info.cache_name;
  device["cache_bytes"] = info.cache_bytes;
  return device;
}

namespace {

Json variant_json(const VariantResult& variant) {
  const bool timed = variant.timed();
  Json json;
  json["kernel"] = variant.kernel;
  json["chosen_kernel"] = variant.chosen_kernel.empty() ? Json(nullptr) : Json(variant.chosen_kernel);
  json["launch"] = variant.launch.empty() ? Json(nullptr) : Json(variant.launch);
  json["transposes"] = variant.transposes;
  json["added_as_baseline"] = variant.added_as_baseline;
  json["status"] = to_string(variant.outcome);
  json["note"] = variant.note;
  json["runs"] = variant.seconds.size();
  json["launch_gate"] = variant.launch_gate;
  json["median_us"] = or_null(timed, variant.median_seconds * 1e6);
  json["min_us"] = or_null(timed, variant.min_seconds * 1e6);
  json["max_us"] = or_null(timed, variant.max_seconds * 1e6);
  json["gbps"] = or_null(timed, variant.gigabytes_per_second);
  json["pct_memcpy"] = or_null(variant.percent_of_memcpy >= 0, variant.percent_of_memcpy);
  json["speedup_vs_naive"] = or_null(variant.speedup_vs_naive >= 0, variant.speedup_vs_naive);
  Json samples = Json::array();
  for (double seconds : variant.seconds) samples.push_back(seconds * 1e6);
  json["samples_us"] = samples;
  return json;
}

Json case_json(const CaseResult& result) {
  const BenchCase& bench_case = result.bench_case;
  Json json;
  json["label"] = bench_case.label();
  json["origin"] = bench_case.origin;
  json["class"] = bench_case.shape_class.empty() ? Json(nullptr) : Json(bench_case.shape_class);
  if (bench_case.kind == BenchCase::Kind::permute) {
    const PermuteCase& p = bench_case.permute;
    json["kind"] = "permute";
    json["dims"] = p.dims;
    json["perm"] = p.perm;
    std::vector<int64_t> out_dims;
    for (int axis : p.perm) out_dims.push_back(p.dims[static_cast<size_t>(axis)]);
    json["out_dims"] = out_dims;
    json["dtype"] = xpose::to_string(p.dtype);
    json["element_bytes"] = size_of(p.dtype);
    json["in_strides"] = p.in_strides.empty() ? Json(nullptr) : Json(p.in_strides);
    json["out_strides"] = p.out_strides.empty() ? Json(nullptr) : Json(p.out_strides);
  } else {
    const MatrixCase& m = bench_case.matrix;
    const Matrix view = m.matrix();
    json["kind"] = "transpose2d";
    json["rows"] = m.rows;
    json["cols"] = m.cols;
    json["dtype"] = xpose::to_string(m.dtype);
    json["element_bytes"] = size_of(m.dtype);
    json["batch"] = m.batch;
    json["ld_in"] = view.ld_in ? view.ld_in : m.cols;
    json["ld_out"] = view.ld_out ? view.ld_out : m.rows;
  }
  json["bytes"] = result.bytes;
  json["input_mb"] = static_cast<double>(result.bytes) / 1e6;
  json["output_mb"] = static_cast<double>(result.bytes) / 1e6;
  json["input_buffer_bytes"] = result.input_buffer_bytes;
  json["output_buffer_bytes"] = result.output_buffer_bytes;
  json["buffer_pairs"] = result.buffer_pairs;
  json["cache_resident"] = result.cache_resident;
  add_case_outcome(json, result, variant_json);
  return json;
}

class JsonWriter final : public ReportWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin(const RunInfo& info) override {
    run_ = report_head("xpose bench", info);
    run_["device"] = device_json(info.device);
    Json settings = timing_settings(info);
    settings["seed"] = info.seed;
    settings["baseline_kernel"] = "memcpy";
    settings["naive_kernel"] = info.naive_kernel;
    settings["naive_permute_kernel"] = info.naive_permute_kernel;
    settings["bandwidth"] = "2 * bytes / median_seconds / 1e9";
    run_["settings"] = settings;
    run_["cases"] = Json::array();
  }

  void add_case(const CaseResult& result) override { run_["cases"].push_back(case_json(result)); }

  void end(const RunSummary& summary) override {
    Json counts;
    counts["passed"] = summary.passed;
    counts["failed"] = summary.failed;
    counts["not_applicable"] = summary.not_applicable;
    counts["errors"] = summary.errors;
    counts["skipped_cases"] = summary.skipped_cases;
    counts["cases_not_run"] = summary.cases_not_run;
    run_["summary"] = counts;
    run_["verification"] = verification_status(summary);
    out_ << run_.dump(2) << "\n" << std::flush;
  }

 private:
  std::ostream& out_;
  Json run_;
};

}  // namespace

std::unique_ptr<ReportWriter> make_json_writer(std::ostream& out) {
  return std::make_unique<JsonWriter>(out);
}

}  // namespace xpose::cli
