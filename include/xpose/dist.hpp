// SPDX-License-Identifier: Apache-2.0
// xpose::dist: the transpose of a matrix distributed over GPUs by blocks of rows, over NCCL.
//
// A `rows x cols` row-major matrix A lives on the ranks of an NCCL communicator: rank r holds the
// in_rows[r] consecutive rows starting at row in_rows[0] + ... + in_rows[r-1], as one row-major
// block (in_rows[r] x cols). The result A^T (`cols x rows`) is distributed the same way: rank r
// receives out_rows[r] consecutive rows of A^T (out_rows[r] x rows). Splits may be uneven and are
// the caller's; every rank passes the same Layout.
//
//   xpose::dist::Layout layout{rows, cols, xpose::dist::even_split(rows, ranks),
//                              xpose::dist::even_split(cols, ranks)};
//   xpose::dist::Plan plan;
//   xpose::dist::Plan::create(plan, comm, layout, xpose::DType::f32);   // every rank, together
//   plan.execute(my_in_block, my_out_block, stream);                     // stream-ordered
//
// One process driving several GPUs (ncclCommInitAll) creates every rank's plan together with
// create_group() and issues every rank's execute together with execute_group(): NCCL requires the
// ranks of one thread to be grouped, or they wait on each other.
//
// Built when NCCL is found; link xpose::dist. docs/distributed.md explains the data movement.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose::dist {

struct Layout {
  int64_t rows = 0, cols = 0;      // of the input matrix A
  std::vector<int64_t> in_rows;    // rows of A per rank, in rank order; they sum to rows
  std::vector<int64_t> out_rows;   // rows of A^T per rank, in rank order; they sum to cols
  // Elements between consecutive rows of a rank's block; 0 means packed (cols for the input
  // block, rows for the output block). Padding elements are never read or written.
  int64_t ld_in = 0, ld_out = 0;
};

// `count` items over `ranks` ranks as evenly as possible, the larger shares first.
XPOSE_API std::vector<int64_t> even_split(int64_t count, int ranks);

// Checks a layout for `ranks` ranks and element type `type` (sizes, sums, leading dimensions,
// byte counts that fit in 64 bits) without touching a GPU; Plan::create calls it.
XPOSE_API Status validate_layout(const Layout& layout, int ranks, DType type);

// How the bytes that cross between GPUs travel (docs/distributed.md has the figures).
enum class Exchange {
  // copy_engine when every rank can load and store every other rank's GPU memory (NCCL's
  // load/store-accessible team is the whole communicator: one node, NVLink or PCIe peer access),
  // else send_receive. Every rank decides the same way.
  automatic,
  // Each rank transposes what it owes a peer into a local send slot, NCCL moves it (grouped
  // ncclSend/ncclRecv) into the peer's receive slot, and the peer copies it into its output.
  send_receive,
  // As send_receive, but the GPU's copy engines copy each send slot straight into the peer's
  // receive slot, which is NCCL symmetric memory (ncclMemAlloc + ncclCommWindowRegister), and one
  // small NCCL all-reduce per step orders the copies before the peers' placing. The copies use no
  // multiprocessors, so the local transposes run beside them at full speed. Plan creation fails
  // when the ranks cannot reach each other's memory.
  copy_engine,
};

struct Options {
  // The exchange is pipelined in steps: in each step every rank transposes, sends, receives and
  // places at most this many bytes per peer, so that local work of one step overlaps the
  // transfers of the next. 0 means a single step; kAutomaticStepBytes (the default) picks by
  // exchange: 1 GiB for send_receive, where each NCCL step costs about 0.1 ms of its own on two
  // H200s and local work overlaps the wire only in part; for the copy engine, an eighth of the
  // largest block one rank owes another, within 256 MiB .. 2 GiB (docs/distributed.md).
  static constexpr int64_t kAutomaticStepBytes = -1;
  int64_t step_bytes = kAutomaticStepBytes;
  // Allocate the workspace with ncclMemAlloc and register it with the communicator
  // (ncclCommRegister), so that NCCL moves the exchange between GPUs of one node straight from
  // the sender's slot to the receiver's, without a pass through its internal buffers: 16.4 ms ->
  // 14.9 ms for 65536^2 float32 on two H200s (docs/distributed.md). NCCL requires every rank of a
  // communicator to pass registered buffers if one does: give every rank's plan the same value.
  // The registration is dropped when the plan is destroyed, before the communicator must be.
  // Send/receive only (the copy engine's receive slots are always NCCL symmetric memory).
  bool register_workspace = true;
  Exchange exchange = Exchange::automatic;
};

