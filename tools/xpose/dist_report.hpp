// SPDX-License-Identifier: Apache-2.0
// Writes a distributed bench run (`xpose bench --gpus N`) as a table, CSV or JSON, in the
// conventions of the one-GPU reports (report.hpp); docs/cli.md describes every column and field.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "bench_options.hpp"
#include "dist_results.hpp"

namespace xpose::cli {

class DistReportWriter {
 public:
  virtual ~DistReportWriter() = default;
  virtual void begin(const DistRunInfo& info) = 0;
  // The case's layout and memory are known; nothing is allocated or run yet. Not called for a
  // case that failed before (add_case then carries everything).
  virtual void begin_case(const DistCaseResult& result) = 0;
  virtual void add_case(const DistCaseResult& result) = 0;
  // Ends the report; the table's last line is "Verification: PASSED" or "Verification: FAILED".
  virtual void end(const DistSummary& summary) = 0;
};

std::unique_ptr<DistReportWriter> make_dist_report_writer(ReportFormat format, std::ostream& out);

std::string dist_summary_line(const DistSummary& summary);  // "Summary: 12 passed, 0 failed, ..."

}  // namespace xpose::cli
