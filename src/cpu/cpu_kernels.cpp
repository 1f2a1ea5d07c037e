// SPDX-License-Identifier: Apache-2.0
// The CPU kernels a plan can name, and the production choice among them.
#include "core/kernel_registry.hpp"
#include "cpu/reference.hpp"
#include "cpu/stream_copy.hpp"
#include "cpu/transpose_blocked.hpp"

namespace xpose::detail {
namespace {

Status run_memcpy(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  parallel_memcpy(out, in, p.bytes(), ctx.threads);
  return Status::ok;
}

Status run_stream_copy(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  parallel_stream_copy(out, in, p.bytes(), ctx.threads);
  return Status::ok;
}

Status run_reference(const void* in, void* out, const Transpose2D& p, const LaunchContext&) {
  transpose_reference(in, out, p);
  return Status::ok;
}

Status run_blocked(const void* in, void* out, const Transpose2D& p, const LaunchContext&) {
  transpose_blocked(in, out, p, 1);
  return Status::ok;
}

Status run_threaded(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  transpose_blocked(in, out, p, ctx.threads);
  return Status::ok;
}

}  // namespace

const std::vector<Kernel>& cpu_kernels() {
  static const std::vector<Kernel> kernels{
      {"memcpy", Device::cpu, false, "memcpy of the same bytes on all threads (the roofline)",
       supports_packed_only, run_memcpy},
      {"stream_copy", Device::cpu, false,
       "copy of the same bytes with streaming stores on all threads (the ceiling without reads "
       "for ownership)",
       supports_packed_only, run_stream_copy},
      {"reference", Device::cpu, true, "plain loops: the definition", supports_all, run_reference},
      {"blocked", Device::cpu, true, "cache-blocked, one thread", supports_all, run_blocked},
      {"threaded", Device::cpu, true, "cache-blocked, all threads", supports_all, run_threaded},
  };
  return kernels;
}

const Kernel* choose_cpu_kernel(const Transpose2D& p) {
  return find_kernel(Device::cpu, p.bytes() >= kCpuThreadedFromBytes ? "threaded" : "blocked");
}

}  // namespace xpose::detail
