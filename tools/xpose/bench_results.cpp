// SPDX-License-Identifier: Apache-2.0
#include "bench_results.hpp"

namespace xpose::cli {

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::passed: return "passed";
    case Outcome::failed: return "FAILED";
    case Outcome::not_applicable: return "n/a";
    case Outcome::error: return "error";
    case Outcome::skipped: return "skipped";
    case Outcome::not_run: return "not run";
  }
  return "unknown";
}

void add_to_summary(const CaseResult& result, RunSummary* summary) {
  ++summary->cases;
  if (result.outcome == Outcome::skipped) ++summary->skipped_cases;
  if (result.outcome == Outcome::not_run) ++summary->cases_not_run;
  if (result.outcome == Outcome::error && result.variants.empty()) ++summary->errors;
  for (const VariantResult& variant : result.variants) {
    switch (variant.outcome) {
      case Outcome::passed: ++summary->passed; break;
      case Outcome::failed: ++summary->failed; break;
      case Outcome::not_applicable: ++summary->not_applicable; break;
      case Outcome::error: ++summary->errors; break;
      case Outcome::skipped: break;
      case Outcome::not_run: break;  // counted with its case
    }
  }
}

}  // namespace xpose::cli
