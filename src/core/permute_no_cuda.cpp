// The CUDA side of the permute registry for builds without nvcc: no kernels (Plan::create_permute
// reports that CUDA is not compiled in before it looks for one).
#include "core/permute_registry.hpp"

namespace xpose::detail {

const std::vector<PermuteKernel>& cuda_permute_kernels() {
  static const std::vector<PermuteKernel> none;
  return none;
}

}  // namespace xpose::detail
