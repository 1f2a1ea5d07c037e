// SPDX-License-Identifier: Apache-2.0
// Copies with non-temporal (streaming) stores: the real ceiling of a transpose whose output goes
// straight to memory. memcpy pays a read for ownership of every output line wherever the C
// library keeps it in cache (glibc: below a threshold derived from the cache size), so a copy
// that streams moves 2 x bytes where memcpy moves 3 x.
#pragma once

#include <cstdint>

namespace xpose::detail {

// dst[0, bytes) = src[0, bytes), split over `threads` threads (0 = all) at 64-byte boundaries
// of dst; SSE2 streaming stores on x86-64, memcpy elsewhere. Any alignment; fenced on return.
void parallel_stream_copy(void* dst, const void* src, int64_t bytes, int threads);

// Writes bytes [begin, end) of `staged` to the same offsets from `dst`, both 64-byte aligned:
// the whole 64-byte lines among them with streaming stores, the parts of lines at the two ends
// with ordinary ones. For outputs staged in a buffer that mirrors the output's line alignment.
// Needs stream_fence() (tile_stores.hpp) before another thread reads dst.
void stream_staged_lines(unsigned char* dst, const unsigned char* staged, int64_t begin, int64_t end);

}  // namespace xpose::detail
