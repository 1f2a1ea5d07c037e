// SPDX-License-Identifier: Apache-2.0
#include "common/transpose_check.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "cpu/reference.hpp"

namespace xpose_test {
namespace {

// Coprime with 254, so multiplying by it permutes the residues modulo 254^k.
constexpr uint64_t kIndexMultiplier = 2654435761u;
constexpr uint64_t kSaltStep = 0x2545F491u;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string hex_bytes(const unsigned char* bytes, std::size_t count) {
  std::ostringstream out;
  out << std::hex << std::setfill('0');
  for (std::size_t k = 0; k < count; ++k) out << (k ? " " : "") << std::setw(2) << int{bytes[k]};
  return out.str();
}

// Where an output byte lies relative to the view, for failure messages.
struct OutputPlace {
  bool in_view = false;
  int64_t element = 0;  // element offset from the view start
  int64_t batch = 0, out_row = 0, out_col = 0;
  std::string description;
};

OutputPlace place_of(int64_t offset, int64_t view_bytes, const Transpose2D& p) {
  OutputPlace place;
  std::ostringstream text;
  if (offset < 0 || offset >= view_bytes || p.empty()) {
    if (offset < 0)
      text << "guard before the view, byte " << offset;
    else
      text << "guard after the view, byte +" << (offset - view_bytes);
    place.description = text.str();
    return place;
  }
  place.element = offset / p.elem_size;
  const int64_t byte = offset % p.elem_size;
  int64_t within = place.element;
  if (p.batch > 1) {
    place.batch = place.element / p.stride_out;
    within = place.element % p.stride_out;
  }
  place.out_row = within / p.ld_out;
  place.out_col = within % p.ld_out;
  if (place.out_row >= p.cols) {
    text << "gap after output matrix " << place.batch << " (stride_out " << p.stride_out
         << "), element " << within << " of the batch, byte " << byte;
  } else if (place.out_col >= p.rows) {
    text << "padding of output row " << place.out_row << " of batch " << place.batch << ", column "
         << place.out_col << " (rows " << p.rows << ", ld_out " << p.ld_out << "), byte " << byte;
  } else {
    place.in_view = true;
    text << "batch " << place.batch << ", input row " << place.out_col << ", col " << place.out_row
         << " (output row " << place.out_row << ", col " << place.out_col << ")";
  }
  place.description = text.str();
  return place;
}

}  // namespace

GuardedBuffer::GuardedBuffer(std::size_t view_bytes, std::size_t misalign, unsigned char fill)
    : bytes_(kGuardBytes + misalign + view_bytes + kGuardBytes, fill),
      view_offset_(kGuardBytes + misalign),
      view_bytes_(view_bytes) {}

Transpose2D problem_for(const xpose::Matrix& matrix, xpose::DType type) {
  Transpose2D problem;
  const xpose::Status status = xpose::detail::make_problem(matrix, type, &problem);
  if (status != xpose::Status::ok) {
    ADD_FAILURE() << "test setup: " << describe(matrix, type)
                  << " is invalid: " << xpose::last_error_message();
    return Transpose2D{};
  }
  return problem;
}

std::string describe(const xpose::Matrix& m, xpose::DType type) {
  std::ostringstream out;
  out << m.rows << " x " << m.cols << " " << xpose::to_string(type);
  if (m.ld_in) out << ", ld_in " << m.ld_in;
  if (m.ld_out) out << ", ld_out " << m.ld_out;
  if (m.batch != 1) out << ", batch " << m.batch;
  if (m.stride_in) out << ", stride_in " << m.stride_in;
  if (m.stride_out) out << ", stride_out " << m.stride_out;
  return out.str();
}

void encode_element(uint64_t index, uint64_t salt, int elem_size, unsigned char* out) {
  const int unique_bytes = std::min(elem_size, 4);
  uint64_t modulus = 1;
  for (int k = 0; k < unique_bytes; ++k) modulus *= 254;
  uint64_t digits = ((index + salt * kSaltStep) % modulus) * kIndexMultiplier % modulus;
  for (int k = 0; k < unique_bytes; ++k, digits /= 254)
    out[k] = static_cast<unsigned char>(1 + digits % 254);
  uint64_t hash = splitmix64(index ^ (salt << 40));
  for (int k = unique_bytes; k < elem_size; ++k) {
    const int lane = (k - unique_bytes) % 8;
    if (lane == 0 && k > unique_bytes) hash = splitmix64(hash);
    out[k] = static_cast<unsigned char>(1 + ((hash >> (8 * lane)) & 0xFF) % 254);
  }
  // Byte 3 of every 4 holds the top exponent bits of an f32 (and byte 7 of every 8 those of an
  // f64, c64 and c128 parts): keeping its low 7 bits away from all-zero and all-one makes every
  // element a finite, normal float, which kernels that compute (cuBLAS geam: 1 * A) reproduce
  // bit for bit. A NaN could be quietened and a denormal flushed.
  for (int k = 3; k < elem_size; k += 4)
    out[k] = static_cast<unsigned char>((out[k] & 0x80) | (1 + (out[k] & 0x7F) % 126));
}

GuardedBuffer make_input(const Transpose2D& p, std::size_t misalign, uint64_t salt) {
  GuardedBuffer input(static_cast<std::size_t>(p.input_extent() * p.elem_size), misalign,
                      kInputPadding);
  unsigned char* view = input.view();
  uint64_t index = 0;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t i = 0; i < p.rows; ++i)
      for (int64_t j = 0; j < p.cols; ++j, ++index)
        encode_element(index, salt, p.elem_size,
                       view + (b * p.stride_in + i * p.ld_in + j) * p.elem_size);
  return input;
}

