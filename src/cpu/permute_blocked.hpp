// SPDX-License-Identifier: Apache-2.0
// The fast CPU permutation of a normalised layout.
//
// Two axes form a 2D tile: X, the input's innermost axis, and Y, the output's innermost axis; the
// other axes are walked as one flat index. Each point of the tile copies one element, or, when the
// innermost axis stays innermost on both sides, one contiguous run of it (and then X and Y are the
// innermost of the remaining axes). Tiles are small enough that the input lines they read and the
// output lines they write stay in L1 while the tile is copied.
//
// When the inner axis of either side is short (under 64 bytes; 4- to 16-byte elements, rank 3 or
// more), tiles span several axes instead: the innermost axes of each side up
// to about 128 bytes, so that reads and writes run that long.
//
// When X and Y have unit strides (the usual case), each slice of X, Y and one more axis is a
// batched 2D transpose and goes to transpose_blocked (AVX-512 or AVX2 tiles, streaming stores
// when the whole output is large).
// Threads share the flat index (and the extra axis, cut into chunks); small problems stay on the
// calling thread.
#pragma once

#include "core/permute_layout.hpp"
#include "cpu/transpose_blocked.hpp"

namespace xpose::detail {

// threads: 1 = the calling thread only; 0 = all hardware threads. Writes nothing outside the
// output view; any pointer alignment.
void permute_blocked(const void* in, void* out, const PermuteLayout& layout, int threads);

// The same with the 2D slices' tile set and stores chosen (tests, benchmarks).
void permute_blocked(const void* in, void* out, const PermuteLayout& layout, int threads,
                     const BlockedOptions& options);

}  // namespace xpose::detail
