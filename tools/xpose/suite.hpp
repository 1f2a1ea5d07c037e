// SPDX-License-Identifier: Apache-2.0
// Bench cases and the suite files that list them (bench/suites/*.txt).
//
// A suite is text, one case per line, `#` starts a comment:
//   rows cols dtype [batch] [pad_in N] [pad_out N]
//                                    a (batched) 2D transpose, e.g. "8192 8192 f64", and a strided
//                                    view of one: "8191 8193 u8 pad_in 15 pad_out 17"; also as
//                                    reports print it: "8191x8193 u8 batch 4 pad_in 15"
//   dims d0 d1 ... | perm p0 p1 ... [dtype] [| in_strides s0 ...] [| out_strides s0 ...]
//                                    an N-D permutation (without a dtype it comes from --dtype, f64
//                                    by default, as the TTC papers time), optionally of strided
//                                    views; the form of BenchCase::label(), as reports print it
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose::cli {

// A 2D transpose: rows x cols -> cols x rows, `batch` times. Padding adds elements to the end of
// every row (leading dimension = packed size + padding), to measure strided views.
struct MatrixCase {
  int64_t rows = 0, cols = 0;
  DType dtype = DType::f32;
  int64_t batch = 1;
  int64_t pad_in = 0, pad_out = 0;
  bool pad_in_given = false, pad_out_given = false;  // on the suite line (0 included): --pad-in/--pad-out leave it

  Matrix matrix() const;
};

// out = in.transpose(perm) for a row-major tensor of shape `dims` (the TTC/HPTT cases).
struct PermuteCase {
  std::vector<int64_t> dims;
  std::vector<int> perm;
  DType dtype = DType::f64;
  bool dtype_given = false;  // on the suite line: --dtype leaves it
  // Strided views (a slice of a larger tensor): per input dim / per output dim, in elements;
  // empty means packed.
  std::vector<int64_t> in_strides, out_strides;

  Permutation permutation() const { return {dims, perm, in_strides, out_strides}; }
};

struct BenchCase {
  enum class Kind { matrix, permute };
  Kind kind = Kind::matrix;
  MatrixCase matrix;    // kind == matrix
  PermuteCase permute;  // kind == permute
  std::string origin;   // "file:line" or "command line", for messages
  std::string shape_class;  // the class of a randomly drawn case (random_cases.hpp), else ""

  // "8192x8192 f64", "256x256 f32 batch 1024", "dims 75 96 | perm 1 0 f64".
  std::string label() const;
};

// Parses a suite. `name` prefixes error messages: "<name>:<line>: <what is wrong>". Every 2D case
// is also validated as an xpose::Matrix (sizes, overflow). Returns false on the first error.
bool parse_suite(std::istream& text, const std::string& name, std::vector<BenchCase>* cases,
                 std::string* error);
bool load_suite(const std::string& path, std::vector<BenchCase>* cases, std::string* error);

// Checks a 2D case the way the library will (positive sizes, no overflow); `why` names the problem.
bool validate_matrix_case(const MatrixCase& matrix_case, std::string* why);
// Likewise a permutation (rank, perm, overflow).
bool validate_permute_case(const PermuteCase& permute_case, std::string* why);

// Parses "75 96 75 96" or "75,96,75,96" (--dims, --perm): non-negative integers separated by
// spaces or commas; `what` names the list in the error.
bool parse_integer_list(const std::string& text, const char* what, std::vector<int64_t>* values,
                        std::string* why);

// Parses a positive decimal integer (no sign, no suffix); false for anything else or overflow.
bool parse_positive(const std::string& text, int64_t* value);
// parse_positive over an option's values (--rows 8,16): appends to `sizes`; the error names the
// option and the bad value.
bool parse_sizes(const std::vector<std::string>& texts, const char* option, std::vector<int64_t>* sizes,
                 std::string* error);

}  // namespace xpose::cli
