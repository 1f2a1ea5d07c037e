// SPDX-License-Identifier: Apache-2.0
// What the GPU tuning rules read from a device, and the rule that places a device among the ones
// the tuning was measured on. Plain C++ (no CUDA headers): the CPU tests check the rule on the
// properties of GPUs this project has not run on.
#pragma once

#include <cstdint>

namespace xpose::cuda {

struct DeviceInfo {
  int multiprocessors = 0;
  int64_t memory_bytes_per_second = 0;  // peak: 2 x memory clock x bus width (0: unknown)
};

// Peak bandwidth from the runtime's attributes (memory clock in kHz, bus width in bits), as
// NVIDIA's bandwidth sample computes it: two transfers per clock.
constexpr int64_t peak_memory_bandwidth(int64_t memory_clock_khz, int64_t bus_width_bits) {
  return 2 * memory_clock_khz * 1000 * (bus_width_bits / 8);
}

// The devices a tuning entry was measured faster on, by memory bandwidth per SM. A block keeps a
// fixed number of bytes in flight, and covering the memory's latency takes bandwidth x latency
// of them (Little's law): the more bandwidth each SM has to cover, the more blocks or bytes per
// block it needs. The two GPUs measured sit either side of kHighBandwidthPerSm: an H100 SXM (3.35
// TB/s over 132 SMs, 25 GB/s each) and an H200 (4.8 TB/s, 36 GB/s each).
enum class BandwidthPerSm {
  none,      // an entry that no device takes
  moderate,  // below kHighBandwidthPerSm (H100; A100, L40S likewise)
  high,      // kHighBandwidthPerSm and above (H200; B200, GH200 likewise)
};
constexpr int64_t kHighBandwidthPerSm = 30'000'000'000;

// A device whose bandwidth or SM count the runtime does not report counts as moderate (the
// shapes every device ran before the high-bandwidth entries).
constexpr BandwidthPerSm bandwidth_per_sm(const DeviceInfo& device) {
  if (device.multiprocessors <= 0 || device.memory_bytes_per_second <= 0) return BandwidthPerSm::moderate;
  return device.memory_bytes_per_second / device.multiprocessors >= kHighBandwidthPerSm ? BandwidthPerSm::high
                                                                                        : BandwidthPerSm::moderate;
}

// Whether a tuning entry measured faster on devices of class `measured` applies to `device`.
constexpr bool entry_applies(BandwidthPerSm measured, const DeviceInfo& device) {
  return measured != BandwidthPerSm::none && measured == bandwidth_per_sm(device);
}

}  // namespace xpose::cuda
