// The distributed transpose: a pipeline of pack (local transpose into a send slot), exchange
// (grouped NCCL send/receive) and place (2D copy from a receive slot into the output block),
// on three internal streams, two slots each, so that step s+1's packing and step s-1's placing
// run while step s is on the wire. The block that stays on the rank is transposed on the
// caller's stream meanwhile. docs/distributed.md has the picture and the figures.
#include <cuda_runtime.h>

#include <map>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "dist/place_kernel.hpp"
#include "dist/schedule.hpp"
#include "xpose/dist.hpp"

namespace xpose::dist {
namespace {

using xpose::detail::fail;
using xpose::detail::message;

Status check_cuda(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::ok;
  cudaGetLastError();
  return fail(e == cudaErrorMemoryAllocation ? Status::out_of_memory : Status::device_error,
              message(what, ": ", cudaGetErrorString(e)));
}

Status check_nccl(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return Status::ok;
  return fail(r == ncclInvalidArgument || r == ncclInvalidUsage ? Status::invalid_argument
                                                                 : Status::device_error,
              message(what, ": ", ncclGetErrorString(r)));
}

#define XPOSE_DIST_TRY(expr)                                   \
  do {                                                         \
    if (::xpose::Status s_ = (expr); s_ != ::xpose::Status::ok) \
      return s_;                                               \
  } while (0)
#define XPOSE_CUDA(call) XPOSE_DIST_TRY(check_cuda((call), #call))
#define XPOSE_NCCL(call) XPOSE_DIST_TRY(check_nccl((call), #call))

// Makes `device` current for its lifetime and restores the caller's device afterwards.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&saved_) != cudaSuccess) saved_ = -1;
    if (saved_ != device) cudaSetDevice(device);
  }
  ~DeviceScope() {
    if (saved_ >= 0) cudaSetDevice(saved_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace

struct Plan::Impl {
  ncclComm_t comm = nullptr;
  int rank = 0, ranks = 0, device = 0;
  Layout layout;
  DType type = DType::u8;
  int64_t elem_size = 1;
  detail::Schedule schedule;

  void* workspace = nullptr;
  int64_t workspace_bytes = 0;
  bool workspace_from_nccl = false;    // ncclMemAlloc (else cudaMalloc)
  void* workspace_registration = nullptr;  // ncclCommRegister's handle
  unsigned char* send_slot[2] = {nullptr, nullptr};
  unsigned char* receive_slot[2] = {nullptr, nullptr};
  // Pack and exchange run at the highest priority, so that the diagonal transpose on the caller's
  // stream yields to them; other choices measured within 3 points (docs/distributed.md).
  cudaStream_t pack_stream = nullptr, exchange_stream = nullptr, place_stream = nullptr;
  cudaEvent_t fork = nullptr;
  cudaEvent_t packed[2] = {nullptr, nullptr};     // slot s % 2 of send holds step s
  cudaEvent_t exchanged[2] = {nullptr, nullptr};  // step s sent (send slot free) and received
  cudaEvent_t placed[2] = {nullptr, nullptr};     // receive slot free again

  xpose::Plan self_plan;                                        // the block that stays
  std::map<std::pair<int64_t, int64_t>, xpose::Plan> pack_plans;  // by (rows, cols) of a send

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  ~Impl() {
    DeviceScope scope(device);
    // Work of the last execute may still be in flight on the internal streams.
    for (cudaStream_t s : {pack_stream, exchange_stream, place_stream})
      if (s != nullptr) cudaStreamSynchronize(s);
    for (cudaEvent_t e : {fork, packed[0], packed[1], exchanged[0], exchanged[1], placed[0], placed[1]})
      if (e != nullptr) cudaEventDestroy(e);
    for (cudaStream_t s : {pack_stream, exchange_stream, place_stream})
      if (s != nullptr) cudaStreamDestroy(s);
    if (workspace_registration != nullptr) ncclCommDeregister(comm, workspace_registration);
    if (workspace != nullptr) {
      if (workspace_from_nccl)
        ncclMemFree(workspace);
      else
        cudaFree(workspace);
    }
  }

  Status allocate_workspace(bool register_with_nccl) {
    const auto bytes = static_cast<size_t>(workspace_bytes);
    const char* allocator = register_with_nccl ? "ncclMemAlloc" : "cudaMalloc";
    std::string why;
    if (register_with_nccl) {
      const ncclResult_t r = ncclMemAlloc(&workspace, bytes);
      if (r != ncclSuccess) {
        workspace = nullptr;
        why = ncclGetErrorString(r);
      }
    } else {
      const cudaError_t e = cudaMalloc(&workspace, bytes);
      if (e != cudaSuccess) {
        workspace = nullptr;
        why = cudaGetErrorString(e);
      }
    }
    cudaGetLastError();
    if (workspace == nullptr) {
      size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      return fail(Status::out_of_memory,
                  message("the distributed transpose's workspace (", workspace_bytes, " bytes, ", allocator,
                          ") does not fit on GPU ", device, " (", free_bytes, " bytes free): ", why));
    }
    workspace_from_nccl = register_with_nccl;
    if (register_with_nccl) XPOSE_NCCL(ncclCommRegister(comm, workspace, bytes, &workspace_registration));
    return Status::ok;
  }

  Status init(const Options& dist_options) {
    DeviceScope scope(device);
    int least = 0, greatest = 0;
    XPOSE_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&pack_stream, cudaStreamNonBlocking, greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&exchange_stream, cudaStreamNonBlocking, greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&place_stream, cudaStreamNonBlocking, least));
    for (cudaEvent_t* e : {&fork, &packed[0], &packed[1], &exchanged[0], &exchanged[1], &placed[0], &placed[1]})
      XPOSE_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));

