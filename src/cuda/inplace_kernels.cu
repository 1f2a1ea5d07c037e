// SPDX-License-Identifier: Apache-2.0
// In-place transposes on the GPU (docs/inplace.md). Square matrices: each block swaps a pair of
// tiles across the diagonal, both read before either is written, so no block touches another's
// elements. Other shapes: the three steps of core/inplace.hpp, each a permutation within rows or
// within columns of the M x N view (M <= N):
//   - rows that fit a block's shared memory are read whole, then written permuted (one launch);
//     longer rows go through global scratch, a chunk of rows at a time;
//   - columns go through a scratch strip, a strip of columns at a time (sized to half the L2, so
//     that the strip tends to stay there): a rotation of the columns one way and whole rows the
//     other, both coalesced (see "columns" below).
// Scratch comes from CUDA's stream-ordered pool for the call; nothing waits on the host.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/error.hpp"
#include "core/inplace.hpp"
#include "core/kernel_registry.hpp"
#include "core/problem.hpp"
#include "core/permute_layout.hpp"
#include "core/permute_problem.hpp"
#include "cuda/device_types.cuh"
#include "cuda/gpu_runtime.hpp"
#include "cuda/permute_params.hpp"
#include "cuda/permute_tile.hpp"

namespace xpose::detail {
namespace {

using cuda::Element;

constexpr int kWarp = 32;
constexpr int kBlockRows = 8;  // thread rows of a 2D block (32 x 8 threads)
constexpr int kThreads = kWarp * kBlockRows;
// Loads a thread issues before their stores in the copying loops: enough bytes in flight per SM
// to cover the memory's latency (a load-store loop would otherwise wait out each load).
constexpr int kInFlight = 8;
constexpr int kRowThreads = 1024;  // threads of a block of the shared-memory row step

// ---- square ------------------------------------------------------------------------------------

// 8-byte elements: block (x, y) of matrix z swaps tiles (y, x) and (x, y) of 32 x 32 elements for
// x >= y (the blocks below the diagonal have nothing to do), one element per thread and access (a
// warp moves 256 contiguous bytes). Against the tile agent's 32 x 32 tiles below, on an H100:
// 16384^2 93.5 / 83.0% of memcpy, 8193^2 76.0 / 67.7 (smaller blocks: more of them per SM).
template <typename T>
__global__ void __launch_bounds__(kThreads) swap_square_element_tiles(T* data, int64_t n, int64_t batch) {
  __shared__ T upper[kWarp][kWarp + 1];
  __shared__ T lower[kWarp][kWarp + 1];
  const int64_t tile_col = blockIdx.x, tile_row = blockIdx.y;
  if (tile_col < tile_row) return;
  const int64_t r0 = tile_row * kWarp, c0 = tile_col * kWarp;
  const bool diagonal = tile_col == tile_row;
  const int x = static_cast<int>(threadIdx.x);
  for (int64_t m = blockIdx.z; m < batch; m += gridDim.z) {
    T* a = data + m * n * n;
    for (int y = threadIdx.y; y < kWarp; y += kBlockRows) {
      if (r0 + y < n && c0 + x < n) upper[y][x] = a[(r0 + y) * n + c0 + x];
      if (!diagonal && c0 + y < n && r0 + x < n) lower[y][x] = a[(c0 + y) * n + r0 + x];
    }
    __syncthreads();
    // Tile (x, y)'s place takes upper transposed; tile (y, x)'s takes lower transposed.
    for (int y = threadIdx.y; y < kWarp; y += kBlockRows) {
      if (c0 + y < n && r0 + x < n) a[(c0 + y) * n + r0 + x] = upper[x][y];
      if (!diagonal && r0 + y < n && c0 + x < n) a[(r0 + y) * n + c0 + x] = lower[x][y];
    }
    __syncthreads();
  }
}

// Block k swaps tile pair k (square_tile_pair): both tiles are read into shared memory before
// either is written, each then written transposed into the other's place (a diagonal tile into
// its own), so no block touches another's elements. The tiles are those of the tiled permute
// kernel (cuda/permute_tile.hpp) for the view of one matrix as a 2D transpose, made square: 16-byte
// vectors along rows on both sides where rows start on 16 bytes, the shifted forms where they do
// not, the same traffic as an out-of-place transpose. Each block holds two tiles and their tables.
template <int Size, bool ShiftedLoads, bool ShiftedStores>
__global__ void __launch_bounds__(cuda::kTiledThreads, 4)
    swap_square_tile_pairs(uint8_t* data, const __grid_constant__ cuda::TiledParams p, int64_t tiles,
                           int64_t pairs, int64_t matrices, bool vectors) {
  __shared__ __align__(16) uint8_t tile[2][cuda::kTiledSharedBytes];
  __shared__ int64_t row_in[2][cuda::kMaxTileEdge];
  __shared__ int64_t col_out[2][cuda::kMaxTileEdge];
  const int thread = static_cast<int>(threadIdx.x);
  const cuda::TiledAgent<Size> upper{p, thread, cuda::kTiledThreads, tile[0], row_in[0], col_out[0]};
  const cuda::TiledAgent<Size> lower{p, thread, cuda::kTiledThreads, tile[1], row_in[1], col_out[1]};
  const int64_t n = p.rows, side = int64_t{1} << p.log2_tile_rows;
  const auto origin = [&](int64_t i, int64_t j, int64_t matrix) {
    cuda::TileOrigin o;
    o.row0 = i * side;
    o.col0 = j * side;
    o.rows_here = static_cast<int>(n - o.row0 < side ? n - o.row0 : side);
    o.cols_here = static_cast<int>(n - o.col0 < side ? n - o.col0 : side);
    o.in_base = o.out_base = matrix * n * n;
    return o;
  };
  const auto load = [&](const cuda::TiledAgent<Size>& agent, const cuda::TileOrigin& o) {
    if constexpr (ShiftedLoads)
      agent.load_shifted(o, data);
    else
      agent.load(o, data, vectors);
  };
  const auto store = [&](const cuda::TiledAgent<Size>& agent, const cuda::TileOrigin& o) {
    if constexpr (ShiftedStores)
      agent.store_shifted(o, data);
    else
      agent.store(o, data, vectors);
  };
  for (int64_t k = blockIdx.x; k < pairs * matrices; k += gridDim.x) {
    const int64_t matrix = k / pairs;
    const SquareTilePair pair = square_tile_pair(k - matrix * pairs, tiles);
    const cuda::TileOrigin a = origin(pair.i, pair.j, matrix), b = origin(pair.j, pair.i, matrix);
    const bool mirrored = pair.i != pair.j;
    upper.fill_tables(a);
    if (mirrored) lower.fill_tables(b);
    __syncthreads();
    load(upper, a);
    if (mirrored) load(lower, b);
    __syncthreads();  // both tiles read before either place is written
    store(upper, a);  // tile (i, j) transposed lands on (j, i)
    if (mirrored) store(lower, b);
    __syncthreads();  // the tiles and tables are reused
  }
}

// ---- rows --------------------------------------------------------------------------------------

// Step 2's column map d_i(j) = ((i + j / b) mod M + j M) mod N, stepped along j by a fixed
// stride without divisions (the quotient, remainder and both sums carried from step to step).
template <typename Int>
struct ColumnWalk {
  Int M, N, b;
  Int step_quotient, step_remainder, step_spread;  // stride / b mod M, stride mod b, stride M mod N
  Int remainder, rotated, spread;                  // j mod b, (i + j / b) mod M, j M mod N

