// SPDX-License-Identifier: Apache-2.0
// xpose on one GPU: a matrix transpose with padded rows, a plan reused on a stream, and an N-D
// permutation (NCHW -> NHWC), each copied back and checked element by element.
//
// Assumes: a build with the CUDA backend. The xpose calls need only <xpose/xpose.hpp> (device
// pointers and streams are passed as void*); the CUDA runtime is used here to allocate memory,
// copy it and make a stream.
// Exit status: 0 when every result is right, 1 on a wrong element or a failed call, 77 (skipped)
// when no GPU is visible or the build has no CUDA backend.
#include <xpose/xpose.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr int kSkipped = 77;  // what ctest's SKIP_RETURN_CODE expects

bool ok(xpose::Status status, const char* what) {
  if (status == xpose::Status::ok) return true;
  std::fprintf(stderr, "%s failed: %s: %s\n", what, xpose::to_string(status), xpose::last_error_message());
  return false;
}

bool ok(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return true;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(error));
  return false;
}

// Device memory of `count` elements of T, freed when it goes out of scope.
template <typename T>
struct DeviceBuffer {
  T* data = nullptr;
  explicit DeviceBuffer(size_t count) {
    if (cudaMalloc(reinterpret_cast<void**>(&data), count * sizeof(T)) != cudaSuccess) data = nullptr;
  }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace

int main() {
  if (!xpose::cuda_compiled()) {
    std::printf("gpu_transpose: skipped (this build has no CUDA backend)\n");
    return kSkipped;
  }
  if (xpose::cuda_device_count() == 0) {
    std::printf("gpu_transpose: skipped (no CUDA device visible)\n");
    return kSkipped;
  }

  // 1. A 4099 x 3001 f64 matrix whose rows are padded to 3008 elements on the input side.
  //    The padding is never read, and the output's padding (ld_out 4100) is never written.
  const int64_t rows = 4099, cols = 3001, ld_in = 3008, ld_out = 4100;
  std::vector<double> h_in(rows * ld_in, -1.0), h_out(cols * ld_out, -2.0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) h_in[i * ld_in + j] = double(i * cols + j + 1);  // encodes (i, j)
  DeviceBuffer<double> d_in(h_in.size()), d_out(h_out.size());
  if (!d_in.data || !d_out.data) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  if (!ok(cudaMemcpy(d_in.data, h_in.data(), h_in.size() * sizeof(double), cudaMemcpyHostToDevice), "copy in") ||
      !ok(cudaMemcpy(d_out.data, h_out.data(), h_out.size() * sizeof(double), cudaMemcpyHostToDevice), "copy out"))
    return 1;

  cudaStream_t stream = nullptr;
  if (!ok(cudaStreamCreate(&stream), "cudaStreamCreate")) return 1;

  xpose::Matrix m{rows, cols};
  m.ld_in = ld_in;
  m.ld_out = ld_out;
  // Plan once (validation and the kernel's whole launch are chosen here), execute many times.
  xpose::Plan plan;
  if (!ok(xpose::Plan::create(plan, m, xpose::DType::f64, xpose::Device::cuda), "Plan::create")) return 1;
  for (int repeat = 0; repeat < 3; ++repeat)
    if (!ok(plan.execute(d_in.data, d_out.data, stream), "Plan::execute")) return 1;  // asynchronous
  if (!ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) return 1;
  if (!ok(cudaMemcpy(h_out.data(), d_out.data, h_out.size() * sizeof(double), cudaMemcpyDeviceToHost), "copy back"))
    return 1;
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < ld_out; ++i) {
      const double want = i < rows ? h_in[i * ld_in + j] : -2.0;  // padding keeps its old value
      if (h_out[j * ld_out + i] != want) {
        std::fprintf(stderr, "out(%lld, %lld) = %g, expected %g\n", (long long)j, (long long)i, h_out[j * ld_out + i],
                     want);
        return 1;
      }
    }
  std::printf("transpose %lld x %lld f64: kernel %s\n", (long long)rows, (long long)cols, plan.kernel_name());

  // 2. NCHW -> NHWC for f16 data (moved as 2-byte elements: the values are not interpreted).
  const int64_t n = 4, c = 64, h = 56, w = 56;
  std::vector<uint16_t> h_nchw(n * c * h * w), h_nhwc(h_nchw.size());
  for (size_t k = 0; k < h_nchw.size(); ++k) h_nchw[k] = uint16_t(k * 2654435761u >> 16);
  DeviceBuffer<uint16_t> d_nchw(h_nchw.size()), d_nhwc(h_nhwc.size());
  if (!d_nchw.data || !d_nhwc.data) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  if (!ok(cudaMemcpy(d_nchw.data, h_nchw.data(), h_nchw.size() * 2, cudaMemcpyHostToDevice), "copy in")) return 1;
  if (!ok(xpose::permute(d_nchw.data, d_nhwc.data, {n, c, h, w}, {0, 2, 3, 1}, xpose::DType::f16,
                         xpose::Device::cuda, stream),
          "permute"))
    return 1;
  if (!ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize")) return 1;
  if (!ok(cudaMemcpy(h_nhwc.data(), d_nhwc.data, h_nhwc.size() * 2, cudaMemcpyDeviceToHost), "copy back")) return 1;
  for (int64_t in_ = 0; in_ < n; ++in_)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw) {
          const uint16_t want = h_nchw[((in_ * c + ic) * h + ih) * w + iw];
          const uint16_t got = h_nhwc[((in_ * h + ih) * w + iw) * c + ic];
          if (got != want) {
            std::fprintf(stderr, "nhwc(%lld, %lld, %lld, %lld) = %u, expected %u\n", (long long)in_, (long long)ih,
                         (long long)iw, (long long)ic, unsigned(got), unsigned(want));
            return 1;
          }
        }

  // 3. Errors are values: host memory passed as a device pointer is refused before any launch.
  if (plan.execute(h_in.data(), d_out.data, stream) == xpose::Status::ok) {
    std::fprintf(stderr, "a host pointer was accepted for Device::cuda\n");
    return 1;
  }
  std::printf("refused as expected: %s\n", xpose::last_error_message());

  cudaStreamDestroy(stream);
  std::printf("gpu_transpose: all results correct\n");
  return 0;
}
