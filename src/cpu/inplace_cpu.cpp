// SPDX-License-Identifier: Apache-2.0
// In-place transposes on the CPU (docs/inplace.md): square matrices swap tile pairs across the
// diagonal; other shapes run the three row and column permutations of core/inplace.hpp, each
// through a small buffer: a row for the row shuffle, a strip of columns for the column steps.
#include <algorithm>
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

namespace xpose::detail {
namespace {

// Below this many bytes per thread a job stays on fewer threads (as the out-of-place kernels).
constexpr int64_t kMinBytesPerThread = int64_t{1} << 20;

// Square tiles of 64 bytes a row (at least 8 elements): two of them stay in L1 while swapped.
int square_tile(int elem_size) { return std::max(8, 64 / elem_size); }

template <typename T>
void swap_tile_pair(T* a, int64_t n, int64_t row0, int64_t col0, int64_t tile) {
  const int64_t rows = std::min(tile, n - row0), cols = std::min(tile, n - col0);
  if (row0 == col0) {  // a diagonal tile: its upper triangle with its lower one
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = r + 1; c < cols; ++c) std::swap(a[(row0 + r) * n + col0 + c], a[(col0 + c) * n + row0 + r]);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* upper = a + (row0 + r) * n + col0;
    for (int64_t c = 0; c < cols; ++c) std::swap(upper[c], a[(col0 + c) * n + row0 + r]);
  }
}

template <typename T>
void transpose_square(T* a, int64_t n, int threads) {
  const int64_t tile = square_tile(sizeof(T));
  const int64_t tiles = (n + tile - 1) / tile;
  // Tile row I swaps tiles (I, J >= I); rows dealt out in a zigzag so that each thread gets long
  // and short rows alike.
  parallel_for(threads, [&](int t, int count) {
    for (int64_t I = 0; I < tiles; ++I) {
      const int64_t round = I / count, slot = I % count;
      if ((round % 2 == 0 ? slot : count - 1 - slot) != t) continue;
      for (int64_t J = I; J < tiles; ++J) swap_tile_pair(a, n, I * tile, J * tile, tile);
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

// Steps 1 and 3 or their inverses on strips of `width` columns: each strip is copied to the
// thread's buffer (M x width) and gathered back into its new rows.
template <typename T>
void permute_columns(T* a, const Decomposition& d, ColumnStep step, const std::vector<int64_t>& q,
                     const std::vector<int64_t>& q_inverse, int64_t width, Buffers<T>& buffers, int threads) {
  const int64_t M = d.M, N = d.N;
  const int64_t strips = (N + width - 1) / width;
  parallel_for(threads, [&](int t, int count) {
    T* strip = buffers.per_thread[static_cast<std::size_t>(t)].get();
    std::vector<int64_t> shift(static_cast<std::size_t>(width));  // per column of the strip
    for (int64_t s = t; s < strips; s += count) {
      const int64_t j0 = s * width, w = std::min(width, N - j0);
      for (int64_t i = 0; i < M; ++i) std::memcpy(strip + i * w, a + i * N + j0, static_cast<std::size_t>(w) * sizeof(T));
      for (int64_t c = 0; c < w; ++c) {
        const int64_t j = j0 + c;
        const int64_t rotation = (step == ColumnStep::rotate || step == ColumnStep::unrotate) ? (j / d.b) % M : j % M;
        shift[static_cast<std::size_t>(c)] = (step == ColumnStep::rotate || step == ColumnStep::shuffle) ? rotation
                                                                                                         : (M - rotation) % M;
      }
      for (int64_t i = 0; i < M; ++i) {
        T* row = a + i * N + j0;
        // rotate: row (i + j / b) mod M; shuffle: (q(i) + j) mod M; unrotate: (i - j / b) mod M;
        // unshuffle: q^-1((i - j) mod M).
        const int64_t base = step == ColumnStep::shuffle ? q[static_cast<std::size_t>(i)] : i;
        for (int64_t c = 0; c < w; ++c) {
          int64_t source = base + shift[static_cast<std::size_t>(c)];
          if (source >= M) source -= M;
          if (step == ColumnStep::unshuffle) source = q_inverse[static_cast<std::size_t>(source)];
          row[c] = strip[source * w + c];
        }
      }
    }
  });
}

// The decomposition's buffers: a row of N elements per thread for the row step (as many threads
// as the scratch budget allows, one at least), and strips of columns for the column steps that
// fill half a thread's share of the last-level cache (a cache line wide at least).
struct DecomposedLayout {
  int row_threads = 1;
  int64_t strip_width = 1;
  int column_threads = 1;

  DecomposedLayout(const InplaceProblem& p, int threads) {
    const Decomposition& d = p.decomposition;
    const int64_t size = p.elem_size;
    row_threads = static_cast<int>(
        std::max<int64_t>(1, std::min<int64_t>(threads, inplace_scratch_budget(p) / (d.N * size))));
    const int64_t cache_share = std::max<int64_t>(int64_t{1} << 18, cpu_caches().last_level_bytes / (2 * threads));
    strip_width = std::min(d.N, std::max(cache_share / (d.M * size), std::max<int64_t>(1, 64 / size)));
    column_threads = static_cast<int>(std::min<int64_t>(threads, (d.N + strip_width - 1) / strip_width));
  }
  int64_t scratch_bytes(const InplaceProblem& p) const {
    return (row_threads * p.decomposition.N + column_threads * p.decomposition.M * strip_width) * p.elem_size;
  }
};

template <typename T>
Status transpose_decomposed(T* a, const InplaceProblem& p, int threads) {
  const Decomposition& d = p.decomposition;
  const DecomposedLayout layout(p, threads);
  const int64_t width = layout.strip_width;
  const int row_threads = layout.row_threads, column_threads = layout.column_threads;
  Buffers<T> rows_buffers, strip_buffers;
  if (!rows_buffers.allocate(row_threads, d.N) || !strip_buffers.allocate(column_threads, d.M * width))
    return fail(Status::out_of_memory, message("in-place transpose of ", p.rows, " x ", p.cols,
                                               ": no memory for its scratch buffers (",
                                               layout.scratch_bytes(p), " bytes)"));
  std::vector<int64_t> q, q_inverse;
  column_shuffle_tables(d, &q, &q_inverse);
  for (int64_t m = 0; m < p.batch; ++m) {
    T* matrix = a + m * p.matrix_elements();
    if (!d.inverse) {
      if (d.rotate) permute_columns(matrix, d, ColumnStep::rotate, q, q_inverse, width, strip_buffers, column_threads);
      shuffle_rows(matrix, d, false, rows_buffers, row_threads);
      permute_columns(matrix, d, ColumnStep::shuffle, q, q_inverse, width, strip_buffers, column_threads);
    } else {
      permute_columns(matrix, d, ColumnStep::unshuffle, q, q_inverse, width, strip_buffers, column_threads);
      shuffle_rows(matrix, d, true, rows_buffers, row_threads);
      if (d.rotate) permute_columns(matrix, d, ColumnStep::unrotate, q, q_inverse, width, strip_buffers, column_threads);
    }
  }
  return Status::ok;
}

}  // namespace

int64_t cpu_inplace_scratch_bytes(const InplaceProblem& p, int threads) {
  if (p.method != InplaceMethod::decomposed) return 0;
  return DecomposedLayout(p, threads_for(threads, p.bytes(), kMinBytesPerThread)).scratch_bytes(p);
}

Status cpu_transpose_inplace(void* data, const InplaceProblem& p, int threads) {
  const int n = threads_for(threads, p.bytes(), kMinBytesPerThread);
  Status status = Status::ok;
  dispatch_element_size(p.elem_size, [&](auto element) {
    using T = decltype(element);
    T* a = static_cast<T*>(data);
    if (p.method == InplaceMethod::square) {
      for (int64_t m = 0; m < p.batch; ++m) transpose_square(a + m * p.matrix_elements(), p.rows, n);
    } else if (p.method == InplaceMethod::decomposed) {
      status = transpose_decomposed(a, p, n);
    }
  });
  return status;
}

}  // namespace xpose::detail