  __device__ ColumnWalk(Int M_, Int N_, Int b_, Int stride) : M(M_), N(N_), b(b_) {
    step_quotient = (stride / b) % M;
    step_remainder = stride % b;
    step_spread = static_cast<Int>((static_cast<uint64_t>(stride % N) * static_cast<uint64_t>(M)) % N);
  }
  __device__ void start(Int i, Int j) {
    remainder = j % b;
    rotated = (i + (j / b) % M) % M;
    spread = static_cast<Int>((static_cast<uint64_t>(j) * static_cast<uint64_t>(M)) % N);
  }
  __device__ Int column() const {
    const Int c = rotated + spread;
    return c >= N ? c - N : c;
  }
  __device__ void advance() {
    remainder += step_remainder;
    Int carry = 0;
    if (remainder >= b) {
      remainder -= b;
      carry = 1;
    }
    rotated += step_quotient + carry;
    if (rotated >= M) rotated -= M;
    spread += step_spread;
    if (spread >= N) spread -= N;
  }
};

// Step 2 (forward: A[i][d_i(j)] <- A[i][j]) or its inverse (A[i][j] <- A[i][d_i(j)]) on rows
// read whole into shared memory; rows of every matrix of the batch, a row per block at a time.
// Rows of tens of KiB leave room for one or two blocks per SM, so a block has kRowThreads threads
// to keep enough loads in flight.
// The forward step scatters into a second shared row where two fit (Staged), so that its global
// stores are coalesced too; else it scatters straight to the row. Rows that fit shared memory
// have N < 2^16, so the column map runs in 32-bit arithmetic.
template <typename T, bool Inverse, bool Staged>
__global__ void __launch_bounds__(kRowThreads)
    shuffle_rows_shared(T* data, Decomposition d, int64_t rows_total) {
  extern __shared__ unsigned char shared_bytes[];
  const uint32_t M = static_cast<uint32_t>(d.M), N = static_cast<uint32_t>(d.N);
  T* row_copy = reinterpret_cast<T*>(shared_bytes);
  T* row_out = row_copy + N;  // used when Staged
  ColumnWalk<uint32_t> walk(M, N, static_cast<uint32_t>(d.b), blockDim.x);
  for (int64_t r = blockIdx.x; r < rows_total; r += gridDim.x) {
    T* row = data + r * N;
#pragma unroll 8
    for (uint32_t j = threadIdx.x; j < N; j += blockDim.x) row_copy[j] = row[j];
    __syncthreads();
    walk.start(static_cast<uint32_t>(r % M), threadIdx.x);
    for (uint32_t j = threadIdx.x; j < N; j += blockDim.x, walk.advance()) {
      if (Inverse)
        row[j] = row_copy[walk.column()];
      else if (Staged)
        row_out[walk.column()] = row_copy[j];
      else
        row[walk.column()] = row_copy[j];
    }
    if (Staged) {
      __syncthreads();
      for (uint32_t j = threadIdx.x; j < N; j += blockDim.x) row[j] = row_out[j];
    }
    __syncthreads();
  }
}

// The same for rows longer than shared memory: rows [first, first + count) of one matrix were
// copied to `copy`; each is written back permuted (blocks along x walk a row, along y the rows).
template <typename T, bool Inverse>
__global__ void __launch_bounds__(kThreads)
    shuffle_rows_global(T* matrix, const T* copy, Decomposition d, int64_t first, int64_t count) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  ColumnWalk<int64_t> walk(d.M, d.N, d.b, stride);
  for (int64_t r = blockIdx.y; r < count; r += gridDim.y) {
    const int64_t i = first + r;
    const int64_t j0 = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
    walk.start(i, j0);
    for (int64_t j = j0; j < d.N; j += kInFlight * stride) {
      // kInFlight loads, then their stores (copy and matrix may alias to the compiler).
      T values[kInFlight];
      int64_t columns[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        columns[u] = walk.column();
        walk.advance();
        const int64_t ju = j + u * stride;
        if (ju < d.N) values[u] = copy[r * d.N + (Inverse ? columns[u] : ju)];
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int64_t ju = j + u * stride;
        if (ju < d.N) matrix[i * d.N + (Inverse ? ju : columns[u])] = values[u];
      }
    }
  }
}

// ---- columns -----------------------------------------------------------------------------------
//
// A column step runs on a strip of columns (all M rows) at a time, through a scratch strip S:
//   step 1  S <- A rotated by (j / b) mod M,  then A <- S
//   step 3  S <- A rotated by j mod M,        then A[i] <- S[q(i)]          (rows gathered)
//   inverse of 3: S[k] <- A[q^-1(k)],         then A <- S rotated by -j mod M
//   inverse of 1: S <- A,                     then A <- S rotated by -(j / b) mod M
// where "rotated by s_j" means out[k][j] = in[(k + s_j) mod M][j]. Within 32 adjacent columns the
// rotations differ by under 32 rows, so a block reads a band of rows once (coalesced) into shared
// memory and takes each column's rows from it: no access strides across rows. A's side of each
// copy is marked streaming (evict first), so that the strip tends to stay in L2 between the two.

// One strip of every matrix of a launch: element (k, c) of matrix z at base[z * matrix_stride +
// k * pitch + c].
template <typename T>
struct StripView {
  T* base;
  int64_t pitch, matrix_stride;
  __device__ T* at(int64_t z, int64_t k, int64_t c) const { return base + z * matrix_stride + k * pitch + c; }
};

template <bool Streaming, typename T>
__device__ T load(const T* p) {
  if constexpr (Streaming) return __ldcs(p); else return *p;
}
template <bool Streaming, typename T>
__device__ void store(T* p, T v) {
  if constexpr (Streaming) __stcs(p, v); else *p = v;
}

enum class RowMap { identity, table };


// dst[k][c] <- src[row(k)][c] with row(k) = k or table[k]: whole strip rows moved.
template <typename T, RowMap Map, bool StreamSource, bool StreamDestination>
__global__ void __launch_bounds__(kThreads)
    move_strip_rows(StripView<const T> src, StripView<T> dst, int64_t M, int64_t width, const int64_t* table) {
  const int64_t z = blockIdx.z, step = int64_t{gridDim.y} * blockDim.y;
  for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < width; c += int64_t{gridDim.x} * blockDim.x)
    for (int64_t k0 = blockIdx.y * int64_t{blockDim.y} + threadIdx.y; k0 < M; k0 += kInFlight * step) {
      // kInFlight loads before their stores: src and dst may be the same allocation to the
      // compiler, so it would not reorder them itself.
      T values[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int64_t k = k0 + u * step;
        if (k < M) values[u] = load<StreamSource>(src.at(z, Map == RowMap::table ? table[k] : k, c));
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (k0 + u * step < M) store<StreamDestination>(dst.at(z, k0 + u * step, c), values[u]);
    }
}

// Rows of a band tile: more for small elements, within 48 KiB of shared memory.
template <typename T> constexpr int band_tile_rows() { return sizeof(T) <= 4 ? 128 : sizeof(T) == 8 ? 64 : 32; }

// dst[k][c] <- src[(k + s) mod M][c] with s the rotation of column j = j0 + c: (j / b) mod M when
// ByQuotient, else j mod M; negated when Negate. A block takes 32 columns (x) and a tile of rows
// (y, then the next tile); the rotations of its columns exceed the smallest one (the first column's,
// or the last's when negated) by at most 31, so its band is the tile's rows plus 31.
template <typename T, bool ByQuotient, bool Negate, bool StreamSource, bool StreamDestination>
__global__ void __launch_bounds__(kThreads)
    rotate_strip_columns(StripView<const T> src, StripView<T> dst, int64_t M, int64_t width, int64_t j0, int64_t b) {
  constexpr int kTileRows = band_tile_rows<T>();
  __shared__ T band[kTileRows + kWarp][kWarp + 1];
  const int64_t z = blockIdx.z;
  const auto rotation = [&](int64_t column) {
    const int64_t j = j0 + column;
    const int64_t s = ByQuotient ? (j / b) % M : j % M;
    return Negate ? (M - s) % M : s;
  };
  const int64_t groups = (width + kWarp - 1) / kWarp, tiles = (M + kTileRows - 1) / kTileRows;
  for (int64_t group = blockIdx.x; group < groups; group += gridDim.x) {
    const int64_t first = group * kWarp, last = std::min(first + kWarp, width) - 1;
    const int64_t c = first + threadIdx.x;
    const int64_t base = rotation(Negate ? last : first);
    int64_t delta = c <= last ? rotation(c) - base : 0;
    if (delta < 0) delta += M;
    for (int64_t tile = blockIdx.y; tile < tiles; tile += gridDim.y) {
      const int64_t k0 = tile * kTileRows;
      const int64_t rows = std::min<int64_t>(kTileRows, M - k0);
      const int64_t start = (k0 + base) % M;
#pragma unroll
      for (int step = 0; step < (kTileRows + kWarp) / kBlockRows; ++step) {
        const int t = threadIdx.y + step * kBlockRows;
        if (t >= rows + kWarp - 1 || c > last) continue;
        int64_t row = start + t;
        while (row >= M) row -= M;  // once at most, unless M is shorter than a band
        band[t][threadIdx.x] = load<StreamSource>(src.at(z, row, c));
      }
      __syncthreads();
      if (c <= last)
        for (int t = threadIdx.y; t < rows; t += kBlockRows)
          store<StreamDestination>(dst.at(z, k0 + t, c), band[t + delta][threadIdx.x]);
      __syncthreads();
    }
  }
}

// q(i) and its inverse, the column shuffle's tables.
__global__ void shuffle_tables(Decomposition d, int64_t* q, int64_t* q_inverse) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < d.M; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t row = d.q(i);
    q[i] = row;
    q_inverse[row] = i;
  }
}

