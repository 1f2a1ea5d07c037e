// SPDX-License-Identifier: Apache-2.0
// The CPU kernels' threads: a process-wide pool started on first use, so that a plan's execute()
// starts no thread and allocates nothing once the pool runs.
#pragma once

#include <cstdint>

namespace xpose::detail {

int hardware_threads();

// Threads for a job of `bytes`: `threads` (0: all hardware threads), but no more than one per
// kCpuMinBytesPerThread (core/kernel_registry.hpp: small jobs stay on the calling thread), and at
// least 1.
int threads_for(int threads, int64_t bytes);

// Runs call(context, t, n) for every t in [0, n) and returns when all have finished: share 0 on
// the calling thread, the others on the pool (or on the calling thread, when no pool thread is
// free: it takes back its own shares still waiting). Safe to call from several threads at once
// and from inside a share.
void run_shares(int n, void (*call)(const void* context, int t, int n), const void* context);

// work(t, n) for every t in [0, n), as run_shares.
template <typename Work>
void parallel_for(int n, const Work& work) {
  if (n <= 1) {
    work(0, 1);
    return;
  }
  run_shares(
      n, [](const void* context, int t, int count) { (*static_cast<const Work*>(context))(t, count); },
      &work);
}

}  // namespace xpose::detail
