// SPDX-License-Identifier: Apache-2.0
#include "report.hpp"

#include <gnu/libc-version.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "xpose_git_commit.hpp"

namespace {

std::string first_line_with(const std::string& path, const std::string& key) {
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);)
    if (line.rfind(key, 0) == 0) return line;
  return "";
}

std::string cpu_model() {
  const std::string line = first_line_with("/proc/cpuinfo", "model name");
  const auto colon = line.find(':');
  return colon == std::string::npos ? "unknown" : line.substr(colon + 2);
}

std::string read_file_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line.empty() ? "unknown" : line;
}

double gigabytes_per_second(const Measurement& m) {
  return m.median > 0 ? 2.0 * static_cast<double>(m.bench_case.bytes()) / m.median / 1e9 : 0;
}

bool same_case(const BenchCase& a, const BenchCase& b) {
  return a.type == b.type && a.rows == b.rows && a.cols == b.cols;
}

}  // namespace

RunInfo describe_run(int threads, int reps, int warmup, bool huge_pages) {
  RunInfo info;
  info.cpu = cpu_model();
  info.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
  info.compiler = std::string("g++ ") + __VERSION__;
  info.glibc = gnu_get_libc_version();
  info.openblas = openblas_description();
  info.eigen = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
               "." + std::to_string(EIGEN_MINOR_VERSION);
  info.transparent_huge_pages = read_file_line("/sys/kernel/mm/transparent_hugepage/enabled");
  info.git_commit = XPOSE_GIT_COMMIT;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  info.date = date;
  info.threads = threads;
  info.reps = reps;
  info.warmup = warmup;
  info.huge_pages = huge_pages;
  return info;
}

void set_statistics(Measurement* m) {
  std::vector<double> sorted = m->seconds;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.empty()) return;
  const std::size_t n = sorted.size();
  m->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  m->min = sorted.front();
  m->max = sorted.back();
}

double median_of(const std::vector<Measurement>& all, const BenchCase& c, const std::string& name) {
  for (const Measurement& m : all)
    if (same_case(m.bench_case, c) && m.contender == name) return m.median;
  return 0;
}

std::string format_table(const RunInfo& info, const std::vector<Measurement>& all) {
  std::ostringstream out;
  out << "xpose_cpu_compare  " << info.date << "  commit " << info.git_commit << "\n"
      << "cpu: " << info.cpu << ", " << info.hardware_threads << " hardware threads; parallel "
      << "contenders use " << info.threads << "\n"
      << "OpenBLAS: " << info.openblas << "\nEigen " << info.eigen << ", glibc " << info.glibc
      << ", " << info.compiler << "\n"
      << "median of " << info.reps << " rounds after " << info.warmup << " warm-up (each round "
      << "runs every contender once, order rotated per round); GB/s = 2 x bytes / s (1e9); "
      << "transparent huge "
      << "pages: " << info.transparent_huge_pages << (info.huge_pages ? ", buffers advised" : "")
      << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-26s %3s %10s %10s %10s %8s %9s %9s  %s\n", "case",
                "contender", "thr", "median ms", "min ms", "max ms", "GB/s", "% memcpy", "% stream",
                "check");
  out << line;
  for (const Measurement& m : all) {
    const double memcpy_median = median_of(all, m.bench_case, "memcpy");
    const double stream_median = median_of(all, m.bench_case, "stream copy");
    std::snprintf(line, sizeof line,
                  "%-16s %-26s %3d %10.3f %10.3f %10.3f %8.2f %8.1f%% %8.1f%%  %s\n",
                  m.bench_case.name().c_str(), m.contender.c_str(), m.threads, m.median * 1e3,
                  m.min * 1e3, m.max * 1e3, gigabytes_per_second(m),
                  m.median > 0 ? 100.0 * memcpy_median / m.median : 0.0,
                  m.median > 0 ? 100.0 * stream_median / m.median : 0.0, m.check.c_str());
    out << line;
  }
  return out.str();
}

nlohmann::json to_json(const RunInfo& info, const std::vector<Measurement>& all) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Measurement& m : all) {
    const double memcpy_median = median_of(all, m.bench_case, "memcpy");
    const double stream_median = median_of(all, m.bench_case, "stream copy");
    rows.push_back({{"case", m.bench_case.name()},
                    {"dtype", xpose::to_string(m.bench_case.type)},
                    {"rows", m.bench_case.rows},
                    {"cols", m.bench_case.cols},
                    {"bytes", m.bench_case.bytes()},
                    {"contender", m.contender},
                    {"method", m.method},
                    {"threads", m.threads},
                    {"median_ms", m.median * 1e3},
                    {"min_ms", m.min * 1e3},
                    {"max_ms", m.max * 1e3},
                    {"gb_per_s", gigabytes_per_second(m)},
                    {"percent_of_memcpy", m.median > 0 ? 100.0 * memcpy_median / m.median : 0.0},
                    {"percent_of_stream_copy",
                     m.median > 0 ? 100.0 * stream_median / m.median : 0.0},
                    {"seconds", m.seconds},
                    {"check", m.check},
                    {"passed", m.passed}});
  }
  return {{"tool", "xpose_cpu_compare"},
          {"date", info.date},
          {"git_commit", info.git_commit},
          {"device", {{"cpu", info.cpu}, {"hardware_threads", info.hardware_threads}}},
          {"versions",
           {{"compiler", info.compiler},
            {"glibc", info.glibc},
            {"openblas", info.openblas},
            {"eigen", info.eigen}}},
          {"settings",
           {{"threads", info.threads},
            {"reps", info.reps},
            {"warmup", info.warmup},
            {"transparent_huge_pages", info.transparent_huge_pages},
            {"buffers_advised_huge_pages", info.huge_pages},
            {"bandwidth", "2 x bytes / median seconds, decimal GB/s"}}},
          {"rows", rows}};
}
