// SPDX-License-Identifier: Apache-2.0
// In-place transposes on the CPU (docs/inplace.md): square matrices swap tile pairs across the
// diagonal; other shapes run the three row and column permutations of core/inplace.hpp, each
// through a small buffer: a row for the row shuffle, a strip of columns for the column steps.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/inplace.hpp"
#include "cpu/cpu_caches.hpp"
#include "cpu/element.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/transpose_blocked.hpp"

namespace xpose::detail {
namespace {

// Square matrices: tile pairs (I, J) and (J, I) swapped through one buffer of a tile: tile (I, J)
// is copied to the buffer, tile (J, I) transposed into its place, then the buffer transposed into
// (J, I)'s place; a diagonal tile is copied and transposed back. The transposes are the vector
// tiles of the out-of-place path (transpose_blocked, one thread, no streaming stores: a tile is
// read back soon). Tiles of 128 elements a side for 1-byte elements, 64 for 2 and 4 bytes (16 KiB
// for f32), 32 for 8, 16 for 16. Each worker's tile buffer is on the heap: on its stack (64-byte
// aligned) 8192^2 u8 ran at 23% of memcpy instead of 38%.
int64_t square_tile(int elem_size) { return elem_size == 1 ? 128 : elem_size <= 4 ? 64 : elem_size == 8 ? 32 : 16; }

Transpose2D tile_problem(int64_t rows, int64_t cols, int64_t ld_in, int64_t ld_out, int elem_size, DType type) {
  Transpose2D p;
  p.rows = rows;
  p.cols = cols;
  p.ld_in = ld_in;
  p.ld_out = ld_out;
  p.batch = 1;
  p.stride_in = rows * ld_in;
  p.stride_out = cols * ld_out;
  p.elem_size = elem_size;
  p.type = type;
  return p;
}

template <typename T>
void swap_tile_pair(T* a, int64_t n, int64_t row0, int64_t col0, int64_t tile, T* buffer, DType type) {
  BlockedOptions options;
  options.stream_from_bytes = INT64_MAX;
  const int size = static_cast<int>(sizeof(T));
  const int64_t rows = std::min(tile, n - row0), cols = std::min(tile, n - col0);
  T* upper = a + row0 * n + col0;  // rows x cols
  T* lower = a + col0 * n + row0;  // cols x rows
  for (int64_t r = 0; r < rows; ++r) std::memcpy(buffer + r * cols, upper + r * n, sizeof(T) * cols);
  if (row0 != col0) transpose_blocked(lower, upper, tile_problem(cols, rows, n, n, size, type), 1, options);
  transpose_blocked(buffer, lower, tile_problem(rows, cols, cols, n, size, type), 1, options);
}

template <typename T>
void transpose_square(T* a, int64_t n, int threads, DType type) {
  const int64_t tile = square_tile(sizeof(T));
  const int64_t tiles = (n + tile - 1) / tile;
  // Tile row I swaps tiles (I, J >= I); rows dealt out in a zigzag so that each thread gets long
  // and short rows alike.
  parallel_for(threads, [&](int t, int count) {
    std::vector<T> buffer(static_cast<std::size_t>(tile * tile));
    for (int64_t I = 0; I < tiles; ++I) {
      const int64_t round = I / count, slot = I % count;
      if ((round % 2 == 0 ? slot : count - 1 - slot) != t) continue;
      for (int64_t J = I; J < tiles; ++J) swap_tile_pair(a, n, I * tile, J * tile, tile, buffer.data(), type);
    }
  });
}

enum class ColumnStep { rotate, unrotate, shuffle, unshuffle };

// Scratch of one thread: its row buffer or column strip, allocated once per execute.
template <typename T>
struct Buffers {
  std::vector<std::unique_ptr<T[]>> per_thread;
  bool allocate(int threads, int64_t elements) {
    try {
      per_thread.resize(static_cast<std::size_t>(threads));
      for (auto& buffer : per_thread) buffer.reset(new T[static_cast<std::size_t>(elements)]);
    } catch (const std::bad_alloc&) {
      return false;
    }
    return true;
  }
};

// Step 2 or its inverse on every row: A[i][d_i(j)] <- A[i][j] (forward) or A[i][j] <- A[i][d_i(j)].
// d_i(j) = ((i + j / b) mod M + j M) mod N is stepped along j without divisions.
template <typename T>
void shuffle_rows(T* a, const Decomposition& d, bool inverse, Buffers<T>& buffers, int threads) {
  const int64_t M = d.M, N = d.N, b = d.b;
  parallel_for(threads, [&](int t, int count) {
    T* row_buffer = buffers.per_thread[static_cast<std::size_t>(t)].get();
    for (int64_t i = t; i < M; i += count) {
      T* row = a + i * N;
      std::memcpy(row_buffer, row, static_cast<std::size_t>(N) * sizeof(T));
      int64_t rotated = i % M, within_b = 0, spread = 0;  // (i + j / b) mod M, j mod b, j M mod N
      const int64_t step = M % N;
      for (int64_t j = 0; j < N; ++j) {
        int64_t column = rotated + spread;
        if (column >= N) column -= N;
        if (inverse)
          row[j] = row_buffer[column];
        else
          row[column] = row_buffer[j];
        spread += step;
        if (spread >= N) spread -= N;
        if (++within_b == b) {
          within_b = 0;
          if (++rotated == M) rotated = 0;
        }
      }
    }
  });
}

// Steps 1 and 3 or their inverses on strips of `width` columns, through two strip buffers of the
// thread, S1 and S2 (M x width each):
//   step 1  S1 <- A,          S2 <- S1 rotated by (j / b) mod M,   A <- S2
//   step 3  S1 <- A,          S2 <- S1 rotated by j mod M,         A[i] <- S2[q(i)]
//   inverse of 3: S1[k] <- A[q^-1(k)],  S2 <- S1 rotated by -j mod M,  A <- S2
//   inverse of 1: S1 <- A,    S2 <- S1 rotated by -(j / b) mod M,  A <- S2
// where "rotated by s_j" is out[k][j] = in[(k + s_j) mod M][j]. A's rows are read and written
// whole (a row of A is a page or more apart from the next: reading down its columns costs a TLB
// miss per element). A rotation runs over groups of a cache line of columns, row after row: the
// rows a group reads at one step lie within a band as tall as the group is wide (the rotations of
// adjacent columns differ by at most 1), so the band stays in L1 as it slides down.
template <typename T>
void rotate_rows(const T* in, int64_t in_pitch, T* out, int64_t out_pitch, int64_t M, int64_t width,
                 const int64_t* shift) {
  constexpr int64_t kGroup = std::max<int64_t>(4, 64 / int64_t{sizeof(T)});
  for (int64_t c0 = 0; c0 < width; c0 += kGroup) {
    const int64_t g = std::min(kGroup, width - c0);
    // Each column walks its source rows with a pointer; a column's source wraps to row 0 at
    // k = M - shift, so the rows run in segments between those points with no index arithmetic.
    const T* source[kGroup];
    int64_t wrap[kGroup];
    for (int64_t c = 0; c < kGroup; ++c) {
      const int64_t s = c < g ? shift[c0 + c] : 0;
      source[c] = in + s * in_pitch + c0 + (c < g ? c : 0);
      wrap[c] = c < g ? M - s : M;
    }
    for (int64_t k = 0; k < M;) {
      int64_t end = M;
      for (int64_t c = 0; c < kGroup; ++c)
        if (wrap[c] > k && wrap[c] < end) end = wrap[c];
      if (g == kGroup) {
        for (; k < end; ++k) {
          T* row = out + k * out_pitch + c0;
          for (int64_t c = 0; c < kGroup; ++c) {
            row[c] = *source[c];
            source[c] += in_pitch;
          }
        }
      } else {
        for (; k < end; ++k) {
          T* row = out + k * out_pitch + c0;
          for (int64_t c = 0; c < g; ++c) {
            row[c] = *source[c];
            source[c] += in_pitch;
          }
        }
      }
      for (int64_t c = 0; c < g; ++c)
        if (wrap[c] == k) source[c] = in + c0 + c;
    }
  }
}

template <typename T>
void permute_columns(T* a, const Decomposition& d, ColumnStep step, const std::vector<int64_t>& q,
                     const std::vector<int64_t>& q_inverse, int64_t width, Buffers<T>& buffers,
                     Buffers<int64_t>& shifts, int threads) {
  const int64_t M = d.M, N = d.N;
  const int64_t strips = (N + width - 1) / width;
  parallel_for(threads, [&](int t, int count) {
    T* strip = buffers.per_thread[static_cast<std::size_t>(t)].get();
    int64_t* shift = shifts.per_thread[static_cast<std::size_t>(t)].get();  // per column of the strip, in [0, M)
    for (int64_t s = t; s < strips; s += count) {
      const int64_t j0 = s * width, w = std::min(width, N - j0);
      T* columns = a + j0;  // the strip within A: pitch N
      const bool by_quotient = step == ColumnStep::rotate || step == ColumnStep::unrotate;
      const bool negate = step == ColumnStep::unrotate || step == ColumnStep::unshuffle;
      for (int64_t c = 0; c < w; ++c) {
        const int64_t j = j0 + c, rotation = by_quotient ? (j / d.b) % M : j % M;
        shift[c] = negate ? (M - rotation) % M : rotation;
      }
      const auto copy_rows = [&](const T* in, int64_t in_pitch, T* out, int64_t out_pitch, const int64_t* map) {
        for (int64_t k = 0; k < M; ++k)
          std::memcpy(out + k * out_pitch, in + (map ? map[k] : k) * in_pitch, static_cast<std::size_t>(w) * sizeof(T));
      };
      T* rotated = strip + M * width;  // S2
      copy_rows(columns, N, strip, w, step == ColumnStep::unshuffle ? q_inverse.data() : nullptr);
      rotate_rows(strip, w, rotated, w, M, w, shift);
      copy_rows(rotated, w, columns, N, step == ColumnStep::shuffle ? q.data() : nullptr);
    }
  });
}

// The decomposition's buffers: a row of N elements per thread for the row step (as many threads
// as the scratch budget allows, one at least), and two strips of columns per thread for the column
// steps that fill half its share of the last-level cache (a cache line wide at least). The strips
// take half the scratch budget at most: a server's last-level cache can exceed the whole budget.
struct DecomposedLayout {
  int row_threads = 1;
  int64_t strip_width = 1;
  int column_threads = 1;

