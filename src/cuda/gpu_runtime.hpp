// SPDX-License-Identifier: Apache-2.0
// The one header through which xpose calls the GPU runtime. A HIP build maps these names to
// hip* instead of cuda*; nothing else in the library names the runtime directly except kernels.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <string>

#include "core/error.hpp"

namespace xpose::gpu {

using Stream = cudaStream_t;
using Error = cudaError_t;
constexpr Error kSuccess = cudaSuccess;

inline const char* error_string(Error e) { return cudaGetErrorString(e); }

// Turns a runtime error into a recorded device_error naming the call: "cudaMemcpyAsync: ...".
inline Status check(Error e, const char* what) {
  if (e == kSuccess) return Status::ok;
  if (e == cudaErrorMemoryAllocation)
    return detail::fail(Status::out_of_memory, detail::message(what, ": ", error_string(e)));
  return detail::fail(Status::device_error, detail::message(what, ": ", error_string(e)));
}

// After a kernel launch: reports a bad configuration or an earlier asynchronous fault.
inline Status check_launch(const char* kernel) {
  return check(cudaGetLastError(), kernel);
}

// Devices whose properties the functions below cache; past them they answer their defaults.
constexpr int kMaxCachedDevices = 64;

// Multiprocessors of the current device, read once per device (132 if the runtime cannot say).
inline int multiprocessor_count() {
  static std::atomic<int> counts[kMaxCachedDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= kMaxCachedDevices) return 132;
  int count = counts[device].load(std::memory_order_relaxed);
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) count = 132;
    counts[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

// Whether the current device's name contains `model` (e.g. "H100 80GB HBM3"), for tuning entries
// measured faster on one device model only. The names are read once per device; false if the
// runtime cannot say.
inline bool device_model_is(const char* model) {
  static std::mutex mutex;
  static std::string names[kMaxCachedDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= kMaxCachedDevices) return false;
  std::lock_guard<std::mutex> lock(mutex);
  if (names[device].empty()) {
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) return false;
    names[device] = properties.name;
  }
  return names[device].find(model) != std::string::npos;
}

}  // namespace xpose::gpu

// Returns from the enclosing function when a runtime call fails.
#define XPOSE_GPU_TRY(call)                                                   \
  do {                                                                        \
    if (::xpose::Status s_ = ::xpose::gpu::check((call), #call);              \
        s_ != ::xpose::Status::ok)                                            \
      return s_;                                                              \
  } while (0)
