// SPDX-License-Identifier: Apache-2.0
// Streams, devices and threads at the edges of the API: a stream or pointers of another GPU are
// rejected without writing (2 GPUs), a plan runs on the second GPU when it is current, execute on
// a capturing stream is captured into a CUDA graph, the special stream handles work, and one
// permute plan runs from several host threads on several streams.
//
// An invalid stream handle in the usual sense (destroyed, or not a stream at all) is undefined
// behaviour in the CUDA runtime, so no test passes one; with one GPU no stream exists that the
// runtime reports invalid without also invalidating a graph capture (see the capture test).
#include <cuda_runtime.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/permute_check.hpp"
#include "cuda_check.hpp"

namespace {

using ::testing::HasSubstr;
using xpose::Device;
using xpose::DType;
using xpose::Matrix;
using xpose::Permutation;
using xpose::Status;

class RobustnessCuda : public ::testing::Test {
 protected:
  void SetUp() override { XPOSE_SKIP_WITHOUT_CUDA_DEVICE(); }
};

#define XPOSE_SKIP_WITHOUT_TWO_CUDA_DEVICES()                                                  \
  do {                                                                                       \
    if (xpose::cuda_device_count() < 2)                                                      \
      GTEST_SKIP() << "fewer than 2 CUDA devices visible (" << xpose::cuda_device_count() << ")"; \
  } while (0)

// Makes `device` current for a scope and restores the previous one.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device) {
    EXPECT_TRUE(xpose_test::cuda_ok(cudaGetDevice(&previous_), "cudaGetDevice"));
    EXPECT_TRUE(xpose_test::cuda_ok(cudaSetDevice(device), "cudaSetDevice"));
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};

// A copy of a whole host allocation (guards included) on a given GPU, freed on that GPU.
class CopyOnDevice {
 public:
  CopyOnDevice(int device, const unsigned char* host, std::size_t size, std::size_t view_offset)
      : device_(device), size_(size), view_offset_(view_offset) {
    const CurrentDevice on(device_);
    EXPECT_TRUE(xpose_test::cuda_ok(cudaMalloc(&data_, size_), "cudaMalloc"));
    if (data_) {
      EXPECT_TRUE(reset(host));
    }
  }
  CopyOnDevice(int device, const xpose_test::GuardedBuffer& host)
      : CopyOnDevice(device, host.data(), host.size(), host.view_offset()) {}
  CopyOnDevice(int device, const xpose_test::PermuteBuffer& host)
      : CopyOnDevice(device, host.data(), host.size(), host.view_offset()) {}
  ~CopyOnDevice() {
    const CurrentDevice on(device_);
    cudaFree(data_);
  }
  CopyOnDevice(const CopyOnDevice&) = delete;
  CopyOnDevice& operator=(const CopyOnDevice&) = delete;

