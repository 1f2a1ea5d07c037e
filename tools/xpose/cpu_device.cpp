// SPDX-License-Identifier: Apache-2.0
// The CPU side of the harness: host memory and std::chrono::steady_clock timing.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench_device.hpp"

namespace xpose::cli {
namespace {

constexpr int64_t kAlignment = 64;  // a cache line: the blocked kernels like aligned rows

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      std::string name = line.substr(line.find(':') + 1);
      name.erase(0, name.find_first_not_of(" \t"));
      return name;
    }
  }
  return "unknown CPU";
}

// A /proc/meminfo field ("MemTotal", "MemAvailable") in bytes; -1 if absent.
int64_t meminfo_bytes(const std::string& field) {
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream value(line.substr(field.size() + 1));
      int64_t kib = -1;
      value >> kib;
      return kib < 0 ? -1 : kib * 1024;
    }
  }
  return -1;
}

// Size of the largest cache level cpu0 sees, from sysfs ("32768K"); 0 if unknown.
int64_t last_level_cache_bytes(std::string* level_name) {
  int64_t best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream size_file(dir + "/size"), level_file(dir + "/level");
    if (!size_file) break;
    int64_t size = 0;
    char unit = 0;
    int level = 0;
    size_file >> size >> unit;
    level_file >> level;
    if (unit == 'K') size *= 1024;
    if (unit == 'M') size *= 1024 * 1024;
    if (size > best) {
      best = size;
      *level_name = "L" + std::to_string(level);
    }
  }
  return best;
}

class CpuDevice final : public BenchDevice {
 public:
  CpuDevice() {
    info_.device = Device::cpu;
    info_.name = cpu_model_name();
    info_.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
    info_.memory_bytes = meminfo_bytes("MemTotal");
    info_.cache_bytes = last_level_cache_bytes(&info_.cache_name);
  }

  const DeviceInfo& info() const override { return info_; }

  int64_t free_memory_bytes() override { return meminfo_bytes("MemAvailable"); }

  void* allocate(int64_t bytes, std::string* error) override {
    const int64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    void* data = std::aligned_alloc(kAlignment, static_cast<size_t>(rounded > 0 ? rounded : kAlignment));
    if (data == nullptr) *error = "cannot allocate " + std::to_string(bytes) + " bytes of host memory";
    return data;
  }

  void release(void* buffer) override { std::free(buffer); }

  bool copy_from_host(void* destination, const void* source, int64_t bytes, std::string*) override {
    std::memcpy(destination, source, static_cast<size_t>(bytes));
    return true;
  }

  bool fill_bytes(void* destination, unsigned char value, int64_t bytes, std::string*) override {
    std::memset(destination, value, static_cast<size_t>(bytes));
    return true;
  }

  const unsigned char* read_back(const void* source, int64_t, std::string*) override {
    return static_cast<const unsigned char*>(source);
  }

  void* stream() override { return nullptr; }

  bool synchronize(std::string*) override { return true; }

  bool time_runs(const Launch& launch, const TimingRequest& request, std::vector<double>* seconds,
                 std::string* error) override {
    using Clock = std::chrono::steady_clock;
    const auto elapsed_since = [](Clock::time_point start) {
      return std::chrono::duration<double>(Clock::now() - start).count();
    };
    int run = 0;
    const auto launch_checked = [&]() {
      if (launch(run++) == Status::ok) return true;
      *error = last_error_message();
      return false;
    };

    const Clock::time_point warmup_start = Clock::now();
    for (int i = 0; i < request.warmup; ++i) {
      if (!launch_checked()) return false;
      if (request.budget_seconds > 0 && elapsed_since(warmup_start) > request.budget_seconds) break;
    }
    seconds->clear();
    double timed_total = 0;
    for (int i = 0; i < request.reps; ++i) {
      const Clock::time_point start = Clock::now();
      if (!launch_checked()) return false;
      seconds->push_back(elapsed_since(start));
      timed_total += seconds->back();
      if (request.budget_seconds > 0 && i + 1 >= request.min_reps &&
          timed_total > request.budget_seconds)
        break;
    }
    return true;
  }

 private:
  DeviceInfo info_;
};

}  // namespace

int64_t host_available_memory_bytes() { return meminfo_bytes("MemAvailable"); }

std::unique_ptr<BenchDevice> make_cpu_device() {
  return std::make_unique<CpuDevice>();
}

}  // namespace xpose::cli
