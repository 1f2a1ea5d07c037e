// SPDX-License-Identifier: Apache-2.0
// Fill and check kernels of the distributed bench: grid-stride loops over 64-bit counts, one
// element per thread and iteration (they run once per verified run, never timed). A check
// tallies per thread, then per block in shared memory, then one atomic per block that saw a
// mismatch, so a wholly wrong 16 GiB block costs no more than a right one.
#include "dist_bench_kernels.hpp"

#include <algorithm>

#include "dist_encoding.hpp"

namespace xpose::cli {
namespace {

using dist_encoding::encoded_word;

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 8192;  // grid-stride beyond this
constexpr unsigned long long kNone = ~0ull;

template <int kBytes>
struct Element;

template <>
struct Element<1> {
  using Type = unsigned char;
  __device__ static Type make(uint64_t index, uint64_t seed) { return static_cast<Type>(encoded_word(index, seed, 0, 1)); }
  __device__ static bool same(Type a, Type b) { return a == b; }
};
template <>
struct Element<2> {
  using Type = unsigned short;
  __device__ static Type make(uint64_t index, uint64_t seed) { return static_cast<Type>(encoded_word(index, seed, 0, 2)); }
  __device__ static bool same(Type a, Type b) { return a == b; }
};
template <>
struct Element<4> {
  using Type = unsigned int;
  __device__ static Type make(uint64_t index, uint64_t seed) { return static_cast<Type>(encoded_word(index, seed, 0, 4)); }
  __device__ static bool same(Type a, Type b) { return a == b; }
};
template <>
struct Element<8> {
  using Type = unsigned long long;
  __device__ static Type make(uint64_t index, uint64_t seed) { return encoded_word(index, seed, 0, 8); }
  __device__ static bool same(Type a, Type b) { return a == b; }
};
template <>
struct Element<16> {
  using Type = ulonglong2;  // x: bytes 0-7 (word 0), y: bytes 8-15 (word 1)
  __device__ static Type make(uint64_t index, uint64_t seed) {
    return make_ulonglong2(encoded_word(index, seed, 0, 8), encoded_word(index, seed, 1, 8));
  }
  __device__ static bool same(Type a, Type b) { return a.x == b.x && a.y == b.y; }
};

// Adds a thread's tally to the block's, and the block's to the global one.
__device__ void report(unsigned long long count, unsigned long long first, Mismatches* tally) {
  __shared__ unsigned long long block_count, block_first;
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    block_count = 0;
    block_first = kNone;
  }
  __syncthreads();
  if (count > 0) {
    atomicAdd(&block_count, count);
    atomicMin(&block_first, first);
  }
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && block_count > 0) {
    atomicAdd(&tally->count, block_count);
    atomicMin(&tally->first, block_first);
  }
}

template <int kBytes>
__global__ void fill_encoded_kernel(typename Element<kBytes>::Type* data, int64_t count, int64_t first_index,
                                    uint64_t seed) {
  for (int64_t k = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; k < count;
       k += int64_t{gridDim.x} * blockDim.x)
    data[k] = Element<kBytes>::make(static_cast<uint64_t>(first_index + k), seed);
}

template <int kBytes>
__global__ void check_encoded_run_kernel(const typename Element<kBytes>::Type* data, int64_t count,
                                         int64_t first_index, uint64_t seed, Mismatches* tally) {
  unsigned long long wrong = 0, first = kNone;
  for (int64_t k = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; k < count;
       k += int64_t{gridDim.x} * blockDim.x) {
    if (!Element<kBytes>::same(data[k], Element<kBytes>::make(static_cast<uint64_t>(first_index + k), seed))) {
      if (wrong == 0) first = static_cast<unsigned long long>(k);
      ++wrong;
    }
  }
  report(wrong, first, tally);
}

// x covers the columns i of the output block (A's rows), y its rows jj (A's columns).
template <int kBytes>
__global__ void check_transposed_kernel(const typename Element<kBytes>::Type* out, int64_t out_rows,
                                        int64_t rows, int64_t cols, int64_t first_out_row, uint64_t seed,
                                        Mismatches* tally) {
  unsigned long long wrong = 0, first = kNone;
  for (int64_t jj = blockIdx.y; jj < out_rows; jj += gridDim.y) {
    const int64_t j = first_out_row + jj;
    for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows;
         i += int64_t{gridDim.x} * blockDim.x) {
      const int64_t k = jj * rows + i;
      if (!Element<kBytes>::same(out[k], Element<kBytes>::make(static_cast<uint64_t>(i * cols + j), seed))) {
        if (wrong == 0) first = static_cast<unsigned long long>(k);
        ++wrong;
      }
    }
  }
  report(wrong, first, tally);
}

