// SPDX-License-Identifier: Apache-2.0
// The distributed transpose, a pipeline of steps on internal streams with two send slots and two
// receive slots (three for the copy engine): pack (local transpose into a send slot), exchange, and place (2D copy from a receive
// slot into the output block), so that step s+1's packing and step s-1's placing run while step
// s is on the wire. The exchange is either grouped NCCL send/receive, or a copy-engine copy into
// the peer's receive slot (NCCL symmetric memory) followed by a one-byte all-reduce that orders
// it before the peer's placing. Either way the block that stays on the rank is transposed on the
// caller's stream meanwhile. docs/distributed.md has the pictures and the figures.
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "dist/place_kernel.hpp"
#include "dist/schedule.hpp"
#include "dist/window.hpp"
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

constexpr int64_t kSendReceiveStepBytes = int64_t{1} << 30;
// The copy engine's automatic steps: about kCopyEngineSteps per pair, each within the bounds.
// Eight steps measured best for 65536^2 float32 (512 MiB steps) and float64 (1 GiB) on two H200s:
// fewer leave more of the first packing and the last placing exposed, more cost more per step
// (docs/distributed.md). The upper bound keeps the workspace (five steps' worth) in proportion.
constexpr int64_t kCopyEngineSteps = 8;
constexpr int64_t kCopyEngineMinStepBytes = int64_t{256} << 20;
constexpr int64_t kCopyEngineMaxStepBytes = int64_t{2} << 30;
// Receive slots of the copy engine: with three, step s's copy needs only barrier s-2 (the peers
// placed step s-3, the slot's last user), long done, so the copies run back to back instead of
// each waiting for the barrier just before it and so for the peer's latest placing (two slots
// measured 1.9-3.0 ms slower for 65536^2 float32 on two H200s, docs/distributed.md).
constexpr int kCopyEngineReceiveSlots = 3;

}  // namespace

struct Plan::Impl {
  ncclComm_t comm = nullptr;
  int rank = 0, ranks = 0, device = 0;
  Layout layout;
  DType type = DType::u8;
  int64_t elem_size = 1;
  detail::Schedule schedule;
  Exchange exchange = Exchange::send_receive;

  void* workspace = nullptr;
  int64_t workspace_bytes = 0;
  bool workspace_from_nccl = false;    // ncclMemAlloc (else cudaMalloc)
  void* workspace_registration = nullptr;  // ncclCommRegister's handle
  unsigned char* send_slot[2] = {nullptr, nullptr};
  unsigned char* receive_slot[kCopyEngineReceiveSlots] = {nullptr, nullptr, nullptr};
  int receive_slots = 2;                // 3 for the copy engine
  int64_t receive_slot_stride = 0;      // bytes from one receive slot to the next
  // Pack and exchange run at the highest priority, so that the diagonal transpose on the caller's
  // stream yields to them; other choices measured within 3 points (docs/distributed.md). The copy
  // stream only queues copy-engine work.
  cudaStream_t pack_stream = nullptr, exchange_stream = nullptr, place_stream = nullptr, copy_stream = nullptr;
  cudaEvent_t fork = nullptr;
  cudaEvent_t packed[2] = {nullptr, nullptr};     // send slot k holds its step
  cudaEvent_t exchanged[2] = {nullptr, nullptr};  // send slot k has left (sent, or copied out): free again
  // Receive slot k holds its step: received, or copied in by every peer (the barrier after them).
  cudaEvent_t landed[kCopyEngineReceiveSlots] = {nullptr, nullptr, nullptr};
  cudaEvent_t placed[kCopyEngineReceiveSlots] = {nullptr, nullptr, nullptr};  // receive slot k free again
  // Steps issued by earlier executes: slot numbers count steps across executes.
  mutable int64_t steps_issued = 0;
  // An execute failed after it had issued part of its pipeline: this rank's slots and events no
  // longer match its peers', so the plan refuses further executes.
  mutable bool broken = false;

