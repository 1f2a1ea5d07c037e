// The fast CPU path: cache-blocked, vectorisable, optionally multi-threaded.
#pragma once

#include "core/problem.hpp"

namespace xpose::detail {

// threads: 1 = on the calling thread only; 0 = all hardware threads.
void transpose_blocked(const void* in, void* out, const Transpose2D& problem, int threads);

// memcpy of `bytes` split over `threads` threads (0 = all): the CPU roofline.
void parallel_memcpy(void* dst, const void* src, int64_t bytes, int threads);

}  // namespace xpose::detail
