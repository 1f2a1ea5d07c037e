// SPDX-License-Identifier: Apache-2.0
// The distributed bench in a build without xpose::dist (NCCL was not found): `--gpus` is checked,
// then refused with one line (resolve_dist_options, exit status 2).
#include "diagnostics.hpp"
#include "dist_bench.hpp"

namespace xpose::cli {

bool dist_bench_built() { return false; }

int run_dist_bench(const DistBenchOptions&) {
  print_error("--gpus: this xpose build has no multi-GPU support");
  return kExitUsage;
}

}  // namespace xpose::cli
