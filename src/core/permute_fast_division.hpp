// SPDX-License-Identifier: Apache-2.0
// Division by a divisor fixed at plan time, as a multiply-high, an add and a shift: the index
// arithmetic of the N-D kernels (decoding a flat index into coordinates) without the tens of
// instructions of a 64-bit hardware division. Plain C++ that nvcc also compiles for the device.
//
// Granlund and Montgomery, "Division by invariant integers using multiplication" (1994), fig. 4.1,
// with N = 64: for 2^(l-1) < d <= 2^l, m' = floor(2^64 * (2^l - d) / d) + 1 and
// n / d = (mulhi(m', n) + n) >> l, exact for every n < 2^64. xpose indices are int64_t values
// (n < 2^63), so the sum cannot overflow.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define XPOSE_HOST_DEVICE __host__ __device__
#else
#define XPOSE_HOST_DEVICE
#endif

namespace xpose::detail {

XPOSE_HOST_DEVICE inline uint64_t multiply_high(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

class FastDivisor {
 public:
  FastDivisor() = default;
  // divisor >= 1.
  explicit FastDivisor(int64_t divisor) : divisor_(divisor) {
    int shift = 0;
    while ((uint64_t{1} << shift) < static_cast<uint64_t>(divisor)) ++shift;
    const unsigned __int128 numerator =
        static_cast<unsigned __int128>((uint64_t{1} << shift) - static_cast<uint64_t>(divisor)) << 64;
    magic_ = static_cast<uint64_t>(numerator / static_cast<uint64_t>(divisor)) + 1;
    shift_ = shift;
  }

  XPOSE_HOST_DEVICE int64_t divisor() const { return divisor_; }

  // n / divisor for 0 <= n.
  XPOSE_HOST_DEVICE int64_t divide(int64_t n) const {
    const uint64_t u = static_cast<uint64_t>(n);
    return static_cast<int64_t>((multiply_high(magic_, u) + u) >> shift_);
  }

  // quotient = n / divisor, returns n % divisor.
  XPOSE_HOST_DEVICE int64_t divide_remainder(int64_t n, int64_t* quotient) const {
    const int64_t q = divide(n);
    *quotient = q;
    return n - q * divisor_;
  }

 private:
  int64_t divisor_ = 1;
  uint64_t magic_ = 1;
  int shift_ = 0;
};

// Division of in-tile indices (n < 2^16) by a divisor 1 <= d <= 2^16, as one 32-bit multiply-high:
// with m = floor(2^32 / d) + 1 the error of n * m / 2^32 against n / d is below n / 2^32 < 2^-16
// <= 1 / d, too little to cross an integer. d = 1 (m would need 33 bits) is a flag.
class TileDivisor {
 public:
  TileDivisor() = default;
  XPOSE_HOST_DEVICE explicit TileDivisor(int divisor)
      : divisor_(divisor), magic_(divisor > 1 ? static_cast<uint32_t>((uint64_t{1} << 32) / static_cast<uint64_t>(divisor) + 1) : 0) {}

  XPOSE_HOST_DEVICE int divisor() const { return divisor_; }

  XPOSE_HOST_DEVICE int divide(int n) const {
    if (magic_ == 0) return n;
#if defined(__CUDA_ARCH__)
    return static_cast<int>(__umulhi(static_cast<uint32_t>(n), magic_));
#else
    return static_cast<int>((uint64_t{static_cast<uint32_t>(n)} * magic_) >> 32);
#endif
  }

  // quotient = n / divisor, returns n % divisor.
  XPOSE_HOST_DEVICE int divide_remainder(int n, int* quotient) const {
    const int q = divide(n);
    *quotient = q;
    return n - q * divisor_;
  }

 private:
  int divisor_ = 1;
  uint32_t magic_ = 0;
};

}  // namespace xpose::detail
