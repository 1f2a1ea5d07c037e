// SPDX-License-Identifier: Apache-2.0
// The transpose step of the kernels that stage 1- and 2-byte elements in shared memory
// (small_batch, interleave, deinterleave), as host code: the walks that copy a staged matrix into
// a second buffer in output order, chosen by a model of the warp's instruction issue and
// shared-memory bank wavefronts; and the small_batch kernel's chunks. Plain C++ (no CUDA), so that
// the choice and the coverage of every element are tested on the CPU (tests/cpu).
#pragma once

#include <cstdint>

#include "core/permute_fast_division.hpp"

namespace xpose::cuda {

constexpr int kSmallBatchThreads = 256;
// The staging buffer of a block: 16 KiB of matrices (1- and 2-byte elements: as much again for
// the transpose step's output). With 6-8 blocks per SM that is 96-128 KiB of loads in flight per
// SM, well above the ~40 KiB an H100 needs to cover DRAM latency.
constexpr int kSmallBatchStagingBytes = 16384;

// Blocks per SM that the registers of a kernel with a transpose step must allow: as many as two
// 16 KiB buffers leave room for in an sm_90 SM's 228 KiB of shared memory (6), 40 registers a
// thread. Uncapped, the partial vectors' pieces (copy_pieces) took some instantiations to 48-61
// registers, 4-5 blocks.
constexpr int kTransposeStepMinBlocks = 6;

// Matrices per chunk of rows x cols matrices stride_in elements apart in the input (packed, or
// padded apart: their span is staged): as many as fill the staging buffer, rounded down so that a
// chunk is a whole number of 16-byte vectors on both sides where that leaves at least two (chunks
// then start on vectors).
int small_batch_matrices_per_chunk(int64_t rows, int64_t cols, int elem_size, int64_t stride_in);

// What a block's transpose step moves: `matrices` matrices of rows x cols elements of `elem_size`
// bytes (1 or 2); element (i, j) of matrix b is staged at b * from_matrix + i * from_pitch + j
// (from_pitch >= cols, from_matrix >= rows x from_pitch: input rows and matrices as they lie in
// global memory, padding included) and goes to b * cols * to_pitch + j * to_pitch + i of the
// output-order buffer (several matrices only where the output is packed, to_pitch = rows).
struct WalkProblem {
  int rows, cols, elem_size, matrices, from_pitch, to_pitch, from_matrix;
};

// The transpose step's walks: each thread copies runs of elements from the staging (input order)
// to a second buffer in output order, `from_step` and `to_step` apart, with no index arithmetic
// per element. A matrix has `lines` lines of `length` elements: along its input rows (rows lines
// of cols: reads step 1, writes step to_pitch) or down its input columns (cols lines of rows:
// reads step from_pitch, writes step 1). A line is cut into `segments` segments: contiguous ones
// of `segment` elements (the last may be shorter), or interleaved ones, segment s taking elements
// s, s + segments, s + 2 x segments, ... (steps `segments` times the line's; neighbouring lanes
// then read neighbouring elements, as a thread per row with columns a block apart did). A walk is
// one segment of `group` consecutive lines (1, or all of a matrix's lines, unrotated, when its
// walks would be a few elements: tiny matrices). Line p of matrix b starts at b * matrix + p *
// from_start (staging) and b * matrix + p * to_start (output order; `matrix`: from_matrix and
// to_matrix, the problem's matrix strides in each buffer); segment s at s x
// from_segment / to_segment from there. Each lane starts its segment `rotation` x lane elements
// in (mod the segment's length) and wraps around, so that lanes whose walks are a multiple of 32
// words apart meet different banks.
struct TransposeWalks {
  detail::TileDivisor groups, segments;  // groups of lines per matrix; segments per line
  int group, length, segment, from_start, to_start, from_step, to_step, from_segment, to_segment, rotation;
  bool interleaved;
  int from_matrix, to_matrix;
};

// The cheapest walks by the model over both directions, one line or the whole matrix per walk,
// segments of the whole line or 8-64 elements, and lane rotations of 0-17 elements (tried only
// while the accesses still conflict). 10-150 us on this project's 2-core AMD EPYC build machine.
TransposeWalks choose_transpose_walks(const WalkProblem& problem);

// choose_transpose_walks, remembered per host thread for the last 16 problems it asked about, so
// that a plan executed again does not pay for the model.
TransposeWalks remembered_transpose_walks(const WalkProblem& problem);

// Lines of a strided side (the interleave's input rows, the deinterleave's output rows), line r
// of `count` elements at r * ld, are kept in a shared buffer at head + r * pitch (head: the
// first line's place in its 16-byte vector) with pitch = ld modulo a vector: then every line's
// buffer vectors are its global ones, and its global vectors are copied whole. line_pitch is the
// least such pitch that holds `count` elements: at most a vector less one element more.
inline int line_pitch(int count, int64_t ld, int elem_size) {
  const int per_vector = 16 / elem_size;
  return count + static_cast<int>(((ld - count) % per_vector + per_vector) % per_vector);
}

// Where walk `item` of a block starts (elements of the staging and of the output-order buffer,
// before the runs' heads) and its segment's length.
struct WalkStart {
  int from, to, length;
};
XPOSE_HOST_DEVICE inline WalkStart walk_start(const TransposeWalks& w, int item) {
  int group_of_all, b;
  const int g = w.groups.divide_remainder(item, &group_of_all);
  const int s = w.segments.divide_remainder(group_of_all, &b);
  const int length = w.interleaved ? w.segments.divide(w.length - s + w.segments.divisor() - 1)
                                   : (w.length - s * w.segment < w.segment ? w.length - s * w.segment : w.segment);
  return {b * w.from_matrix + g * w.group * w.from_start + s * w.from_segment,
          b * w.to_matrix + g * w.group * w.to_start + s * w.to_segment, length};
}

}  // namespace xpose::cuda
