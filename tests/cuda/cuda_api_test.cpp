// SPDX-License-Identifier: Apache-2.0
// The API on the GPU: the seeds' non-square bug, streams, pointer checks, every DType through
// "auto", empty problems, and one plan shared by host threads on several streams.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Matrix;
using xpose::Status;

class TransposeCuda : public ::testing::Test {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }
};

// A non-null stream that is destroyed with the test.
class CreatedStream {
 public:
  CreatedStream() {
    EXPECT_TRUE(xpose_test::cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                    "cudaStreamCreateWithFlags"));
  }
  ~CreatedStream() { cudaStreamDestroy(stream_); }
  CreatedStream(const CreatedStream&) = delete;
  CreatedStream& operator=(const CreatedStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// The seeds' tiled kernel and geam call (amd-hip-transpose-readme-a) index the output with the
// source width: right for square matrices only. Every non-square shape catches it; this test
// names the bug, with both orientations (wide and tall) on every transposing kernel.
TEST_F(TransposeCuda, NonSquareUsesDestinationWidth) {
  for (const std::string& kernel : xpose_test::transposing_kernels(Device::cuda)) {
    for (DType type : {DType::f32, DType::f64}) {
      for (const Matrix& matrix : std::vector<Matrix>{{64, 256}, {256, 64}, {100, 37}, {37, 100}}) {
        bool ran = false;
        xpose_test::run_and_check(kernel, type, matrix, &ran);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_F(TransposeCuda, EveryKernelRunsOnACreatedStream) {
  CreatedStream stream;
  for (const std::string& kernel : xpose::kernel_names(Device::cuda)) {
    bool ran = false;
    xpose_test::run_and_check(kernel, DType::f32, {300, 200}, &ran, stream.get());
    if (HasFatalFailure()) return;
  }
}

TEST_F(TransposeCuda, AutoHandlesEveryDType) {
  for (DType type : xpose::all_dtypes()) {
    for (const Matrix& matrix :
         std::vector<Matrix>{{33, 65}, {65, 33, 40, 70, 2, 65 * 40 + 1, 0}}) {
      bool ran = false;
      xpose_test::run_and_check("auto", type, matrix, &ran);
      if (HasFatalFailure()) return;
    }
  }
}

// The production rule's choice for few columns and few rows (skinny_kernels.cu:
// deinterleave_preferred, interleave_preferred; tuning.hpp: deinterleave_max_cols).
TEST_F(TransposeCuda, AutoTakesSkinnyKernelsOnlyWhereTheyWin) {
  const auto chosen = [](const Matrix& matrix, DType type) {
    xpose::Plan plan;
    EXPECT_EQ(xpose::Plan::create(plan, matrix, type, Device::cuda), Status::ok) << xpose::last_error_message();
    return std::string(plan.kernel_name());
  };
  EXPECT_EQ(chosen({4096, 33}, DType::f32), "deinterleave");
  EXPECT_EQ(chosen({4096, 48}, DType::f32), "deinterleave");
  EXPECT_EQ(chosen({4096, 49}, DType::f32), "tile");
  EXPECT_EQ(chosen({4096, 63}, DType::f32), "tile");
  EXPECT_EQ(chosen({4096, 63}, DType::f64), "deinterleave");  // 8- and 16-byte elements: the old tile width
  EXPECT_EQ(chosen({4096, 64}, DType::f64), "tile");
  // 1- and 2-byte elements: output segments of at least 160 bytes per chunk (160 at 93 columns of
  // u8 and 94 of f16, 144 one column more), or whole matrices with packed output rows.
  EXPECT_EQ(chosen({4096, 93}, DType::u8), "deinterleave");
  EXPECT_EQ(chosen({4096, 94}, DType::u8), "tile");
  EXPECT_EQ(chosen({4096, 94}, DType::f16), "deinterleave");
  EXPECT_EQ(chosen({4096, 95}, DType::f16), "tile");
  // Batches padded apart by more than small_batch reads through (a quarter of a matrix): 72-row
  // chunks hold a 64-row matrix, not a 77-row one; padded output rows are not one run.
  EXPECT_EQ(chosen({64, 100, 0, 0, 50, 64 * 100 + 2000, 0}, DType::f16), "deinterleave");
  EXPECT_EQ(chosen({77, 100, 0, 0, 50, 77 * 100 + 2000, 0}, DType::f16), "tile");
  EXPECT_EQ(chosen({64, 100, 0, 70, 50, 64 * 100 + 8, 0}, DType::f16), "tile");
  // Padded input rows: by under 32 bytes or at most a quarter of a row.
  EXPECT_EQ(chosen({4096, 13, 14, 0}, DType::f16), "deinterleave");
  EXPECT_EQ(chosen({4096, 13, 29, 0}, DType::f16), "tile");
  EXPECT_EQ(chosen({4096, 40, 50, 0}, DType::f32), "deinterleave");
  EXPECT_EQ(chosen({4096, 40, 51, 0}, DType::f32), "tile");
  // The 1-byte interleave: input segments of at least 224 bytes per chunk (72 rows: 224; 80: 192).
  EXPECT_EQ(chosen({72, 100000}, DType::u8), "interleave");
  EXPECT_EQ(chosen({80, 100000}, DType::u8), "tile");
  EXPECT_EQ(chosen({63, 100000}, DType::f16), "interleave");
}

// Batches of matrices whose input span is at most 16 KiB, packed or with input rows or matrices
// padded by a little, take whole matrices per block; larger ones, one matrix, and other padded
// batches do not.
TEST_F(TransposeCuda, AutoTakesSmallBatchForBatchesOfSmallMatrices) {
  const auto chosen = [](const Matrix& matrix, DType type) {
    xpose::Plan plan;
    EXPECT_EQ(xpose::Plan::create(plan, matrix, type, Device::cuda), Status::ok) << xpose::last_error_message();
    return std::string(plan.kernel_name());
  };
  EXPECT_EQ(chosen({21, 3, 0, 0, 1000}, DType::u8), "small_batch");
  EXPECT_EQ(chosen({64, 64, 0, 0, 1000}, DType::f32), "small_batch");   // 16 KiB
  EXPECT_NE(chosen({64, 65, 0, 0, 1000}, DType::f32), "small_batch");   // over 16 KiB
  EXPECT_EQ(chosen({127, 129, 0, 0, 1000}, DType::u8), "small_batch");  // one matrix per block
  EXPECT_NE(chosen({21, 3}, DType::u8), "small_batch");                 // one matrix
  // Input rows padded by a little (at most the row, and under a sector or a quarter of a row),
  // rows x ld_in at most 16 KiB.
  EXPECT_EQ(chosen({21, 3, 5, 0, 1000}, DType::u8), "small_batch");
  EXPECT_EQ(chosen({7, 7, 8, 0, 1000}, DType::f16), "small_batch");
  EXPECT_EQ(chosen({64, 64, 68, 0, 1000}, DType::u8), "small_batch");
  EXPECT_EQ(chosen({32, 33, 35, 0, 1000}, DType::f32), "small_batch");
  EXPECT_NE(chosen({64, 64, 66, 0, 1000}, DType::f32), "small_batch");               // 16.5 KiB
  EXPECT_NE(chosen({21, 3, 7, 0, 1000}, DType::u8), "small_batch");                  // more than the row
  EXPECT_NE(chosen({21, 40, 60, 0, 1000}, DType::f32), "small_batch");               // 80 bytes, half a row
  EXPECT_NE(chosen({21, 3, 5, 0, 1000, 21 * 5 + 1, 0}, DType::u8), "small_batch");  // rows and matrices apart
  EXPECT_NE(chosen({21, 3, 0, 22, 1000}, DType::u8), "small_batch");                 // padded output rows
  // Packed matrices padded apart by a little (a slice along the rows), on the same terms.
  EXPECT_EQ(chosen({138, 7, 0, 0, 1000, 138 * 7 + 126, 0}, DType::u8), "small_batch");
  EXPECT_EQ(chosen({45, 45, 0, 0, 1000, 45 * 45 + 64, 0}, DType::f32), "small_batch");
  EXPECT_EQ(chosen({21, 3, 0, 0, 1000, 21 * 3 + 15, 0}, DType::f16), "small_batch");  // 30 bytes
  EXPECT_NE(chosen({21, 3, 0, 0, 1000, 21 * 3 + 17, 0}, DType::f16), "small_batch");  // 34 bytes, over a quarter
  EXPECT_NE(chosen({64, 64, 0, 0, 1000, 64 * 64 + 64, 0}, DType::f32), "small_batch");  // 16.25 KiB
  EXPECT_EQ(chosen({1, 7, 0, 0, 1000}, DType::f16), "contiguous_copy");
}

TEST_F(TransposeCuda, HostPointersAreRejected) {
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {8, 8}, DType::f32, Device::cuda), Status::ok)
      << xpose::last_error_message();
  std::vector<float> host_in(64, 1.0f);
  xpose_test::GuardedBuffer host_out(64 * sizeof(float), 0, xpose_test::kPoison);
  EXPECT_EQ(plan.execute(host_in.data(), host_out.view()), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("host memory"));
  EXPECT_TRUE(xpose_test::untouched(host_out));

  // One side on the device, the other on the host.
  const auto problem = xpose_test::problem_for({8, 8}, DType::f32);
  const auto input = xpose_test::make_input(problem);
  const xpose_test::DeviceCopy d_input(input);
  EXPECT_EQ(plan.execute(d_input.view(), host_out.view()), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("out ("));
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("host memory"));
  EXPECT_TRUE(xpose_test::untouched(host_out));
}

TEST_F(TransposeCuda, MisalignedAndOverlappingDevicePointersAreRejected) {
  const Matrix matrix{16, 8};
  const auto problem = xpose_test::problem_for(matrix, DType::f32);
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, matrix, DType::f32, Device::cuda), Status::ok)
      << xpose::last_error_message();
  const auto input = xpose_test::make_input(problem);
  auto output = xpose_test::make_output(problem);
  const xpose_test::DeviceCopy d_input(input), d_output(output);

  EXPECT_EQ(plan.execute(d_input.view(), d_output.view() + 1), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("not aligned"));
  EXPECT_EQ(plan.execute(d_input.view(), d_input.view()), Status::invalid_argument);
  EXPECT_THAT(xpose::last_error_message(), HasSubstr("overlap"));

  ASSERT_TRUE(xpose_test::cuda_ok(cudaDeviceSynchronize(), "synchronize"));
  ASSERT_TRUE(d_output.copy_back(output));
  EXPECT_TRUE(xpose_test::untouched(output)) << "a rejected call wrote to the output";
}

