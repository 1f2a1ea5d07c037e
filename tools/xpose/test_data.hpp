// SPDX-License-Identifier: Apache-2.0
// Inputs and checks for the bench's verified run: random non-zero data, the expected output, and
// a comparison whose message names the first wrong element.
#pragma once

#include <cstdint>
#include <string>

#include "core/permute_problem.hpp"
#include "core/problem.hpp"

namespace xpose::cli {

// Fills `bytes` (a multiple of the element size) with random elements of `type`, none of them
// zero or all 0xFF bytes (the poison): floats (and complex parts) are finite values in [1, 2),
// so a kernel that computes alpha * A (cuBLAS geam) reproduces them bit for bit.
void fill_random(void* data, int64_t bytes, DType type, uint64_t seed);

// `actual` and `expected` hold the whole output extent of `problem` (view plus padding).
// Returns true when they are equal; otherwise `why` names the first wrong element by its
// coordinates, or the first changed byte outside the view, and how many elements differ.
bool compare_transposed(const unsigned char* actual, const unsigned char* expected,
                        const detail::Transpose2D& problem, std::string* why);

// For the copy baselines: `actual` must equal the packed input bytes.
bool compare_copied(const unsigned char* actual, const unsigned char* input,
                    const detail::Transpose2D& problem, std::string* why);

// The same for a permutation: `actual` and `expected` hold the whole output extent; `why` names
// the first wrong element by its output and input coordinates.
bool compare_permuted(const unsigned char* actual, const unsigned char* expected,
                      const detail::PermuteProblem& problem, std::string* why);
bool compare_copied(const unsigned char* actual, const unsigned char* input,
                    const detail::PermuteProblem& problem, std::string* why);

}  // namespace xpose::cli