  // Copy engine: the receive slots are NCCL symmetric memory, one window of the same size on
  // every rank (each slot of the largest rank's size); the send slots and the barrier's byte are
  // plain device memory.
  ncclWindow_t window = nullptr;
  int64_t window_bytes = 0;                    // the receive slots, all of `workspace`
  std::vector<unsigned char*> peer_workspace;  // every rank's window, as this GPU addresses it
  void* send_workspace = nullptr;
  unsigned char* barrier_byte = nullptr;

  xpose::Plan self_plan;                                        // the block that stays
  std::map<std::pair<int64_t, int64_t>, xpose::Plan> pack_plans;  // by (rows, cols) of a send

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  ~Impl() {
    DeviceScope scope(device);
    // Work of the last execute may still be in flight on the internal streams.
    for (cudaStream_t s : {pack_stream, exchange_stream, place_stream, copy_stream})
      if (s != nullptr) cudaStreamSynchronize(s);
    for (cudaEvent_t e : all_events())
      if (e != nullptr) cudaEventDestroy(e);
    for (cudaStream_t s : {pack_stream, exchange_stream, place_stream, copy_stream})
      if (s != nullptr) cudaStreamDestroy(s);
    if (barrier_byte != nullptr) cudaFree(barrier_byte);
    if (send_workspace != nullptr) cudaFree(send_workspace);
    // Deregistering a window is local to the rank (each rank unmaps its view of the others).
    if (window != nullptr) ncclCommWindowDeregister(comm, window);
    if (workspace_registration != nullptr) ncclCommDeregister(comm, workspace_registration);
    if (workspace != nullptr) {
      if (workspace_from_nccl)
        ncclMemFree(workspace);
      else
        cudaFree(workspace);
    }
  }

  std::vector<cudaEvent_t> all_events() const {
    return {fork, packed[0], packed[1], exchanged[0], exchanged[1], landed[0], landed[1], landed[2],
            placed[0], placed[1], placed[2]};
  }

