// SPDX-License-Identifier: Apache-2.0
// Element-size dispatch: kernels are instantiated per element size, not per DType.
#pragma once

#include <cstdint>
#include <cstring>

namespace xpose::detail {

// 16-byte element (c128). Aligned to 8 as std::complex<double> is, so any valid pointer works.
struct Bytes16 {
  uint64_t lo, hi;
};

template <int Size> struct ElementOfSize;
template <> struct ElementOfSize<1> { using type = uint8_t; };
template <> struct ElementOfSize<2> { using type = uint16_t; };
template <> struct ElementOfSize<4> { using type = uint32_t; };
template <> struct ElementOfSize<8> { using type = uint64_t; };
template <> struct ElementOfSize<16> { using type = Bytes16; };

// Calls f(T{}) with T the element type of `size` bytes; returns false for another size.
template <typename F>
bool dispatch_element_size(int size, F&& f) {
  switch (size) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    case 16: f(Bytes16{}); return true;
    default: return false;
  }
}

}  // namespace xpose::detail
