// SPDX-License-Identifier: Apache-2.0
// In-place transposes on the GPU (docs/inplace.md). Square matrices: each block swaps a pair of
// tiles across the diagonal, both read before either is written, so no block touches another's
// elements. Other shapes: the three steps of core/inplace.hpp, each a permutation within rows or
// within columns of the M x N view (M <= N):
//   - rows that fit a block's shared memory are read whole, then written permuted (one launch);
//     longer rows go through global scratch, a chunk of rows at a time;
//   - columns go through global scratch a strip at a time (strips sized to half the L2, so that
//     the gathers from the strip hit L2): the strip is copied out, then gathered back into place
//     with coalesced writes.
// Scratch comes from CUDA's stream-ordered pool for the call; nothing waits on the host.
#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "core/inplace.hpp"
#include "cuda/device_types.cuh"
#include "cuda/gpu_runtime.hpp"

namespace xpose::detail {
namespace {

using cuda::Element;

constexpr int kSquareTile = 32;      // elements per side of a swapped tile
constexpr int kSquareRowsPerPass = 8;  // thread rows of a square block (32 x 8 threads)
constexpr int kThreads = 256;

// ---- square ------------------------------------------------------------------------------------

// Block (x, y) of matrix z swaps tiles (y, x) and (x, y) for x >= y; the blocks below the diagonal
// have nothing to do.
template <typename T>
__global__ void __launch_bounds__(kSquareTile * kSquareRowsPerPass)
    swap_square_tiles(T* data, int64_t n, int64_t batch) {
  __shared__ T upper[kSquareTile][kSquareTile + 1];
  __shared__ T lower[kSquareTile][kSquareTile + 1];
  const int64_t tile_col = blockIdx.x, tile_row = blockIdx.y;
  if (tile_col < tile_row) return;
  const int64_t r0 = tile_row * kSquareTile, c0 = tile_col * kSquareTile;
  const bool diagonal = tile_col == tile_row;
  for (int64_t m = blockIdx.z; m < batch; m += gridDim.z) {
    T* a = data + m * n * n;
    for (int y = threadIdx.y; y < kSquareTile; y += kSquareRowsPerPass) {
      const int64_t col = c0 + threadIdx.x, row = r0 + y;
      if (row < n && col < n) upper[y][threadIdx.x] = a[row * n + col];
      if (!diagonal && c0 + y < n && r0 + threadIdx.x < n) lower[y][threadIdx.x] = a[(c0 + y) * n + r0 + threadIdx.x];
    }
    __syncthreads();
    // Tile (x, y)'s place takes upper transposed; tile (y, x)'s takes lower transposed.
    for (int y = threadIdx.y; y < kSquareTile; y += kSquareRowsPerPass) {
      if (c0 + y < n && r0 + threadIdx.x < n) a[(c0 + y) * n + r0 + threadIdx.x] = upper[threadIdx.x][y];
      if (!diagonal && r0 + y < n && c0 + threadIdx.x < n) a[(r0 + y) * n + c0 + threadIdx.x] = lower[threadIdx.x][y];
    }
    __syncthreads();
  }
}

// ---- rows --------------------------------------------------------------------------------------

// Step 2 (forward: A[i][d_i(j)] <- A[i][j]) or its inverse (A[i][j] <- A[i][d_i(j)]) on rows
// read whole into shared memory; rows of every matrix of the batch, a row per block at a time.
// Rows that fit shared memory have N < 2^16, so the column map runs in 32-bit arithmetic.
template <typename T, bool Inverse>
__global__ void __launch_bounds__(kThreads)
    shuffle_rows_shared(T* data, Decomposition d, int64_t rows_total) {
  extern __shared__ unsigned char shared_bytes[];
  T* row_copy = reinterpret_cast<T*>(shared_bytes);
  const uint32_t M = static_cast<uint32_t>(d.M), N = static_cast<uint32_t>(d.N), b = static_cast<uint32_t>(d.b);
  for (int64_t r = blockIdx.x; r < rows_total; r += gridDim.x) {
    T* row = data + r * N;
    const uint32_t i = static_cast<uint32_t>(r % M);
    for (uint32_t j = threadIdx.x; j < N; j += blockDim.x) row_copy[j] = row[j];
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < N; j += blockDim.x) {
      const uint32_t column = ((i + j / b) % M + j * M % N) % N;  // j * M < 2^32: j, M < 2^16
      if (Inverse)
        row[j] = row_copy[column];
      else
        row[column] = row_copy[j];
    }
    __syncthreads();
  }
}

// The same for rows longer than shared memory: rows [first, first + count) of one matrix were
// copied to `copy`; each is written back permuted.
template <typename T, bool Inverse>
__global__ void __launch_bounds__(kThreads)
    shuffle_rows_global(T* matrix, const T* copy, Decomposition d, int64_t first, int64_t count) {
  const int64_t total = count * d.N;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = e / d.N, j = e - r * d.N, i = first + r;
    const int64_t column = d.shuffled_column(i, j);
    if (Inverse)
      matrix[i * d.N + j] = copy[r * d.N + column];
    else
      matrix[i * d.N + column] = copy[e];
  }
}

