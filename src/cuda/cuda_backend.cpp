// Device-side checks for plans and executes: a GPU is visible, pointers are GPU memory, the
// stream is valid.
#include <cstdint>

#include "core/kernel_registry.hpp"
#include "cuda/gpu_runtime.hpp"

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
  return Status::ok;
}

Status cuda_check_pointers(const void* in, const void* out, void* stream) {
  if (Status s = check_device_pointer(in, "in"); s != Status::ok) return s;
  if (Status s = check_device_pointer(out, "out"); s != Status::ok) return s;
  if (stream != nullptr) {
    const cudaError_t e = cudaStreamQuery(static_cast<cudaStream_t>(stream));
    if (e != cudaSuccess && e != cudaErrorNotReady) {
      cudaGetLastError();
      return fail(Status::invalid_argument,
                  message("stream (", stream, ") is not a valid CUDA stream: ", cudaGetErrorString(e)));
    }
  }
  return Status::ok;
}

}  // namespace detail
}  // namespace xpose
