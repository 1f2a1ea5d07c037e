// SPDX-License-Identifier: Apache-2.0
// The cache sizes the CPU kernels derive their blocking from, as the OS reports them.
#pragma once

#include <cstdint>

namespace xpose::detail {

// The most last-level cache counted per hardware thread: x86 server parts have 1 to 6 MiB of L3
// per thread (Zen 5: 32 MiB per 8 cores), so more than this is a share other cores own.
constexpr int64_t kLastLevelBytesPerThread = int64_t{4} << 20;

struct CpuCaches {
  int64_t l1d_bytes;        // per core
  int64_t l2_bytes;         // per core (the last level where there is no L3: at most that)
  int64_t last_level_bytes; // the largest cache (L3, or L2 where there is no L3), at most
                            // kLastLevelBytesPerThread per hardware thread
  int l1d_ways;             // associativity of the L1 data cache: lines one set holds
  int64_t line_bytes;       // the L1 data cache's line
};

// Read once per process from sysconf (glibc), else sysfs (cpu0's cache/index*/size and
// ways_of_associativity, coherency_line_size); a value the OS does not report is taken as 32 KiB
// (L1d), 512 KiB (L2), 8 MiB (last level), 8 ways or 64-byte lines, common values today.
const CpuCaches& cpu_caches();

}  // namespace xpose::detail