// The same rotation for views of fewer rows than a band (M < 64), where a band would read each
// row many times: each thread takes a column and reads its rows directly.
template <typename T, bool ByQuotient, bool Negate, bool StreamSource, bool StreamDestination>
__global__ void __launch_bounds__(kThreads)
    rotate_short_columns(StripView<const T> src, StripView<T> dst, int64_t M, int64_t width, int64_t j0, int64_t b) {
  const int64_t z = blockIdx.z;
  for (int64_t c = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; c < width; c += int64_t{gridDim.x} * blockDim.x) {
    const int64_t j = j0 + c;
    int64_t shift = ByQuotient ? (j / b) % M : j % M;
    if (Negate) shift = (M - shift) % M;
    for (int64_t k0 = 0; k0 < M; k0 += kInFlight) {
      T values[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        int64_t row = k0 + u + shift;
        if (row >= M) row -= M;
        if (k0 + u < M) values[u] = load<StreamSource>(src.at(z, row, c));
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (k0 + u < M) store<StreamDestination>(dst.at(z, k0 + u, c), values[u]);
    }
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
  bool rows_in_shared = false;        // a row fits one block's shared memory
  int64_t rows_per_chunk = 0;         // otherwise: rows copied to scratch at a time
  int64_t strip_width = 0;            // columns per strip
  int64_t matrices_per_strip = 1;     // strips as wide as the matrix: matrices of a batch per launch
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
    // Strips of half the L2 (the gathers then hit it), within the budget, one column at least;
    // small matrices of a batch share a launch (a grid's z) up to the same size.
    const int64_t strip_target = std::min(budget, std::max<int64_t>(limits.l2_bytes / 2, int64_t{4} << 20));
    strip_width = std::clamp<int64_t>(strip_target / (d.M * size), 1, d.N);
    if (strip_width == d.N)
      matrices_per_strip = std::clamp<int64_t>(strip_target / (d.M * d.N * size), 1, std::min<int64_t>(p.batch, 65535));
    tables_bytes = 2 * d.M * int64_t{sizeof(int64_t)};
    buffer_bytes = std::max(rows_elements, d.M * strip_width * matrices_per_strip) * size;
  }
  int64_t scratch_bytes() const { return tables_bytes + buffer_bytes; }
};

int grid_for(int64_t work, int multiprocessors) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<int64_t>(blocks, 1, int64_t{multiprocessors} * 16));
}