struct Execution;

class XPOSE_API Plan {
 public:
  Plan();
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;             // a plan owns device memory, streams and events
  Plan& operator=(const Plan&) = delete;

  // Validates the layout against the communicator (its size, this rank), and on the
  // communicator's GPU allocates the workspace, creates the internal streams and events and
  // plans the local transposes. Every rank must create its plan with the same layout and options.
  // Collective when the exchange is copy_engine (the default where the GPUs can reach each
  // other): every rank of the communicator must call it, concurrently (one process or thread per
  // rank); one thread driving several ranks must use create_group. On failure `plan` is left
  // unchanged.
  static Status create(Plan& plan, ncclComm_t comm, const Layout& layout, DType type,
                       const Options& options = {});

  // out = this rank's rows of A^T, from in = this rank's rows of A (both on the plan's GPU; they
  // must not overlap). Asynchronous and ordered on `stream` (which must belong to the plan's
  // GPU; nullptr is the legacy default stream): work on `stream` issued before the call is seen,
  // work issued after sees the result. No host synchronisation. Every rank must execute, in the
  // same order across plans on one communicator. One execute of a plan at a time: the next one
  // may be issued at once on any stream (the plan orders it after the previous one), but not
  // concurrently from two host threads.
  Status execute(const void* in, void* out, cudaStream_t stream) const;

  bool valid() const;
  int rank() const;
  int ranks() const;
  int device() const;                // CUDA device of the communicator
  const Layout& layout() const;      // with the packed leading dimensions filled in
  DType dtype() const;
  int steps() const;                 // pipeline steps of one execute
  Exchange exchange() const;         // send_receive or copy_engine (never automatic)
  int64_t workspace_bytes() const;   // device memory the plan owns

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  friend XPOSE_API Status execute_group(const Execution* executions, int count);
  friend XPOSE_API Status create_group(Plan* plans, const ncclComm_t* comms, int count, const Layout& layout,
                                       DType type, const Options& options);
};

// Creates the plans of several ranks from one thread (one process driving several GPUs, as with
// ncclCommInitAll): plans[m] for comms[m], grouped as NCCL requires for the collective
// registration of the copy engine's receive slots. Same checks and options as Plan::create; on failure every plan is
// left unchanged.
XPOSE_API Status create_group(Plan* plans, const ncclComm_t* comms, int count, const Layout& layout, DType type,
                              const Options& options = {});
inline Status create_group(std::vector<Plan>& plans, const std::vector<ncclComm_t>& comms, const Layout& layout,
                           DType type, const Options& options = {}) {
  std::vector<Plan> created(comms.size());
  const Status status =
      create_group(created.data(), comms.data(), static_cast<int>(comms.size()), layout, type, options);
  if (status == Status::ok) plans = std::move(created);  // else `plans` is left as it was
  return status;
}

// One rank's part of a grouped execute.
struct Execution {
  const Plan* plan = nullptr;
  const void* in = nullptr;
  void* out = nullptr;
  cudaStream_t stream = nullptr;
};

// Issues the executes of several ranks from one thread (one process driving several GPUs): their
// NCCL calls are grouped step by step. The current CUDA device is restored on return.
XPOSE_API Status execute_group(const Execution* executions, int count);
inline Status execute_group(const std::vector<Execution>& executions) {
  return execute_group(executions.data(), static_cast<int>(executions.size()));
}

}  // namespace xpose::dist
