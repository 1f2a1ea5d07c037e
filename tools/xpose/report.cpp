// SPDX-License-Identifier: Apache-2.0
#include "report.hpp"

#include <cstdio>
#include <sstream>

namespace xpose::cli {

std::string fixed_decimals(double value, int decimals, const char* suffix) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f%s", decimals, value, suffix);
  return text;
}

std::string csv_field(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string text = "\"";
  for (char c : field) text += c == '"' ? std::string("\"\"") : std::string(1, c);
  return text + "\"";
}

void write_csv_row(std::ostream& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << csv_field(fields[i]);
  out << "\n";
}

std::string format_megabytes(int64_t bytes) {
  char text[32];
  if (bytes >= 100000)
    std::snprintf(text, sizeof text, "%.2f MB", static_cast<double>(bytes) / 1e6);
  else if (bytes >= 1000)
    std::snprintf(text, sizeof text, "%.2f kB", static_cast<double>(bytes) / 1e3);
  else
    std::snprintf(text, sizeof text, "%lld bytes", static_cast<long long>(bytes));
  return text;
}

std::string format_gigabytes(int64_t bytes) { return fixed_decimals(static_cast<double>(bytes) / 1e9, 2, " GB"); }

std::string describe_device(const DeviceInfo& info) {
  std::ostringstream text;
  text << info.name << " (" << xpose::to_string(info.device);
  if (info.device == Device::cuda) {
    text << "; compute " << info.compute_capability << ", " << info.multiprocessors << " SMs, "
         << format_gigabytes(info.memory_bytes);
    if (info.peak_memory_bytes_per_second > 0)
      text << " at " << fixed_decimals(static_cast<double>(info.peak_memory_bytes_per_second) / 1e12, 2, " TB/s");
  } else {
    text << "; " << info.hardware_threads << " hardware threads, "
         << format_gigabytes(info.memory_bytes) << " RAM";
  }
  if (info.cache_bytes > 0) text << ", " << info.cache_name << " " << format_megabytes(info.cache_bytes);
  if (info.device == Device::cuda)
    text << "; driver " << info.driver_version << ", runtime " << info.runtime_version;
  text << ")";
  return text.str();
}

std::string verification_status(const RunSummary& summary) {
  if (summary.ok()) return "PASSED";
  if (summary.failed > 0) return "FAILED";
  if (summary.cases_not_run == summary.cases) return "not run";
  return "incomplete";
}

std::string verification_line(const RunSummary& summary) {
  const std::string status = verification_status(summary);
  if (status == "not run") return "Verification: not run (no case could run; each case says why)";
  if (status != "incomplete") return "Verification: " + status;
  std::ostringstream text;
  text << "Verification: INCOMPLETE (the variants that ran passed; ";
  if (summary.cases_not_run > 0)
    text << summary.cases_not_run << (summary.cases_not_run == 1 ? " case" : " cases") << " not run";
  if (summary.cases_not_run > 0 && summary.errors > 0) text << ", ";
  if (summary.errors > 0) text << summary.errors << (summary.errors == 1 ? " error" : " errors");
  text << ")";
  return text.str();
}

std::string summary_line(const RunSummary& summary) {
  std::ostringstream text;
  text << "Summary: " << summary.passed << " passed, " << summary.failed << " failed, "
       << summary.not_applicable << " n/a, " << summary.errors << " errors";
  if (summary.skipped_cases > 0)
    text << "; " << summary.skipped_cases << (summary.skipped_cases == 1 ? " case" : " cases")
         << " skipped";
  if (summary.cases_not_run > 0)
    text << "; " << summary.cases_not_run << " of " << summary.cases << (summary.cases == 1 ? " case" : " cases")
         << " not run";
  return text.str();
}

std::unique_ptr<ReportWriter> make_report_writer(ReportFormat format, std::ostream& out) {
  switch (format) {
    case ReportFormat::csv: return make_csv_writer(out);
    case ReportFormat::json: return make_json_writer(out);
    case ReportFormat::table: break;
  }
  return make_table_writer(out);
}

}  // namespace xpose::cli
