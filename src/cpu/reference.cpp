// SPDX-License-Identifier: Apache-2.0
#include "cpu/reference.hpp"

#include <cstring>

#include "cpu/element.hpp"

namespace xpose::detail {
namespace {

// Elements are moved with a fixed-size memcpy: CPU pointers need not be aligned to the element
// size (a typed load from a misaligned address is undefined behaviour).
template <std::size_t Size>
void transpose_loops(const unsigned char* in, unsigned char* out, const Transpose2D& p) {
  for (int64_t b = 0; b < p.batch; ++b) {
    const unsigned char* src = in + b * p.stride_in * Size;
    unsigned char* dst = out + b * p.stride_out * Size;
    for (int64_t i = 0; i < p.rows; ++i)
      for (int64_t j = 0; j < p.cols; ++j)
        std::memcpy(dst + (j * p.ld_out + i) * Size, src + (i * p.ld_in + j) * Size, Size);
  }
}

}  // namespace

void transpose_reference(const void* in, void* out, const Transpose2D& p) {
  dispatch_element_size(p.elem_size, [&](auto element) {
    transpose_loops<sizeof(element)>(static_cast<const unsigned char*>(in),
                                     static_cast<unsigned char*>(out), p);
  });
}

}  // namespace xpose::detail