    workspace_bytes = 2 * (schedule.send_slot_bytes + schedule.receive_slot_bytes);
    if (workspace_bytes > 0) {
      XPOSE_DIST_TRY(allocate_workspace(dist_options.register_workspace));
      unsigned char* base = static_cast<unsigned char*>(workspace);
      send_slot[0] = base;
      send_slot[1] = base + schedule.send_slot_bytes;
      receive_slot[0] = base + 2 * schedule.send_slot_bytes;
      receive_slot[1] = receive_slot[0] + schedule.receive_slot_bytes;
    }

    // The local transposes are production 2D plans: the pack reads a column range of the input
    // block (leading dimension ld_in) and writes it packed; the self block writes into the
    // output block (leading dimension ld_out).
    const PlanOptions options;
    Matrix self{schedule.self_rows, schedule.self_cols, layout.ld_in, layout.ld_out};
    if (Status s = xpose::Plan::create(self_plan, self, type, Device::cuda, options); s != Status::ok) return s;
    for (const detail::Step& step : schedule.steps)
      for (const detail::Send& send : step.sends) {
        auto key = std::make_pair(send.rows, send.cols);
        if (pack_plans.count(key) != 0) continue;
        Matrix pack{send.rows, send.cols, layout.ld_in, send.rows};
        if (Status s = xpose::Plan::create(pack_plans[key], pack, type, Device::cuda, options); s != Status::ok)
          return s;
      }
    return Status::ok;
  }

  int64_t in_block_bytes() const {
    const int64_t rows = layout.in_rows[rank];
    return rows == 0 || layout.cols == 0 ? 0 : ((rows - 1) * layout.ld_in + layout.cols) * elem_size;
  }
  int64_t out_block_bytes() const {
    const int64_t rows = layout.out_rows[rank];
    return rows == 0 || layout.rows == 0 ? 0 : ((rows - 1) * layout.ld_out + layout.rows) * elem_size;
  }
};