// The tiled permute's parameters for one n x n matrix transposed, with square tiles of at most
// kTiledSharedBytes (two per block); the shifted loads may read whole vectors anywhere in the
// batch's `batch` matrices.
bool square_tiled_params(int64_t n, int64_t batch, DType type, cuda::TiledParams* p) {
  PermuteProblem problem;
  if (make_permute_problem(Permutation{{n, n}, {1, 0}, {}, {}}, type, &problem) != Status::ok) return false;
  if (!cuda::make_tiled_params(normalise(problem), p, nullptr)) return false;
  int log2_side = 0;
  while ((int64_t{4} << (2 * log2_side)) * p->elem_size <= cuda::kTiledSharedBytes && (int64_t{1} << log2_side) < n)
    ++log2_side;
  p->log2_tile_rows = p->log2_tile_cols = log2_side;
  const int64_t tiles = (n + (int64_t{1} << log2_side) - 1) >> log2_side;
  p->row_tiles = p->col_tiles = tiles;
  cuda::set_tiled_walk(p, tiles);
  p->tiles = tiles * tiles;
  // The vector and shifted forms need a vector's elements along a tile side.
  const bool vector_fits = (int64_t{16} / p->elem_size) <= (int64_t{1} << log2_side);
  p->in_vectors = p->in_vectors && vector_fits;
  p->out_vectors = p->out_vectors && vector_fits;
  p->in_shifted = p->in_shifted && vector_fits;
  p->out_shifted = p->out_shifted && vector_fits;
  p->in_span_bytes = n * n * batch * p->elem_size;
  return true;
}

