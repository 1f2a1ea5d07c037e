// SPDX-License-Identifier: Apache-2.0
// What a distributed bench run (`xpose bench --gpus N`) measured: per case, per variant. Filled
// by dist_bench.cpp, written by dist_report.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench_device.hpp"
#include "bench_results.hpp"
#include "dist_options.hpp"

namespace xpose::cli {

struct DistVariantResult {
  std::string name;                 // nccl_exchange, dist, gather_transpose_scatter
  bool added_as_baseline = false;   // nccl_exchange run although --kernels did not list it
  Outcome outcome = Outcome::error;  // skipped: the gather baseline did not fit on GPU 0
  std::string note;                 // why skipped, error or FAILED
  uint64_t wrong_elements = 0;      // of the verified run, over all GPUs
  std::vector<double> seconds;      // every timed run
  int64_t link_bytes = 0;           // bytes this variant moves between GPUs in one run
  // Derived from `seconds` (valid when timed()):
  double median_seconds = 0, min_seconds = 0, max_seconds = 0;
  double link_gigabytes_per_second = 0;       // link_bytes / median, decimal
  double effective_gigabytes_per_second = 0;  // 2 x matrix bytes / median, decimal
  double percent_of_exchange = -1;            // exchange median / median x 100; -1: none
  double speedup_vs_gather = -1;              // gather median / median; -1: none

  bool timed() const { return !seconds.empty(); }
};

// One GPU's memory for a case, as printed before its buffers are allocated.
struct GpuMemory {
  int64_t input_bytes = 0, output_bytes = 0;  // this rank's blocks of A and A^T
  int64_t workspace_bytes = 0;                // xpose::dist::Plan::workspace_bytes()
  int64_t free_bytes = -1;                    // cudaMemGetInfo after the plans were created
};

struct DistCaseResult {
  DistCase dist_case;
  int number = 0, total = 0;  // "case 3 of 6"
  int gpus = 0;
  std::vector<int64_t> in_rows, out_rows;  // the layout's splits
  int64_t matrix_bytes = 0;                // rows x cols x element size
  // pair_bytes[p][q]: bytes of A that rank p holds and rank q receives (the diagonal stays on
  // the GPU); exchange_bytes: their sum over p != q, what crosses links in one transpose.
  std::vector<std::vector<int64_t>> pair_bytes;
  int64_t exchange_bytes = 0;
  std::vector<GpuMemory> memory;  // per GPU
  int64_t gather_bytes = 0;       // extra on GPU 0 for the gather baseline: full A and full A^T
  int steps = 0;                  // pipeline steps of the dist plans
  std::string exchange;           // what the dist plans chose: "copy engine" or "send/receive"
  Outcome outcome = Outcome::passed;  // error: the case could not run (its note says why)
  std::string note;
  std::vector<DistVariantResult> variants;
};

struct DistRunInfo {
  int gpus = 0;
  std::vector<DeviceInfo> devices;  // GPU 0 .. N-1
  std::vector<std::vector<bool>> peer_access;  // cudaDeviceCanAccessPeer(p, q)
  std::string nccl_version;      // "2.28.9", from ncclGetVersion
  std::string nvls_setting;      // NCCL_NVLS_ENABLE as NCCL saw it
  std::string xpose_version, git_commit, date_utc;
  std::string suite_path;
  std::string timer;
  int warmup = 0, reps = 0;
  int64_t step_bytes = 0;          // what the dist plans were created with
  bool step_bytes_default = true;  // the library's default (no --step-bytes)
  bool registered_buffers = false;          // NCCL saw only ncclMemAlloc'd, registered buffers
  bool registered_buffers_default = true;   // the library's default (no --nccl-buffers)
  std::string exchange_setting = "auto";    // --exchange, or "auto" (the library's default)
  uint64_t seed = 0;
};

struct DistSummary {
  int passed = 0, failed = 0, skipped = 0, errors = 0;
  bool ok() const { return failed == 0 && errors == 0; }
};

}  // namespace xpose::cli
