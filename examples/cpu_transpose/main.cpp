// SPDX-License-Identifier: Apache-2.0
// xpose on the CPU: a matrix transpose, a plan executed on a batch, and an N-D permutation
// (NCHW -> NHWC), each checked element by element. Uses only the public header.
//
// Assumes: row-major data; nothing else (no GPU, no CUDA toolkit).
// Exit status: 0 when every result is right, 1 on a wrong element or a failed call.
#include <xpose/xpose.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

// Prints the failed call and its message; the library itself never prints.
bool ok(xpose::Status status, const char* what) {
  if (status == xpose::Status::ok) return true;
  std::fprintf(stderr, "%s failed: %s: %s\n", what, xpose::to_string(status), xpose::last_error_message());
  return false;
}

// out (cols x rows) must equal in (rows x cols) transposed, for each of `batch` packed matrices.
bool check_transpose(const std::vector<float>& in, const std::vector<float>& out, int64_t rows, int64_t cols,
                     int64_t batch) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const float want = in[(b * rows + i) * cols + j];
        const float got = out[(b * cols + j) * rows + i];
        if (got != want) {
          std::fprintf(stderr, "matrix %lld: out(%lld, %lld) = %g, expected in(%lld, %lld) = %g\n",
                       (long long)b, (long long)j, (long long)i, got, (long long)i, (long long)j, want);
          return false;
        }
      }
  return true;
}

}  // namespace

int main() {
  // 1. One-shot transpose of a 1000 x 700 matrix (odd sizes are fine).
  const int64_t rows = 1000, cols = 700;
  std::vector<float> a(rows * cols), at(cols * rows);
  for (size_t k = 0; k < a.size(); ++k) a[k] = float(k + 1);  // each value encodes its index
  const xpose::Matrix m{rows, cols};                          // packed: ld_in = cols, ld_out = rows
  if (!ok(xpose::transpose(a.data(), at.data(), m, xpose::DType::f32, xpose::Device::cpu), "transpose")) return 1;
  if (!check_transpose(a, at, rows, cols, 1)) return 1;

  // 2. Plan once, execute many times: a batch of 8 matrices of 256 x 384.
  xpose::Matrix batched{256, 384};
  batched.batch = 8;
  std::vector<float> in(256 * 384 * 8), out(in.size());
  for (size_t k = 0; k < in.size(); ++k) in[k] = float(k % 1000003) + 0.5f;
  xpose::Plan plan;
  if (!ok(xpose::Plan::create(plan, batched, xpose::DType::f32, xpose::Device::cpu), "Plan::create")) return 1;
  for (int repeat = 0; repeat < 3; ++repeat)
    if (!ok(plan.execute(in.data(), out.data()), "Plan::execute")) return 1;
  if (!check_transpose(in, out, 256, 384, 8)) return 1;
  std::printf("batched transpose: kernel %s\n", plan.kernel_name());

  // 3. N-D permutation, NCHW -> NHWC (NumPy: out = in.transpose(0, 2, 3, 1)).
  const int64_t n = 2, c = 3, h = 17, w = 19;
  std::vector<uint16_t> nchw(n * c * h * w), nhwc(nchw.size());
  for (size_t k = 0; k < nchw.size(); ++k) nchw[k] = uint16_t(k);
  if (!ok(xpose::permute(nchw.data(), nhwc.data(), {n, c, h, w}, {0, 2, 3, 1}, xpose::DType::u16,
                         xpose::Device::cpu),
          "permute"))
    return 1;
  for (int64_t in_ = 0; in_ < n; ++in_)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw) {
          const uint16_t want = nchw[((in_ * c + ic) * h + ih) * w + iw];
          const uint16_t got = nhwc[((in_ * h + ih) * w + iw) * c + ic];
          if (got != want) {
            std::fprintf(stderr, "nhwc(%lld, %lld, %lld, %lld) = %u, expected %u\n", (long long)in_, (long long)ih,
                         (long long)iw, (long long)ic, unsigned(got), unsigned(want));
            return 1;
          }
        }

  // 4. Errors are values: a leading dimension smaller than the row is refused before anything
  //    is written, and the message names the argument.
  xpose::Matrix bad{rows, cols};
  bad.ld_in = cols - 1;
  const std::vector<float> before = at;
  if (xpose::transpose(a.data(), at.data(), bad, xpose::DType::f32) != xpose::Status::invalid_argument) {
    std::fprintf(stderr, "a bad leading dimension was accepted\n");
    return 1;
  }
  if (at != before) {
    std::fprintf(stderr, "a refused call changed the output\n");
    return 1;
  }
  std::printf("refused as expected: %s\n", xpose::last_error_message());

  std::printf("cpu_transpose: all results correct\n");
  return 0;
}
