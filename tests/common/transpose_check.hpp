// SPDX-License-Identifier: Apache-2.0
// Test helpers shared by the CPU and GPU suites (plain C++, no CUDA): inputs whose values encode
// their index, poisoned outputs with guard bytes, and a check against the reference transpose that
// also proves every byte outside the output view (row padding, batch gaps, guards) is unchanged.
//
// Layout of every buffer:  [kGuardBytes guard][misalign bytes][view: the matrix batch][kGuardBytes
// guard] A GPU test copies the whole allocation to the device and back, so the same checks apply
// there.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "xpose/xpose.hpp"

namespace xpose_test {

using xpose::detail::Transpose2D;

// Output bytes before a run; a byte still equal to it was not written.
constexpr unsigned char kPoison = 0xFF;
// Input bytes outside the view; an output byte equal to it came from input padding.
constexpr unsigned char kInputPadding = 0xA5;
constexpr std::size_t kGuardBytes = 64;

// A host allocation: guard, view, guard. The view starts `misalign` bytes past a 16-byte boundary.
class GuardedBuffer {
 public:
  GuardedBuffer(std::size_t view_bytes, std::size_t misalign, unsigned char fill);

  unsigned char* view() { return bytes_.data() + view_offset_; }
  const unsigned char* view() const { return bytes_.data() + view_offset_; }
  // The whole allocation, guards included.
  unsigned char* data() { return bytes_.data(); }
  const unsigned char* data() const { return bytes_.data(); }
  std::size_t size() const { return bytes_.size(); }
  std::size_t view_offset() const { return view_offset_; }
  std::size_t view_bytes() const { return view_bytes_; }

 private:
  std::vector<unsigned char> bytes_;
  std::size_t view_offset_;
  std::size_t view_bytes_;
};

// The validated problem for `matrix`; records a test failure (and returns an empty problem) when
// make_problem rejects it.
Transpose2D problem_for(const xpose::Matrix& matrix, xpose::DType type);

// "33 x 65 f32, ld_in 80, ld_out 40, batch 3, stride_in 2700, stride_out 2600" for traces.
std::string describe(const xpose::Matrix& matrix, xpose::DType type);

// Writes the bytes of input element `index` (the logical index (b * rows + i) * cols + j). Every
// byte is in 1..254 (never 0x00, never the poison); the first min(size, 3) bytes are a bijection
// of the index modulo 254^k, so elements differ wherever the element size can tell them apart,
// and the rest is a hash of the index. Elements of 4 bytes and more are finite, normal floats
// when read as f32/f64/c64/c128. `salt` gives different buffers different values.
void encode_element(uint64_t index, uint64_t salt, int elem_size, unsigned char* out);

// An input for `problem`: elements encode their index, every other byte is kInputPadding.
GuardedBuffer make_input(const Transpose2D& problem, std::size_t misalign = 0, uint64_t salt = 0);
// An output for `problem`, every byte (guards included) set to kPoison.
GuardedBuffer make_output(const Transpose2D& problem, std::size_t misalign = 0);

// The whole output allocation a correct run leaves: poison everywhere, and in the view the result
// of detail::transpose_reference (or, for the copy baselines, the packed input bytes).
std::vector<unsigned char> expected_transpose(const GuardedBuffer& input,
                                              const GuardedBuffer& output,
                                              const Transpose2D& problem);
std::vector<unsigned char> expected_copy(const GuardedBuffer& input, const GuardedBuffer& output,
                                         const Transpose2D& problem);

// Compares a whole output allocation (`actual`, output.size() bytes) with `expected`. A failure
// names the first wrong element of the view with its batch/row/col and its expected and actual
// bytes, and the first changed byte outside the view (padding, batch gap or guard).
::testing::AssertionResult output_matches(const unsigned char* actual,
                                          const std::vector<unsigned char>& expected,
                                          const GuardedBuffer& output, const Transpose2D& problem);

// output == transpose(input) in the view, poison everywhere else.
::testing::AssertionResult transposed_correctly(const GuardedBuffer& input,
                                                const GuardedBuffer& output,
                                                const Transpose2D& problem);
// output == the packed input bytes in the view, poison everywhere else (copy baselines).
::testing::AssertionResult copied_correctly(const GuardedBuffer& input, const GuardedBuffer& output,
                                            const Transpose2D& problem);

// Every byte of `bytes` (size `count`) is still kPoison: a failed call wrote nothing.
::testing::AssertionResult untouched(const unsigned char* bytes, std::size_t count);
::testing::AssertionResult untouched(const GuardedBuffer& output);

// kernel_names(device) split by kernel_transposes(): the transposing ones ("auto" included) and
// the copy baselines (memcpy, copy, ...).
std::vector<std::string> transposing_kernels(xpose::Device device);
std::vector<std::string> copy_baselines(xpose::Device device);

// A uint64_t from the environment variable `name`, or `fallback` when unset or not a number.
uint64_t env_or(const char* name, uint64_t fallback);

}  // namespace xpose_test
