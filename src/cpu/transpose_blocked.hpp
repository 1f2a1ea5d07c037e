// The fast CPU path: the matrix is cut into strips of rows (and panels of columns when there are
// few strips) that threads share; each strip is transposed in 64 x 64-byte tiles in AVX-512
// registers where the CPU has them (streaming stores for large outputs), and in scalar blocks at
// the edges and on other CPUs. Any element size, leading dimensions, batches, unaligned pointers.
#pragma once

#include <cstdint>

#include "core/problem.hpp"

namespace xpose::detail {

// threads: 1 = on the calling thread only; 0 = all hardware threads. Small problems use fewer
// threads than asked (each gets at least about 1 MiB). Writes nothing outside the output view.
void transpose_blocked(const void* in, void* out, const Transpose2D& problem, int threads);

// The inner loops: AVX-512 tiles, or portable scalar blocks (the only ones off x86-64).
enum class CpuTiles { scalar, avx512 };

// The best this CPU runs: avx512 where it has AVX-512 F, BW and VBMI.
CpuTiles cpu_tiles_available();

// The same with the inner loops chosen (tests, benchmarks); avx512 falls back to scalar on a CPU
// without it.
void transpose_blocked(const void* in, void* out, const Transpose2D& problem, int threads,
                       CpuTiles tiles);

// memcpy of `bytes` split over `threads` threads (0 = all): the CPU roofline.
void parallel_memcpy(void* dst, const void* src, int64_t bytes, int threads);

}  // namespace xpose::detail