  DecomposedLayout(const InplaceProblem& p, int threads) {
    const Decomposition& d = p.decomposition;
    const int64_t size = p.elem_size;
    const int64_t cache = std::min(cpu_caches().last_level_bytes, inplace_scratch_budget(p));
    const int64_t cache_share = std::max<int64_t>(int64_t{1} << 18, cache / (2 * threads));
    strip_width = std::min(d.N, std::max(cache_share / (2 * d.M * size), std::max<int64_t>(1, 64 / size)));
    column_threads = static_cast<int>(std::min<int64_t>(threads, (d.N + strip_width - 1) / strip_width));
    // The row buffers take what the budget leaves (one row at least).
    const int64_t rest = inplace_scratch_budget(p) - column_bytes(p);
    row_threads = static_cast<int>(std::clamp<int64_t>(rest / (d.N * size), 1, threads));
  }
  // Two strips and a column's shifts per column thread, and the column shuffle's two tables.
  int64_t column_bytes(const InplaceProblem& p) const {
    const Decomposition& d = p.decomposition;
    return column_threads * strip_width * (2 * d.M * p.elem_size + int64_t{sizeof(int64_t)}) +
           2 * d.M * int64_t{sizeof(int64_t)};
  }
  int64_t scratch_bytes(const InplaceProblem& p) const {
    return row_threads * p.decomposition.N * p.elem_size + column_bytes(p);
  }
};

template <typename T>
Status transpose_decomposed(T* a, const InplaceProblem& p, int threads) {
  const Decomposition& d = p.decomposition;
  const DecomposedLayout layout(p, threads);
  const int64_t width = layout.strip_width;
  const int row_threads = layout.row_threads, column_threads = layout.column_threads;
  // Everything is allocated before the first step, so that no memory shortage can stop a
  // transpose halfway.
  Buffers<T> rows_buffers, strip_buffers;
  Buffers<int64_t> shifts;
  std::vector<int64_t> q, q_inverse;
  bool allocated = rows_buffers.allocate(row_threads, d.N) && strip_buffers.allocate(column_threads, 2 * d.M * width) &&
                   shifts.allocate(column_threads, width);
  if (allocated) {
    try {
      column_shuffle_tables(d, &q, &q_inverse);
    } catch (const std::bad_alloc&) {
      allocated = false;
    }
  }
  if (!allocated)
    return fail(Status::out_of_memory, message("in-place transpose of ", p.rows, " x ", p.cols,
                                               ": no memory for its scratch buffers (",
                                               layout.scratch_bytes(p), " bytes)"));
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = a + m * p.matrix_elements();
    if (!d.inverse) {
      if (d.rotate) permute_columns(matrix, d, ColumnStep::rotate, q, q_inverse, width, strip_buffers, shifts, column_threads);
      shuffle_rows(matrix, d, false, rows_buffers, row_threads);
      permute_columns(matrix, d, ColumnStep::shuffle, q, q_inverse, width, strip_buffers, shifts, column_threads);
    } else {
      permute_columns(matrix, d, ColumnStep::unshuffle, q, q_inverse, width, strip_buffers, shifts, column_threads);
      shuffle_rows(matrix, d, true, rows_buffers, row_threads);
      if (d.rotate) permute_columns(matrix, d, ColumnStep::unrotate, q, q_inverse, width, strip_buffers, shifts, column_threads);
    }
  }
  return Status::ok;
}

// Rows of `width` elements copied from `src` (rows `src_pitch` apart) to `dst` (`dst_pitch`
// apart), split over the threads; source and destination do not overlap.
template <typename T>
void copy_rows_parallel(T* dst, int64_t dst_pitch, const T* src, int64_t src_pitch, int64_t width, int64_t rows,
                        int threads) {
  const int n = threads_for(threads, rows * width * int64_t{sizeof(T)});
  parallel_for(n, [&](int t, int count) {
    for (int64_t r = rows * t / count; r < rows * (t + 1) / count; ++r)
      std::memcpy(dst + r * dst_pitch, src + r * src_pitch, sizeof(T) * static_cast<std::size_t>(width));
  });
}

// square_part's staging: half the last-level cache, so that the rows copied there are read back
// from the cache.
int64_t square_part_staging_bytes() { return std::max<int64_t>(int64_t{1} << 20, cpu_caches().last_level_bytes / 2); }

// square_part (core/inplace.hpp): the rest through scratch, the square's rows moved through a
// staging buffer of whole rows, the square by transpose_square.
template <typename T>
Status transpose_square_part(T* a, const InplaceProblem& p, int threads) {
  const Decomposition& d = p.decomposition;
  const int64_t M = d.M, N = d.N, R = N - M;
  const SquarePartLayout layout(p, square_part_staging_bytes());
  std::unique_ptr<T[]> scratch(new (std::nothrow) T[static_cast<std::size_t>(R * M + layout.staging_rows * M)]);
  if (!scratch)
    return fail(Status::out_of_memory, message("in-place transpose of ", p.rows, " x ", p.cols,
                                               ": no memory for its scratch (", layout.scratch_bytes(p), " bytes)"));
  T* rest = scratch.get();
  T* staging = rest + R * M;
  const int size = static_cast<int>(sizeof(T));
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = a + m * p.matrix_elements();
    if (!d.inverse) {  // M rows of N: rest = columns M..N-1 of every row
      copy_rows_parallel(rest, R, matrix + M, N, R, M, threads);
      for (int64_t first = 1; first < M; first += layout.staging_rows) {  // row i from i N to i M
        const int64_t count = std::min(layout.staging_rows, M - first);
        copy_rows_parallel(staging, M, matrix + first * N, N, M, count, threads);
        copy_rows_parallel(matrix + first * M, M, staging, M, M, count, threads);
      }
      transpose_square(matrix, M, threads, p.type);
      transpose_blocked(rest, matrix + M * M, tile_problem(M, R, R, M, size, p.type), threads);
    } else {  // N rows of M: rest = rows M..N-1
      copy_rows_parallel(rest, M, matrix + M * M, M, M, R, threads);
      transpose_square(matrix, M, threads, p.type);
      for (int64_t end = M; end > 1;) {  // row j from j M to j N, the last rows first
        const int64_t first = std::max<int64_t>(1, end - layout.staging_rows), count = end - first;
        copy_rows_parallel(staging, M, matrix + first * M, M, M, count, threads);
        copy_rows_parallel(matrix + first * N, N, staging, M, M, count, threads);
        end = first;
      }
      transpose_blocked(rest, matrix + M, tile_problem(R, M, M, N, size, p.type), threads);
    }
  }
  return Status::ok;
}

}  // namespace

int64_t cpu_inplace_scratch_bytes(const InplaceProblem& p, int threads) {
  if (p.method == InplaceMethod::square_part) return SquarePartLayout(p, square_part_staging_bytes()).scratch_bytes(p);
  if (p.method != InplaceMethod::decomposed) return 0;
  return DecomposedLayout(p, threads_for(threads, p.bytes())).scratch_bytes(p);
}

Status cpu_transpose_inplace(void* data, const InplaceProblem& p, int threads) {
  const int n = threads_for(threads, p.bytes());
  Status status = Status::ok;
  dispatch_element_size(p.elem_size, [&](auto element) {
    using T = decltype(element);
    T* a = static_cast<T*>(data);
    if (p.method == InplaceMethod::square) {
      for (int64_t m = 0; m < p.batch; ++m) transpose_square(a + m * p.matrix_elements(), p.rows, n, p.type);
    } else if (p.method == InplaceMethod::decomposed) {
      status = transpose_decomposed(a, p, n);
    } else if (p.method == InplaceMethod::square_part) {
      status = transpose_square_part(a, p, n);
    }
  });
  return status;
}

}  // namespace xpose::detail
