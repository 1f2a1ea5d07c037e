// SPDX-License-Identifier: Apache-2.0
// The rule that places a GPU among the devices the tuning was measured on (cuda/device_info.hpp),
// on the published properties of GPUs this project has and has not run on: the H100 keeps the
// shapes measured on it, the H200 its own, and others follow their memory bandwidth per SM.
#include <gtest/gtest.h>

#include "cuda/device_info.hpp"

namespace {

using xpose::cuda::BandwidthPerSm;
using xpose::cuda::DeviceInfo;
using xpose::cuda::peak_memory_bandwidth;

// SMs, memory clock (kHz) and bus width (bits) as cudaDeviceGetAttribute reports them.
DeviceInfo gpu(int sms, int64_t clock_khz, int64_t bus_bits) { return {sms, peak_memory_bandwidth(clock_khz, bus_bits)}; }

TEST(DeviceInfo, PeakBandwidthFromClockAndBusWidth) {
  EXPECT_EQ(peak_memory_bandwidth(2619000, 5120), int64_t{3352320000000});  // H100 SXM: 3.35 TB/s
  EXPECT_EQ(peak_memory_bandwidth(0, 5120), 0);
}

TEST(DeviceInfo, BandwidthPerSmClassesTheMeasuredAndUnseenGpus) {
  const DeviceInfo h100 = gpu(132, 2619000, 5120);      // 3.35 TB/s, 25 GB/s per SM
  const DeviceInfo h200 = gpu(132, 3201000, 6144);      // 4.9 TB/s, 37 GB/s per SM
  const DeviceInfo a100 = gpu(108, 1593000, 5120);      // 2.0 TB/s, 19 GB/s per SM
  const DeviceInfo l40s = {142, 864'000'000'000};       // GDDR6, 6 GB/s per SM
  const DeviceInfo gh200 = gpu(132, 2619000, 6144);     // HBM3e variant: 4.0 TB/s, 30.5 GB/s per SM
  const DeviceInfo b200 = {148, 8'000'000'000'000};     // 54 GB/s per SM
  EXPECT_EQ(bandwidth_per_sm(h100), BandwidthPerSm::moderate);
  EXPECT_EQ(bandwidth_per_sm(h200), BandwidthPerSm::high);
  EXPECT_EQ(bandwidth_per_sm(a100), BandwidthPerSm::moderate);
  EXPECT_EQ(bandwidth_per_sm(l40s), BandwidthPerSm::moderate);
  EXPECT_EQ(bandwidth_per_sm(gh200), BandwidthPerSm::high);
  EXPECT_EQ(bandwidth_per_sm(b200), BandwidthPerSm::high);
}

TEST(DeviceInfo, EntriesApplyToTheirClassOnlyAndUnknownDevicesAreModerate) {
  const DeviceInfo h100 = gpu(132, 2619000, 5120), h200 = gpu(132, 3201000, 6144);
  EXPECT_TRUE(entry_applies(BandwidthPerSm::moderate, h100));
  EXPECT_FALSE(entry_applies(BandwidthPerSm::high, h100));
  EXPECT_TRUE(entry_applies(BandwidthPerSm::high, h200));
  EXPECT_FALSE(entry_applies(BandwidthPerSm::moderate, h200));
  EXPECT_FALSE(entry_applies(BandwidthPerSm::none, h100));
  EXPECT_FALSE(entry_applies(BandwidthPerSm::none, h200));
  // Attributes the runtime could not read: the shapes every device ran before the high entries.
  EXPECT_EQ(bandwidth_per_sm(DeviceInfo{}), BandwidthPerSm::moderate);
  EXPECT_EQ(bandwidth_per_sm(DeviceInfo{-1, 0}), BandwidthPerSm::moderate);
  EXPECT_EQ(bandwidth_per_sm(DeviceInfo{132, 0}), BandwidthPerSm::moderate);
}

}  // namespace
