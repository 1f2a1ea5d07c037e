// SPDX-License-Identifier: Apache-2.0
// Probe: how fast can SM stores cross NVLink, as against NCCL's exchange? Two GPUs with CUDA peer
// access; each pushes (or pulls) 4 GiB to (from) the other at the same time, as the distributed
// transpose of 65536^2 float32 over 2 GPUs does. Prints the median of 5 timed runs of each way.
// Build and run: bench/probes/run_nvlink_stores.sh (docs/distributed.md, why the copy engine).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "core/kernel_registry.hpp"
#include "core/problem.hpp"
#include "dist/place_kernel.hpp"

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

namespace {

constexpr int64_t kN = 65536, kHalf = kN / 2;  // each GPU: 32768 rows of 65536 f32
constexpr int64_t kBlockBytes = kHalf * kHalf * 4;  // what one GPU owes the other: 4 GiB

struct Gpu {
  float* in = nullptr;           // 32768 x 65536
  unsigned char* slot = nullptr; // 4 GiB, local
  unsigned char* landing = nullptr;  // 4 GiB, written by the peer
  unsigned char* diagonal = nullptr; // 4 GiB, the block that stays
  unsigned char* placed = nullptr;   // 4 GiB, where the landing is copied to
  cudaStream_t stream = nullptr;     // the stores (lowest priority)
  cudaStream_t local = nullptr;      // the local work beside them (highest priority)
  cudaEvent_t fork = nullptr, joined = nullptr;
};

// A production transpose of a 32768 x 32768 block (leading dimension 65536) into `out`.
void transpose(const float* in, void* out, cudaStream_t stream) {
  static xpose::detail::Transpose2D problem;
  static const xpose::detail::Kernel* kernel = nullptr;
  if (kernel == nullptr) {
    xpose::Matrix m{kHalf, kHalf, kN, kHalf};
    if (xpose::detail::make_problem(m, xpose::DType::f32, &problem) != xpose::Status::ok) std::exit(2);
    kernel = xpose::detail::choose_cuda_kernel(problem);
    std::printf("production kernel: %s\n", kernel->name);
  }
  xpose::detail::LaunchContext context;
  context.stream = stream;
  if (kernel->run(in, out, problem, context) != xpose::Status::ok) std::exit(3);
}

double time_both(Gpu* g, const std::function<void(int self, int peer)>& work) {
  std::vector<double> ms;
  for (int rep = 0; rep < 6; ++rep) {
    for (int d = 0; d < 2; ++d) {
      CHECK(cudaSetDevice(d));
      CHECK(cudaDeviceSynchronize());
    }
    const auto start = std::chrono::steady_clock::now();
    for (int d = 0; d < 2; ++d) {
      CHECK(cudaSetDevice(d));
      work(d, 1 - d);
    }
    for (int d = 0; d < 2; ++d) {
      CHECK(cudaSetDevice(d));
      CHECK(cudaStreamSynchronize(g[d].stream));
    }
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (rep > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main() {
  Gpu g[2];
  for (int d = 0; d < 2; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceEnablePeerAccess(1 - d, 0));
    CHECK(cudaMalloc(&g[d].in, kHalf * kN * 4));
    CHECK(cudaMalloc(&g[d].slot, kBlockBytes));
    CHECK(cudaMalloc(&g[d].landing, kBlockBytes));
    CHECK(cudaMalloc(&g[d].diagonal, kBlockBytes));
    CHECK(cudaMalloc(&g[d].placed, kBlockBytes));
    CHECK(cudaMemset(g[d].in, d, kHalf * kN * 4));
    int least = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaStreamCreateWithPriority(&g[d].stream, cudaStreamNonBlocking, least));
    CHECK(cudaStreamCreateWithPriority(&g[d].local, cudaStreamNonBlocking, greatest));
    CHECK(cudaEventCreateWithFlags(&g[d].fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&g[d].joined, cudaEventDisableTiming));
  }
  auto report = [](const char* what, double ms) {
    std::printf("%-62s %8.3f ms  %6.1f GB/s per direction\n", what, ms, kBlockBytes / ms / 1e6);
  };
  using xpose::dist::detail::launch_copy_2d;
  const float* off_diagonal[2] = {g[0].in + kHalf, g[1].in};  // what each GPU owes the other
  const float* on_diagonal[2] = {g[0].in, g[1].in + kHalf};
  report("transpose -> local slot (HBM only)",
         time_both(g, [&](int s, int) { transpose(off_diagonal[s], g[s].slot, g[s].stream); }));
  report("local work alone: diagonal transpose + 4 GiB copy (place)", time_both(g, [&](int s, int) {
           transpose(on_diagonal[s], g[s].diagonal, g[s].stream);
           CHECK(launch_copy_2d(g[s].placed, kBlockBytes, g[s].slot, kBlockBytes, kBlockBytes, 1, g[s].stream));
         }));
  report("transpose -> peer (SM stores over NVLink)",
         time_both(g, [&](int s, int p) { transpose(off_diagonal[s], g[p].landing, g[s].stream); }));
  // Local work beside the transfer, on a high-priority stream, as the distributed transpose
  // overlaps them: the diagonal transpose and a 4 GiB placing copy (and, for the copy engine,
  // the packing transpose that feeds it).
  auto beside = [&](int s, const std::function<void()>& transfer, bool with_pack) {
    CHECK(cudaEventRecord(g[s].fork, g[s].stream));
    CHECK(cudaStreamWaitEvent(g[s].local, g[s].fork, 0));
    transfer();
    transpose(on_diagonal[s], g[s].diagonal, g[s].local);
    CHECK(launch_copy_2d(g[s].placed, kBlockBytes, g[s].slot, kBlockBytes, kBlockBytes, 1, g[s].local));
    if (with_pack) transpose(off_diagonal[s], g[s].diagonal, g[s].local);
    CHECK(cudaEventRecord(g[s].joined, g[s].local));
    CHECK(cudaStreamWaitEvent(g[s].stream, g[s].joined, 0));
  };
  report("SM stores to peer beside diagonal + place", time_both(g, [&](int s, int p) {
           beside(s, [&] { transpose(off_diagonal[s], g[p].landing, g[s].stream); }, false);
         }));
  report("copy engine to peer beside diagonal + place + pack", time_both(g, [&](int s, int p) {
           beside(s, [&] { CHECK(cudaMemcpyPeerAsync(g[p].landing, p, g[s].slot, s, kBlockBytes, g[s].stream)); }, true);
         }));
  report("copy kernel local slot -> peer (SM stores, contiguous)", time_both(g, [&](int s, int p) {
           CHECK(launch_copy_2d(g[p].landing, kBlockBytes, g[s].slot, kBlockBytes, kBlockBytes, 1, g[s].stream));
         }));
  report("copy kernel peer slot -> local (SM loads over NVLink)", time_both(g, [&](int s, int p) {
           CHECK(launch_copy_2d(g[s].landing, kBlockBytes, g[p].slot, kBlockBytes, kBlockBytes, 1, g[s].stream));
         }));
  report("cudaMemcpyPeerAsync local slot -> peer (copy engine)", time_both(g, [&](int s, int p) {
           CHECK(cudaMemcpyPeerAsync(g[p].landing, p, g[s].slot, s, kBlockBytes, g[s].stream));
         }));
  report("copy kernel peer rows -> local, 2D (pull 32768 rows of 128 KiB)", time_both(g, [&](int s, int p) {
           CHECK(launch_copy_2d(g[s].landing, kHalf * 4, g[p].in + kHalf, kN * 4, kHalf * 4, kHalf, g[s].stream));
         }));
  return 0;
}
