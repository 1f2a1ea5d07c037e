// SPDX-License-Identifier: Apache-2.0
// Device-side checks for plans and executes: a GPU is visible, pointers are GPU memory, the
// stream is valid.
#include <atomic>
#include <cstdint>

#include "core/kernel_registry.hpp"
#include "cuda/architectures.hpp"
#include "cuda/gpu_runtime.hpp"
#include "cuda/kernel_image.hpp"

#ifndef XPOSE_CUDA_ARCHITECTURES_BUILT
#define XPOSE_CUDA_ARCHITECTURES_BUILT ""
#endif

namespace xpose {

bool cuda_compiled() { return true; }

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

namespace detail {
namespace {

Status check_device_pointer(const void* ptr, const char* name) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return fail(Status::invalid_argument,
                message(name, " (", ptr, ") is not a pointer the CUDA runtime knows"));
  }
  if (attributes.type == cudaMemoryTypeUnregistered)
    return fail(Status::invalid_argument,
                message(name, " (", ptr, ") is host memory, but the plan is for Device::cuda"));
  if (attributes.type == cudaMemoryTypeDevice) {
    int current = 0;
    XPOSE_GPU_TRY(cudaGetDevice(&current));
    if (attributes.device != current)
      return fail(Status::invalid_argument,
                  message(name, " (", ptr, ") lives on GPU ", attributes.device,
                          " but the current device is GPU ", current));
  }
  return Status::ok;
}

// A stream must belong to the current device, where the pointers were checked to live: the
// runtime launches a kernel on its stream's device, so a stream of another GPU would run the kernel
// there, on memory that is not its own (an illegal address, which ends the CUDA context, without
// peer access). A stream that is capturing a graph is accepted, and the launches are captured:
// cudaStreamQuery and cudaStreamGetDevice are not permitted on it (they fail and invalidate the
// capture), cudaStreamIsCapturing is, so its device cannot be checked.
Status check_stream(void* handle) {
  const auto stream = static_cast<cudaStream_t>(handle);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(stream, &capture);
  if (e == cudaSuccess && capture != cudaStreamCaptureStatusNone) return Status::ok;
  int device = 0;
  if (e == cudaSuccess) e = cudaStreamGetDevice(stream, &device);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return fail(Status::invalid_argument,
                message("stream (", handle, ") is not a valid CUDA stream: ", cudaGetErrorString(e)));
  }
  int current = 0;
  XPOSE_GPU_TRY(cudaGetDevice(&current));
  if (device != current)
    return fail(Status::invalid_argument, message("stream (", handle, ") belongs to GPU ", device,
                                                  " but the current device is GPU ", current));
  return Status::ok;
}

// Whether the build has code for the current GPU, checked once per device: a GPU outside the
// build's architectures would otherwise fail at the first launch with a bare "no kernel image".
Status check_kernel_image() {
  static std::atomic<bool> loaded[gpu::kMaxCachedDevices];
  int device = 0;
  XPOSE_GPU_TRY(cudaGetDevice(&device));
  if (device < gpu::kMaxCachedDevices && loaded[device].load(std::memory_order_relaxed)) return Status::ok;
  const cudaError_t e = cuda::load_kernel_image();
  if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    cudaDeviceProp properties{};
    XPOSE_GPU_TRY(cudaGetDeviceProperties(&properties, device));
    return fail(Status::unsupported, missing_code_message(properties.name, properties.major, properties.minor,
                                                          XPOSE_CUDA_ARCHITECTURES_BUILT));
  }
  if (Status s = gpu::check(e, "cudaFuncGetAttributes"); s != Status::ok) return s;
  if (device < gpu::kMaxCachedDevices) loaded[device].store(true, std::memory_order_relaxed);
  return Status::ok;
}

}  // namespace

Status cuda_check_available() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    return fail(Status::device_error,
                message("no CUDA device is visible (cudaGetDeviceCount: ",
                        e == cudaSuccess ? "0 devices" : cudaGetErrorString(e), ")"));
  }
  return check_kernel_image();
}

int cuda_current_device() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return device;
}

Status cuda_check_data_pointer(const void* data, void* stream) {
  if (Status s = check_device_pointer(data, "data"); s != Status::ok) return s;
  if (stream != nullptr) return check_stream(stream);
  return Status::ok;
}

Status cuda_check_pointers(const void* in, const void* out, void* stream) {
  if (Status s = check_device_pointer(in, "in"); s != Status::ok) return s;
  if (Status s = check_device_pointer(out, "out"); s != Status::ok) return s;
  if (stream != nullptr) return check_stream(stream);
  return Status::ok;
}

}  // namespace detail
}  // namespace xpose
