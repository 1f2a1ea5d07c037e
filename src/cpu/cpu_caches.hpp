// SPDX-License-Identifier: Apache-2.0
// The cache sizes the CPU kernels derive their blocking from, as the OS reports them.
#pragma once

#include <cstdint>

namespace xpose::detail {

struct CpuCaches {
  int64_t l1d_bytes;        // per core
  int64_t last_level_bytes; // the largest cache (L3, or L2 where there is no L3)
};

// Read once per process from sysconf (glibc), else sysfs (cpu0's cache/index*/size); a size the
// OS does not report is taken as 32 KiB (L1d) or 8 MiB (last level), common minimums today.
const CpuCaches& cpu_caches();

}  // namespace xpose::detail
