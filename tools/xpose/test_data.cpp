// SPDX-License-Identifier: Apache-2.0
#include "test_data.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace xpose::cli {
namespace {

uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Keeps the random mantissa bits and sets sign and exponent to those of 1.0: a value in [1, 2).
template <typename Bits>
void make_floats_in_one_two(unsigned char* data, int64_t count, Bits mantissa_mask, Bits one) {
  for (int64_t i = 0; i < count; ++i) {
    Bits bits;
    std::memcpy(&bits, data + i * sizeof(Bits), sizeof(Bits));
    bits = static_cast<Bits>((bits & mantissa_mask) | one);
    std::memcpy(data + i * sizeof(Bits), &bits, sizeof(Bits));
  }
}

template <typename Bits>
void avoid_zero_and_poison(unsigned char* data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    Bits bits;
    std::memcpy(&bits, data + i * sizeof(Bits), sizeof(Bits));
    if (bits == 0 || bits == static_cast<Bits>(~Bits{0})) {
      bits = 1;
      std::memcpy(data + i * sizeof(Bits), &bits, sizeof(Bits));
    }
  }
}

std::string hex_element(const unsigned char* element, int size) {
  std::ostringstream text;
  text << "0x" << std::hex;
  for (int byte = size - 1; byte >= 0; --byte) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", element[byte]);
    text << two;
  }
  return text.str();
}

// Index of the first byte where a and b differ, or -1.
int64_t first_difference(const unsigned char* a, const unsigned char* b, int64_t bytes) {
  if (std::memcmp(a, b, static_cast<size_t>(bytes)) == 0) return -1;
  constexpr int64_t kChunk = 1 << 16;
  int64_t offset = 0;
  while (std::memcmp(a + offset, b + offset, static_cast<size_t>(std::min(kChunk, bytes - offset))) == 0)
    offset += kChunk;
  while (a[offset] == b[offset]) ++offset;
  return offset;
}

int64_t count_different_elements(const unsigned char* a, const unsigned char* b, int64_t bytes,
                                 int elem_size) {
  int64_t count = 0;
  for (int64_t offset = 0; offset < bytes; offset += elem_size)
    count += std::memcmp(a + offset, b + offset, static_cast<size_t>(elem_size)) != 0;
  return count;
}

}  // namespace

void fill_random(void* data, int64_t bytes, DType type, uint64_t seed) {
  auto* out = static_cast<unsigned char*>(data);
  uint64_t state = seed;
  int64_t offset = 0;
  for (; offset + 8 <= bytes; offset += 8) {
    const uint64_t word = splitmix64(&state);
    std::memcpy(out + offset, &word, 8);
  }
  if (offset < bytes) {
    const uint64_t word = splitmix64(&state);
    std::memcpy(out + offset, &word, static_cast<size_t>(bytes - offset));
  }
  switch (type) {
    case DType::f16: make_floats_in_one_two<uint16_t>(out, bytes / 2, 0x03FF, 0x3C00); break;
    case DType::bf16: make_floats_in_one_two<uint16_t>(out, bytes / 2, 0x007F, 0x3F80); break;
    case DType::f32:
    case DType::c64: make_floats_in_one_two<uint32_t>(out, bytes / 4, 0x007FFFFFu, 0x3F800000u); break;
    case DType::f64:
    case DType::c128:
      make_floats_in_one_two<uint64_t>(out, bytes / 8, 0x000FFFFFFFFFFFFFull, 0x3FF0000000000000ull);
      break;
    case DType::u8:
    case DType::i8: avoid_zero_and_poison<uint8_t>(out, bytes); break;
    case DType::u16:
    case DType::i16: avoid_zero_and_poison<uint16_t>(out, bytes / 2); break;
    case DType::u32:
    case DType::i32: avoid_zero_and_poison<uint32_t>(out, bytes / 4); break;
    case DType::u64:
    case DType::i64: avoid_zero_and_poison<uint64_t>(out, bytes / 8); break;
  }
}