template <typename T>
Status run_square(T* data, const InplaceProblem& p, cudaStream_t stream) {
  constexpr int kSize = static_cast<int>(sizeof(T));
  const int64_t n = p.rows;
  if (n <= 1 || p.batch == 0) return Status::ok;  // a 1 x 1 matrix is its own transpose
  if constexpr (kSize == 8) {
    const int64_t tiles = (n + kWarp - 1) / kWarp;
    if (tiles > 65535) return fail(Status::unsupported, message("square matrix of ", n, " rows: too many tiles"));
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(tiles),
                    static_cast<unsigned>(std::min<int64_t>(p.batch, 65535)));
    swap_square_element_tiles<T><<<grid, dim3(kWarp, kBlockRows), 0, stream>>>(data, n, p.batch);
    return gpu::check_launch("swap_square_element_tiles");
  }
  cuda::TiledParams params;
  if (!square_tiled_params(n, p.batch, p.type, &params))
    return fail(Status::internal_error, message("square matrix of ", n, " rows: no tiled view"));
  const int64_t tiles = params.row_tiles, pairs = tiles * (tiles + 1) / 2;
  // Rows on 16 bytes (the same for loads and stores: a square's input and output strides agree).
  const bool vectors = params.in_vectors && params.out_vectors && reinterpret_cast<std::uintptr_t>(data) % 16 == 0;
  const bool shifted_in = !vectors && params.in_shifted, shifted_out = !vectors && params.out_shifted;
  const int64_t blocks = std::min<int64_t>(pairs * p.batch, int64_t{0x7FFFFFFF});  // a pair per block
  auto* bytes = reinterpret_cast<uint8_t*>(data);
  const auto launch = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(blocks), cuda::kTiledThreads, 0, stream>>>(bytes, params, tiles, pairs, p.batch,
                                                                              vectors);
  };
  if constexpr (kSize <= 2) {  // shifted stores: 1- and 2-byte elements (make_tiled_params)
    if (shifted_in && shifted_out) launch(swap_square_tile_pairs<kSize, true, true>);
    else if (shifted_out) launch(swap_square_tile_pairs<kSize, false, true>);
    else if (shifted_in) launch(swap_square_tile_pairs<kSize, true, false>);
    else launch(swap_square_tile_pairs<kSize, false, false>);
  } else if constexpr (kSize == 4) {
    if (shifted_in) launch(swap_square_tile_pairs<kSize, true, false>);
    else launch(swap_square_tile_pairs<kSize, false, false>);
  } else if constexpr (kSize == 16) {
    launch(swap_square_tile_pairs<kSize, false, false>);
  }
  return gpu::check_launch("swap_square_tile_pairs");
}

