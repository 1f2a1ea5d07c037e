// SPDX-License-Identifier: Apache-2.0
// The kernels a plan can choose, per device. Each backend lists its kernels; "auto" is not a
// kernel but a rule (choose_kernel) that names one of them.
#pragma once

#include <string>
#include <vector>

#include "core/problem.hpp"

namespace xpose::detail {

// What a kernel gets at execute time besides the pointers.
struct LaunchContext {
  void* stream = nullptr;  // cudaStream_t on the GPU
  int threads = 0;         // CPU threads; 0 = all hardware threads
};

struct Kernel {
  const char* name;
  Device device;
  // false for the copy baselines (memcpy, copy, copy_shared): they copy the packed input bytes.
  bool transposes;
  const char* summary;
  // Whether this kernel can run `problem`; if not, `why` says what it lacks (for a forced kernel).
  bool (*supports)(const Transpose2D& problem, std::string* why);
  // Runs the kernel. Arguments are validated; problem is not empty.
  Status (*run)(const void* in, void* out, const Transpose2D& problem, const LaunchContext& ctx);
  // What the kernel launches for `problem` on the current device, as Plan::describe() reports it
  // after the name (tile shape, threads, ...); nullptr where the name says it all.
  std::string (*describe)(const Transpose2D& problem) = nullptr;
};

// The backends' own kernels (the library's).
const std::vector<Kernel>& cpu_kernels();
// Empty when the build has no CUDA backend.
const std::vector<Kernel>& cuda_kernels();

// Adds kernels that live outside the library to `device`'s registry: the benchmark baselines
// (baselines/) register theirs so that the CLI and the tests reach them by name. All or nothing:
// invalid_argument, and nothing added, if a name is taken by a different kernel or one of them
// is for another device; registering the same kernels again changes nothing. Thread-safe; plans
// keep pointers to registered kernels, which live until the process ends.
Status register_kernels(Device device, const std::vector<Kernel>& kernels);

// Every kernel `device` can name: the registered ones first, then the backend's own.
std::vector<Kernel> kernels(Device device);
const Kernel* find_kernel(Device device, const std::string& name);
// The production choice for a validated, non-empty problem.
const Kernel* choose_cpu_kernel(const Transpose2D& problem);
const Kernel* choose_cuda_kernel(const Transpose2D& problem);

// CPU threads, one rule for every kernel: a thread gets at least this many bytes of work, and a
// plan takes a threaded kernel from twice it (a second thread's share). Waking a pool thread and
// waiting for it cost 20-30 us on the Xeon guest, and from 512 KiB two threads ran 1.5-1.8x faster
// than one (docs/cpu.md, "Threads").
constexpr int64_t kCpuMinBytesPerThread = int64_t{256} << 10;
constexpr int64_t kCpuThreadedFromBytes = 2 * kCpuMinBytesPerThread;

// Device-side checks done once per plan (a GPU is visible, ...) and per execute (pointers live on
// the GPU, the stream is valid). Without a CUDA build both report that CUDA is not compiled in.
Status cuda_check_available();
// The current CUDA device (cudaGetDevice), -1 when there is none; 0 without a CUDA build.
int cuda_current_device();
Status cuda_check_pointers(const void* in, const void* out, void* stream);
// The same for the one pointer of an in-place transpose.
Status cuda_check_data_pointer(const void* data, void* stream);

// Baseline copies require packed views: the bytes are copied as one block.
bool supports_packed_only(const Transpose2D& problem, std::string* why);
// Every problem.
bool supports_all(const Transpose2D& problem, std::string* why);

}  // namespace xpose::detail
