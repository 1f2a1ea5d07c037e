// SPDX-License-Identifier: Apache-2.0
// The fast CPU path: the matrix is cut into strips of rows (and panels of columns when there are
// few strips) that threads share; each strip is transposed in 64 x 64-byte tiles in AVX-512 or
// AVX2 registers, whichever set the process runs (cpu_isa_active()), with streaming stores for
// large outputs, and in scalar blocks at the edges and on CPUs with neither. Any element size, leading dimensions, batches, unaligned pointers.
#pragma once

#include <cstdint>

#include "core/problem.hpp"
#include "cpu/cpu_isa.hpp"

namespace xpose::detail {

// threads: 1 = on the calling thread only; 0 = all hardware threads. Small problems use fewer
// threads than asked (each gets at least about 1 MiB). Writes nothing outside the output view.
void transpose_blocked(const void* in, void* out, const Transpose2D& problem, int threads);

// Streaming stores skip the cache: right for outputs that, with their input, would not stay in
// the last-level cache anyway; wrong for small ones the caller reads back from cache. From a
// quarter of the last-level cache as cpu_caches() counts it (at most 4 MiB per hardware thread).
int64_t stream_from_bytes();

// What the callers below may choose instead of the defaults (tests, benchmarks, the permute).
struct BlockedOptions {
  // The tile set; one this CPU lacks falls back to the best one below it (cpu_isa_capped).
  CpuIsa isa = cpu_isa_active();
  // Outputs of at least this many bytes are written with streaming stores; -1: a quarter of the
  // last-level cache. 0 streams everything (tests), a huge value nothing.
  int64_t stream_from_bytes = -1;
};

void transpose_blocked(const void* in, void* out, const Transpose2D& problem, int threads,
                       const BlockedOptions& options);
// The same with only the tile set chosen.
void transpose_blocked(const void* in, void* out, const Transpose2D& problem, int threads,
                       CpuIsa isa);

// memcpy of `bytes` split over `threads` threads (0 = all): the CPU roofline.
void parallel_memcpy(void* dst, const void* src, int64_t bytes, int threads);

}  // namespace xpose::detail
