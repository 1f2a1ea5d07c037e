// SPDX-License-Identifier: Apache-2.0
// GPU side of the test helpers: device copies of guarded host buffers (guards included, so the
// host check sees every byte a kernel could have touched) and one call that plans, runs and
// checks a kernel on a shape.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/transpose_check.hpp"

namespace xpose_test {

// Every GPU test starts with this: CI has nvcc but no GPU.
#define XPOSE_SKIP_WITHOUT_CUDA_DEVICE()                                           \
  do {                                                                             \
    if (xpose::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device visible"; \
  } while (0)

inline ::testing::AssertionResult cuda_ok(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << cudaGetErrorString(error);
}

// A device allocation holding a copy of a whole GuardedBuffer.
class DeviceCopy {
 public:
  explicit DeviceCopy(const GuardedBuffer& host)
      : size_(host.size()), view_offset_(host.view_offset()) {
    EXPECT_TRUE(cuda_ok(cudaMalloc(&data_, size_), "cudaMalloc"));
    if (data_) {
      EXPECT_TRUE(cuda_ok(cudaMemcpy(data_, host.data(), size_, cudaMemcpyHostToDevice),
                          "cudaMemcpy to device"));
      // cudaMemcpy from pageable memory may return before its DMA has landed, and a kernel on a
      // non-blocking stream does not wait for it.
      EXPECT_TRUE(cuda_ok(cudaDeviceSynchronize(), "synchronize after cudaMemcpy to device"));
    }
  }
  ~DeviceCopy() { cudaFree(data_); }
  DeviceCopy(const DeviceCopy&) = delete;
  DeviceCopy& operator=(const DeviceCopy&) = delete;

  bool valid() const { return data_ != nullptr; }
  unsigned char* view() const { return static_cast<unsigned char*>(data_) + view_offset_; }
  // Copies the whole allocation, guards included, back into `host`.
  ::testing::AssertionResult copy_back(GuardedBuffer& host) const {
    return cuda_ok(cudaMemcpy(host.data(), data_, size_, cudaMemcpyDeviceToHost),
                   "cudaMemcpy to host");
  }

 private:
  void* data_ = nullptr;
  std::size_t size_;
  std::size_t view_offset_;
};

// XPOSE_TEST_SMALL=1 (for compute-sanitizer runs) skips problems above this many elements.
inline bool too_large_for_this_run(const xpose::Matrix& m) {
  constexpr int64_t kSmallRunElements = int64_t{1} << 18;
  return env_or("XPOSE_TEST_SMALL", 0) != 0 && m.rows * m.cols * m.batch > kSmallRunElements;
}

// Plans `kernel` for `matrix` on the GPU, runs it on device copies of an index-encoded input and
// a poisoned output, copies the whole output back and checks it: the transpose for transposing
// kernels, the packed input bytes for the copy baselines. Sets *ran to false (and checks nothing)
// when a named kernel answers Status::unsupported; "auto" must never do so.
inline void run_and_check(const std::string& kernel, xpose::DType type, const xpose::Matrix& matrix,
                          bool* ran, cudaStream_t stream = nullptr) {
  *ran = false;
  SCOPED_TRACE(kernel + " on " + describe(matrix, type));
  xpose::Plan plan;
  const xpose::Status created =
      xpose::Plan::create(plan, matrix, type, xpose::Device::cuda, {kernel, 0});
  if (created == xpose::Status::unsupported && kernel != "auto") return;
  ASSERT_EQ(created, xpose::Status::ok) << xpose::last_error_message();
  EXPECT_STRNE(plan.kernel_name(), "auto");

  const Transpose2D problem = problem_for(matrix, type);
  const GuardedBuffer input = make_input(problem);
  GuardedBuffer output = make_output(problem);
  const DeviceCopy d_input(input), d_output(output);
  ASSERT_TRUE(d_input.valid() && d_output.valid());
  ASSERT_EQ(plan.execute(d_input.view(), d_output.view(), stream), xpose::Status::ok)
      << xpose::last_error_message();
  ASSERT_TRUE(cuda_ok(stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize(),
                      "synchronize after execute"));
  ASSERT_TRUE(d_output.copy_back(output));
  *ran = true;
  if (xpose::kernel_transposes(xpose::Device::cuda, kernel))
    EXPECT_TRUE(transposed_correctly(input, output, problem));
  else
    EXPECT_TRUE(copied_correctly(input, output, problem));
}

}  // namespace xpose_test