namespace {

Status check_device_pointer(const void* ptr, const char* name, int device) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    cudaGetLastError();
    return fail(Status::invalid_argument, message(name, " (", ptr, ") is not a pointer the CUDA runtime knows"));
  }
  if (attributes.type == cudaMemoryTypeUnregistered || attributes.type == cudaMemoryTypeHost)
    return fail(Status::invalid_argument, message(name, " (", ptr, ") is host memory; the plan needs memory of GPU ", device));
  if (attributes.type == cudaMemoryTypeDevice && attributes.device != device)
    return fail(Status::invalid_argument,
                message(name, " (", ptr, ") lives on GPU ", attributes.device, " but the plan's communicator is on GPU ", device));
  return Status::ok;
}

// Everything that can be checked before anything is launched, so a bad call changes nothing.
Status check_execution(const Execution& x, const Plan::Impl& impl) {
  const int64_t in_bytes = impl.in_block_bytes(), out_bytes = impl.out_block_bytes();
  DeviceScope scope(impl.device);
  if (in_bytes > 0) {
    if (x.in == nullptr)
      return fail(Status::invalid_argument, message("in is null but rank ", impl.rank, " holds ",
                                                    impl.layout.in_rows[impl.rank], " rows of the input"));
    XPOSE_DIST_TRY(check_device_pointer(x.in, "in", impl.device));
  }
  if (out_bytes > 0) {
    if (x.out == nullptr)
      return fail(Status::invalid_argument, message("out is null but rank ", impl.rank, " receives ",
                                                    impl.layout.out_rows[impl.rank], " rows of the output"));
    XPOSE_DIST_TRY(check_device_pointer(x.out, "out", impl.device));
  }
  if (in_bytes > 0 && out_bytes > 0) {
    const auto* in = static_cast<const unsigned char*>(x.in);
    const auto* out = static_cast<const unsigned char*>(x.out);
    if (in < out + out_bytes && out < in + in_bytes)
      return fail(Status::invalid_argument, message("in (", x.in, ", ", in_bytes, " bytes) and out (", x.out,
                                                    ", ", out_bytes, " bytes) overlap"));
  }
  // The stream must belong to the plan's GPU: the runtime would launch the diagonal transpose on
  // the stream's own device, on memory that is not its own. A stream capturing a graph cannot be
  // asked its device (that ends the capture); it is accepted and the launches are captured.
  if (x.stream != nullptr) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t e = cudaStreamIsCapturing(x.stream, &capture);
    int stream_device = impl.device;
    if (e == cudaSuccess && capture == cudaStreamCaptureStatusNone) e = cudaStreamGetDevice(x.stream, &stream_device);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return fail(Status::invalid_argument, message("stream (", static_cast<void*>(x.stream),
                                                    ") is not a valid CUDA stream: ", cudaGetErrorString(e)));
    }
    if (stream_device != impl.device)
      return fail(Status::invalid_argument, message("stream (", static_cast<void*>(x.stream), ") belongs to GPU ",
                                                    stream_device, " but the plan's communicator is on GPU ",
                                                    impl.device));
  }
  return Status::ok;
}

}  // namespace

Plan::Plan() = default;
Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

Status Plan::create(Plan& plan, ncclComm_t comm, const Layout& layout, DType type, const Options& options) {
  if (comm == nullptr) return fail(Status::invalid_argument, "comm is null");
  if (options.step_bytes < 0)
    return fail(Status::invalid_argument, message("options.step_bytes (", options.step_bytes, ") is negative"));
  auto impl = std::make_unique<Impl>();
  impl->comm = comm;
  XPOSE_NCCL(ncclCommCount(comm, &impl->ranks));
  XPOSE_NCCL(ncclCommUserRank(comm, &impl->rank));
  XPOSE_NCCL(ncclCommCuDevice(comm, &impl->device));
  XPOSE_DIST_TRY(validate_layout(layout, impl->ranks, type));
  impl->layout = layout;
  if (impl->layout.ld_in == 0) impl->layout.ld_in = layout.cols;
  if (impl->layout.ld_out == 0) impl->layout.ld_out = layout.rows;
  impl->type = type;
  impl->elem_size = static_cast<int64_t>(size_of(type));
  impl->schedule = detail::make_schedule(impl->layout, impl->rank, impl->elem_size, options.step_bytes);
  XPOSE_DIST_TRY(impl->init(options));
  plan.impl_ = std::move(impl);
  xpose::detail::clear_error();
  return Status::ok;
}

