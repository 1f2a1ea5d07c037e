// SPDX-License-Identifier: Apache-2.0
// The reference permutation: plain loops over the problem exactly as the user gave it (no
// normalisation), the definition every other permute kernel is tested against.
#pragma once

#include "core/permute_problem.hpp"

namespace xpose::detail {

// out[j] = in[i] with i[perm[k]] = j[k], for every output coordinate j of a validated problem;
// touches nothing outside the output view. Any pointer alignment.
void permute_reference(const void* in, void* out, const PermuteProblem& problem);

}  // namespace xpose::detail
