// SPDX-License-Identifier: Apache-2.0
// The CPU permute kernels a plan can name. The production choice among them is in
// core/permute_plan.cpp (choose_permute_kernel).
#include <memory>
#include <string>

#include "core/permute_registry.hpp"
#include "cpu/permute_blocked.hpp"
#include "cpu/permute_reference.hpp"
#include "cpu/stream_copy.hpp"
#include "cpu/transpose_blocked.hpp"

namespace xpose::detail {
namespace {

// memcpy: the dense input bytes, on all threads (the roofline).
bool prepare_memcpy(const PermuteProblem& problem, const PermuteLayout&, PreparedPermute*, std::string* why) {
  return dense_only(problem, why);
}

Status run_memcpy(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  parallel_memcpy(out, in, prepared.layout.bytes(), ctx.threads);
  return Status::ok;
}

Status run_stream_copy(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  parallel_stream_copy(out, in, prepared.layout.bytes(), ctx.threads);
  return Status::ok;
}

// reference: the definition, on the problem as given.
bool prepare_reference(const PermuteProblem& problem, const PermuteLayout&, PreparedPermute* prepared,
                       std::string*) {
  prepared->data = std::make_shared<PermuteProblem>(problem);
  return true;
}

Status run_reference(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext&) {
  permute_reference(in, out, *static_cast<const PermuteProblem*>(prepared.data.get()));
  return Status::ok;
}

// copy: a layout that moves nothing, as one contiguous block (rank 0 or 1) or as rows (rank 2).
bool prepare_copy(const PermuteProblem&, const PermuteLayout& layout, PreparedPermute*, std::string* why) {
  if (layout.is_block_or_rows_copy()) return true;
  if (why) *why = "it copies layouts that move nothing and have at most one strided axis";
  return false;
}

Status run_copy(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  const PermuteLayout& layout = prepared.layout;
  if (layout.rank <= 1)
    parallel_memcpy(out, in, layout.bytes(), ctx.threads);
  else
    permute_blocked(in, out, layout, ctx.threads);  // rows: one memcpy each, shared by the threads
  return Status::ok;
}

bool prepare_blocked(const PermuteProblem&, const PermuteLayout&, PreparedPermute*, std::string*) {
  return true;
}

Status run_blocked(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext&) {
  permute_blocked(in, out, prepared.layout, 1);
  return Status::ok;
}

Status run_threaded(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  permute_blocked(in, out, prepared.layout, ctx.threads);
  return Status::ok;
}

}  // namespace

const std::vector<PermuteKernel>& cpu_permute_kernels() {
  static const std::vector<PermuteKernel> kernels{
      {"memcpy", Device::cpu, false, "memcpy of the same bytes on all threads (the roofline)",
       prepare_memcpy, run_memcpy},
      {"stream_copy", Device::cpu, false,
       "copy of the dense bytes with streaming stores on all threads (the ceiling without reads "
       "for ownership)",
       prepare_memcpy, run_stream_copy},
      {"reference", Device::cpu, true, "plain loops over the problem as given: the definition",
       prepare_reference, run_reference},
      {"copy", Device::cpu, true, "a layout that moves nothing: memcpy of the block or of its rows",
       prepare_copy, run_copy},
      {"transpose2d", Device::cpu, true,
       "a (batched) 2D layout: the production 2D kernel (blocked or threaded)", prepare_transpose2d,
       run_transpose2d, describe_transpose2d},
      {"blocked", Device::cpu, true, "tiles of the two inner axes, one thread", prepare_blocked, run_blocked},
      {"threaded", Device::cpu, true, "tiles of the two inner axes, all threads", prepare_blocked,
       run_threaded},
  };
  return kernels;
}

}  // namespace xpose::detail