template <typename T, bool Inverse>
Status run_row_step(T* data, const InplaceProblem& p, const Layout& layout, T* buffer, const DeviceLimits& limits,
                    cudaStream_t stream) {
  const Decomposition& d = p.decomposition;
  if (layout.rows_in_shared) {
    const bool staged = !Inverse && 2 * d.N * int64_t{sizeof(T)} <= limits.shared_per_block;
    const int64_t shared = (staged ? 2 : 1) * d.N * int64_t{sizeof(T)};
    auto kernel = staged ? shuffle_rows_shared<T, Inverse, !Inverse> : shuffle_rows_shared<T, Inverse, false>;
    // The device's opt-in maximum, always the same value: the attribute is per function and
    // process-wide, so plans of other row lengths on other threads must not lower it between this
    // call and the launch.
    XPOSE_GPU_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(limits.shared_per_block)));
    const int64_t rows_total = d.M * p.batch;
    const int grid = static_cast<int>(std::min<int64_t>(rows_total, int64_t{limits.multiprocessors} * 32));
    kernel<<<grid, kRowThreads, static_cast<size_t>(shared), stream>>>(data, d, rows_total);
    return gpu::check_launch("shuffle_rows_shared");
  }
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = data + m * p.matrix_elements();
    for (int64_t first = 0; first < d.M; first += layout.rows_per_chunk) {
      const int64_t count = std::min(layout.rows_per_chunk, d.M - first);
      XPOSE_GPU_TRY(cudaMemcpyAsync(buffer, matrix + first * d.N, static_cast<size_t>(count * d.N) * sizeof(T),
                                    cudaMemcpyDeviceToDevice, stream));
      // Blocks along a row (x) and over the chunk's rows (y): about 16 blocks per SM in all.
      const int64_t wanted = int64_t{limits.multiprocessors} * 16;
      const int64_t along = std::clamp<int64_t>((d.N + kThreads - 1) / kThreads, 1, wanted);
      const int64_t down = std::clamp<int64_t>(wanted / along, 1, std::min<int64_t>(count, 65535));
      shuffle_rows_global<T, Inverse><<<dim3(static_cast<unsigned>(along), static_cast<unsigned>(down)), kThreads, 0,
                                        stream>>>(matrix, buffer, d, first, count);
      if (Status s = gpu::check_launch("shuffle_rows_global"); s != Status::ok) return s;
    }
  }
  return Status::ok;
}

// A strip's launch: 32 x 8 blocks (columns x rows), or 256 x 1 for views of fewer than 8 rows
// when rows move whole, about 16 blocks per SM over the strip (or a batch's group of strips).
dim3 strip_grid(dim3 block, int64_t M, int64_t width, int64_t rows_per_block_step, int64_t matrices,
                int multiprocessors) {
  const int64_t wanted = std::max<int64_t>(1, int64_t{multiprocessors} * 16 / matrices);
  const int64_t along = std::clamp<int64_t>((width + block.x - 1) / block.x, 1, std::max<int64_t>(wanted, 1));
  const int64_t steps = (M + rows_per_block_step - 1) / rows_per_block_step;
  const int64_t down = std::clamp<int64_t>(wanted / along, 1, std::min<int64_t>(steps, 65535));
  return dim3(static_cast<unsigned>(along), static_cast<unsigned>(down), static_cast<unsigned>(matrices));
}

enum class ColumnStep { rotate, unrotate, shuffle, unshuffle };

// Views of fewer rows than this rotate column by column (a band would reread rows).
constexpr int64_t kShortColumns = 64;