bool compare_transposed(const unsigned char* actual, const unsigned char* expected,
                        const detail::Transpose2D& p, std::string* why) {
  const int64_t bytes = p.output_extent() * p.elem_size;
  const int64_t offset = first_difference(actual, expected, bytes);
  if (offset < 0) return true;

  const int64_t element = offset / p.elem_size;
  const int64_t b = element / p.stride_out;
  const int64_t j = element % p.stride_out / p.ld_out;
  const int64_t i = element % p.stride_out % p.ld_out;
  const unsigned char* got = actual + element * p.elem_size;
  const unsigned char* want = expected + element * p.elem_size;
  std::ostringstream text;
  if (b < p.batch && j < p.cols && i < p.rows) {
    text << "out[" << j << "][" << i << "]";
    if (p.batch > 1) text << " of matrix " << b;
    text << " is " << hex_element(got, p.elem_size) << ", expected in[" << i << "][" << j
         << "] = " << hex_element(want, p.elem_size);
  } else {
    text << "byte " << offset << " of the output, outside the view (row padding), changed from 0x"
         << std::hex << static_cast<int>(expected[offset]) << " to 0x"
         << static_cast<int>(actual[offset]) << std::dec;
  }
  text << "; " << count_different_elements(actual, expected, bytes, p.elem_size) << " of "
       << p.output_extent() << " output elements differ";
  *why = text.str();
  return false;
}

bool compare_copied(const unsigned char* actual, const unsigned char* input,
                    const detail::Transpose2D& p, std::string* why) {
  const int64_t bytes = p.bytes();
  const int64_t offset = first_difference(actual, input, bytes);
  if (offset < 0) return true;
  const int64_t element = offset / p.elem_size;
  std::ostringstream text;
  text << "copied element " << element << " is "
       << hex_element(actual + element * p.elem_size, p.elem_size) << ", expected "
       << hex_element(input + element * p.elem_size, p.elem_size) << "; "
       << count_different_elements(actual, input, bytes, p.elem_size) << " of " << p.elements()
       << " elements differ";
  *why = text.str();
  return false;
}

namespace {

// "[3][0][7]" from coordinates.
std::string index_text(const std::vector<int64_t>& coordinates) {
  std::string text;
  for (int64_t c : coordinates) text += "[" + std::to_string(c) + "]";
  return text;
}

}  // namespace

bool compare_permuted(const unsigned char* actual, const unsigned char* expected,
                      const detail::PermuteProblem& p, std::string* why) {
  const int64_t bytes = p.output_extent * p.elem_size;
  const int64_t offset = first_difference(actual, expected, bytes);
  if (offset < 0) return true;
  const int64_t element = offset / p.elem_size;
  // Output coordinates of that offset, by the output strides from the largest down; it lies in
  // the view when every coordinate is in range and nothing is left over.
  const Permutation& given = p.permutation;
  std::vector<int> order(static_cast<size_t>(p.rank));
  for (int i = 0; i < p.rank; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return given.out_strides[a] > given.out_strides[b]; });
  std::vector<int64_t> out_index(static_cast<size_t>(p.rank), 0), in_index(static_cast<size_t>(p.rank), 0);
  int64_t rest = element;
  bool in_view = true;
  for (int i : order) {
    const int64_t size = given.dims[given.perm[i]], stride = given.out_strides[i];
    out_index[i] = size > 1 && stride > 0 ? std::min(rest / stride, size - 1) : 0;
    rest -= out_index[i] * stride;
    in_index[given.perm[i]] = out_index[i];
  }
  in_view = rest == 0;
  std::ostringstream text;
  if (in_view) {
    text << "out" << index_text(out_index) << " is " << hex_element(actual + element * p.elem_size, p.elem_size)
         << ", expected in" << index_text(in_index) << " = "
         << hex_element(expected + element * p.elem_size, p.elem_size);
  } else {
    text << "byte " << offset << " of the output, outside the view (padding), changed from 0x" << std::hex
         << static_cast<int>(expected[offset]) << " to 0x" << static_cast<int>(actual[offset]) << std::dec;
  }
  text << "; " << count_different_elements(actual, expected, bytes, p.elem_size) << " of " << p.output_extent
       << " output elements differ";
  *why = text.str();
  return false;
}

bool compare_copied(const unsigned char* actual, const unsigned char* input, const detail::PermuteProblem& p,
                    std::string* why) {
  const int64_t bytes = p.bytes();
  const int64_t offset = first_difference(actual, input, bytes);
  if (offset < 0) return true;
  const int64_t element = offset / p.elem_size;
  std::ostringstream text;
  text << "copied element " << element << " is " << hex_element(actual + element * p.elem_size, p.elem_size)
       << ", expected " << hex_element(input + element * p.elem_size, p.elem_size) << "; "
       << count_different_elements(actual, input, bytes, p.elem_size) << " of " << p.elements
       << " elements differ";
  *why = text.str();
  return false;
}

}  // namespace xpose::cli
