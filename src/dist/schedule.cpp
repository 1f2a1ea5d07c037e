// SPDX-License-Identifier: Apache-2.0
#include "dist/schedule.hpp"

#include <algorithm>

namespace xpose::dist::detail {
namespace {

// Transfers start on 256-byte boundaries within a slot, so the 16-byte vector paths of the
// local kernels apply to every transfer.
constexpr int64_t kSlotAlignment = 256;

int64_t round_up(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

std::vector<int64_t> offsets_of(const std::vector<int64_t>& split) {
  std::vector<int64_t> offsets(split.size() + 1, 0);
  for (size_t r = 0; r < split.size(); ++r) offsets[r + 1] = offsets[r] + split[r];
  return offsets;
}

}  // namespace

Part split_part(int64_t count, int64_t parts, int64_t part) {
  const int64_t base = count / parts, extra = count % parts;
  return {part * base + std::min(part, extra), base + (part < extra ? 1 : 0)};
}

namespace {

// Where `sender`'s transfers start in `receiver`'s receive slot (sender == ranks: the slot's
// size). Each sender has a fixed place, in rank order, with room for its largest step (the
// first), rounded up so that the next one starts aligned.
int64_t receive_offset(const Layout& layout, int receiver, int sender, int steps, int64_t elem_size) {
  const int64_t rows = split_part(layout.out_rows[receiver], steps, 0).size;
  int64_t offset = 0;
  for (int peer = 0; peer < sender; ++peer)
    if (peer != receiver) offset += round_up(rows * layout.in_rows[peer] * elem_size, kSlotAlignment);
  return offset;
}

}  // namespace

int64_t largest_pair_bytes(const Layout& layout, int64_t elem_size) {
  const int ranks = static_cast<int>(layout.in_rows.size());
  int64_t largest = 0;
  for (int p = 0; p < ranks; ++p)
    for (int q = 0; q < ranks; ++q)  // in_rows * out_rows * elem_size fits: at most the matrix's bytes
      if (p != q) largest = std::max(largest, layout.in_rows[p] * layout.out_rows[q] * elem_size);
  return largest;
}

int step_count(const Layout& layout, int64_t elem_size, int64_t step_bytes) {
  const int ranks = static_cast<int>(layout.in_rows.size());
  const int64_t largest_pair = largest_pair_bytes(layout, elem_size);
  if (largest_pair == 0) return 0;  // nothing crosses between ranks
  int64_t largest_out_rows = 0;
  for (int p = 0; p < ranks; ++p)
    for (int q = 0; q < ranks; ++q)
      if (p != q && layout.in_rows[p] > 0 && layout.out_rows[q] > 0)
        largest_out_rows = std::max(largest_out_rows, layout.out_rows[q]);
  if (step_bytes <= 0) return 1;
  const int64_t steps = (largest_pair + step_bytes - 1) / step_bytes;
  return static_cast<int>(std::clamp<int64_t>(steps, 1, std::min<int64_t>(largest_out_rows, 1 << 20)));
}

Schedule make_schedule(const Layout& layout, int rank, int64_t elem_size, int64_t step_bytes) {
  const int ranks = static_cast<int>(layout.in_rows.size());
  const std::vector<int64_t> in_offset = offsets_of(layout.in_rows);    // first row of A per rank
  const std::vector<int64_t> out_offset = offsets_of(layout.out_rows);  // first row of A^T per rank
  Schedule schedule;
  schedule.self_rows = layout.in_rows[rank];
  schedule.self_cols = layout.out_rows[rank];
  schedule.self_in_col = out_offset[rank];
  schedule.self_out_col = in_offset[rank];

  const int steps = step_count(layout, elem_size, step_bytes);
  schedule.steps.resize(static_cast<size_t>(steps));
  // Each peer's transfers have a fixed place in the slots, sized for that peer's largest step.
  // offset_at_peer[q]: where this rank's transfers land in q's receive slot (copy engine).
  std::vector<int64_t> send_offset(ranks, 0), receive_offset_of(ranks, 0), offset_at_peer(ranks, 0);
  for (int peer = 0; peer < ranks && steps > 0; ++peer) {
    const int64_t slot = receive_offset(layout, peer, ranks, steps, elem_size);  // peer's whole slot
    schedule.largest_receive_slot_bytes = std::max(schedule.largest_receive_slot_bytes, slot);
    if (peer == rank) {
      schedule.receive_slot_bytes = slot;
      continue;
    }
    send_offset[peer] = schedule.send_slot_bytes;
    const int64_t send_cols = split_part(layout.out_rows[peer], steps, 0).size;
    schedule.send_slot_bytes += round_up(send_cols * layout.in_rows[rank] * elem_size, kSlotAlignment);
    receive_offset_of[peer] = receive_offset(layout, rank, peer, steps, elem_size);
    offset_at_peer[peer] = receive_offset(layout, peer, rank, steps, elem_size);
  }
  for (int s = 0; s < steps; ++s) {
    Step& step = schedule.steps[static_cast<size_t>(s)];
    for (int peer = 0; peer < ranks; ++peer) {
      if (peer == rank) continue;
      // Rows of the peer's output block (columns of A) that this step sends it.
      const Part out_part = split_part(layout.out_rows[peer], steps, s);
      Send send{peer, out_offset[peer] + out_part.offset, out_part.size, layout.in_rows[rank],
                send_offset[peer], out_part.size * layout.in_rows[rank] * elem_size, offset_at_peer[peer]};
      if (send.bytes > 0) step.sends.push_back(send);
      // Rows of this rank's output block that this step receives from the peer.
      const Part in_part = split_part(layout.out_rows[rank], steps, s);
      Receive receive{peer, in_part.offset, in_offset[peer], in_part.size, layout.in_rows[peer],
                      receive_offset_of[peer], in_part.size * layout.in_rows[peer] * elem_size};
      if (receive.bytes > 0) step.receives.push_back(receive);
      schedule.bytes_sent += send.bytes;
      schedule.bytes_received += receive.bytes;
    }
  }
  return schedule;
}

}  // namespace xpose::dist::detail
