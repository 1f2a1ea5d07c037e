#include "cpu/reference.hpp"

#include "cpu/element.hpp"

namespace xpose::detail {
namespace {

template <typename T>
void transpose_loops(const T* in, T* out, const Transpose2D& p) {
  for (int64_t b = 0; b < p.batch; ++b) {
    const T* src = in + b * p.stride_in;
    T* dst = out + b * p.stride_out;
    for (int64_t i = 0; i < p.rows; ++i)
      for (int64_t j = 0; j < p.cols; ++j) dst[j * p.ld_out + i] = src[i * p.ld_in + j];
  }
}

}  // namespace

void transpose_reference(const void* in, void* out, const Transpose2D& p) {
  dispatch_element_size(p.elem_size, [&](auto element) {
    using T = decltype(element);
    transpose_loops(static_cast<const T*>(in), static_cast<T*>(out), p);
  });
}

}  // namespace xpose::detail
