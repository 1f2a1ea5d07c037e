// SPDX-License-Identifier: Apache-2.0
// A permute plan: the validated problem, and the kernel chosen and prepared for its normalised
// layout. Plan (core/plan.cpp) holds one of these for a plan made by Plan::create_permute.
#pragma once

#include "core/permute_problem.hpp"
#include "core/permute_registry.hpp"

namespace xpose::detail {

struct PermutePlan {
  PermuteProblem problem;
  Device device = Device::cpu;
  int threads = 0;
  PreparedPermute primary;
  // Runs when the pointers are not aligned as the primary kernel needs (it was prepared for wider
  // elements than the dtype's); kernel is null when the primary needs no more than the dtype.
  PreparedPermute fallback;
};

// Normalises a validated problem and chooses the kernel: options.kernel is "auto" or a name of
// permute_kernel_names(device). On failure records the message and leaves `plan` unchanged.
Status make_permute_plan(PermuteProblem problem, Device device, const PlanOptions& options,
                         PermutePlan* plan);

Status execute_permute_plan(const PermutePlan& plan, const void* in, void* out, void* stream);

// The production choice for a validated, non-empty problem (both layouts from it): `primary`, and
// `fallback` when the primary needs more alignment than the element size.
void choose_permute_kernel(Device device, const PermuteProblem& problem, const PermuteLayout& layout,
                           PreparedPermute* primary, PreparedPermute* fallback);

}  // namespace xpose::detail
