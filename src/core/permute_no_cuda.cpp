// SPDX-License-Identifier: Apache-2.0
// The CUDA side of the permute registry for builds without the CUDA backend: no kernels
// (Plan::create_permute reports that the backend was not built before it looks for one).
#include "core/permute_registry.hpp"

namespace xpose::detail {

const std::vector<PermuteKernel>& cuda_permute_kernels() {
  static const std::vector<PermuteKernel> none;
  return none;
}

}  // namespace xpose::detail
