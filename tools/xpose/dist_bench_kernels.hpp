// SPDX-License-Identifier: Apache-2.0
// On-device fill and check kernels of the distributed bench (dist_bench.cpp). Blocks of 16 GiB
// and more are filled and verified where they live, without a copy to the host: values encode
// their coordinates (dist_encoding.hpp). Element sizes 1, 2, 4, 8 and 16 bytes; every count and
// index is 64-bit. Each launcher returns the launch's error (cudaGetLastError), without waiting.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace xpose::cli {

// Device-side tally of a check; reset it with reset_mismatches() before a check.
struct Mismatches {
  unsigned long long count;  // wrong elements
  unsigned long long first;  // smallest linear index (within the checked block) of a wrong one; ~0 if none
};

cudaError_t reset_mismatches(Mismatches* tally, cudaStream_t stream);

// data[k] = encoding of linear index first_index + k, for k in [0, count): a row block of A is
// contiguous in A's linear order, so one call fills it.
cudaError_t fill_encoded(void* data, int64_t count, int element_bytes, int64_t first_index, uint64_t seed,
                         cudaStream_t stream);

// Counts k in [0, count) where data[k] is not the encoding of first_index + k: a run of A's
// elements that should have arrived unchanged (the bare exchange's received chunks).
cudaError_t check_encoded_run(const void* data, int64_t count, int element_bytes, int64_t first_index,
                              uint64_t seed, Mismatches* tally, cudaStream_t stream);

// A block of out_rows rows of A^T (packed: row length `rows`), starting at row first_out_row of
// A^T: element (jj, i) must be A(i, first_out_row + jj), i.e. the encoding of
// i * cols + first_out_row + jj. The linear index of a wrong element is jj * rows + i.
cudaError_t check_transposed_block(const void* out, int64_t out_rows, int64_t rows, int64_t cols,
                                   int64_t first_out_row, int element_bytes, uint64_t seed,
                                   Mismatches* tally, cudaStream_t stream);

}  // namespace xpose::cli