// ---- columns -----------------------------------------------------------------------------------

enum class ColumnStep { rotate, unrotate, shuffle, unshuffle };

// strip[i][c] = A[i][j0 + c] for the M rows and `width` columns of a strip.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    copy_strip(const T* matrix, T* strip, int64_t M, int64_t N, int64_t j0, int64_t width) {
  const int64_t total = M * width;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e / width, c = e - i * width;
    strip[e] = matrix[i * N + j0 + c];
  }
}

// A[i][j] <- strip[source(i, j)][j - j0], with source the step's row map (core/inplace.hpp):
// rotate (i + j / b) mod M, unrotate (i - j / b) mod M, shuffle (q(i) + j) mod M, unshuffle
// q^-1((i - j) mod M).
template <typename T, ColumnStep Step>
__global__ void __launch_bounds__(kThreads)
    gather_strip(T* matrix, const T* strip, Decomposition d, const int64_t* q, const int64_t* q_inverse,
                 int64_t j0, int64_t width) {
  const int64_t M = d.M, total = M * width;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t i = e / width, c = e - i * width, j = j0 + c;
    int64_t source;
    if (Step == ColumnStep::rotate) {
      source = d.rotated_row(i, j);
    } else if (Step == ColumnStep::unrotate) {
      source = d.unrotated_row(i, j);
    } else if (Step == ColumnStep::shuffle) {
      source = q[i] + j % M;
      if (source >= M) source -= M;
    } else {
      const int64_t shift = j % M;
      source = q_inverse[i >= shift ? i - shift : i + M - shift];
    }
    matrix[i * d.N + j] = strip[source * width + c];
  }
}

__global__ void shuffle_tables(Decomposition d, int64_t* q, int64_t* q_inverse) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < d.M; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t row = d.q(i);
    q[i] = row;
    q_inverse[row] = i;
  }
}

// ---- the plan's sizes --------------------------------------------------------------------------

struct DeviceLimits {
  int64_t shared_per_block = 48 << 10;  // opt-in maximum of dynamic shared memory
  int64_t l2_bytes = 0;
  int multiprocessors = 0;
};

DeviceLimits device_limits() {
  DeviceLimits limits;
  int device = 0, value = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return limits;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) == cudaSuccess && value > 0)
    limits.shared_per_block = value;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrL2CacheSize, device) == cudaSuccess) limits.l2_bytes = value;
  limits.multiprocessors = gpu::multiprocessor_count();
  return limits;
}

// Where the decomposition keeps its scratch: the column-shuffle tables, then one buffer that the
// column strips and (for long rows) chunks of rows take in turn.
struct Layout {
  bool rows_in_shared = false;  // a row fits one block's shared memory
  int64_t rows_per_chunk = 0;   // otherwise: rows copied to scratch at a time
  int64_t strip_width = 0;      // columns per strip
  int64_t tables_bytes = 0, buffer_bytes = 0;

  Layout(const InplaceProblem& p, const DeviceLimits& limits) {
    const Decomposition& d = p.decomposition;
    const int64_t size = p.elem_size, budget = inplace_scratch_budget(p);
    rows_in_shared = d.N * size <= limits.shared_per_block && d.N < (int64_t{1} << 16);
    int64_t rows_elements = 0;
    if (!rows_in_shared) {
      rows_per_chunk = std::clamp<int64_t>(budget / (d.N * size), 1, d.M);
      rows_elements = rows_per_chunk * d.N;
    }
    // Strips of half the L2 (the gathers then hit it), within the budget, one column at least.
    const int64_t strip_target = std::min(budget, std::max<int64_t>(limits.l2_bytes / 2, int64_t{4} << 20));
    strip_width = std::clamp<int64_t>(strip_target / (d.M * size), 1, d.N);
    tables_bytes = 2 * d.M * int64_t{sizeof(int64_t)};
    buffer_bytes = std::max(rows_elements, d.M * strip_width) * size;
  }
  int64_t scratch_bytes() const { return tables_bytes + buffer_bytes; }
};

int grid_for(int64_t work, int multiprocessors) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<int64_t>(blocks, 1, int64_t{multiprocessors} * 16));
}

template <typename T>
Status run_square(T* data, const InplaceProblem& p, cudaStream_t stream) {
  const int64_t tiles = (p.rows + kSquareTile - 1) / kSquareTile;
  if (tiles > 65535) return fail(Status::unsupported, message("square matrix of ", p.rows, " rows: too many tiles"));
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(tiles),
                  static_cast<unsigned>(std::min<int64_t>(p.batch, 65535)));
  swap_square_tiles<T><<<grid, dim3(kSquareTile, kSquareRowsPerPass), 0, stream>>>(data, p.rows, p.batch);
  return gpu::check_launch("swap_square_tiles");
}

