// SPDX-License-Identifier: Apache-2.0
// The one header through which xpose calls the GPU runtime. A HIP build maps these names to
// hip* instead of cuda*; nothing else in the library names the runtime directly except kernels.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

#include "core/error.hpp"
#include "cuda/device_info.hpp"

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

// The current device's DeviceInfo, read once per device (an unknown field reads 0).
inline cuda::DeviceInfo device_info() {
  static std::atomic<int> sms[kMaxCachedDevices];
  static std::atomic<int64_t> bandwidth[kMaxCachedDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= kMaxCachedDevices) return {};
  cuda::DeviceInfo info;
  info.multiprocessors = sms[device].load(std::memory_order_acquire);  // stored last: bandwidth is there
  info.memory_bytes_per_second = bandwidth[device].load(std::memory_order_relaxed);
  if (info.multiprocessors == 0) {
    int count = 0, clock_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) count = -1;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess)
      clock_khz = bus_bits = 0;
    info = {count, cuda::peak_memory_bandwidth(clock_khz, bus_bits)};
    bandwidth[device].store(info.memory_bytes_per_second, std::memory_order_relaxed);
    sms[device].store(count, std::memory_order_release);
  }
  return info;
}

// Multiprocessors of the current device (132 if the runtime cannot say).
inline int multiprocessor_count() {
  const int count = device_info().multiprocessors;
  return count > 0 ? count : 132;
}

// Whether a tuning entry measured faster on devices of class `measured` applies to this one.
inline bool entry_applies(cuda::BandwidthPerSm measured) { return cuda::entry_applies(measured, device_info()); }

}  // namespace xpose::gpu

// Returns from the enclosing function when a runtime call fails.
#define XPOSE_GPU_TRY(call)                                                   \
  do {                                                                        \
    if (::xpose::Status s_ = ::xpose::gpu::check((call), #call);              \
        s_ != ::xpose::Status::ok)                                            \
      return s_;                                                              \
  } while (0)
