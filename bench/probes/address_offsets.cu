// SPDX-License-Identifier: Apache-2.0
// Does where the buffers lie move a transpose's ratio to memcpy? For each case, buffers are
// allocated behind a spacer of k x 2 MiB (cudaMalloc's large-allocation granularity), and `auto`
// and the `memcpy` baseline are timed side by side (alternating rounds, medians of event times),
// as `xpose bench` times them. Run by bench/probes/run_address_offsets.sh.
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "baselines/baselines.hpp"
#include "probe_timing.hpp"
#include "xpose/xpose.hpp"

namespace {

struct Case {
  std::string name;
  int64_t rows, cols;
  xpose::DType type;
  int elem;
};

// The probe's timing of a plan: median_event_us around execute(), which must succeed.
double median_us(const xpose::Plan& plan, const void* in, void* out, cudaStream_t stream, int reps) {
  return median_event_us(
      [&] {
        if (plan.execute(in, out, stream) != xpose::Status::ok) {
          std::fprintf(stderr, "execute: %s\n", xpose::last_error_message());
          std::exit(1);
        }
      },
      stream, reps);
}

}  // namespace

// Usage: address_offsets [spacers [rows cols dtype]...], dtype one of u8 f16 f32 f64 c128.
int main(int argc, char** argv) {
  xpose::baselines::register_kernels();  // memcpy is a baseline
  const int spacers = argc > 1 ? std::atoi(argv[1]) : 12;
  std::vector<Case> cases = {{"8191x8193_u8", 8191, 8193, xpose::DType::u8, 1},
                             {"8192x8192_f64", 8192, 8192, xpose::DType::f64, 8},
                             {"8191x8193_f32", 8191, 8193, xpose::DType::f32, 4}};
  if (argc > 2) {
    if ((argc - 2) % 3 != 0) {
      std::fprintf(stderr, "cases come as: rows cols dtype\n");
      return 2;
    }
    cases.clear();
    for (int i = 2; i + 2 < argc; i += 3) {
      const std::string dtype = argv[i + 2];
      const struct { const char* name; xpose::DType type; int elem; } types[] = {
          {"u8", xpose::DType::u8, 1}, {"f16", xpose::DType::f16, 2}, {"f32", xpose::DType::f32, 4},
          {"f64", xpose::DType::f64, 8}, {"c128", xpose::DType::c128, 16}};
      const auto* type =
          std::find_if(std::begin(types), std::end(types), [&](const auto& t) { return dtype == t.name; });
      if (type == std::end(types)) {
        std::fprintf(stderr, "unknown dtype %s\n", dtype.c_str());
        return 2;
      }
      cases.push_back({std::string(argv[i]) + "x" + argv[i + 1] + "_" + dtype, std::atoll(argv[i]),
                       std::atoll(argv[i + 1]), type->type, type->elem});
    }
  }
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  std::printf("%-14s %6s %14s %14s %9s %9s %7s\n", "case", "spacer", "in % 64MiB", "out - in", "memcpy", "auto",
              "%memcpy");
  for (const Case& c : cases) {
    const xpose::Matrix m{c.rows, c.cols};
    xpose::Plan transpose, copy;
    xpose::PlanOptions copy_options;
    copy_options.kernel = "memcpy";
    if (xpose::Plan::create(transpose, m, c.type, xpose::Device::cuda) != xpose::Status::ok ||
        xpose::Plan::create(copy, m, c.type, xpose::Device::cuda, copy_options) != xpose::Status::ok) {
      std::fprintf(stderr, "plan: %s\n", xpose::last_error_message());
      return 1;
    }
    const size_t bytes = static_cast<size_t>(c.rows * c.cols * c.elem);
    for (int k = 0; k <= spacers; ++k) {
      // The last placement also swaps the order: the output allocated before the input.
      void *spacer = nullptr, *in = nullptr, *out = nullptr;
      if (k > 0) CHECK(cudaMalloc(&spacer, static_cast<size_t>(k) << 21));
      const bool swapped = k == spacers;
      if (swapped) CHECK(cudaMalloc(&out, bytes));
      CHECK(cudaMalloc(&in, bytes));
      if (!swapped) CHECK(cudaMalloc(&out, bytes));
      CHECK(cudaMemset(in, 0x5A, bytes));
      CHECK(cudaMemset(out, 0, bytes));
      double copy_us[3], auto_us[3];
      for (int round = 0; round < 3; ++round) {
        copy_us[round] = median_us(copy, in, out, stream, 30);
        auto_us[round] = median_us(transpose, in, out, stream, 30);
      }
      std::sort(copy_us, copy_us + 3);
      std::sort(auto_us, auto_us + 3);
      const auto in_addr = reinterpret_cast<uintptr_t>(in), out_addr = reinterpret_cast<uintptr_t>(out);
      std::printf("%-14s %5d%s %14llx %14lld %9.2f %9.2f %7.1f\n", c.name.c_str(), k, swapped ? "s" : " ",
                  static_cast<unsigned long long>(in_addr % (64ull << 20)),
                  static_cast<long long>(out_addr) - static_cast<long long>(in_addr), copy_us[1], auto_us[1],
                  100.0 * copy_us[1] / auto_us[1]);
      std::fflush(stdout);
      CHECK(cudaFree(in));
      CHECK(cudaFree(out));
      if (spacer) CHECK(cudaFree(spacer));
    }
  }
  return 0;
}
