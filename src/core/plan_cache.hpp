// SPDX-License-Identifier: Apache-2.0
// The plans of the one-shot calls (xpose::transpose, xpose::permute): a bounded, thread-safe,
// least-recently-used cache keyed by everything a plan depends on, so that a repeated call costs
// a lookup instead of a validation, a kernel choice and the device checks of Plan::create.
#pragma once

#include <cstddef>

#include "xpose/xpose.hpp"

namespace xpose::detail {

// The plan for a one-shot call with default options, created (and cached) on a miss. On failure
// returns Plan::create's status and message and caches nothing.
Status cached_plan(const Matrix& matrix, DType type, Device device, Plan* plan);
Status cached_permute_plan(const Permutation& permutation, DType type, Device device, Plan* plan);

}  // namespace xpose::detail
