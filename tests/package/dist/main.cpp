// SPDX-License-Identifier: Apache-2.0
// Uses the installed xpose::dist without a GPU: splits a matrix over ranks, checks a valid layout
// and a bad one (reported as a value with a message). Exits 0 on success.
#include <cstdio>
#include <cstring>
#include <vector>

#include "xpose/dist.hpp"

int main() {
  const std::vector<int64_t> rows = xpose::dist::even_split(10, 4);
  if (rows != std::vector<int64_t>{3, 3, 2, 2}) {
    std::printf("even_split(10, 4) is wrong\n");
    return 1;
  }
  xpose::dist::Layout layout{10, 6, rows, xpose::dist::even_split(6, 4)};
  if (xpose::dist::validate_layout(layout, 4, xpose::DType::f32) != xpose::Status::ok) {
    std::printf("a valid layout was refused: %s\n", xpose::last_error_message());
    return 1;
  }
  layout.in_rows[0] += 1;  // the row split no longer sums to 10
  if (xpose::dist::validate_layout(layout, 4, xpose::DType::f32) != xpose::Status::invalid_argument ||
      std::strlen(xpose::last_error_message()) == 0) {
    std::printf("a bad layout was not reported as invalid_argument with a message\n");
    return 1;
  }
  std::printf("xpose::dist consumer: ok (%s)\n", xpose::last_error_message());
  return 0;
}
