// SPDX-License-Identifier: Apache-2.0
// The bench's GPU timing harness (tools/xpose/cuda_harness.cpp): timed launches queued behind the
// launch gate, and a variant whose launches stall behind it (execute() waiting for the stream the
// gate holds back) timed again without it, while later variants keep the gate. Skips where no GPU
// is visible.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench_device.hpp"

namespace xpose::cli {
namespace {

// Short, so that each stalled gate costs the test a fraction of a second.
constexpr std::chrono::milliseconds kTestGateTimeout{300};
constexpr int64_t kBufferBytes = 1 << 20;

class CudaHarness : public ::testing::Test {
 protected:
  // Opens the device (the test skips without a GPU); false when the test cannot go on.
  bool open(bool launch_gate) {
    opened(launch_gate);
    return device_ && buffer_;
  }
  void opened(bool launch_gate) {
    std::string error;
    device_ = make_cuda_device(launch_gate, &error, kTestGateTimeout);
    if (!device_) GTEST_SKIP() << "no CUDA device visible (" << error << ")";
    buffer_ = device_->allocate(kBufferBytes, &error);
    ASSERT_NE(buffer_, nullptr) << error;
  }
  void TearDown() override {
    if (device_ && buffer_) device_->release(buffer_);
  }

  cudaStream_t stream() const { return static_cast<cudaStream_t>(device_->stream()); }

  // A launch that returns at once: a memset on the bench's stream.
  BenchDevice::Launch quick() {
    return [this](int) {
      return cudaMemsetAsync(buffer_, 0, kBufferBytes, stream()) == cudaSuccess ? Status::ok : Status::device_error;
    };
  }
  // A launch that waits for its own stream before returning, as a library call does whose
  // launches fill the launch queue: behind a closed gate it waits until the gate gives up.
  BenchDevice::Launch waiting() {
    return [this](int) {
      return cudaMemsetAsync(buffer_, 0, kBufferBytes, stream()) == cudaSuccess &&
                     cudaStreamSynchronize(stream()) == cudaSuccess
                 ? Status::ok
                 : Status::device_error;
    };
  }

  // Times `launch` and checks that every run has a time.
  void time(const BenchDevice::Launch& launch, int reps) {
    TimingRequest request;
    request.warmup = 1;
    request.reps = reps;
    std::vector<double> seconds;
    std::string error;
    ASSERT_TRUE(device_->time_runs(launch, request, &seconds, &error)) << error;
    ASSERT_EQ(seconds.size(), static_cast<size_t>(reps));
    for (double s : seconds) EXPECT_GT(s, 0.0);
  }

  std::unique_ptr<BenchDevice> device_;
  void* buffer_ = nullptr;
};

TEST_F(CudaHarness, LaunchesAreTimedBehindTheGate) {
  if (!open(true)) return;
  time(quick(), 20);
  EXPECT_TRUE(device_->last_runs_gated());
}

TEST_F(CudaHarness, AVariantThatStallsIsTimedAgainWithoutTheGateAndTheNextKeepsIt) {
  if (!open(true)) return;
  time(waiting(), 3);
  EXPECT_FALSE(device_->last_runs_gated());
  time(quick(), 20);
  EXPECT_TRUE(device_->last_runs_gated());
}

TEST_F(CudaHarness, TwoVariantsInARowThatStallTurnTheGateOffForTheRest) {
  if (!open(true)) return;
  time(waiting(), 3);
  time(waiting(), 3);
  EXPECT_FALSE(device_->last_runs_gated());
  time(quick(), 20);
  EXPECT_FALSE(device_->last_runs_gated());
}

TEST_F(CudaHarness, StallsApartLeaveTheGateOn) {
  if (!open(true)) return;
  time(waiting(), 3);
  time(quick(), 5);
  time(waiting(), 3);
  time(quick(), 5);
  EXPECT_TRUE(device_->last_runs_gated());
}

TEST_F(CudaHarness, WithoutTheGateNothingIsGated) {
  if (!open(false)) return;
  time(quick(), 20);
  EXPECT_FALSE(device_->last_runs_gated());
  time(waiting(), 3);
  EXPECT_FALSE(device_->last_runs_gated());
}

}  // namespace
}  // namespace xpose::cli
