// SPDX-License-Identifier: Apache-2.0
// The bench loop's timing rounds (tools/xpose/bench_runner.cpp): each variant's timed runs split
// into rounds that alternate between the variants, each round starting one variant later; the
// launch gate given up, for the later rounds, by a variant whose launches stalled behind it; a
// variant whose timing failed left out of later rounds. Driven through a device that runs on the
// host and records every time_runs call, so it needs no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench_runner.hpp"

namespace xpose::cli {
namespace {

// One time_runs call as the device saw it.
struct TimingCall {
  int warmup = 0, reps = 0, min_reps = 0;
  double budget_seconds = 0;
  bool allow_launch_gate = false;
};

// The CPU device's memory and copies; time_runs launches every run and gives run i of call c the
// time c + 1 (seconds), so that each variant's times say which calls timed it. The call numbered
// `stalling_call` comes back as if its launches stalled behind the gate, and `failing_call` fails.
// Every launch's output buffer is recorded in `launch_pairs` (its index among the poisoned
// buffers, which are the outputs, in the order they were allocated).
class RecordingDevice final : public BenchDevice {
 public:
  // `cache_bytes` sets how many buffer pairs the runner rotates over (0: one pair).
  explicit RecordingDevice(int64_t cache_bytes = 0) : host_(make_cpu_device()) {
    info_ = host_->info();
    info_.cache_bytes = cache_bytes;
  }

  const DeviceInfo& info() const override { return info_; }
  int64_t free_memory_bytes() override { return host_->free_memory_bytes(); }
  void* allocate(int64_t bytes, std::string* error) override {
    if (out_of_memory) {
      *error = "the recording device has no memory";
      return nullptr;
    }
    return host_->allocate(bytes, error);
  }
  void release(void* buffer) override { host_->release(buffer); }
  bool copy_from_host(void* destination, const void* source, int64_t bytes, std::string* error) override {
    return host_->copy_from_host(destination, source, bytes, error);
  }
  bool fill_bytes(void* destination, unsigned char value, int64_t bytes, std::string* error) override {
    if (value == 0xFF && std::find(outputs_.begin(), outputs_.end(), destination) == outputs_.end()) {
      outputs_.push_back(destination);
      output_bytes_ = bytes;
    }
    return host_->fill_bytes(destination, value, bytes, error);
  }
  const unsigned char* read_back(const void* source, int64_t bytes, std::string* error) override {
    return host_->read_back(source, bytes, error);
  }
  void* stream() override { return nullptr; }
  bool synchronize(std::string*) override { return true; }

  bool time_runs(const Launch& launch, const TimingRequest& request, std::vector<double>* seconds,
                 std::string* error) override {
    const int call = static_cast<int>(calls.size());
    calls.push_back({request.warmup, request.reps, request.min_reps, request.budget_seconds,
                     request.allow_launch_gate});
    seconds->clear();
    if (call == failing_call) {
      *error = "the recording device fails this call";
      return false;
    }
    for (int run = 0; run < request.warmup + request.reps; ++run) {
      for (void* output : outputs_) host_->fill_bytes(output, 0xFF, output_bytes_, error);
      if (launch(run) != Status::ok) {
        *error = last_error_message();
        return false;
      }
      launch_pairs.push_back(written_output());
      if (run >= request.warmup) seconds->push_back(call + 1.0);
    }
    last_gated_ = request.allow_launch_gate && call != stalling_call;
    return true;
  }
  bool last_runs_gated() const override { return last_gated_; }

  std::vector<TimingCall> calls;
  std::vector<int> launch_pairs;
  int stalling_call = -1, failing_call = -1;
  bool out_of_memory = false;  // every allocation fails

 private:
  // The index of the one output that is no longer all 0xFF, -1 if none is or several are.
  int written_output() const {
    int written = -1;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      const auto* bytes = static_cast<const unsigned char*>(outputs_[i]);
      if (std::all_of(bytes, bytes + output_bytes_, [](unsigned char b) { return b == 0xFF; })) continue;
      if (written >= 0) return -1;
      written = static_cast<int>(i);
    }
    return written;
  }

