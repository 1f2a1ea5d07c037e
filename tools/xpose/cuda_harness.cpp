// SPDX-License-Identifier: Apache-2.0
// The GPU side of the harness: device memory, one stream, and CUDA-event timing. The only file of
// the CLI that includes the CUDA runtime; compiled when the library has its CUDA backend.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "bench_device.hpp"
#include "cuda/gpu_runtime.hpp"
#include "diagnostics.hpp"

namespace xpose::cli {
namespace {

std::string version_string(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string megabytes(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

// Records `what: <CUDA message>` in `error` and clears the runtime's last error; false on failure.
bool check(cudaError_t status, const char* what, std::string* error) {
  if (status == cudaSuccess) return true;
  cudaGetLastError();
  if (error != nullptr) *error = std::string(what) + ": " + cudaGetErrorString(status);
  return false;
}

// Launches queued behind one gate. The CUDA launch queue holds about a thousand entries; a full
// queue would block the host before it opens the gate, so stay well below.
constexpr int kLaunchesPerGate = 100;
// A gate that never opens must not hang the stream forever: its host function gives up after the
// device's gate timeout (kDefaultGateTimeout, bench_device.hpp). That happens when execute() waits
// for the stream it is holding back: the cuBLAS baseline did on 2 x 67108864 f32 (a full launch
// queue, presumably: how many kernels that geam call launches was not counted) and on batches,
// where it calls geam once per matrix (1024 launches for 256 x 256 batch 1024). A profiler that
// serialises launches stalls it too. The variant is then timed again without the gate; after this many such
// variants in a row (a profiler: every variant stalls) the gate stays off for the rest of the run.
constexpr int kStallsBeforeGateOff = 2;

struct GateState {
  explicit GateState(std::chrono::milliseconds timeout) : timeout(timeout) {}
  const std::chrono::milliseconds timeout;
  std::atomic<bool> open{false};
  std::atomic<bool> timed_out{false};
};

// Holds back a stream until the host has queued its work: close() enqueues a host function that
// waits for the gate to open, which the destructor does, so every exit path releases the stream.
// The state is shared with the callback, which may outlive this object.
class StreamGate {
 public:
  explicit StreamGate(std::chrono::milliseconds timeout) : state_(std::make_shared<GateState>(timeout)) {}
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  ~StreamGate() { state_->open.store(true, std::memory_order_release); }

  bool close(cudaStream_t stream, std::string* error) {
    auto* callback_state = new std::shared_ptr<GateState>(state_);
    if (check(cudaLaunchHostFunc(stream, wait_until_open, callback_state), "cudaLaunchHostFunc", error))
      return true;
    delete callback_state;
    return false;
  }

  std::shared_ptr<const GateState> state() const { return state_; }

 private:
  static void CUDART_CB wait_until_open(void* data) {
    const std::unique_ptr<std::shared_ptr<GateState>> holder(static_cast<std::shared_ptr<GateState>*>(data));
    GateState& state = **holder;
    const auto deadline = std::chrono::steady_clock::now() + state.timeout;
    while (!state.open.load(std::memory_order_acquire)) {
      if (std::chrono::steady_clock::now() > deadline) {
        state.timed_out.store(true, std::memory_order_release);
        return;
      }
      std::this_thread::yield();
    }
  }

  std::shared_ptr<GateState> state_;
};

class CudaDevice final : public BenchDevice {
 public:
  CudaDevice(bool hold_launches, std::chrono::milliseconds gate_timeout)
      : hold_launches_(hold_launches), gate_timeout_(gate_timeout) {}

  bool open(std::string* error) {
    int count = 0;
    if (!check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", error)) return false;
    if (count == 0) {
      *error = "no CUDA device is visible";
      return false;
    }
    int device = 0;
    cudaDeviceProp properties{};
    int driver = 0, runtime = 0;
    if (!check(cudaGetDevice(&device), "cudaGetDevice", error) ||
        !check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties", error) ||
        !check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion", error) ||
        !check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion", error) ||
        !check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate", error))
      return false;
    info_.device = Device::cuda;
    info_.name = properties.name;
    info_.driver_version = version_string(driver);
    info_.runtime_version = version_string(runtime);
    info_.compute_capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
    info_.multiprocessors = properties.multiProcessorCount;
    info_.peak_memory_bytes_per_second = xpose::gpu::device_info().memory_bytes_per_second;
    info_.memory_bytes = static_cast<int64_t>(properties.totalGlobalMem);
    info_.cache_bytes = properties.l2CacheSize;
    info_.cache_name = "L2";
    return true;
  }

  ~CudaDevice() override {
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  const DeviceInfo& info() const override { return info_; }

  int64_t free_memory_bytes() override {
    size_t free_bytes = 0, total_bytes = 0;
    if (!check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo", nullptr)) return -1;
    return static_cast<int64_t>(free_bytes);
  }

  void* allocate(int64_t bytes, std::string* error) override {
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, static_cast<size_t>(std::max<int64_t>(bytes, 1)));
    if (status == cudaSuccess) return data;
    cudaGetLastError();
    const int64_t free_bytes = free_memory_bytes();
    *error = "cudaMalloc of " + megabytes(bytes) + " failed (" + cudaGetErrorString(status) +
             "); free device memory: " + (free_bytes < 0 ? "unknown" : megabytes(free_bytes));
    return nullptr;
  }

  void release(void* buffer) override { cudaFree(buffer); }

  // Every copy and fill goes through our stream and waits for it: the kernels run on a
  // non-blocking stream, which does not order itself after the legacy default stream.
  bool copy_from_host(void* destination, const void* source, int64_t bytes,
                      std::string* error) override {
    return check(cudaMemcpyAsync(destination, source, static_cast<size_t>(bytes),
                                 cudaMemcpyHostToDevice, stream_),
                 "cudaMemcpyAsync (host to device)", error) &&
           synchronize(error);
  }

  bool fill_bytes(void* destination, unsigned char value, int64_t bytes,
                  std::string* error) override {
    return check(cudaMemsetAsync(destination, value, static_cast<size_t>(bytes), stream_),
                 "cudaMemsetAsync", error) &&
           synchronize(error);
  }

  const unsigned char* read_back(const void* source, int64_t bytes, std::string* error) override {
    staging_.resize(static_cast<size_t>(bytes));
    if (!synchronize(error) ||
        !check(cudaMemcpyAsync(staging_.data(), source, static_cast<size_t>(bytes),
                               cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (device to host)", error) ||
        !synchronize(error))
      return nullptr;
    return staging_.data();
  }

  void* stream() override { return stream_; }

  bool synchronize(std::string* error) override {
    return check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", error);
  }

  // Warm-up launches, then an event pair around each timed launch. The timed launches are
  // queued behind a closed gate (StreamGate) and released together, so the GPU runs them back to
  // back: a small kernel that finishes faster than the host can enqueue the next one would
  // otherwise be timed together with the host's launch overhead. Runs whose launches stalled
  // behind the gate are timed again without it (see kStallsBeforeGateOff).
  bool time_runs(const Launch& launch, const TimingRequest& request, std::vector<double>* seconds,
                 std::string* error) override {
    const bool gated = hold_launches_ && request.allow_launch_gate;
    last_runs_gated_ = gated;
    bool stalled = false;
    if (!time_runs_once(launch, request, gated, seconds, &stalled, error)) return false;
    if (!stalled) {
      if (gated) stalls_in_a_row_ = 0;
      return true;
    }
    const bool gate_off = ++stalls_in_a_row_ >= kStallsBeforeGateOff;
    char held[32];
    std::snprintf(held, sizeof held, "%.1f s", static_cast<double>(gate_timeout_.count()) / 1e3);
    print_warning(std::string("timed launches stayed held behind the launch gate for ") + held +
                  " (execute() waited for its stream, or a profiler serialises launches); " +
                  (gate_off ? "timing without the gate from now on (--no-launch-gate)"
                            : "timing this variant again without it"));
    if (gate_off) hold_launches_ = false;
    last_runs_gated_ = false;
    TimingRequest again = request;
    again.warmup = 0;
    return time_runs_once(launch, again, false, seconds, &stalled, error);
  }

  bool last_runs_gated() const override { return last_runs_gated_; }

 private:
  // One timing pass: `gated` holds the launches back. A gate that timed out leaves `seconds`
  // empty and sets `stalled`: those times are not valid.
  bool time_runs_once(const Launch& launch, const TimingRequest& request, bool gated,
                      std::vector<double>* seconds, bool* stalled, std::string* error) {
    *stalled = false;
    seconds->clear();
    int run = 0;
    for (int i = 0; i < request.warmup; ++i) {
      if (launch(run++) != Status::ok) {
        *error = last_error_message();
        return false;
      }
    }
    if (!synchronize(error) || !reserve_events(2 * request.reps, error)) return false;
    std::vector<std::shared_ptr<const GateState>> gates;
    for (int first = 0; first < request.reps; first += kLaunchesPerGate) {
      StreamGate gate(gate_timeout_);
      if (gated) {
        if (!gate.close(stream_, error)) return false;
        gates.push_back(gate.state());
      }
      for (int i = first; i < std::min(request.reps, first + kLaunchesPerGate); ++i) {
        if (!check(cudaEventRecord(events_[2 * i], stream_), "cudaEventRecord", error)) return false;
        if (launch(run++) != Status::ok) {
          *error = last_error_message();
          return false;
        }
        if (!check(cudaEventRecord(events_[2 * i + 1], stream_), "cudaEventRecord", error))
          return false;
      }
    }
    if (!check(cudaEventSynchronize(events_[2 * request.reps - 1]), "cudaEventSynchronize", error))
      return false;
    for (const auto& gate : gates) {
      if (gate->timed_out.load(std::memory_order_acquire)) {
        *stalled = true;
        return true;
      }
    }
    for (int i = 0; i < request.reps; ++i) {
      float milliseconds = 0;
      if (!check(cudaEventElapsedTime(&milliseconds, events_[2 * i], events_[2 * i + 1]),
                 "cudaEventElapsedTime", error))
        return false;
      seconds->push_back(milliseconds * 1e-3);
    }
    return true;
  }

  bool reserve_events(int count, std::string* error) {
    while (static_cast<int>(events_.size()) < count) {
      cudaEvent_t event = nullptr;
      if (!check(cudaEventCreate(&event), "cudaEventCreate", error)) return false;
      events_.push_back(event);
    }
    return true;
  }

  DeviceInfo info_;
  bool hold_launches_ = true;
  const std::chrono::milliseconds gate_timeout_;
  bool last_runs_gated_ = false;
  int stalls_in_a_row_ = 0;  // variants in a row whose launches stalled behind the gate
  cudaStream_t stream_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<unsigned char> staging_;
};

}  // namespace

std::unique_ptr<BenchDevice> make_cuda_device(bool hold_launches, std::string* error,
                                              std::chrono::milliseconds gate_timeout) {
  auto device = std::make_unique<CudaDevice>(hold_launches, gate_timeout);
  if (!device->open(error)) return nullptr;
  return device;
}

}  // namespace xpose::cli
