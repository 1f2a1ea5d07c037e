#include "cpu/transpose_blocked.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "cpu/element.hpp"

namespace xpose::detail {
namespace {

constexpr int64_t kBlock = 32;

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

template <typename T>
void transpose_rows(const T* in, T* out, const Transpose2D& p, int64_t row_begin, int64_t row_end) {
  for (int64_t b = 0; b < p.batch; ++b) {
    const T* src = in + b * p.stride_in;
    T* dst = out + b * p.stride_out;
    for (int64_t i0 = row_begin; i0 < row_end; i0 += kBlock)
      for (int64_t j0 = 0; j0 < p.cols; j0 += kBlock) {
        const int64_t i1 = std::min(i0 + kBlock, row_end), j1 = std::min(j0 + kBlock, p.cols);
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t i = i0; i < i1; ++i) dst[j * p.ld_out + i] = src[i * p.ld_in + j];
      }
  }
}

}  // namespace

void transpose_blocked(const void* in, void* out, const Transpose2D& p, int threads) {
  const int n = std::min<int64_t>(resolve_threads(threads), std::max<int64_t>(1, p.rows / kBlock));
  dispatch_element_size(p.elem_size, [&](auto element) {
    using T = decltype(element);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    if (n <= 1) return transpose_rows(src, dst, p, 0, p.rows);
    std::vector<std::thread> workers;
    const int64_t chunk = (p.rows + n - 1) / n;
    for (int t = 0; t < n; ++t) {
      const int64_t begin = t * chunk, end = std::min(p.rows, begin + chunk);
      if (begin < end) workers.emplace_back([=, &p] { transpose_rows(src, dst, p, begin, end); });
    }
    for (auto& worker : workers) worker.join();
  });
}

void parallel_memcpy(void* dst, const void* src, int64_t bytes, int threads) {
  const int n = resolve_threads(threads);
  if (n <= 1 || bytes < (1 << 20)) {
    std::memcpy(dst, src, static_cast<std::size_t>(bytes));
    return;
  }
  std::vector<std::thread> workers;
  const int64_t chunk = (bytes / n + 63) / 64 * 64;
  for (int t = 0; t < n; ++t) {
    const int64_t begin = t * chunk, end = std::min(bytes, begin + chunk);
    if (begin < end)
      workers.emplace_back([=] {
        std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin,
                    static_cast<std::size_t>(end - begin));
      });
  }
  for (auto& worker : workers) worker.join();
}

}  // namespace xpose::detail
