// SPDX-License-Identifier: Apache-2.0
// The reference transpose: plain loops, the definition every other kernel is tested against.
#pragma once

#include "core/problem.hpp"

namespace xpose::detail {

// out(b, j, i) = in(b, i, j) for a validated problem; touches nothing outside the output view.
void transpose_reference(const void* in, void* out, const Transpose2D& problem);

}  // namespace xpose::detail
