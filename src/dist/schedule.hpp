// SPDX-License-Identifier: Apache-2.0
// What one rank does in each pipeline step of a distributed transpose: which column ranges it
// packs (transposes) for which peer and where in the send slot, and what it receives from which
// peer and where that lands in its output block. Host-only arithmetic, the same on every rank
// (each rank derives its peers' step sizes from the shared Layout), so sends and receives match.
#pragma once

#include <cstdint>
#include <vector>

#include "xpose/dist.hpp"

namespace xpose::dist::detail {

// Pack `rows x cols` of this rank's input block, starting at column `in_col`, transposed into
// the send slot at `slot_offset` (bytes) as a packed `cols x rows` matrix; then send it to `peer`.
// With the copy engine the send slot is copied straight into the peer's receive slot, at
// `peer_slot_offset` (the offset of the matching Receive in the peer's schedule).
struct Send {
  int peer = 0;
  int64_t in_col = 0, cols = 0, rows = 0;
  int64_t slot_offset = 0, bytes = 0;
  int64_t peer_slot_offset = 0;
};

// Receive a packed `rows x cols` block from `peer` into the receive slot at `slot_offset`, then
// copy it into this rank's output block at (out_row, out_col).
struct Receive {
  int peer = 0;
  int64_t out_row = 0, out_col = 0, rows = 0, cols = 0;
  int64_t slot_offset = 0, bytes = 0;
};

struct Step {
  std::vector<Send> sends;        // non-empty transfers only, in peer order
  std::vector<Receive> receives;
};

struct Schedule {
  // The block that stays on this rank: transposed straight from input to output.
  int64_t self_rows = 0, self_cols = 0, self_in_col = 0, self_out_col = 0;
  std::vector<Step> steps;
  int64_t send_slot_bytes = 0, receive_slot_bytes = 0;  // one slot; the plan holds two of each
  // The largest receive slot of any rank: the copy engine needs the same window size on every rank.
  int64_t largest_receive_slot_bytes = 0;
  int64_t bytes_sent = 0, bytes_received = 0;           // per execute, this rank
};

// The most bytes one rank owes another (0 when nothing crosses between ranks).
int64_t largest_pair_bytes(const Layout& layout, int64_t elem_size);

// Steps for the whole communicator: enough that no peer pair moves more than `step_bytes` per
// step (one step when step_bytes is 0), never more than the largest output block has rows.
int step_count(const Layout& layout, int64_t elem_size, int64_t step_bytes);

// This rank's schedule. `layout` must be valid (validate_layout) with ld_in and ld_out filled in.
Schedule make_schedule(const Layout& layout, int rank, int64_t elem_size, int64_t step_bytes);

// Part `part` of `count` items split into `parts` near-equal parts, the larger parts first:
// {offset, size}.
struct Part {
  int64_t offset = 0, size = 0;
};
Part split_part(int64_t count, int64_t parts, int64_t part);

}  // namespace xpose::dist::detail
