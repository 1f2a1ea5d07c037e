// SPDX-License-Identifier: Apache-2.0
// Writes an in-place bench run (`xpose bench --inplace`) as a table, CSV or JSON, in the
// conventions of the one-device reports (report.hpp); docs/cli.md describes every column and field.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "bench_options.hpp"
#include "inplace_results.hpp"

namespace xpose::cli {

class InplaceReportWriter {
 public:
  virtual ~InplaceReportWriter() = default;
  virtual void begin(const InplaceRunInfo& info) = 0;
  virtual void add_case(const InplaceCaseResult& result) = 0;
  // Ends the report; the table's last line is inplace_verification_line().
  virtual void end(const InplaceSummary& summary) = 0;
};

std::unique_ptr<InplaceReportWriter> make_inplace_report_writer(ReportFormat format, std::ostream& out);

// "Summary: 8 passed, 0 failed, 0 skipped, 0 errors": the checks of in_place and out_of_place, a
// skipped out_of_place, and the variants or cases that could not run.
std::string inplace_summary_line(const InplaceSummary& summary);
// "Verification: PASSED", "FAILED", "INCOMPLETE (...)" or "not run (...)", as the one-device bench.
std::string inplace_verification_line(const InplaceSummary& summary);
std::string inplace_verification_status(const InplaceSummary& summary);  // "PASSED", ...

}  // namespace xpose::cli
