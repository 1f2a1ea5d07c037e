// SPDX-License-Identifier: Apache-2.0
// Writes a bench run as a table (for people), CSV (one row per case and variant) or JSON (the
// whole run, what bench/results/ keeps). Table and CSV stream a case as soon as it is done;
// JSON is written at the end. docs/cli.md describes every column and field.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "bench_options.hpp"
#include "bench_results.hpp"

namespace xpose::cli {

class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  virtual void begin(const RunInfo& info) = 0;
  virtual void add_case(const CaseResult& result) = 0;
  // Ends the report; the table's last line is verification_line().
  virtual void end(const RunSummary& summary) = 0;
};

std::unique_ptr<ReportWriter> make_table_writer(std::ostream& out);
std::unique_ptr<ReportWriter> make_csv_writer(std::ostream& out);
std::unique_ptr<ReportWriter> make_json_writer(std::ostream& out);
std::unique_ptr<ReportWriter> make_report_writer(ReportFormat format, std::ostream& out);

// Shared wording.
std::string format_megabytes(int64_t bytes);  // "536.87 MB", "4.10 kB", "740 bytes" (decimal)
std::string format_gigabytes(int64_t bytes);  // "17.18 GB" (decimal)
std::string describe_device(const DeviceInfo& info);  // one line: name, versions, memory, cache
// "PASSED" (every variant that could run passed and every case ran), "FAILED" (a wrong output),
// "not run" (no case could run: nothing was verified), "incomplete" (no wrong output, but errors
// or cases that could not run).
std::string verification_status(const RunSummary& summary);
std::string verification_line(const RunSummary& summary);  // "Verification: PASSED"
std::string summary_line(const RunSummary& summary);
// `value` with `decimals` decimals and an optional suffix: fixed_decimals(97.46, 1, "%") is "97.5%".
std::string fixed_decimals(double value, int decimals, const char* suffix = "");
// A CSV field, quoted (with doubled quotes) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& field);
// One CSV line of these fields.
void write_csv_row(std::ostream& out, const std::vector<std::string>& fields);

}  // namespace xpose::cli