  bool valid() const { return data_ != nullptr; }
  unsigned char* view() const { return static_cast<unsigned char*>(data_) + view_offset_; }
  // Overwrites the whole allocation with `host` (as many bytes as the constructor copied) and
  // waits: cudaMemcpy from pageable memory may return before its DMA has landed, and a
  // non-blocking stream does not wait for it.
  ::testing::AssertionResult reset(const unsigned char* host) const {
    const CurrentDevice on(device_);
    if (auto r = xpose_test::cuda_ok(cudaMemcpy(data_, host, size_, cudaMemcpyHostToDevice), "cudaMemcpy"); !r)
      return r;
    return xpose_test::cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize after cudaMemcpy");
  }
  // The whole allocation, guards included, after the device's work has finished.
  std::vector<unsigned char> read_back() const {
    std::vector<unsigned char> bytes(size_);
    const CurrentDevice on(device_);
    EXPECT_TRUE(xpose_test::cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize"));
    EXPECT_TRUE(xpose_test::cuda_ok(cudaMemcpy(bytes.data(), data_, size_, cudaMemcpyDeviceToHost), "cudaMemcpy"));
    return bytes;
  }

 private:
  int device_;
  void* data_ = nullptr;
  std::size_t size_;
  std::size_t view_offset_;
};

// A non-blocking stream created on `device`, destroyed on it.
class StreamOnDevice {
 public:
  explicit StreamOnDevice(int device) : device_(device) {
    const CurrentDevice on(device_);
    EXPECT_TRUE(xpose_test::cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                    "cudaStreamCreateWithFlags"));
  }
  ~StreamOnDevice() {
    const CurrentDevice on(device_);
    cudaStreamDestroy(stream_);
  }
  StreamOnDevice(const StreamOnDevice&) = delete;
  StreamOnDevice& operator=(const StreamOnDevice&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

::testing::AssertionResult all_poison(const std::vector<unsigned char>& bytes) {
  return xpose_test::untouched(bytes.data(), bytes.size());
}

// The 2D and permute problems most tests here run, with their host buffers.
const Matrix kMatrix{67, 129, 0, 0, 2};
const Permutation kPermutation{{9, 17, 5, 33}, {3, 1, 0, 2}, {}, {}};

struct TransposeCase {
  xpose_test::Transpose2D problem = xpose_test::problem_for(kMatrix, DType::f32);
  xpose_test::GuardedBuffer input = xpose_test::make_input(problem);
  xpose_test::GuardedBuffer output = xpose_test::make_output(problem);
};

struct PermuteCase {
  xpose::detail::PermuteProblem problem = xpose_test::permute_problem_for(kPermutation, DType::f64);
  xpose_test::PermuteBuffer input = xpose_test::make_permute_input(problem);
  xpose_test::PermuteBuffer output = xpose_test::make_permute_output(problem);
};

// The first shape of a few (square-ish, few rows, few columns, one row, a batch of small ones)
// that `kernel` plans.
bool plan_some_shape(const std::string& kernel, Matrix* matrix, xpose::Plan* plan) {
  for (const Matrix& candidate : std::vector<Matrix>{{300, 200}, {4, 1000}, {1000, 4}, {1, 1000}, {30, 20, 0, 0, 64}}) {
    if (xpose::Plan::create(*plan, candidate, DType::f32, Device::cuda, {kernel, 0}) == Status::ok) {
      *matrix = candidate;
      return true;
    }
  }
  return false;
}

// The first layout of a few (a contiguous dim moves, it stays, batched 2D, nothing moves) that
// `kernel` plans.
bool plan_some_permutation(const std::string& kernel, Permutation* permutation, xpose::Plan* plan) {
  for (const Permutation& candidate : std::vector<Permutation>{kPermutation,
                                                               {{30, 17, 40, 6}, {2, 0, 1, 3}, {}, {}},
                                                               {{8, 40, 50}, {0, 2, 1}, {}, {}},
                                                               {{40, 50, 60}, {0, 1, 2}, {}, {}}}) {
    if (xpose::Plan::create_permute(*plan, candidate, DType::f64, Device::cuda, {kernel, 0}) == Status::ok) {
      *permutation = candidate;
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Two GPUs

// The runtime runs a kernel on its stream's device, not the current one (seen on CUDA 13): before
// the stream check, a stream of GPU 1 with buffers of GPU 0 ran the kernel on GPU 1 against GPU
// 0's memory, an illegal address without peer access that ends the CUDA context.
TEST_F(RobustnessCuda, StreamOfAnotherGpuIsRejectedAndTheOutputUntouched) {
  XPOSE_SKIP_WITHOUT_TWO_CUDA_DEVICES();
  const CurrentDevice on(0);
  const StreamOnDevice other_stream(1), own_stream(0);
  TransposeCase t;
  PermuteCase p;
  const CopyOnDevice t_in(0, t.input), t_out(0, t.output), p_in(0, p.input), p_out(0, p.output);
  ASSERT_TRUE(t_in.valid() && t_out.valid() && p_in.valid() && p_out.valid());
  xpose::Plan transpose, permute;
  ASSERT_EQ(xpose::Plan::create(transpose, kMatrix, DType::f32, Device::cuda), Status::ok)
      << xpose::last_error_message();
  ASSERT_EQ(xpose::Plan::create_permute(permute, kPermutation, DType::f64, Device::cuda), Status::ok)
      << xpose::last_error_message();

  for (const xpose::Plan* plan : {&transpose, &permute}) {
    SCOPED_TRACE(plan->is_permute() ? "permute plan" : "transpose plan");
    const CopyOnDevice& in = plan->is_permute() ? p_in : t_in;
    const CopyOnDevice& out = plan->is_permute() ? p_out : t_out;
    EXPECT_EQ(plan->execute(in.view(), out.view(), other_stream.get()), Status::invalid_argument);
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("stream ("));
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("belongs to GPU 1 but the current device is GPU 0"));
    EXPECT_TRUE(all_poison(out.read_back())) << "a rejected call wrote to the output";
  }

  // Nothing broke: the same calls on a stream of GPU 0 give the right results.
  ASSERT_EQ(transpose.execute(t_in.view(), t_out.view(), own_stream.get()), Status::ok)
      << xpose::last_error_message();
  ASSERT_EQ(permute.execute(p_in.view(), p_out.view(), own_stream.get()), Status::ok)
      << xpose::last_error_message();
  const std::vector<unsigned char> t_bytes = t_out.read_back(), p_bytes = p_out.read_back();
  EXPECT_TRUE(xpose_test::output_matches(t_bytes.data(), xpose_test::expected_transpose(t.input, t.output, t.problem),
                                         t.output, t.problem));
  EXPECT_TRUE(xpose_test::permute_output_matches(
      p_bytes.data(), xpose_test::expected_permute(p.input, p.output, p.problem), p.output, p.problem));
}

TEST_F(RobustnessCuda, PointersOfAnotherGpuAreRejectedAndTheOutputUntouched) {
  XPOSE_SKIP_WITHOUT_TWO_CUDA_DEVICES();
  const CurrentDevice on(0);
  TransposeCase t;
  PermuteCase p;
  const CopyOnDevice t_in0(0, t.input), t_out0(0, t.output), t_in1(1, t.input), t_out1(1, t.output);
  const CopyOnDevice p_in0(0, p.input), p_out0(0, p.output), p_in1(1, p.input), p_out1(1, p.output);
  ASSERT_TRUE(t_in0.valid() && t_out0.valid() && t_in1.valid() && t_out1.valid());
  ASSERT_TRUE(p_in0.valid() && p_out0.valid() && p_in1.valid() && p_out1.valid());
  xpose::Plan transpose, permute;
  ASSERT_EQ(xpose::Plan::create(transpose, kMatrix, DType::f32, Device::cuda), Status::ok)
      << xpose::last_error_message();
  ASSERT_EQ(xpose::Plan::create_permute(permute, kPermutation, DType::f64, Device::cuda), Status::ok)
      << xpose::last_error_message();

  struct Call {
    const xpose::Plan& plan;
    const CopyOnDevice& in;
    const CopyOnDevice& out;
    const char* named;  // the argument the message must name
  };
  for (const Call& call : {Call{transpose, t_in1, t_out0, "in ("}, Call{transpose, t_in0, t_out1, "out ("},
                           Call{permute, p_in1, p_out0, "in ("}, Call{permute, p_in0, p_out1, "out ("}}) {
    SCOPED_TRACE(std::string(call.plan.is_permute() ? "permute plan, " : "transpose plan, ") + call.named);
    EXPECT_EQ(call.plan.execute(call.in.view(), call.out.view()), Status::invalid_argument);
    EXPECT_THAT(xpose::last_error_message(), HasSubstr(call.named));
    EXPECT_THAT(xpose::last_error_message(), HasSubstr("lives on GPU 1 but the current device is GPU 0"));
  }
  for (const CopyOnDevice* out : {&t_out0, &t_out1, &p_out0, &p_out1})
    EXPECT_TRUE(all_poison(out->read_back())) << "a rejected call wrote to an output";
}

// Everything on GPU 1 (pointers, stream, current device): the library has no device 0 built in.
// Each host thread keeps one cuBLAS handle per device, so cublas_geam runs here too.
TEST_F(RobustnessCuda, EveryKernelRunsOnTheSecondGpuWhenItIsCurrent) {
  XPOSE_SKIP_WITHOUT_TWO_CUDA_DEVICES();
  const CurrentDevice on(1);
  const StreamOnDevice stream(1);
  for (const std::string& kernel : xpose::kernel_names(Device::cuda)) {
    Matrix matrix;
    xpose::Plan plan;
    ASSERT_TRUE(plan_some_shape(kernel, &matrix, &plan)) << xpose::last_error_message();
    bool ran = false;
    xpose_test::run_and_check(kernel, DType::f32, matrix, &ran, stream.get());
    if (HasFatalFailure()) return;
    EXPECT_TRUE(ran) << kernel;
  }
  PermuteCase p;
  const CopyOnDevice in(1, p.input), out(1, p.output);
  ASSERT_TRUE(in.valid() && out.valid());
  xpose::Plan permute;
  ASSERT_EQ(xpose::Plan::create_permute(permute, kPermutation, DType::f64, Device::cuda), Status::ok)
      << xpose::last_error_message();
  ASSERT_EQ(permute.execute(in.view(), out.view(), stream.get()), Status::ok) << xpose::last_error_message();
  const std::vector<unsigned char> bytes = out.read_back();
  EXPECT_TRUE(xpose_test::permute_output_matches(
      bytes.data(), xpose_test::expected_permute(p.input, p.output, p.problem), p.output, p.problem));
}

// ---------------------------------------------------------------------------------------------
// One GPU

// Capturing a stream (global mode, the strictest) and replaying the graph gives the same result
// as a direct call, for every kernel, 2D and permute. The capture must survive execute: an
// execute that queried the stream (cudaStreamQuery, as the stream check once did) failed on a
// capturing stream and invalidated the caller's capture. Each kernel runs once before its
// capture, as a caller would warm up: cuBLAS must not create a thread's handle during capture.
TEST_F(RobustnessCuda, ExecuteOnACapturingStreamIsCapturedIntoAGraph) {
  const StreamOnDevice stream(0);
  int device = 0;
  ASSERT_TRUE(xpose_test::cuda_ok(cudaGetDevice(&device), "cudaGetDevice"));

  // Captures plan.execute(in, out) on the stream, replays it twice on an output reset to
  // `poisoned` (the whole host allocation), and returns the whole output allocation in *result.
  auto capture_and_replay = [&](const xpose::Plan& plan, const CopyOnDevice& in, const CopyOnDevice& out,
                                const unsigned char* poisoned, std::vector<unsigned char>* result) {
    ASSERT_EQ(plan.execute(in.view(), out.view(), stream.get()), Status::ok) << xpose::last_error_message();
    ASSERT_TRUE(xpose_test::cuda_ok(cudaStreamSynchronize(stream.get()), "warm-up run"));
    ASSERT_TRUE(xpose_test::cuda_ok(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal),
                                    "cudaStreamBeginCapture"));
    const Status executed = plan.execute(in.view(), out.view(), stream.get());
    const std::string message = xpose::last_error_message();
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream.get(), &graph);
    ASSERT_EQ(executed, Status::ok) << message;
    ASSERT_TRUE(xpose_test::cuda_ok(ended, "cudaStreamEndCapture (the capture must survive execute)"));
    ASSERT_NE(graph, nullptr);
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    ASSERT_TRUE(xpose_test::cuda_ok(instantiated, "cudaGraphInstantiate"));
    // The warm-up wrote the output: poison it again, so that the replays alone must write it.
    ASSERT_TRUE(out.reset(poisoned));
    for (int replay = 0; replay < 2; ++replay)
      ASSERT_TRUE(xpose_test::cuda_ok(cudaGraphLaunch(exec, stream.get()), "cudaGraphLaunch"));
    ASSERT_TRUE(xpose_test::cuda_ok(cudaStreamSynchronize(stream.get()), "synchronize after replay"));
    cudaGraphExecDestroy(exec);
    *result = out.read_back();
  };

  for (const std::string& kernel : xpose::kernel_names(Device::cuda)) {
    SCOPED_TRACE("2D kernel " + kernel);
    Matrix matrix;
    xpose::Plan plan;
    ASSERT_TRUE(plan_some_shape(kernel, &matrix, &plan)) << xpose::last_error_message();
    const auto problem = xpose_test::problem_for(matrix, DType::f32);
    const auto input = xpose_test::make_input(problem);
    auto output = xpose_test::make_output(problem);
    const CopyOnDevice in(device, input), out(device, output);
    ASSERT_TRUE(in.valid() && out.valid());
    std::vector<unsigned char> result;
    capture_and_replay(plan, in, out, output.data(), &result);
    if (HasFatalFailure()) return;
    const auto expected = xpose::kernel_transposes(Device::cuda, kernel)
                              ? xpose_test::expected_transpose(input, output, problem)
                              : xpose_test::expected_copy(input, output, problem);
    EXPECT_TRUE(xpose_test::output_matches(result.data(), expected, output, problem));
  }
  for (const std::string& kernel : xpose::permute_kernel_names(Device::cuda)) {
    SCOPED_TRACE("permute kernel " + kernel);
    Permutation permutation;
    xpose::Plan plan;
    ASSERT_TRUE(plan_some_permutation(kernel, &permutation, &plan)) << xpose::last_error_message();
    const auto problem = xpose_test::permute_problem_for(permutation, DType::f64);
    const auto input = xpose_test::make_permute_input(problem);
    auto output = xpose_test::make_permute_output(problem);
    const CopyOnDevice in(device, input), out(device, output);
    ASSERT_TRUE(in.valid() && out.valid());
    std::vector<unsigned char> result;
    capture_and_replay(plan, in, out, output.data(), &result);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(xpose_test::permute_output_matches(
        result.data(),
        xpose_test::expected_permute(input, output, problem, xpose::permute_kernel_permutes(Device::cuda, kernel)),
        output, problem));
  }
}

// cudaStreamPerThread and cudaStreamLegacy are handles, not streams: the stream check must
// accept them as the current device's.
TEST_F(RobustnessCuda, SpecialStreamHandlesAreAccepted) {
  for (cudaStream_t stream : {cudaStreamPerThread, cudaStreamLegacy}) {
    SCOPED_TRACE(stream == cudaStreamPerThread ? "cudaStreamPerThread" : "cudaStreamLegacy");
    bool ran = false;
    xpose_test::run_and_check("auto", DType::f32, kMatrix, &ran, stream);
    EXPECT_TRUE(ran);
  }
}

// execute() is const and asynchronous: four host threads share one permute plan, each with its own
// stream and buffers, and enqueue several runs before synchronising; for each of the tiled,
// gather and 2D routes.
TEST_F(RobustnessCuda, OnePermutePlanRunsFromSeveralThreadsOnSeveralStreams) {
  constexpr int kThreads = 4;
  constexpr int kRepeats = 3;
  int device = 0;
  ASSERT_TRUE(xpose_test::cuda_ok(cudaGetDevice(&device), "cudaGetDevice"));
  for (const Permutation& permutation :
       std::vector<Permutation>{{{24, 40, 36, 30}, {3, 1, 0, 2}, {}, {}},     // a contiguous dim moves
                                {{30, 17, 40, 6}, {2, 0, 1, 3}, {}, {}},      // the contiguous dim stays
                                {{8, 300, 270}, {0, 2, 1}, {}, {}}}) {        // batched 2D
    xpose::Plan plan;
    ASSERT_EQ(xpose::Plan::create_permute(plan, permutation, DType::f32, Device::cuda), Status::ok)
        << xpose::last_error_message();
    SCOPED_TRACE(xpose_test::describe(permutation, DType::f32) + ", kernel " + plan.kernel_name());
    const auto problem = xpose_test::permute_problem_for(permutation, DType::f32);
    std::vector<xpose_test::PermuteBuffer> inputs, outputs;
    std::vector<std::unique_ptr<CopyOnDevice>> d_inputs, d_outputs;
    std::vector<std::unique_ptr<StreamOnDevice>> streams;
    for (int t = 0; t < kThreads; ++t) {
      inputs.push_back(xpose_test::make_permute_input(problem, 0, /*salt=*/t + 1));
      outputs.push_back(xpose_test::make_permute_output(problem));
      d_inputs.push_back(std::make_unique<CopyOnDevice>(device, inputs[t]));
      d_outputs.push_back(std::make_unique<CopyOnDevice>(device, outputs[t]));
      streams.push_back(std::make_unique<StreamOnDevice>(device));
      ASSERT_TRUE(d_inputs[t]->valid() && d_outputs[t]->valid());
    }
    std::vector<Status> statuses(kThreads, Status::ok);
    std::vector<cudaError_t> syncs(kThreads, cudaSuccess);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        cudaSetDevice(device);  // a new host thread starts on device 0
        for (int r = 0; r < kRepeats && statuses[t] == Status::ok; ++r)
          statuses[t] = plan.execute(d_inputs[t]->view(), d_outputs[t]->view(), streams[t]->get());
        syncs[t] = cudaStreamSynchronize(streams[t]->get());
      });
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      EXPECT_EQ(statuses[t], Status::ok);
      EXPECT_TRUE(xpose_test::cuda_ok(syncs[t], "cudaStreamSynchronize"));
      const std::vector<unsigned char> bytes = d_outputs[t]->read_back();
      EXPECT_TRUE(xpose_test::permute_output_matches(
          bytes.data(), xpose_test::expected_permute(inputs[t], outputs[t], problem), outputs[t], problem));
    }
  }
}

}  // namespace