  std::unique_ptr<BenchDevice> host_;
  DeviceInfo info_;
  bool last_gated_ = false;
  std::vector<void*> outputs_;
  int64_t output_bytes_ = 0;
};

// Three CPU variants on one small case.
BenchOptions three_variants(int reps, int rounds) {
  BenchOptions options;
  options.device = Device::cpu;
  BenchCase bench_case;
  bench_case.matrix.rows = 37;
  bench_case.matrix.cols = 53;
  bench_case.matrix.dtype = DType::f32;
  options.cases = {bench_case};
  options.kernels = {"memcpy", "reference", "blocked"};
  options.warmup = 2;
  options.reps = reps;
  options.rounds = rounds;
  options.min_reps = 3;
  options.seed = 7;
  return options;
}

CaseResult run_one_case(RecordingDevice& device, const BenchOptions& options) {
  Progress progress(count_steps(options), false);
  std::vector<CaseResult> results;
  run_bench(device, options, progress, [&](const CaseResult& result) { results.push_back(result); });
  EXPECT_EQ(results.size(), 1u);
  return results.empty() ? CaseResult{} : results.front();
}

// The calls that timed a variant (each run's time is its call number + 1).
std::vector<int> calls_of(const VariantResult& variant) {
  std::vector<int> calls;
  for (double seconds : variant.seconds) {
    const int call = static_cast<int>(seconds) - 1;
    if (calls.empty() || calls.back() != call) calls.push_back(call);
  }
  return calls;
}

TEST(BenchRunnerRounds, AlternateBetweenVariantsEachStartingOneLater) {
  RecordingDevice device;
  const CaseResult result = run_one_case(device, three_variants(7, 3));
  ASSERT_EQ(result.variants.size(), 3u);
  // Round 0: memcpy, reference, blocked; round 1 from reference; round 2 from blocked.
  EXPECT_EQ(calls_of(result.variants[0]), (std::vector<int>{0, 5, 7}));
  EXPECT_EQ(calls_of(result.variants[1]), (std::vector<int>{1, 3, 8}));
  EXPECT_EQ(calls_of(result.variants[2]), (std::vector<int>{2, 4, 6}));
  ASSERT_EQ(device.calls.size(), 9u);
  for (int call = 0; call < 9; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    const int round = call / 3;
    // 7 runs in 3 rounds: 3, 2, 2; the full warm-up first, one warm-up run before later rounds.
    EXPECT_EQ(device.calls[call].reps, round == 0 ? 3 : 2);
    EXPECT_EQ(device.calls[call].warmup, round == 0 ? 2 : 1);
    EXPECT_EQ(device.calls[call].min_reps, 1);
    EXPECT_TRUE(device.calls[call].allow_launch_gate);
  }
  for (const VariantResult& variant : result.variants) {
    EXPECT_EQ(variant.outcome, Outcome::passed) << variant.kernel << ": " << variant.note;
    EXPECT_EQ(variant.seconds.size(), 7u) << variant.kernel;
    EXPECT_TRUE(variant.launch_gate) << variant.kernel;
  }
}

// Rotation over the buffer pairs runs through the case's launches, whichever variant makes them:
// a variant's round never starts on the pairs the variant before it just used.
TEST(BenchRunnerRounds, EveryLaunchTakesTheNextBufferPairAcrossVariants) {
  const int64_t pair_bytes = 2 * 37 * 53 * 4;  // three_variants' case: f32 input and output
  RecordingDevice device(pair_bytes);          // 4 x cache / pair bytes = 4 pairs
  const CaseResult result = run_one_case(device, three_variants(7, 3));
  EXPECT_EQ(result.buffer_pairs, 4);
  // 3 variants x (2 + 3 + (1 + 2) + (1 + 2)) launches.
  ASSERT_EQ(device.launch_pairs.size(), 33u);
  for (size_t i = 0; i < device.launch_pairs.size(); ++i)
    EXPECT_EQ(device.launch_pairs[i], static_cast<int>(i % 4)) << "launch " << i;
}

TEST(BenchRunnerRounds, OneRoundTimesEachVariantOnceInOrder) {
  RecordingDevice device;
  const CaseResult result = run_one_case(device, three_variants(5, 1));
  ASSERT_EQ(device.calls.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(calls_of(result.variants[k]), (std::vector<int>{k}));
    EXPECT_EQ(device.calls[k].reps, 5);
    EXPECT_EQ(device.calls[k].warmup, 2);
    EXPECT_EQ(device.calls[k].min_reps, 3);
  }
}

TEST(BenchRunnerRounds, NoMoreRoundsThanTimedRuns) {
  RecordingDevice device;
  const CaseResult result = run_one_case(device, three_variants(2, 5));
  ASSERT_EQ(device.calls.size(), 6u);  // 2 rounds of 1 run each
  for (const TimingCall& call : device.calls) EXPECT_EQ(call.reps, 1);
  for (const VariantResult& variant : result.variants) EXPECT_EQ(variant.seconds.size(), 2u);
}

TEST(BenchRunnerRounds, ShareTheBudgetEqually) {
  RecordingDevice device;
  BenchOptions options = three_variants(20, 4);
  options.budget_seconds = 1.0;
  run_one_case(device, options);
  ASSERT_EQ(device.calls.size(), 12u);
  for (const TimingCall& call : device.calls) EXPECT_DOUBLE_EQ(call.budget_seconds, 0.25);
}

TEST(BenchRunnerRounds, AVariantThatStalledBehindTheGateGoesWithoutItLater) {
  RecordingDevice device;
  device.stalling_call = 1;  // reference's first round
  const CaseResult result = run_one_case(device, three_variants(6, 3));
  ASSERT_EQ(device.calls.size(), 9u);
  // reference's later rounds are calls 3 and 8; the other variants keep the gate.
  for (int call = 0; call < 9; ++call)
    EXPECT_EQ(device.calls[call].allow_launch_gate, call != 3 && call != 8) << "call " << call;
  EXPECT_TRUE(result.variants[0].launch_gate);
  EXPECT_FALSE(result.variants[1].launch_gate);
  EXPECT_TRUE(result.variants[2].launch_gate);
  EXPECT_EQ(result.variants[1].seconds.size(), 6u);
}

TEST(BenchRunnerRounds, AVariantWhoseTimingFailedIsLeftOutOfLaterRounds) {
  RecordingDevice device;
  device.failing_call = 2;  // blocked's first round
  const CaseResult result = run_one_case(device, three_variants(6, 3));
  // Rounds 1 and 2 time memcpy and reference only.
  ASSERT_EQ(device.calls.size(), 7u);
  EXPECT_EQ(result.variants[2].outcome, Outcome::error);
  EXPECT_NE(result.variants[2].note.find("the recording device fails this call"), std::string::npos);
  EXPECT_TRUE(result.variants[2].seconds.empty());
  EXPECT_EQ(calls_of(result.variants[0]), (std::vector<int>{0, 4, 5}));
  EXPECT_EQ(calls_of(result.variants[1]), (std::vector<int>{1, 3, 6}));
  EXPECT_EQ(result.outcome, Outcome::error);
}

// A case whose buffers cannot be allocated says why once, for the case; its variants are "not
// run" (nothing was verified, so nothing failed) and the run is not ok.
TEST(BenchRunnerNotRun, ACaseWithoutMemorySaysWhyOnceAndRunsNothing) {
  RecordingDevice device;
  device.out_of_memory = true;
  const CaseResult result = run_one_case(device, three_variants(5, 1));
  EXPECT_EQ(result.outcome, Outcome::not_run);
  EXPECT_NE(result.note.find("the recording device has no memory"), std::string::npos) << result.note;
  ASSERT_EQ(result.variants.size(), 3u);
  for (const VariantResult& variant : result.variants) {
    EXPECT_EQ(variant.outcome, Outcome::not_run) << variant.kernel;
    EXPECT_EQ(variant.note, "") << variant.kernel << ": the reason belongs to the case, once";
    EXPECT_FALSE(variant.timed()) << variant.kernel;
  }
  EXPECT_TRUE(device.calls.empty());
  EXPECT_STREQ(to_string(Outcome::not_run), "not run");

  RunSummary summary;
  add_to_summary(result, &summary);
  EXPECT_EQ(summary.cases, 1);
  EXPECT_EQ(summary.cases_not_run, 1);
  EXPECT_EQ(summary.passed + summary.failed + summary.errors, 0);
  EXPECT_FALSE(summary.ok());
}

TEST(BenchRunnerNotRun, ACaseThatRanAfterOneThatCouldNotCountsApart) {
  RecordingDevice device;
  device.out_of_memory = true;
  RunSummary summary;
  add_to_summary(run_one_case(device, three_variants(3, 1)), &summary);
  device.out_of_memory = false;
  add_to_summary(run_one_case(device, three_variants(3, 1)), &summary);
  EXPECT_EQ(summary.cases, 2);
  EXPECT_EQ(summary.cases_not_run, 1);
  EXPECT_EQ(summary.passed, 3);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_FALSE(summary.ok());
}

}  // namespace
}  // namespace xpose::cli