TEST_F(TransposeCuda, EmptyShapesAreNoOpsEvenWithNullPointers) {
  for (const Matrix& matrix : std::vector<Matrix>{{0, 5}, {5, 0}, {7, 9, 0, 0, 0}}) {
    SCOPED_TRACE(xpose_test::describe(matrix, DType::f32));
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create(plan, matrix, DType::f32, Device::cuda), Status::ok)
        << xpose::last_error_message();
    EXPECT_EQ(plan.execute(nullptr, nullptr), Status::ok) << xpose::last_error_message();
  }
}

// execute() is const and asynchronous: four host threads share one plan, each with its own
// stream and buffers, and enqueue several runs before synchronising.
TEST_F(TransposeCuda, OnePlanRunsFromSeveralThreadsOnSeveralStreams) {
  constexpr int kThreads = 4;
  constexpr int kRepeats = 3;
  const Matrix matrix{1023, 1025};
  const auto problem = xpose_test::problem_for(matrix, DType::f32);
  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, matrix, DType::f32, Device::cuda), Status::ok)
      << xpose::last_error_message();

  std::vector<xpose_test::GuardedBuffer> inputs, outputs;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(xpose_test::make_input(problem, 0, /*salt=*/t + 1));
    outputs.push_back(xpose_test::make_output(problem));
  }
  std::vector<std::unique_ptr<xpose_test::DeviceCopy>> d_inputs, d_outputs;
  std::vector<std::unique_ptr<CreatedStream>> streams;
  for (int t = 0; t < kThreads; ++t) {
    d_inputs.push_back(std::make_unique<xpose_test::DeviceCopy>(inputs[t]));
    d_outputs.push_back(std::make_unique<xpose_test::DeviceCopy>(outputs[t]));
    streams.push_back(std::make_unique<CreatedStream>());
  }

  std::vector<Status> statuses(kThreads, Status::ok);
  std::vector<cudaError_t> syncs(kThreads, cudaSuccess);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRepeats && statuses[t] == Status::ok; ++r)
        statuses[t] = plan.execute(d_inputs[t]->view(), d_outputs[t]->view(), streams[t]->get());
      syncs[t] = cudaStreamSynchronize(streams[t]->get());
    });
  for (auto& thread : threads) thread.join();

  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(statuses[t], Status::ok);
    EXPECT_TRUE(xpose_test::cuda_ok(syncs[t], "cudaStreamSynchronize"));
    ASSERT_TRUE(d_outputs[t]->copy_back(outputs[t]));
    EXPECT_TRUE(xpose_test::transposed_correctly(inputs[t], outputs[t], problem));
  }
}

TEST_F(TransposeCuda, DeviceIsCountedAndCompiled) {
  EXPECT_TRUE(xpose::cuda_compiled());
  EXPECT_GT(xpose::cuda_device_count(), 0);
  const auto names = xpose::kernel_names(Device::cuda);
  ASSERT_GE(names.size(), 2u) << "auto and at least one kernel";
  EXPECT_EQ(names.front(), "auto");
}

}  // namespace
