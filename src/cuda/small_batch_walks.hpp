// SPDX-License-Identifier: Apache-2.0
// How the small_batch kernel splits its work, as host code: the chunks of whole matrices a block
// takes, and the walks of its transpose step for 1- and 2-byte elements, chosen by a model of the
// warp's instruction issue and shared-memory bank wavefronts. Plain C++ (no CUDA), so that the
// choice and the coverage of every element are tested on the CPU (tests/cpu).
#pragma once

#include <cstdint>

#include "core/permute_fast_division.hpp"

namespace xpose::cuda {

constexpr int kSmallBatchThreads = 256;
// The staging buffer of a block: 16 KiB of matrices (1- and 2-byte elements: as much again for
// the transpose step's output). With 6-8 blocks per SM that is 96-128 KiB of loads in flight per
// SM, well above the ~40 KiB an H100 needs to cover DRAM latency.
constexpr int kSmallBatchStagingBytes = 16384;

// Matrices per chunk: as many as fill the staging buffer, rounded down so that a chunk is a whole
// number of 16-byte vectors where that leaves at least two (chunks then start on vectors).
int small_batch_matrices_per_chunk(int64_t rows, int64_t cols, int elem_size);

// The transpose step's walks (1- and 2-byte elements): each thread copies runs of elements from
// the staging (input order) to a second buffer in output order, `from_step` and `to_step` apart,
// with no index arithmetic per element. A matrix has `lines` lines of `length` elements: along its
// input rows (rows lines of cols: reads step 1, writes step rows) or down its input columns (cols
// lines of rows: reads step cols, writes step 1). A line is cut into segments of `segment`
// elements (the last may be shorter); a walk is one segment of `group` consecutive lines (1, or
// all of a matrix's lines, unrotated, when its walks would be a few elements: tiny matrices).
// Line p of matrix b starts at b * matrix + p * from_start (staging) and b * matrix + p * to_start
// (output order). Each lane starts its segment `rotation` x lane elements in (mod the segment's
// length) and wraps around, so that lanes whose walks are a multiple of 32 words apart meet
// different banks.
struct SmallBatchWalks {
  detail::TileDivisor groups, segments;  // groups of lines per matrix; segments per line
  int group, length, segment, from_start, to_start, from_step, to_step, rotation;
};

// The walks for chunks of `matrices` matrices of rows x cols elements of `elem_size` bytes (1 or
// 2): the cheapest by the model over both directions, one line or the whole matrix per walk,
// segments of the whole line or 8-64 elements, and lane rotations of 0-17 elements (tried only
// while the accesses still conflict). 10-150 us on this project's 2-core AMD EPYC build machine.
SmallBatchWalks choose_small_batch_walks(int64_t rows, int64_t cols, int elem_size, int matrices);

// Where walk `item` of a chunk starts (elements of the staging and of the output-order buffer,
// before the runs' heads) and its segment's length.
struct WalkStart {
  int from, to, length;
};
XPOSE_HOST_DEVICE inline WalkStart walk_start(const SmallBatchWalks& w, int item, int matrix) {
  int group_of_all, b;
  const int g = w.groups.divide_remainder(item, &group_of_all);
  const int segment = w.segments.divide_remainder(group_of_all, &b);
  const int first = segment * w.segment;
  const int length = w.length - first < w.segment ? w.length - first : w.segment;
  return {b * matrix + g * w.group * w.from_start + first * w.from_step,
          b * matrix + g * w.group * w.to_start + first * w.to_step, length};
}

}  // namespace xpose::cuda
