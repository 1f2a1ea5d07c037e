// SPDX-License-Identifier: Apache-2.0
// The permute kernels a plan can choose, per device. A kernel prepares its launch data once per
// plan (for the normalised layout it is given) and runs many times with it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/kernel_registry.hpp"
#include "core/permute_layout.hpp"
#include "core/permute_problem.hpp"

namespace xpose::detail {

struct PermuteKernel;

// What a kernel prepared for one layout: everything execute() needs besides the pointers.
struct PreparedPermute {
  const PermuteKernel* kernel = nullptr;
  PermuteLayout layout;              // the layout it runs (normalised, possibly widened)
  int alignment = 1;                 // bytes to which both pointers must be aligned
  std::string name;                  // as Plan::kernel_name() reports it ("transpose2d:tile")
  std::shared_ptr<const void> data;  // the kernel's own launch data
  // The shorter of the contiguous runs the kernel reads and writes, in bytes, where the kernel
  // states it (0 otherwise): "auto" takes packed over a kernel whose runs are short.
  int64_t shorter_run_bytes = 0;
  // The widest global access the kernel makes, in bytes, where the kernel states it (0 otherwise).
  int access_bytes = 0;
  // Tiled kernels: the tensor's bytes over the number of tiles (what a block moves per tile).
  int64_t bytes_per_tile = 0;
};

struct PermuteKernel {
  const char* name;
  Device device;
  bool permutes;  // false for the memcpy baseline: it copies the dense input bytes
  const char* summary;
  // Prepares `prepared` (kernel, layout and name are already set) for `layout`; false with `why`
  // when the kernel cannot run it. `problem` is the validated problem the layout came from.
  bool (*prepare)(const PermuteProblem& problem, const PermuteLayout& layout, PreparedPermute* prepared,
                  std::string* why);
  // Runs a prepared kernel; the arguments are validated and the problem is not empty.
  Status (*run)(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx);
  // What the prepared kernel launches, as Plan::describe() reports it after the name; nullptr
  // where the name says it all.
  std::string (*describe)(const PreparedPermute& prepared) = nullptr;
};

const std::vector<PermuteKernel>& cpu_permute_kernels();
// Empty when the build has no CUDA backend.
const std::vector<PermuteKernel>& cuda_permute_kernels();
const PermuteKernel* find_permute_kernel(Device device, const std::string& name);

// Prepares `kernel` for `layout`; false with `why` when it cannot run it.
bool prepare_permute(const PermuteKernel& kernel, const PermuteProblem& problem,
                     const PermuteLayout& layout, PreparedPermute* prepared, std::string* why);

// Shared by both devices.
// memcpy baseline: dense views only (the bytes are copied as one block).
bool dense_only(const PermuteProblem& problem, std::string* why);
// transpose2d: a layout that is a (batched) 2D transpose runs on the production 2D kernel that
// choose_cpu_kernel / choose_cuda_kernel picks for it.
bool prepare_transpose2d(const PermuteProblem& problem, const PermuteLayout& layout,
                         PreparedPermute* prepared, std::string* why);
Status run_transpose2d(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx);
// The chosen 2D kernel's describe, for the 2D problem the layout became.
std::string describe_transpose2d(const PreparedPermute& prepared);

}  // namespace xpose::detail
