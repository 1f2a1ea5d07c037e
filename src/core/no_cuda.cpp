// SPDX-License-Identifier: Apache-2.0
// The CUDA side of the registry for builds without the CUDA backend (XPOSE_WITH_CUDA=OFF, or no
// nvcc at configure time): no kernels, and an error that says the backend was not built.
#include "core/error.hpp"
#include "core/inplace.hpp"
#include "core/kernel_registry.hpp"

namespace xpose {

bool cuda_compiled() { return false; }
int cuda_device_count() { return 0; }

namespace detail {

const std::vector<Kernel>& cuda_kernels() {
  static const std::vector<Kernel> none;
  return none;
}

const Kernel* choose_cuda_kernel(const Transpose2D&) { return nullptr; }

Status cuda_check_available() {
  return fail(Status::unsupported,
              "Device::cuda: this xpose build has no CUDA backend (the library was built without it)");
}

Status cuda_check_pointers(const void*, const void*, void*) { return cuda_check_available(); }
Status cuda_check_data_pointer(const void*, void*) { return cuda_check_available(); }

int cuda_current_device() { return 0; }

Status cuda_transpose_inplace(void*, const InplaceProblem&, void*) { return cuda_check_available(); }
int64_t cuda_inplace_scratch_bytes(const InplaceProblem&) { return 0; }

}  // namespace detail
}  // namespace xpose