Status Plan::execute(const void* in, void* out, cudaStream_t stream) const {
  const Execution execution{this, in, out, stream};
  return execute_group(&execution, 1);
}

bool Plan::valid() const { return impl_ != nullptr; }
int Plan::rank() const { return impl_ ? impl_->rank : -1; }
int Plan::ranks() const { return impl_ ? impl_->ranks : 0; }
int Plan::device() const { return impl_ ? impl_->device : -1; }
const Layout& Plan::layout() const {
  static const Layout empty;
  return impl_ ? impl_->layout : empty;
}
DType Plan::dtype() const { return impl_ ? impl_->type : DType::u8; }
int Plan::steps() const { return impl_ ? static_cast<int>(impl_->schedule.steps.size()) : 0; }
int64_t Plan::workspace_bytes() const { return impl_ ? impl_->workspace_bytes : 0; }

Status execute_group(const Execution* executions, int count) {
  if (count < 0 || (count > 0 && executions == nullptr))
    return fail(Status::invalid_argument, message("executions (", static_cast<const void*>(executions),
                                                  ", count ", count, ") is not an array of executions"));
  int steps = -1;
  for (int m = 0; m < count; ++m) {
    if (executions[m].plan == nullptr || !executions[m].plan->valid())
      return fail(Status::invalid_argument, message("executions[", m, "].plan is not a created plan"));
    XPOSE_DIST_TRY(check_execution(executions[m], *executions[m].plan->impl_));
    const int member_steps = executions[m].plan->steps();
    if (steps >= 0 && member_steps != steps)
      return fail(Status::invalid_argument,
                  message("executions[", m, "] has ", member_steps, " steps but executions[0] has ", steps,
                          ": the plans were created with different layouts or options"));
    steps = member_steps;
    for (int k = 0; k < m; ++k)
      if (executions[k].plan == executions[m].plan)
        return fail(Status::invalid_argument, message("executions[", k, "] and [", m, "] use the same plan"));
  }
  struct Member {
    const Plan::Impl* impl;
    const unsigned char* in;
    unsigned char* out;
    cudaStream_t stream;
  };
  std::vector<Member> members;
  for (int m = 0; m < count; ++m)
    members.push_back({executions[m].plan->impl_.get(), static_cast<const unsigned char*>(executions[m].in),
                       static_cast<unsigned char*>(executions[m].out), executions[m].stream});
  int caller_device = 0;
  XPOSE_CUDA(cudaGetDevice(&caller_device));
  const DeviceScope restore_on_return(caller_device);  // the loops below switch devices

  // Fork: the internal streams start after the work already on the caller's stream. The block
  // that stays on the rank is transposed on the caller's stream while the pipeline runs.
  for (const Member& x : members) {
    const Plan::Impl& p = *x.impl;
    XPOSE_CUDA(cudaSetDevice(p.device));
    XPOSE_CUDA(cudaEventRecord(p.fork, x.stream));
    for (cudaStream_t s : {p.pack_stream, p.exchange_stream, p.place_stream})
      XPOSE_CUDA(cudaStreamWaitEvent(s, p.fork, 0));
    const detail::Schedule& d = p.schedule;
    if (d.self_rows > 0 && d.self_cols > 0)
      XPOSE_DIST_TRY(p.self_plan.execute(x.in + d.self_in_col * p.elem_size,
                                         x.out + d.self_out_col * p.elem_size, x.stream));
  }

  // Each stage of step s, for every member. The host issues step s+1's packing before step s's
  // exchange, so the packing never waits behind a host call that returns late (ncclGroupEnd).
  auto pack = [&](int s) -> Status {
    const int slot = s % 2;
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      // Once the exchange that last read this send slot is done.
      XPOSE_CUDA(cudaStreamWaitEvent(p.pack_stream, p.exchanged[slot], 0));
      for (const detail::Send& send : p.schedule.steps[s].sends)
        XPOSE_DIST_TRY(p.pack_plans.at({send.rows, send.cols})
                           .execute(x.in + send.in_col * p.elem_size, p.send_slot[slot] + send.slot_offset,
                                    p.pack_stream));
      XPOSE_CUDA(cudaEventRecord(p.packed[slot], p.pack_stream));
    }
    return Status::ok;
  };
  auto exchange = [&](int s) -> Status {
    const int slot = s % 2;
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      // After the packing, and after the placing that last read this receive slot.
      XPOSE_CUDA(cudaStreamWaitEvent(p.exchange_stream, p.packed[slot], 0));
      XPOSE_CUDA(cudaStreamWaitEvent(p.exchange_stream, p.placed[slot], 0));
    }
    // Every member's sends and receives of this step in one NCCL group (required when one
    // thread drives several ranks; merely efficient otherwise).
    XPOSE_NCCL(ncclGroupStart());
    ncclResult_t queued = ncclSuccess;
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      for (const detail::Send& send : p.schedule.steps[s].sends)
        if (queued == ncclSuccess)
          queued = ncclSend(p.send_slot[slot] + send.slot_offset, static_cast<size_t>(send.bytes), ncclUint8,
                            send.peer, p.comm, p.exchange_stream);
      for (const detail::Receive& receive : p.schedule.steps[s].receives)
        if (queued == ncclSuccess)
          queued = ncclRecv(p.receive_slot[slot] + receive.slot_offset, static_cast<size_t>(receive.bytes),
                            ncclUint8, receive.peer, p.comm, p.exchange_stream);
    }
    // The group is closed even when a call failed, so NCCL is not left inside it.
    const ncclResult_t ended = ncclGroupEnd();
    XPOSE_DIST_TRY(check_nccl(queued, "ncclSend/ncclRecv"));
    XPOSE_DIST_TRY(check_nccl(ended, "ncclGroupEnd"));
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaEventRecord(p.exchanged[slot], p.exchange_stream));
    }
    return Status::ok;
  };
  auto place = [&](int s) -> Status {
    const int slot = s % 2;
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(p.place_stream, p.exchanged[slot], 0));
      const int64_t pitch = p.layout.ld_out * p.elem_size;
      for (const detail::Receive& r : p.schedule.steps[s].receives) {
        unsigned char* to = x.out + (r.out_row * p.layout.ld_out + r.out_col) * p.elem_size;
        const unsigned char* from = p.receive_slot[slot] + r.slot_offset;
        const int64_t width = r.cols * p.elem_size;
        XPOSE_CUDA(detail::launch_copy_2d(to, pitch, from, width, width, r.rows, p.place_stream));
      }
      XPOSE_CUDA(cudaEventRecord(p.placed[slot], p.place_stream));
    }
    return Status::ok;
  };
  if (steps > 0) XPOSE_DIST_TRY(pack(0));
  for (int s = 0; s < steps; ++s) {
    if (s + 1 < steps) XPOSE_DIST_TRY(pack(s + 1));
    XPOSE_DIST_TRY(exchange(s));
    XPOSE_DIST_TRY(place(s));
  }

  // Join: the caller's stream continues after the last placement, which follows every exchange
  // and so every pack of this execute.
  if (steps > 0)
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(x.stream, p.placed[(steps - 1) % 2], 0));
    }
  xpose::detail::clear_error();
  return Status::ok;
}

}  // namespace xpose::dist