template <typename T, bool Inverse>
Status run_row_step(T* data, const InplaceProblem& p, const Layout& layout, T* buffer, const DeviceLimits& limits,
                    cudaStream_t stream) {
  const Decomposition& d = p.decomposition;
  if (layout.rows_in_shared) {
    const int64_t shared = d.N * int64_t{sizeof(T)};
    auto kernel = shuffle_rows_shared<T, Inverse>;
    XPOSE_GPU_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    const int64_t rows_total = d.M * p.batch;
    const int grid = static_cast<int>(std::min<int64_t>(rows_total, int64_t{limits.multiprocessors} * 32));
    kernel<<<grid, kThreads, static_cast<size_t>(shared), stream>>>(data, d, rows_total);
    return gpu::check_launch("shuffle_rows_shared");
  }
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = data + m * p.matrix_elements();
    for (int64_t first = 0; first < d.M; first += layout.rows_per_chunk) {
      const int64_t count = std::min(layout.rows_per_chunk, d.M - first);
      XPOSE_GPU_TRY(cudaMemcpyAsync(buffer, matrix + first * d.N, static_cast<size_t>(count * d.N) * sizeof(T),
                                    cudaMemcpyDeviceToDevice, stream));
      shuffle_rows_global<T, Inverse><<<grid_for(count * d.N, limits.multiprocessors), kThreads, 0, stream>>>(
          matrix, buffer, d, first, count);
      if (Status s = gpu::check_launch("shuffle_rows_global"); s != Status::ok) return s;
    }
  }
  return Status::ok;
}

template <typename T, ColumnStep Step>
Status run_column_step(T* data, const InplaceProblem& p, const Layout& layout, T* buffer, const int64_t* q,
                       const int64_t* q_inverse, const DeviceLimits& limits, cudaStream_t stream) {
  const Decomposition& d = p.decomposition;
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = data + m * p.matrix_elements();
    for (int64_t j0 = 0; j0 < d.N; j0 += layout.strip_width) {
      const int64_t width = std::min(layout.strip_width, d.N - j0);
      const int grid = grid_for(d.M * width, limits.multiprocessors);
      copy_strip<T><<<grid, kThreads, 0, stream>>>(matrix, buffer, d.M, d.N, j0, width);
      gather_strip<T, Step><<<grid, kThreads, 0, stream>>>(matrix, buffer, d, q, q_inverse, j0, width);
      if (Status s = gpu::check_launch("gather_strip"); s != Status::ok) return s;
    }
  }
  return Status::ok;
}

template <typename T>
Status run_decomposed(T* data, const InplaceProblem& p, const DeviceLimits& limits, unsigned char* scratch,
                      cudaStream_t stream) {
  const Decomposition& d = p.decomposition;
  const Layout layout(p, limits);
  auto* q = reinterpret_cast<int64_t*>(scratch);
  int64_t* q_inverse = q + d.M;
  T* buffer = reinterpret_cast<T*>(scratch + layout.tables_bytes);
  shuffle_tables<<<grid_for(d.M, limits.multiprocessors), kThreads, 0, stream>>>(d, q, q_inverse);
  if (Status s = gpu::check_launch("shuffle_tables"); s != Status::ok) return s;
  if (!d.inverse) {
    if (d.rotate)
      if (Status s = run_column_step<T, ColumnStep::rotate>(data, p, layout, buffer, q, q_inverse, limits, stream);
          s != Status::ok)
        return s;
    if (Status s = run_row_step<T, false>(data, p, layout, buffer, limits, stream); s != Status::ok) return s;
    return run_column_step<T, ColumnStep::shuffle>(data, p, layout, buffer, q, q_inverse, limits, stream);
  }
  if (Status s = run_column_step<T, ColumnStep::unshuffle>(data, p, layout, buffer, q, q_inverse, limits, stream);
      s != Status::ok)
    return s;
  if (Status s = run_row_step<T, true>(data, p, layout, buffer, limits, stream); s != Status::ok) return s;
  if (d.rotate) return run_column_step<T, ColumnStep::unrotate>(data, p, layout, buffer, q, q_inverse, limits, stream);
  return Status::ok;
}

}  // namespace

int64_t cuda_inplace_scratch_bytes(const InplaceProblem& p) {
  if (p.method != InplaceMethod::decomposed) return 0;
  return Layout(p, device_limits()).scratch_bytes();
}

Status cuda_transpose_inplace(void* data, const InplaceProblem& p, void* stream_handle) {
  auto stream = static_cast<cudaStream_t>(stream_handle);
  Status status = Status::ok;
  if (p.method == InplaceMethod::square) {
    cuda::dispatch_size(p.elem_size, [&](auto size) {
      status = run_square(static_cast<typename Element<decltype(size)::value>::type*>(data), p, stream);
    });
    return status;
  }
  const DeviceLimits limits = device_limits();
  const int64_t scratch_bytes = Layout(p, limits).scratch_bytes();
  void* scratch = nullptr;
  if (Status s = gpu::check(cudaMallocAsync(&scratch, static_cast<size_t>(scratch_bytes), stream), "cudaMallocAsync");
      s != Status::ok)
    return s;
  cuda::dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    status = run_decomposed(static_cast<T*>(data), p, limits, static_cast<unsigned char*>(scratch), stream);
  });
  const Status freed = gpu::check(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
  return status != Status::ok ? status : freed;
}

}  // namespace xpose::detail
