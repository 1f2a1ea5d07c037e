// Device-side building blocks shared by the kernels: the element type of each size, the problem
// as kernels see it, and grid helpers that cover any shape within the launch limits.
#pragma once

#include <cstdint>

#include "core/problem.hpp"

namespace xpose::cuda {

// Element of `Size` bytes. Kernels move bytes, never interpret them.
template <int Size> struct Element;
template <> struct Element<1> { using type = uint8_t; };
template <> struct Element<2> { using type = uint16_t; };
template <> struct Element<4> { using type = uint32_t; };
template <> struct Element<8> { using type = unsigned long long; };
template <> struct Element<16> { using type = ulonglong2; };  // 16-byte aligned, like cuDoubleComplex

// The 2D problem in elements, passed by value to every kernel.
struct MatrixView {
  int64_t rows, cols;          // input rows x cols; output cols x rows
  int64_t ld_in, ld_out;
  int64_t batch;
  int64_t stride_in, stride_out;
};

inline MatrixView view_of(const detail::Transpose2D& p) {
  return {p.rows, p.cols, p.ld_in, p.ld_out, p.batch, p.stride_in, p.stride_out};
}

// Grid dimensions y and z are limited to 65535 and x to 2^31 - 1: kernels loop over the tiles a
// launch cannot cover directly, so the launch size is clamped here.
constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridYZ = 65535;

inline dim3 clamped_grid(int64_t x, int64_t y, int64_t z) {
  auto clamp = [](int64_t v, int64_t limit) {
    return static_cast<unsigned>(v < 1 ? 1 : (v > limit ? limit : v));
  };
  return dim3(clamp(x, kMaxGridX), clamp(y, kMaxGridYZ), clamp(z, kMaxGridYZ));
}

__host__ __device__ inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Calls f(std::integral_constant<int, Size>) for the element size; false for another size.
template <typename F>
bool dispatch_size(int size, F&& f) {
  switch (size) {
    case 1: f(std::integral_constant<int, 1>{}); return true;
    case 2: f(std::integral_constant<int, 2>{}); return true;
    case 4: f(std::integral_constant<int, 4>{}); return true;
    case 8: f(std::integral_constant<int, 8>{}); return true;
    case 16: f(std::integral_constant<int, 16>{}); return true;
    default: return false;
  }
}

}  // namespace xpose::cuda
