// SPDX-License-Identifier: Apache-2.0
// What the probes in bench/probes share: a CUDA call check that exits, and the bench's timing
// protocol in its simplest form (3 warm-up launches, then an event pair around each timed launch,
// the median reported).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(call)                                                                        \
  do {                                                                                     \
    cudaError_t status_ = (call);                                                          \
    if (status_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// Median of `reps` event-timed runs of `launch` (which queues its work on `stream`), in us.
inline double median_event_us(const std::function<void()>& launch, cudaStream_t stream, int reps) {
  std::vector<cudaEvent_t> events(2 * reps);
  for (auto& e : events) CHECK(cudaEventCreate(&e));
  for (int i = 0; i < 3; ++i) launch();
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(events[2 * i], stream));
    launch();
    CHECK(cudaEventRecord(events[2 * i + 1], stream));
  }
  CHECK(cudaEventSynchronize(events.back()));
  CHECK(cudaGetLastError());
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]));
    us.push_back(ms * 1e3);
  }
  for (auto& e : events) CHECK(cudaEventDestroy(e));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}
