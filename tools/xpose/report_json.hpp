// SPDX-License-Identifier: Apache-2.0
// What the JSON reports of every bench share (xpose bench, --inplace, --gpus; schema in
// docs/cli.md): the run's identity first, the device, the timing settings, and null for a figure
// that was not measured.
#pragma once

#include <nlohmann/json.hpp>

#include "bench_device.hpp"
#include "bench_results.hpp"

namespace xpose::cli {

using Json = nlohmann::ordered_json;

constexpr int kReportSchemaVersion = 1;

inline Json or_null(bool present, double value) { return present ? Json(value) : Json(nullptr); }

// One device: kind, name, its GPU or CPU properties, memory and last-level cache.
Json device_json(const DeviceInfo& info);

// The first fields of every report: tool, schema_version, xpose_version, git_commit, date_utc.
template <class RunInfo>
Json report_head(const char* tool, const RunInfo& info) {
  Json run;
  run["tool"] = tool;
  run["schema_version"] = kReportSchemaVersion;
  run["xpose_version"] = info.xpose_version;
  run["git_commit"] = info.git_commit;
  run["date_utc"] = info.date_utc;
  return run;
}

// The timing settings of the single-GPU and CPU benches (xpose bench and --inplace): suite,
// timer, launch_gate, warmup, reps, rounds, budget_seconds, min_reps, threads.
template <class RunInfo>
Json timing_settings(const RunInfo& info) {
  Json settings;
  settings["suite"] = info.suite_path.empty() ? Json(nullptr) : Json(info.suite_path);
  settings["timer"] = info.timer;
  settings["launch_gate"] = info.launch_gate;
  settings["warmup"] = info.warmup;
  settings["reps"] = info.reps;
  settings["rounds"] = info.rounds;
  settings["budget_seconds"] = info.budget_seconds;
  settings["min_reps"] = info.min_reps;
  settings["threads"] = info.threads;
  return settings;
}

// The last fields of a case: its status, its note and one entry per variant (`variant_json`).
template <class CaseResult, class VariantJson>
void add_case_outcome(Json& json, const CaseResult& result, VariantJson&& variant_json) {
  json["status"] = to_string(result.outcome);
  json["note"] = result.note;
  Json variants = Json::array();
  for (const auto& variant : result.variants) variants.push_back(variant_json(variant));
  json["results"] = variants;
}

}  // namespace xpose::cli
