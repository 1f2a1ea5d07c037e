// SPDX-License-Identifier: Apache-2.0
#include "cuda/transpose_walks.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace xpose::cuda {
namespace {

// Shared-memory wavefronts of one warp instruction whose lanes access these byte addresses: the
// most distinct 4-byte words that fall in one bank (lanes that share a word share its wavefront).
int wavefronts(const int64_t (&address)[32]) {
  int64_t words[32][32];  // per bank, the distinct words met so far
  int distinct[32] = {}, most = 0;
  for (int64_t a : address) {
    const int64_t word = a / 4;
    const int bank = static_cast<int>(word % 32);
    bool seen = false;
    for (int k = 0; k < distinct[bank]; ++k) seen = seen || words[bank][k] == word;
    if (!seen) words[bank][distinct[bank]++] = word, most = std::max(most, distinct[bank]);
  }
  return most;
}

// The modelled cost of a transpose step, in SM cycles per 32 elements: the larger of its
// instruction issue (4 warp instructions per cycle) and its shared-memory wavefronts (one per
// cycle; the first warp's lanes over two steps of their walks), scaled up where a block's last
// round of walks leaves threads idle (H100, u8, % of memcpy, against charging only blocks with
// fewer walks than threads: 58 x 282 batches 69 -> 79, 18 x 11322399 81 -> 87, 3 x 50176 81 ->
// 83; 95 x 105 batches 58 -> 52, walks of 8 elements down columns instead of 16 along rows). Instructions per element: 5, 13 with a rotation's wrap, plus about 20 per
// line and 40 per walk (60 with a rotation), as fitted to ncu's counts on the H100 (5 x 3 u8 in
// walks of 3: 25 per element; 128 x 64 u8, rotated walks of 64: 15).
double walk_cost(const TransposeWalks& w, int elem_size, int matrices, bool* conflict_free) {
  const int groups = w.groups.divisor(), segments = w.segments.divisor();
  int64_t from_base[32], to_base[32];  // each lane's first element, before its rotation
  int length[32], rotated[32];         // each lane's segment length and starting step in it
  for (int lane = 0; lane < 32; ++lane) {
    const WalkStart start = walk_start(w, lane);
    length[lane] = start.length;
    rotated[lane] = w.rotation * lane % length[lane];
    from_base[lane] = start.from;
    to_base[lane] = start.to;
  }
  constexpr int kSteps = 2;
  int waves = 0;
  for (int k = 0; k < kSteps; ++k) {
    int64_t from[32], to[32];
    for (int lane = 0; lane < 32; ++lane) {
      const int step = (rotated[lane] + k) % length[lane];
      from[lane] = (from_base[lane] + int64_t{step} * w.from_step) * elem_size;
      to[lane] = (to_base[lane] + int64_t{step} * w.to_step) * elem_size;
    }
    waves += wavefronts(from) + wavefronts(to);
  }
  *conflict_free = waves == 2 * kSteps;
  const double per_walk = 40.0 + (w.rotation != 0 ? 20.0 : 0.0), per_line = 20.0;
  const double per_element = w.rotation != 0 ? 13.0 : 5.0;
  const double issue = (per_element + (per_walk / w.group + per_line) * segments / w.length) / 4.0;
  const int64_t items = int64_t{matrices} * groups * segments;
  const int64_t rounds = (items + kSmallBatchThreads - 1) / kSmallBatchThreads;
  const double idle = static_cast<double>(rounds * kSmallBatchThreads) / static_cast<double>(items);
  return std::max(issue, static_cast<double>(waves) / kSteps) * idle;
}

}  // namespace

int small_batch_matrices_per_chunk(int64_t rows, int64_t cols, int elem_size, int64_t stride_in) {
  const int64_t in_bytes = stride_in * elem_size, out_bytes = rows * cols * elem_size;
  const int64_t fit = kSmallBatchStagingBytes / in_bytes;
  int64_t step = 1;  // in_bytes * step and out_bytes * step: multiples of 16
  while ((step * in_bytes) % 16 != 0 || (step * out_bytes) % 16 != 0) step *= 2;
  const int64_t rounded = fit / step * step;
  return static_cast<int>(rounded >= 2 ? rounded : fit);
}