template <typename T, ColumnStep Step>
Status run_column_step(T* data, const InplaceProblem& p, const Layout& layout, T* buffer, const int64_t* q,
                       const int64_t* q_inverse, const DeviceLimits& limits, cudaStream_t stream) {
  const Decomposition& d = p.decomposition;
  const int64_t matrix_elements = p.matrix_elements(), M = d.M;
  for (int64_t m = 0; m < p.batch; m += layout.matrices_per_strip) {
    const int64_t matrices = std::min(layout.matrices_per_strip, p.batch - m);
    for (int64_t j0 = 0; j0 < d.N; j0 += layout.strip_width) {
      const int64_t width = std::min(layout.strip_width, d.N - j0);
      const StripView<T> a{data + m * matrix_elements + j0, d.N, matrix_elements};
      const StripView<T> strip{buffer, width, M * width};
      const StripView<const T> a_in{a.base, a.pitch, a.matrix_stride};
      const StripView<const T> strip_in{strip.base, strip.pitch, strip.matrix_stride};
      const dim3 move_block = M < kBlockRows ? dim3(kThreads, 1) : dim3(kWarp, kBlockRows);
      const dim3 move_grid = strip_grid(move_block, M, width, move_block.y, matrices, limits.multiprocessors);
      const dim3 band_block(kWarp, kBlockRows);
      const dim3 band_grid = strip_grid(band_block, M, width, band_tile_rows<T>(), matrices, limits.multiprocessors);
      // out <- in rotated: by bands of rows, or column by column for short columns.
      const auto rotate = [&](auto by_quotient, auto negate, auto stream_in, auto stream_out, StripView<const T> in,
                              StripView<T> out) {
        constexpr bool kQ = decltype(by_quotient)::value, kN = decltype(negate)::value;
        constexpr bool kIn = decltype(stream_in)::value, kOut = decltype(stream_out)::value;
        if (M < kShortColumns) {
          const dim3 block(kThreads, 1);
          rotate_short_columns<T, kQ, kN, kIn, kOut><<<strip_grid(block, 1, width, 1, matrices, limits.multiprocessors),
                                                       block, 0, stream>>>(in, out, M, width, j0, d.b);
        } else {
          rotate_strip_columns<T, kQ, kN, kIn, kOut><<<band_grid, band_block, 0, stream>>>(in, out, M, width, j0, d.b);
        }
      };
      using Yes = std::true_type;
      using No = std::false_type;
      if (Step == ColumnStep::rotate) {
        rotate(Yes{}, No{}, Yes{}, No{}, a_in, strip);
        move_strip_rows<T, RowMap::identity, false, true><<<move_grid, move_block, 0, stream>>>(strip_in, a, M, width, q);
      } else if (Step == ColumnStep::shuffle) {
        rotate(No{}, No{}, Yes{}, No{}, a_in, strip);
        move_strip_rows<T, RowMap::table, false, true><<<move_grid, move_block, 0, stream>>>(strip_in, a, M, width, q);
      } else if (Step == ColumnStep::unshuffle) {
        move_strip_rows<T, RowMap::table, true, false><<<move_grid, move_block, 0, stream>>>(a_in, strip, M, width, q_inverse);
        rotate(No{}, Yes{}, No{}, Yes{}, strip_in, a);
      } else {
        move_strip_rows<T, RowMap::identity, true, false><<<move_grid, move_block, 0, stream>>>(a_in, strip, M, width, q);
        rotate(Yes{}, Yes{}, No{}, Yes{}, strip_in, a);
      }
      if (Status s = gpu::check_launch("column step"); s != Status::ok) return s;
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

// Rows of `width` units from `src` (rows `src_pitch` units apart) to `dst` (`dst_pitch` apart):
// blocks along a row (x) and over rows (y), consecutive threads on consecutive units.
template <typename U>
__global__ void __launch_bounds__(kThreads)
    copy_rows_kernel(U* __restrict__ dst, int64_t dst_pitch, const U* __restrict__ src, int64_t src_pitch,
                     int64_t width, int64_t rows) {
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y)
    for (int64_t c = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; c < width; c += int64_t{gridDim.x} * blockDim.x)
      dst[row * dst_pitch + c] = src[row * src_pitch + c];
}

// Rows of `width` elements from `src` (rows `src_pitch` elements apart) to `dst` (`dst_pitch`
// apart; no overlap), moved in the widest unit of up to 16 bytes that both pointers, both pitches
// and the width allow (faster here than cudaMemcpy2DAsync: docs/inplace.md).
template <typename T>
Status copy_rows(T* dst, int64_t dst_pitch, const T* src, int64_t src_pitch, int64_t width, int64_t rows,
                 int multiprocessors, cudaStream_t stream) {
  if (width == 0 || rows == 0) return Status::ok;
  constexpr int64_t size = sizeof(T);
  const uint64_t bits = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) |
                        static_cast<uint64_t>(dst_pitch * size) | static_cast<uint64_t>(src_pitch * size) |
                        static_cast<uint64_t>(width * size);
  const int unit = bits % 16 == 0 ? 16 : bits % 8 == 0 ? 8 : bits % 4 == 0 ? 4 : bits % 2 == 0 ? 2 : 1;
  const int64_t units = width * size / unit;
  const int64_t along = std::clamp<int64_t>((units + kThreads - 1) / kThreads, 1, 32);
  const int64_t down = std::clamp<int64_t>(int64_t{multiprocessors} * 32 / along, 1, std::min<int64_t>(rows, 65535));
  const dim3 grid(static_cast<unsigned>(along), static_cast<unsigned>(down));
  cuda::dispatch_size(unit, [&](auto u) {
    using U = typename Element<decltype(u)::value>::type;
    copy_rows_kernel<U><<<grid, kThreads, 0, stream>>>(reinterpret_cast<U*>(dst), dst_pitch * size / unit,
                                                      reinterpret_cast<const U*>(src), src_pitch * size / unit, units,
                                                      rows);
  });
  return gpu::check_launch("copy_rows_kernel");
}

// The rest's out-of-place 2D transpose (rows x cols, ld_in, into `out` with ld_out) by the 2D
// kernel that the out-of-place plans would choose for it, chosen before square_part's first step
// so that a failure to choose leaves the matrix as it was.
struct RestTranspose {
  Transpose2D problem;
  const Kernel* kernel = nullptr;

  Status prepare(int64_t rows, int64_t cols, int64_t ld_in, int64_t ld_out, DType type) {
    if (Status s = make_problem(Matrix{rows, cols, ld_in, ld_out, 1, 0, 0}, type, &problem); s != Status::ok) return s;
    kernel = choose_cuda_kernel(problem);
    return kernel != nullptr ? Status::ok : fail(Status::internal_error, "in-place transpose: no 2D kernel for the rest");
  }
  Status run(const void* in, void* out, cudaStream_t stream) const {
    return kernel->run(in, out, problem, LaunchContext{stream, 0});
  }
};

// square_part (core/inplace.hpp), every step stream-ordered: the rest and the moving rows through
// scratch, the square by run_square.
template <typename T>
Status run_square_part(T* data, const InplaceProblem& p, int multiprocessors, unsigned char* scratch,
                       cudaStream_t stream) {
  const Decomposition& d = p.decomposition;
  const int64_t M = d.M, N = d.N, R = N - M;
  const SquarePartLayout layout(p);
  T* rest = reinterpret_cast<T*>(scratch);
  T* staging = rest + R * M;
  InplaceProblem square = p;
  square.rows = square.cols = M;
  square.batch = 1;
  square.method = InplaceMethod::square;
  RestTranspose rest_transpose;  // the rest (R x M or M x R, packed) into its place in the result
  if (Status s = d.inverse ? rest_transpose.prepare(R, M, M, N, p.type) : rest_transpose.prepare(M, R, R, M, p.type);
      s != Status::ok)
    return s;
#define XPOSE_STEP(call)                                  \
  do {                                                    \
    if (Status s_ = (call); s_ != Status::ok) return s_;  \
  } while (0)
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = data + m * p.matrix_elements();
    if (!d.inverse) {  // M rows of N: rest = columns M..N-1 of every row
      XPOSE_STEP(copy_rows(rest, R, matrix + M, N, R, M, multiprocessors, stream));
      for (int64_t first = 1; first < M; first += layout.staging_rows) {  // row i from i N to i M
        const int64_t count = std::min(layout.staging_rows, M - first);
        XPOSE_STEP(copy_rows(staging, M, matrix + first * N, N, M, count, multiprocessors, stream));
        XPOSE_STEP(copy_rows(matrix + first * M, M, staging, M, M, count, multiprocessors, stream));
      }
      XPOSE_STEP(run_square(matrix, square, stream));
      XPOSE_STEP(rest_transpose.run(rest, matrix + M * M, stream));
    } else {  // N rows of M: rest = rows M..N-1
      XPOSE_STEP(copy_rows(rest, M, matrix + M * M, M, M, R, multiprocessors, stream));
      XPOSE_STEP(run_square(matrix, square, stream));
      for (int64_t end = M; end > 1;) {  // row j from j M to j N, the last rows first
        const int64_t first = std::max<int64_t>(1, end - layout.staging_rows), count = end - first;
        XPOSE_STEP(copy_rows(staging, M, matrix + first * M, M, M, count, multiprocessors, stream));
        XPOSE_STEP(copy_rows(matrix + first * N, N, staging, M, M, count, multiprocessors, stream));
        end = first;
      }
      XPOSE_STEP(rest_transpose.run(rest, matrix + M, stream));
    }
  }
#undef XPOSE_STEP
  return Status::ok;
}

}  // namespace

