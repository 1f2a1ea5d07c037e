// SPDX-License-Identifier: Apache-2.0
#include "cpu/stream_copy.hpp"

#include <algorithm>
#include <cstring>

#include "cpu/thread_pool.hpp"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define XPOSE_HAVE_SSE2_STREAMS 1
#endif

namespace xpose::detail {
namespace {

void stream_copy(unsigned char* dst, const unsigned char* src, int64_t bytes) {
#if defined(XPOSE_HAVE_SSE2_STREAMS)
  // Ordinary stores up to the first 16-byte boundary of dst and after the last whole 64 bytes.
  const int64_t head = std::min<int64_t>(bytes, -reinterpret_cast<uintptr_t>(dst) & 15);
  std::memcpy(dst, src, static_cast<std::size_t>(head));
  int64_t k = head;
  for (; k + 64 <= bytes; k += 64)
    for (int v = 0; v < 4; ++v)
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k + 16 * v),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + k + 16 * v)));
  _mm_sfence();
  std::memcpy(dst + k, src + k, static_cast<std::size_t>(bytes - k));
#else
  std::memcpy(dst, src, static_cast<std::size_t>(bytes));
#endif
}

}  // namespace

void stream_staged_lines(unsigned char* dst, const unsigned char* staged, int64_t begin, int64_t end) {
  if (end <= begin) return;
#if defined(XPOSE_HAVE_SSE2_STREAMS)
  const int64_t first_whole = (begin + 63) / 64 * 64, last_whole = end / 64 * 64;
  if (first_whole >= last_whole) {
    std::memcpy(dst + begin, staged + begin, static_cast<std::size_t>(end - begin));
    return;
  }
  std::memcpy(dst + begin, staged + begin, static_cast<std::size_t>(first_whole - begin));
  for (int64_t k = first_whole; k < last_whole; k += 64)
    for (int v = 0; v < 4; ++v)
      _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k + 16 * v),
                       _mm_load_si128(reinterpret_cast<const __m128i*>(staged + k + 16 * v)));
  std::memcpy(dst + last_whole, staged + last_whole, static_cast<std::size_t>(end - last_whole));
#else
  std::memcpy(dst + begin, staged + begin, static_cast<std::size_t>(end - begin));
#endif
}

void parallel_stream_copy(void* dst, const void* src, int64_t bytes, int threads) {
  if (bytes <= 0) return;
  const int n = threads_for(threads, bytes);
  parallel_for(n, [=](int t, int count) {
    const int64_t chunk = (bytes / count + 63) / 64 * 64;
    const int64_t begin = std::min(bytes, chunk * t);
    const int64_t end = t + 1 == count ? bytes : std::min(bytes, begin + chunk);
    if (end > begin)
      stream_copy(static_cast<unsigned char*>(dst) + begin,
                  static_cast<const unsigned char*>(src) + begin, end - begin);
  });
}

}  // namespace xpose::detail