unsigned int blocks_for(int64_t count) {
  return static_cast<unsigned int>(std::max<int64_t>(1, std::min(kMaxBlocks, (count + kThreads - 1) / kThreads)));
}

template <int kBytes>
void launch_fill(void* data, int64_t count, int64_t first_index, uint64_t seed, cudaStream_t stream) {
  fill_encoded_kernel<kBytes><<<blocks_for(count), kThreads, 0, stream>>>(
      static_cast<typename Element<kBytes>::Type*>(data), count, first_index, seed);
}

template <int kBytes>
void launch_check_run(const void* data, int64_t count, int64_t first_index, uint64_t seed, Mismatches* tally,
                      cudaStream_t stream) {
  check_encoded_run_kernel<kBytes><<<blocks_for(count), kThreads, 0, stream>>>(
      static_cast<const typename Element<kBytes>::Type*>(data), count, first_index, seed, tally);
}

template <int kBytes>
void launch_check_transposed(const void* out, int64_t out_rows, int64_t rows, int64_t cols, int64_t first_out_row,
                             uint64_t seed, Mismatches* tally, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned int>(std::min<int64_t>(64, (rows + kThreads - 1) / kThreads)),
                  static_cast<unsigned int>(std::min<int64_t>(65535, out_rows)));
  check_transposed_kernel<kBytes><<<grid, kThreads, 0, stream>>>(
      static_cast<const typename Element<kBytes>::Type*>(out), out_rows, rows, cols, first_out_row, seed, tally);
}

}  // namespace

cudaError_t reset_mismatches(Mismatches* tally, cudaStream_t stream) {
  const cudaError_t status = cudaMemsetAsync(&tally->count, 0, sizeof tally->count, stream);
  return status != cudaSuccess ? status : cudaMemsetAsync(&tally->first, 0xFF, sizeof tally->first, stream);
}

cudaError_t fill_encoded(void* data, int64_t count, int element_bytes, int64_t first_index, uint64_t seed,
                         cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (element_bytes) {
    case 1: launch_fill<1>(data, count, first_index, seed, stream); break;
    case 2: launch_fill<2>(data, count, first_index, seed, stream); break;
    case 4: launch_fill<4>(data, count, first_index, seed, stream); break;
    case 8: launch_fill<8>(data, count, first_index, seed, stream); break;
    case 16: launch_fill<16>(data, count, first_index, seed, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t check_encoded_run(const void* data, int64_t count, int element_bytes, int64_t first_index,
                              uint64_t seed, Mismatches* tally, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (element_bytes) {
    case 1: launch_check_run<1>(data, count, first_index, seed, tally, stream); break;
    case 2: launch_check_run<2>(data, count, first_index, seed, tally, stream); break;
    case 4: launch_check_run<4>(data, count, first_index, seed, tally, stream); break;
    case 8: launch_check_run<8>(data, count, first_index, seed, tally, stream); break;
    case 16: launch_check_run<16>(data, count, first_index, seed, tally, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t check_transposed_block(const void* out, int64_t out_rows, int64_t rows, int64_t cols,
                                   int64_t first_out_row, int element_bytes, uint64_t seed, Mismatches* tally,
                                   cudaStream_t stream) {
  if (out_rows <= 0 || rows <= 0) return cudaSuccess;
  switch (element_bytes) {
    case 1: launch_check_transposed<1>(out, out_rows, rows, cols, first_out_row, seed, tally, stream); break;
    case 2: launch_check_transposed<2>(out, out_rows, rows, cols, first_out_row, seed, tally, stream); break;
    case 4: launch_check_transposed<4>(out, out_rows, rows, cols, first_out_row, seed, tally, stream); break;
    case 8: launch_check_transposed<8>(out, out_rows, rows, cols, first_out_row, seed, tally, stream); break;
    case 16: launch_check_transposed<16>(out, out_rows, rows, cols, first_out_row, seed, tally, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace xpose::cli