int64_t cuda_inplace_scratch_bytes(const InplaceProblem& p) {
  if (p.method == InplaceMethod::square_part) return SquarePartLayout(p).scratch_bytes(p);
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
  const bool square_part = p.method == InplaceMethod::square_part;
  const int64_t scratch_bytes = square_part ? SquarePartLayout(p).scratch_bytes(p) : Layout(p, limits).scratch_bytes();
  void* scratch = nullptr;
  if (const cudaError_t e = cudaMallocAsync(&scratch, static_cast<size_t>(scratch_bytes), stream); e != cudaSuccess) {
    cudaGetLastError();  // a failed allocation is not this thread's next launch's error
    return gpu::check(e, "cudaMallocAsync");
  }
  cuda::dispatch_size(p.elem_size, [&](auto size) {
    using T = typename Element<decltype(size)::value>::type;
    status = square_part ? run_square_part(static_cast<T*>(data), p, limits.multiprocessors,
                                           static_cast<unsigned char*>(scratch), stream)
                         : run_decomposed(static_cast<T*>(data), p, limits, static_cast<unsigned char*>(scratch), stream);
  });
  const Status freed = gpu::check(cudaFreeAsync(scratch, stream), "cudaFreeAsync");
  return status != Status::ok ? status : freed;
}

}  // namespace xpose::detail