  Status allocate_workspace(int64_t size, bool register_with_nccl) {
    const auto bytes = static_cast<size_t>(size);
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
                  message("the distributed transpose's workspace (", size, " bytes, ", allocator,
                          ") does not fit on GPU ", device, " (", free_bytes, " bytes free): ", why));
    }
    workspace_from_nccl = register_with_nccl;
    // The copy engine registers the workspace as a window instead, collectively (create_group).
    if (register_with_nccl && exchange == Exchange::send_receive)
      XPOSE_NCCL(ncclCommRegister(comm, workspace, bytes, &workspace_registration));
    return Status::ok;
  }

  // Everything a plan needs that does not involve the other ranks: streams, events, workspace,
  // the local transposes.
  Status init(const Options& dist_options) {
    DeviceScope scope(device);
    int least = 0, greatest = 0;
    XPOSE_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&pack_stream, cudaStreamNonBlocking, greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&exchange_stream, cudaStreamNonBlocking, greatest));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&place_stream, cudaStreamNonBlocking, least));
    XPOSE_CUDA(cudaStreamCreateWithPriority(&copy_stream, cudaStreamNonBlocking, greatest));
    for (cudaEvent_t* e : {&fork, &packed[0], &packed[1], &exchanged[0], &exchanged[1], &landed[0], &landed[1],
                           &landed[2], &placed[0], &placed[1], &placed[2]})
      XPOSE_CUDA(cudaEventCreateWithFlags(e, cudaEventDisableTiming));

    const bool copy_engine = exchange == Exchange::copy_engine;
    receive_slots = copy_engine ? kCopyEngineReceiveSlots : 2;
    int64_t workspace_size = 0;  // the one buffer `workspace`
    if (copy_engine) {
      receive_slot_stride = (schedule.largest_receive_slot_bytes + 4095) / 4096 * 4096;
      workspace_size = window_bytes = receive_slots * receive_slot_stride;
      workspace_bytes = window_bytes + 2 * schedule.send_slot_bytes;  // the send slots are apart
    } else {
      receive_slot_stride = schedule.receive_slot_bytes;
      workspace_size = workspace_bytes = 2 * (schedule.send_slot_bytes + schedule.receive_slot_bytes);
    }
    if (workspace_size > 0) {
      XPOSE_DIST_TRY(allocate_workspace(workspace_size, copy_engine || dist_options.register_workspace));
      unsigned char* base = static_cast<unsigned char*>(workspace);
      if (copy_engine) {
        XPOSE_CUDA(cudaMalloc(&send_workspace, static_cast<size_t>(2 * schedule.send_slot_bytes)));
        XPOSE_CUDA(cudaMalloc(reinterpret_cast<void**>(&barrier_byte), 1));
        XPOSE_CUDA(cudaMemset(barrier_byte, 0, 1));  // its value never matters; initialised all the same
        send_slot[0] = static_cast<unsigned char*>(send_workspace);
      } else {
        send_slot[0] = base;
        base += 2 * schedule.send_slot_bytes;
      }
      send_slot[1] = send_slot[0] + schedule.send_slot_bytes;
      for (int k = 0; k < receive_slots; ++k)
        receive_slot[k] = base + k * receive_slot_stride;
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

  // After the collective registration: where this GPU reaches every rank's workspace.
  Status map_peers() {
    DeviceScope scope(device);
    XPOSE_CUDA(detail::window_peer_bases(window, ranks, &peer_workspace));
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

namespace {

// Everything of Plan::create that involves only this rank.
Status create_local(std::unique_ptr<Plan::Impl>* out, ncclComm_t comm, const Layout& layout, DType type,
                    const Options& options) {
  if (comm == nullptr) return fail(Status::invalid_argument, "comm is null");
  if (options.step_bytes < 0 && options.step_bytes != Options::kAutomaticStepBytes)
    return fail(Status::invalid_argument, message("options.step_bytes (", options.step_bytes, ") is negative"));
  auto impl = std::make_unique<Plan::Impl>();
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

  impl->exchange = options.exchange == Exchange::copy_engine ? Exchange::copy_engine : Exchange::send_receive;
  if (options.exchange != Exchange::send_receive) {
    const int team = detail::load_store_team_size(comm);
    const bool reach = team == impl->ranks;
    if (reach && impl->ranks > 1) impl->exchange = Exchange::copy_engine;
    if (!reach && options.exchange == Exchange::copy_engine)
      return fail(Status::unsupported,
                  message("options.exchange is copy_engine, but NCCL's load/store-accessible team of rank ",
                          impl->rank, " has ", team, " of the communicator's ", impl->ranks,
                          " ranks (GPUs on other nodes, or without peer access)"));
  }
  int64_t step_bytes = options.step_bytes;
  if (step_bytes == Options::kAutomaticStepBytes) {
    const int64_t per_step = detail::largest_pair_bytes(impl->layout, impl->elem_size) / kCopyEngineSteps;
    step_bytes = impl->exchange == Exchange::copy_engine
                     ? std::clamp(per_step, kCopyEngineMinStepBytes, kCopyEngineMaxStepBytes)
                     : kSendReceiveStepBytes;
  }
  impl->schedule = detail::make_schedule(impl->layout, impl->rank, impl->elem_size, step_bytes);
  XPOSE_DIST_TRY(impl->init(options));
  *out = std::move(impl);
  return Status::ok;
}

}  // namespace

Status create_group(Plan* plans, const ncclComm_t* comms, int count, const Layout& layout, DType type,
                    const Options& options) {
  if (count < 0 || (count > 0 && (plans == nullptr || comms == nullptr)))
    return fail(Status::invalid_argument, message("plans (", static_cast<const void*>(plans), ") and comms (",
                                                  static_cast<const void*>(comms), ") are not arrays of ", count));
  std::vector<std::unique_ptr<Plan::Impl>> impls(static_cast<size_t>(count));
  for (int m = 0; m < count; ++m) {
    if (Status s = create_local(&impls[m], comms[m], layout, type, options); s != Status::ok) {
      const std::string why = last_error_message();
      return fail(s, count == 1 ? why : message("comms[", m, "]: ", why));
    }
    if (impls[m]->exchange != impls[0]->exchange)
      return fail(Status::invalid_argument, message("comms[", m, "] and comms[0] chose different exchanges: their "
                                                    "ranks do not reach each other alike"));
  }
  // Copy engine: the receive slots become one symmetric window, registered by every rank together
  // (grouped when one thread holds several ranks); then each rank learns where the others are.
  std::vector<Plan::Impl*> windowed;
  for (auto& impl : impls)
    if (impl->exchange == Exchange::copy_engine && impl->workspace != nullptr) windowed.push_back(impl.get());
  if (!windowed.empty()) {
    XPOSE_NCCL(ncclGroupStart());
    ncclResult_t registered = ncclSuccess;
    for (Plan::Impl* impl : windowed) {
      if (registered != ncclSuccess) break;
      DeviceScope scope(impl->device);
      registered = ncclCommWindowRegister(impl->comm, impl->workspace, static_cast<size_t>(impl->window_bytes),
                                          &impl->window, NCCL_WIN_COLL_SYMMETRIC);
    }
    const ncclResult_t ended = ncclGroupEnd();
    XPOSE_DIST_TRY(check_nccl(registered, "ncclCommWindowRegister"));
    XPOSE_DIST_TRY(check_nccl(ended, "ncclGroupEnd (ncclCommWindowRegister)"));
    // NCCL registers no window, and still succeeds, where it does not support symmetric memory
    // (GPUs without direct peer access, NCCL_CUMEM_ENABLE=0, NCCL_WIN_ENABLE=0). It decides so the
    // same way on every rank, so every rank falls back (automatic) or fails (copy_engine) alike.
    for (Plan::Impl* impl : windowed)
      if (impl->window == nullptr) {
        if (options.exchange == Exchange::copy_engine)
          return fail(Status::unsupported,
                      message("options.exchange is copy_engine, but NCCL registered no symmetric memory window on GPU ",
                              impl->device, " (it needs direct peer access between every pair of GPUs, and "
                              "NCCL_CUMEM_ENABLE and NCCL_WIN_ENABLE not set to 0)"));
        impls.clear();  // frees this attempt's workspaces before the send/receive plans take theirs
        Options fallback = options;
        fallback.exchange = Exchange::send_receive;
        return create_group(plans, comms, count, layout, type, fallback);
      }
    for (Plan::Impl* impl : windowed) XPOSE_DIST_TRY(impl->map_peers());
  }
  for (int m = 0; m < count; ++m) plans[m].impl_ = std::move(impls[m]);
  xpose::detail::clear_error();
  return Status::ok;
}

Status Plan::create(Plan& plan, ncclComm_t comm, const Layout& layout, DType type, const Options& options) {
  return create_group(&plan, &comm, 1, layout, type, options);
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
Exchange Plan::exchange() const { return impl_ ? impl_->exchange : Exchange::send_receive; }
int64_t Plan::workspace_bytes() const { return impl_ ? impl_->workspace_bytes : 0; }

Status execute_group(const Execution* executions, int count) {
  if (count < 0 || (count > 0 && executions == nullptr))
    return fail(Status::invalid_argument, message("executions (", static_cast<const void*>(executions),
                                                  ", count ", count, ") is not an array of executions"));
  int steps = -1;
  for (int m = 0; m < count; ++m) {
    if (executions[m].plan == nullptr || !executions[m].plan->valid())
      return fail(Status::invalid_argument, message("executions[", m, "].plan is not a created plan"));
    if (executions[m].plan->impl_->broken)
      return fail(Status::invalid_argument,
                  message("executions[", m, "].plan: an earlier execute of it failed after issuing part of its "
                          "pipeline, so its slots no longer match its peers': destroy it and create a new one"));
    XPOSE_DIST_TRY(check_execution(executions[m], *executions[m].plan->impl_));
    const int member_steps = executions[m].plan->steps();
    if (steps >= 0 && member_steps != steps)
      return fail(Status::invalid_argument,
                  message("executions[", m, "] has ", member_steps, " steps but executions[0] has ", steps,
                          ": the plans were created with different layouts or options"));
    steps = member_steps;
    if (executions[m].plan->exchange() != executions[0].plan->exchange())
      return fail(Status::invalid_argument, message("executions[", m, "] and executions[0] use different exchanges: "
                                                    "the plans were created with different options"));
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

  // From here on a failure leaves part of a pipeline issued: the plans stay marked broken unless
  // the whole execute is issued.
  for (const Member& x : members) x.impl->broken = true;
  const bool copy_engine = count > 0 && members[0].impl->exchange == Exchange::copy_engine;

  // Fork: the internal streams that the steps use start after the work already on the caller's
  // stream (only those, so that each is joined back below, as a stream capturing a graph must
  // be). The block that stays on the rank is transposed on the caller's stream meanwhile.
  for (const Member& x : members) {
    const Plan::Impl& p = *x.impl;
    XPOSE_CUDA(cudaSetDevice(p.device));
    if (steps > 0) {
      XPOSE_CUDA(cudaEventRecord(p.fork, x.stream));
      for (cudaStream_t s : {p.pack_stream, p.exchange_stream, p.place_stream})
        XPOSE_CUDA(cudaStreamWaitEvent(s, p.fork, 0));
      if (copy_engine) XPOSE_CUDA(cudaStreamWaitEvent(p.copy_stream, p.fork, 0));
    }
    const detail::Schedule& d = p.schedule;
    if (d.self_rows > 0 && d.self_cols > 0)
      XPOSE_DIST_TRY(p.self_plan.execute(x.in + d.self_in_col * p.elem_size,
                                         x.out + d.self_out_col * p.elem_size, x.stream));
  }

  // Each stage of step s, for every member. Slots are numbered by steps counted across executes
  // (steps_issued), so that an execute's first steps never reuse a slot that its predecessor's
  // last steps still use. Each event is waited on for its latest record, which the host order
  // below makes the right step. The host issues step s+1's packing before step s's exchange, so
  // the packing never waits behind a host call that returns late (ncclGroupEnd).
  auto send_slot_of = [](const Plan::Impl& p, int s) { return static_cast<int>((p.steps_issued + s) % 2); };
  auto receive_slot_of = [](const Plan::Impl& p, int s) {
    return static_cast<int>(((p.steps_issued + s) % p.receive_slots + p.receive_slots) % p.receive_slots);
  };
  auto pack = [&](int s) -> Status {
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      const int slot = send_slot_of(p, s);
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
  auto place = [&](int s) -> Status {
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      const int slot = receive_slot_of(p, s);
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(p.place_stream, p.landed[slot], 0));
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
  // Queues `call(member)` for every member in one NCCL group (required when one thread drives
  // several ranks; merely efficient otherwise). The group is closed even when a call failed, so
  // NCCL is not left inside it.
  auto nccl_group = [&](const char* what, const std::function<ncclResult_t(const Member&)>& call) -> Status {
    XPOSE_NCCL(ncclGroupStart());
    ncclResult_t queued = ncclSuccess;
    for (const Member& x : members)
      if (queued == ncclSuccess) queued = call(x);
    const ncclResult_t ended = ncclGroupEnd();
    XPOSE_DIST_TRY(check_nccl(queued, what));
    return check_nccl(ended, "ncclGroupEnd");
  };

  // Send/receive: after the packing and the placing that last read the receive slot, NCCL moves
  // every piece of the step into the peers' receive slots.
  auto send_receive = [&](int s) -> Status {
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(p.exchange_stream, p.packed[send_slot_of(p, s)], 0));
      XPOSE_CUDA(cudaStreamWaitEvent(p.exchange_stream, p.placed[receive_slot_of(p, s)], 0));
    }
    XPOSE_DIST_TRY(nccl_group("ncclSend/ncclRecv", [&](const Member& x) {
      const Plan::Impl& p = *x.impl;
      ncclResult_t r = ncclSuccess;
      for (const detail::Send& send : p.schedule.steps[s].sends)
        if (r == ncclSuccess)
          r = ncclSend(p.send_slot[send_slot_of(p, s)] + send.slot_offset, static_cast<size_t>(send.bytes),
                       ncclUint8, send.peer, p.comm, p.exchange_stream);
      for (const detail::Receive& receive : p.schedule.steps[s].receives)
        if (r == ncclSuccess)
          r = ncclRecv(p.receive_slot[receive_slot_of(p, s)] + receive.slot_offset, static_cast<size_t>(receive.bytes),
                       ncclUint8, receive.peer, p.comm, p.exchange_stream);
      return r;
    }));
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaEventRecord(p.exchanged[send_slot_of(p, s)], p.exchange_stream));
      XPOSE_CUDA(cudaEventRecord(p.landed[receive_slot_of(p, s)], p.exchange_stream));
    }
    return Status::ok;
  };
  // Copy engine: copy each piece into the peer's receive slot once the packing is done and
  // barrier s-2 has passed (every rank placed step s-3, that slot's last user, three slots
  // back); then a barrier, after this rank's copies and its placing of step s-1, after which the
  // step has landed everywhere. The copies run on copy engines, beside the SMs' packing and
  // placing, and back to back: the barrier they wait for is two steps old.
  auto copy = [&](int s) -> Status {
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      const int slot = send_slot_of(p, s), landing = receive_slot_of(p, s);
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(p.copy_stream, p.packed[slot], 0));
      XPOSE_CUDA(cudaStreamWaitEvent(p.copy_stream, p.landed[receive_slot_of(p, s - 2)], 0));
      for (const detail::Send& send : p.schedule.steps[s].sends)
        XPOSE_CUDA(cudaMemcpyAsync(p.peer_workspace[send.peer] + landing * p.receive_slot_stride + send.peer_slot_offset,
                                   p.send_slot[slot] + send.slot_offset, static_cast<size_t>(send.bytes),
                                   cudaMemcpyDeviceToDevice, p.copy_stream));
      XPOSE_CUDA(cudaEventRecord(p.exchanged[slot], p.copy_stream));
    }
    return Status::ok;
  };
  auto barrier = [&](int s) -> Status {
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(p.exchange_stream, p.exchanged[send_slot_of(p, s)], 0));
      XPOSE_CUDA(cudaStreamWaitEvent(p.exchange_stream, p.placed[receive_slot_of(p, s - 1)], 0));
    }
    // A rank's all-reduce completes only once every rank has joined it, that is once every
    // rank's copies of this step (ordered before it on that rank) have completed.
    XPOSE_DIST_TRY(nccl_group("ncclAllReduce", [&](const Member& x) {
      return ncclAllReduce(x.impl->barrier_byte, x.impl->barrier_byte, 1, ncclUint8, ncclMax, x.impl->comm,
                           x.impl->exchange_stream);
    }));
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaEventRecord(p.landed[receive_slot_of(p, s)], p.exchange_stream));
    }
    return Status::ok;
  };

  if (steps > 0) XPOSE_DIST_TRY(pack(0));
  for (int s = 0; s < steps; ++s) {
    if (s + 1 < steps) XPOSE_DIST_TRY(pack(s + 1));
    if (copy_engine) {
      XPOSE_DIST_TRY(copy(s));
      XPOSE_DIST_TRY(barrier(s));
    } else {
      XPOSE_DIST_TRY(send_receive(s));
    }
    XPOSE_DIST_TRY(place(s));
  }

  // Join: the caller's stream continues after the last placement, which follows every exchange
  // (and copy and barrier) and so every pack of this execute: every forked stream joins through it.
  if (steps > 0)
    for (const Member& x : members) {
      const Plan::Impl& p = *x.impl;
      XPOSE_CUDA(cudaSetDevice(p.device));
      XPOSE_CUDA(cudaStreamWaitEvent(x.stream, p.placed[receive_slot_of(p, steps - 1)], 0));
    }
  for (const Member& x : members) {
    x.impl->steps_issued += steps;
    x.impl->broken = false;
  }
  xpose::detail::clear_error();
  return Status::ok;
}

}  // namespace xpose::dist
