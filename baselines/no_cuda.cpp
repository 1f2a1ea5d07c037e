// SPDX-License-Identifier: Apache-2.0
// Builds without a CUDA backend have no GPU baselines to register.
#include "baselines/baselines.hpp"

namespace xpose::baselines {

Status register_kernels() { return Status::ok; }

}  // namespace xpose::baselines
