// SPDX-License-Identifier: Apache-2.0
// The programs a case is timed with: xpose's CPU kernels through the public API, memcpy and a
// streaming copy (the ceilings), OpenBLAS omatcopy and Eigen's transpose, each as one call and
// split over row blocks on several threads; with --in-place also xpose's in-place transpose and
// OpenBLAS imatcopy.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

// A packed rows x cols matrix of `type`, transposed into a packed cols x rows one.
struct BenchCase {
  xpose::DType type;
  int64_t rows, cols;

  int64_t bytes() const { return rows * cols * static_cast<int64_t>(xpose::size_of(type)); }
  std::string name() const;  // "f32 8192x8192"
};

// Parses "f32:8192x8192".
bool parse_bench_case(const std::string& text, BenchCase* c);

struct Contender {
  std::string name;    // "xpose threaded"
  std::string method;  // what runs: "cblas_somatcopy(RowMajor, Trans)", ...
  int threads;         // threads it runs on (OpenBLAS: the threads it was allowed)
  bool transposes;     // false for the copies, which copy the input bytes as they are
  std::function<void(const void* in, void* out)> run;
  // In-place contenders transpose a buffer of their own (a copy of the first `in` they see),
  // back and forth, ignoring `out`; check_in_place(in, out) then copies `in` to their buffer,
  // transposes it once and copies the result to `out`, for the byte-for-byte check.
  std::function<void(const void* in, void* out)> check_in_place = nullptr;
};

// The contenders that apply to `c`, in report order; memcpy first. `threads` is the thread count
// of the parallel ones; the reference (slow) only when asked; the in-place transposes (xpose's and
// OpenBLAS imatcopy) when asked.
std::vector<Contender> make_contenders(const BenchCase& c, int threads, bool with_reference, bool with_in_place);

// OpenBLAS's build configuration and thread count, for the report.
std::string openblas_description();
