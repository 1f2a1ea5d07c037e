// SPDX-License-Identifier: Apache-2.0
// The device side of the bench harness: memory, copies and timing for one device. The runner
// (bench_runner.cpp) is written against this interface only; cpu_device.cpp and
// cuda_harness.cpp implement it. Failures return false and say why in `error`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose::cli {

struct DeviceInfo {
  Device device = Device::cpu;
  std::string name;              // "NVIDIA H100 80GB HBM3", "AMD EPYC"
  std::string driver_version;    // CUDA driver API version, "" on the CPU
  std::string runtime_version;   // CUDA runtime version, "" on the CPU
  std::string compute_capability;  // "9.0", "" on the CPU
  int multiprocessors = 0;       // SMs on the GPU
  int64_t peak_memory_bytes_per_second = 0;  // as the library reads it for its tuning; 0 if unknown
  int hardware_threads = 0;      // on the CPU
  int64_t memory_bytes = 0;      // device memory, or host RAM
  int64_t cache_bytes = 0;       // the last-level cache (GPU L2, CPU L3); 0 if unknown
  std::string cache_name;        // "L2", "L3"
};

// How a variant is timed: `warmup` untimed runs, then `reps` timed runs. With budget_seconds > 0,
// each phase stops once it has spent that long (keeping at least one warm-up and min_reps runs).
// The runner times each variant in rounds (bench_runner.cpp), one request per round;
// `allow_launch_gate` false times the round without the launch gate (a variant whose launches
// stalled behind it in an earlier round).
struct TimingRequest {
  int warmup = 3;
  int reps = 20;
  double budget_seconds = 0;
  int min_reps = 3;
  bool allow_launch_gate = true;
};

class BenchDevice {
 public:
  // Launches run number `run` (0, 1, ...: the caller picks buffers from it) without waiting.
  using Launch = std::function<Status(int run)>;

  virtual ~BenchDevice() = default;

  virtual const DeviceInfo& info() const = 0;
  // Bytes that can be allocated now; -1 if unknown.
  virtual int64_t free_memory_bytes() = 0;
  virtual void* allocate(int64_t bytes, std::string* error) = 0;
  virtual void release(void* buffer) = 0;
  virtual bool copy_from_host(void* destination, const void* source, int64_t bytes,
                              std::string* error) = 0;
  virtual bool fill_bytes(void* destination, unsigned char value, int64_t bytes,
                          std::string* error) = 0;
  // Host-readable bytes of `source` once all launched work is done; valid until the next call.
  virtual const unsigned char* read_back(const void* source, int64_t bytes,
                                         std::string* error) = 0;
  // The stream every launch goes to (nullptr on the CPU).
  virtual void* stream() = 0;
  virtual bool synchronize(std::string* error) = 0;
  // Seconds of each timed run, measured on the device's own clock.
  virtual bool time_runs(const Launch& launch, const TimingRequest& request,
                         std::vector<double>* seconds, std::string* error) = 0;
  // Whether the last time_runs queued its timed launches behind the launch gate (GPU only): false
  // when that request did not allow it, when the gate is off, or when its launches stalled.
  virtual bool last_runs_gated() const { return false; }
};

std::unique_ptr<BenchDevice> make_cpu_device();
// Host memory the kernel says is available (/proc/meminfo MemAvailable), -1 if unknown.
int64_t host_available_memory_bytes();
// How long a launch gate waits for the host to release it before giving up (cuda_harness.cpp).
// The host queues a gate's launches in milliseconds; each stalled variant costs this much (the
// shapes2d suite has seven cuBLAS rows that stall: 70 s at the former 10 s).
constexpr std::chrono::milliseconds kDefaultGateTimeout{2000};

// nullptr with `error` set when the build has no CUDA backend or no GPU is visible. With
// `hold_launches`, timed launches are queued while the stream is held back and then released
// together (cuda_harness.cpp); profilers that serialise launches need it off.
std::unique_ptr<BenchDevice> make_cuda_device(bool hold_launches, std::string* error,
                                              std::chrono::milliseconds gate_timeout = kDefaultGateTimeout);

// Owns one allocation of a BenchDevice.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(BenchDevice* device, void* data) : device_(device), data_(data) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(data_, other.data_);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) device_->release(data_);
  }
  void* data() const { return data_; }

 private:
  BenchDevice* device_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace xpose::cli