TransposeWalks choose_transpose_walks(const WalkProblem& p) {
  const int to_matrix = p.cols * p.to_pitch;
  TransposeWalks best{};
  double best_cost = 0;
  const auto consider = [&](TransposeWalks w) {
    w.from_matrix = p.from_matrix, w.to_matrix = to_matrix;
    bool conflict_free = false;
    const double cost = walk_cost(w, p.elem_size, p.matrices, &conflict_free);
    if (best_cost == 0 || cost < best_cost) best = w, best_cost = cost;
    return conflict_free;
  };
  for (const bool along_rows : {true, false}) {
    const int lines = along_rows ? p.rows : p.cols, length = along_rows ? p.cols : p.rows;
    const int from_start = along_rows ? p.from_pitch : 1, to_start = along_rows ? 1 : p.to_pitch;
    const int from_step = along_rows ? 1 : p.from_pitch, to_step = along_rows ? p.to_pitch : 1;
    for (const int group : {1, lines}) {
      for (const int segment : {length, 8, 16, 32, 64}) {
        if (segment > length || (segment != length && (segment * 2 > length || group != 1))) continue;
        for (const int rotation : {0, 1, 3, 5, 8, 17}) {
          if (rotation >= segment || (rotation != 0 && group != 1)) break;
          const int segments = (length + segment - 1) / segment;
          if (consider({detail::TileDivisor(lines / group), detail::TileDivisor(segments), group, length, segment,
                        from_start, to_start, from_step, to_step, segment * from_step, segment * to_step, rotation,
                        false, 0, 0}))
            break;  // a rotation would only add instructions
        }
      }
      if (lines == 1) break;  // group 1 is the whole matrix
    }
    // Interleaved segments: powers of two until the walks fill a block's threads, and the count
    // that just fills them (a block of 3-row interleave chunks: 85, where 128 left a second round
    // of walks half idle); lines of at least 8 elements each.
    const int64_t walks_per_segment = int64_t{lines} * p.matrices;
    std::vector<int> counts;
    for (int segments = 2; walks_per_segment * segments / 2 < kSmallBatchThreads; segments *= 2) counts.push_back(segments);
    const int filling = static_cast<int>(kSmallBatchThreads / walks_per_segment);
    if (filling >= 2) counts.push_back(filling);
    for (const int segments : counts) {
      if (segments * 8 > length) continue;
      const int segment = (length + segments - 1) / segments;
      for (const int rotation : {0, 1, 3, 5}) {
        if (rotation >= segment / 2 && rotation != 0) break;
        if (consider({detail::TileDivisor(lines), detail::TileDivisor(segments), 1, length, segment, from_start,
                      to_start, segments * from_step, segments * to_step, from_step, to_step, rotation, true, 0, 0}))
          break;
      }
    }
  }
  return best;
}

TransposeWalks remembered_transpose_walks(const WalkProblem& p) {
  struct Remembered {
    WalkProblem problem{};
    TransposeWalks walks{};
  };
  constexpr int kRemembered = 16;
  thread_local Remembered last[kRemembered];
  thread_local int next = 0;
  const auto key = [](const WalkProblem& q) {
    return std::tie(q.rows, q.cols, q.elem_size, q.matrices, q.from_pitch, q.to_pitch, q.from_matrix);
  };
  for (const Remembered& r : last)
    if (r.problem.elem_size != 0 && key(r.problem) == key(p)) return r.walks;
  Remembered& slot = last[next];
  next = (next + 1) % kRemembered;
  slot = Remembered{p, choose_transpose_walks(p)};
  return slot.walks;
}

}  // namespace xpose::cuda