GuardedBuffer make_output(const Transpose2D& p, std::size_t misalign) {
  return GuardedBuffer(static_cast<std::size_t>(p.output_extent() * p.elem_size), misalign,
                       kPoison);
}

std::vector<unsigned char> expected_transpose(const GuardedBuffer& input,
                                              const GuardedBuffer& output, const Transpose2D& p) {
  std::vector<unsigned char> expected(output.size(), kPoison);
  if (p.empty()) return expected;
  // The reference reads and writes whole elements: run it on aligned copies of the views.
  const std::vector<unsigned char> aligned_in(input.view(), input.view() + input.view_bytes());
  std::vector<unsigned char> aligned_out(output.view_bytes(), kPoison);
  xpose::detail::transpose_reference(aligned_in.data(), aligned_out.data(), p);
  std::copy(aligned_out.begin(), aligned_out.end(), expected.begin() + output.view_offset());
  return expected;
}

std::vector<unsigned char> expected_copy(const GuardedBuffer& input, const GuardedBuffer& output,
                                         const Transpose2D& p) {
  std::vector<unsigned char> expected(output.size(), kPoison);
  const std::size_t bytes = static_cast<std::size_t>(p.bytes());
  std::memcpy(expected.data() + output.view_offset(), input.view(), bytes);
  return expected;
}

::testing::AssertionResult output_matches(const unsigned char* actual,
                                          const std::vector<unsigned char>& expected,
                                          const GuardedBuffer& output, const Transpose2D& p) {
  if (expected.size() != output.size())
    return ::testing::AssertionFailure() << "expected allocation has " << expected.size()
                                         << " bytes, the output " << output.size();
  if (std::memcmp(actual, expected.data(), expected.size()) == 0)
    return ::testing::AssertionSuccess();

  const auto view_offset = static_cast<int64_t>(output.view_offset());
  const auto view_bytes = static_cast<int64_t>(output.view_bytes());
  int64_t wrong_elements = 0, changed_outside = 0, last_wrong_element = -1;
  std::string first_wrong, first_outside;
  for (int64_t k = 0; k < static_cast<int64_t>(expected.size()); ++k) {
    if (actual[k] == expected[k]) continue;
    const OutputPlace place = place_of(k - view_offset, view_bytes, p);
    if (!place.in_view) {
      if (changed_outside++ == 0)
        first_outside = place.description + ": expected " + hex_bytes(&expected[k], 1) +
                        ", actual " + hex_bytes(&actual[k], 1);
      continue;
    }
    if (place.element == last_wrong_element) continue;
    last_wrong_element = place.element;
    if (wrong_elements++ == 0) {
      const int64_t start = view_offset + place.element * p.elem_size;
      first_wrong = place.description + ": expected " + hex_bytes(&expected[start], p.elem_size) +
                    ", actual " + hex_bytes(&actual[start], p.elem_size);
    }
  }
  auto failure = ::testing::AssertionFailure();
  if (wrong_elements)
    failure << wrong_elements << " of " << p.elements() << " elements wrong; first at "
            << first_wrong << ". ";
  if (changed_outside)
    failure << changed_outside << " bytes outside the view changed; first at " << first_outside
            << ".";
  return failure;
}

::testing::AssertionResult transposed_correctly(const GuardedBuffer& input,
                                                const GuardedBuffer& output, const Transpose2D& p) {
  return output_matches(output.data(), expected_transpose(input, output, p), output, p);
}

::testing::AssertionResult copied_correctly(const GuardedBuffer& input, const GuardedBuffer& output,
                                            const Transpose2D& p) {
  return output_matches(output.data(), expected_copy(input, output, p), output, p);
}

::testing::AssertionResult untouched(const unsigned char* bytes, std::size_t count) {
  const unsigned char* changed =
      std::find_if(bytes, bytes + count, [](unsigned char b) { return b != kPoison; });
  if (changed == bytes + count) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "byte " << (changed - bytes) << " of the " << count << "-byte buffer was written (now "
         << hex_bytes(changed, 1) << ", poison " << hex_bytes(&kPoison, 1) << ")";
}

::testing::AssertionResult untouched(const GuardedBuffer& output) {
  return untouched(output.data(), output.size());
}

std::vector<std::string> transposing_kernels(xpose::Device device) {
  std::vector<std::string> names;
  for (const std::string& name : xpose::kernel_names(device))
    if (xpose::kernel_transposes(device, name)) names.push_back(name);
  return names;
}

std::vector<std::string> copy_baselines(xpose::Device device) {
  std::vector<std::string> names;
  for (const std::string& name : xpose::kernel_names(device))
    if (!xpose::kernel_transposes(device, name)) names.push_back(name);
  return names;
}

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  return *end == '\0' ? value : fallback;
}

}  // namespace xpose_test
