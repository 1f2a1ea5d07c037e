// SPDX-License-Identifier: Apache-2.0
// The in-place bench's data and check (tools/xpose/inplace_check.hpp): the pattern's values, both
// checks passing a correct transpose fed in any chunks, and both catching a swapped pair of
// elements, an untransposed matrix and a matrix of a batch left alone; the line sums' closed forms
// against sums taken element by element; the library's in-place transpose checked as the bench
// checks it. The checksum check runs on small matrices here: the bench uses it above 2 GiB only.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "inplace_check.hpp"
#include "xpose/xpose.hpp"

namespace xpose::cli {
namespace {

struct Shape {
  int64_t rows, cols, batch;
};

const Shape kShapes[] = {{1, 1, 1}, {1, 7, 1}, {6, 1, 2}, {8, 8, 1}, {5, 12, 3}, {12, 5, 2}, {7, 11, 1}, {64, 48, 2}};
const int kElementSizes[] = {1, 2, 4, 8, 16};

std::vector<unsigned char> input_of(const InplacePattern& pattern, int threads = 1) {
  std::vector<unsigned char> data(static_cast<size_t>(pattern.elements() * pattern.elem_size()));
  pattern.fill(0, pattern.elements(), data.data(), threads);
  return data;
}

// The packed transposes of `input`, matrix by matrix, by plain loops.
std::vector<unsigned char> transposed(const std::vector<unsigned char>& input, const Shape& s, int elem_size) {
  std::vector<unsigned char> out(input.size());
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i < s.rows; ++i)
      for (int64_t j = 0; j < s.cols; ++j)
        std::memcpy(&out[static_cast<size_t>(((b * s.cols + j) * s.rows + i) * elem_size)],
                    &input[static_cast<size_t>(((b * s.rows + i) * s.cols + j) * elem_size)], static_cast<size_t>(elem_size));
  return out;
}

// Checks `data` in chunks of `chunk` elements, fed last chunk first.
bool check(const InplacePattern& pattern, InplaceCheck method, const std::vector<unsigned char>& data, int64_t chunk,
           std::string* why, int threads = 2) {
  TransposeCheck checker(pattern, method, threads);
  const int64_t elements = pattern.elements();
  std::vector<int64_t> starts;
  for (int64_t first = 0; first < elements; first += chunk) starts.push_back(first);
  for (auto first = starts.rbegin(); first != starts.rend(); ++first)
    checker.add(data.data() + *first * pattern.elem_size(), *first, std::min(chunk, elements - *first));
  return checker.finish(why);
}

TEST(InplacePattern, ValuesAreNonZeroBelowThePrimeAndNeverAllOnes) {
  for (int size : kElementSizes) {
    const InplacePattern pattern(9, 13, 2, size, false);
    const std::vector<unsigned char> data = input_of(pattern);
    const int word_bytes = std::min(size, 8);
    for (int64_t e = 0; e < pattern.elements(); ++e) {
      for (int w = 0; w < (size == 16 ? 2 : 1); ++w) {
        uint64_t word = 0;
        std::memcpy(&word, &data[static_cast<size_t>(e * size + 8 * w)], static_cast<size_t>(word_bytes));
        ASSERT_NE(word, 0u) << "size " << size << " element " << e;
        ASSERT_LT(word, pattern.modulus()) << "size " << size << " element " << e;
      }
    }
  }
}

TEST(InplacePattern, FillOfAnyRangeOnAnyThreadsMatchesTheWholeFill) {
  for (int size : kElementSizes) {
    const InplacePattern pattern(37, 29, 3, size, false);
    const std::vector<unsigned char> whole = input_of(pattern);
    std::vector<unsigned char> pieces(whole.size());
    const int64_t elements = pattern.elements();
    for (int64_t first = 0; first < elements; first += 1000)
      pattern.fill(first, std::min<int64_t>(1000, elements - first), pieces.data() + first * size, 3);
    EXPECT_EQ(whole, pieces) << "size " << size;
    // And element by element through word().
    uint64_t word = 0;
    std::memcpy(&word, &whole[static_cast<size_t>(((2 * 37 + 5) * 29 + 7) * size)], static_cast<size_t>(std::min(size, 8)));
    EXPECT_EQ(word, pattern.word(0, 2, 5, 7)) << "size " << size;
  }
}

TEST(InplacePattern, LineSumsMatchTheirClosedForms) {
  for (int size : kElementSizes) {
    const Shape s{23, 17, 2};
    const InplacePattern pattern(s.rows, s.cols, s.batch, size, true);
    const uint64_t p = pattern.modulus();
    for (int w = 0; w < (size == 16 ? 2 : 1); ++w) {
      for (int64_t b = 0; b < s.batch; ++b) {
        for (int64_t r = 0; r < s.cols; ++r) {  // output row r: input column r
          unsigned __int128 sum = 0;
          for (int64_t i = 0; i < s.rows; ++i) sum += pattern.word(w, b, i, r);
          EXPECT_EQ(static_cast<uint64_t>(sum % p), pattern.row_sum(w, b, r)) << "size " << size;
        }
        for (int64_t c = 0; c < s.rows; ++c) {  // output column c: input row c
          unsigned __int128 sum = 0;
          for (int64_t j = 0; j < s.cols; ++j) sum += pattern.word(w, b, c, j);
          EXPECT_EQ(static_cast<uint64_t>(sum % p), pattern.column_sum(w, b, c)) << "size " << size;
        }
      }
    }
    EXPECT_NE(pattern.salts_of(0).sum_p, 0u);
    EXPECT_NE(pattern.salts_of(0).sum_q, 0u);
  }
}

TEST(TransposeCheck, BothMethodsPassTheTransposeInAnyChunks) {
  for (const Shape& s : kShapes) {
    for (int size : kElementSizes) {
      for (InplaceCheck method : {InplaceCheck::elements, InplaceCheck::checksums}) {
        const InplacePattern pattern(s.rows, s.cols, s.batch, size, method == InplaceCheck::checksums);
        const std::vector<unsigned char> expected = transposed(input_of(pattern), s, size);
        for (int64_t chunk : {int64_t{1}, int64_t{7}, pattern.elements()}) {
          std::string why;
          EXPECT_TRUE(check(pattern, method, expected, chunk, &why))
              << s.rows << " x " << s.cols << " batch " << s.batch << " size " << size << " " << to_string(method)
              << " chunk " << chunk << ": " << why;
        }
      }
    }
  }
}

TEST(TransposeCheck, BothMethodsCatchTwoSwappedElements) {
  const Shape s{12, 5, 2};
  for (int size : kElementSizes) {
    for (InplaceCheck method : {InplaceCheck::elements, InplaceCheck::checksums}) {
      const InplacePattern pattern(s.rows, s.cols, s.batch, size, method == InplaceCheck::checksums);
      std::vector<unsigned char> data = transposed(input_of(pattern), s, size);
      // Output elements (1, 2) and (3, 7) of matrix 1 change places.
      const int64_t a = (1 * s.cols + 1) * s.rows + 2, b = (1 * s.cols + 3) * s.rows + 7;
      std::vector<unsigned char> keep(data.begin() + a * size, data.begin() + (a + 1) * size);
      std::memmove(&data[static_cast<size_t>(a * size)], &data[static_cast<size_t>(b * size)], static_cast<size_t>(size));
      std::memcpy(&data[static_cast<size_t>(b * size)], keep.data(), static_cast<size_t>(size));
      std::string why;
      EXPECT_FALSE(check(pattern, method, data, 13, &why)) << "size " << size << " " << to_string(method);
      if (method == InplaceCheck::elements) {
        EXPECT_NE(why.find("out[1][2] of matrix 1 is 0x"), std::string::npos) << why;
        EXPECT_NE(why.find("expected in[2][1] = 0x"), std::string::npos) << why;
        EXPECT_NE(why.find("2 of 120 elements differ"), std::string::npos) << why;
      } else {
        EXPECT_NE(why.find("the sum of output row 1 of matrix 1 is"), std::string::npos) << why;
        // Two rows and two columns per word of the element.
        const std::string words = size == 16 ? "4" : "2";
        EXPECT_NE(why.find("; " + words + " of " + std::to_string(s.cols * s.batch * (size == 16 ? 2 : 1)) +
                           " row sums and " + words + " of "),
                  std::string::npos)
            << why;
      }
    }
  }
}

TEST(TransposeCheck, BothMethodsCatchAnUntransposedMatrixAndOneLeftAlone) {
  for (int size : kElementSizes) {
    for (InplaceCheck method : {InplaceCheck::elements, InplaceCheck::checksums}) {
      const Shape s{8, 6, 3};
      const InplacePattern pattern(s.rows, s.cols, s.batch, size, method == InplaceCheck::checksums);
      const std::vector<unsigned char> input = input_of(pattern);
      std::string why;
      EXPECT_FALSE(check(pattern, method, input, pattern.elements(), &why)) << "size " << size;
      // Every matrix transposed but the last.
      std::vector<unsigned char> data = transposed(input, s, size);
      const size_t matrix_bytes = static_cast<size_t>(s.rows * s.cols * size);
      std::copy(input.end() - static_cast<std::ptrdiff_t>(matrix_bytes), input.end(),
                data.end() - static_cast<std::ptrdiff_t>(matrix_bytes));
      EXPECT_FALSE(check(pattern, method, data, 5, &why)) << "size " << size;
      EXPECT_NE(why.find("of matrix 2"), std::string::npos) << why;
    }
  }
}

TEST(TransposeCheck, ChecksumsNameValuesNoInputHas) {
  const InplacePattern pattern(4, 6, 1, 1, true);
  std::vector<unsigned char> data = transposed(input_of(pattern), {4, 6, 1}, 1);
  data[5] = 0xFF;  // above p = 251: no element of the pattern holds it
  std::string why;
  EXPECT_FALSE(check(pattern, InplaceCheck::checksums, data, 24, &why));
  EXPECT_NE(why.find("1 elements hold values no input element has, the first out[1][1] = 0xff"), std::string::npos)
      << why;
}

TEST(TransposeCheck, MethodByBytesAndShape) {
  EXPECT_EQ(choose_inplace_check(4096, 4096, 1, 4), InplaceCheck::elements);
  EXPECT_EQ(choose_inplace_check(16384, 32768, 1, 4), InplaceCheck::elements);  // 2 GiB exactly
  EXPECT_EQ(choose_inplace_check(32768, 32768, 1, 4), InplaceCheck::checksums);
  // 3 x 10^9 bytes in a 3-row matrix: its line sums would outweigh a quarter of the matrix.
  EXPECT_EQ(choose_inplace_check(3, 1000000000, 1, 1), InplaceCheck::elements);
}

// The bench's protocol on the CPU, on the library: both plans taking turns, an odd number of
// executes, then the check.
TEST(TransposeCheck, PassesTheLibrarysInPlaceTransposes) {
  for (const Shape& s : kShapes) {
    for (int size : kElementSizes) {
      const DType type = size == 1 ? DType::u8 : size == 2 ? DType::f16 : size == 4 ? DType::f32 : size == 8 ? DType::f64 : DType::c128;
      const InplacePattern pattern(s.rows, s.cols, s.batch, size, true);
      std::vector<unsigned char> data = input_of(pattern);
      Plan there, back;
      Matrix m{s.rows, s.cols};
      m.batch = s.batch;
      ASSERT_EQ(Plan::create_inplace(there, m, type, Device::cpu), Status::ok) << last_error_message();
      std::swap(m.rows, m.cols);
      ASSERT_EQ(Plan::create_inplace(back, m, type, Device::cpu), Status::ok) << last_error_message();
      for (int run = 0; run < 3; ++run)
        ASSERT_EQ((run % 2 == 0 ? there : back).execute_inplace(data.data()), Status::ok) << last_error_message();
      for (InplaceCheck method : {InplaceCheck::elements, InplaceCheck::checksums}) {
        std::string why;
        EXPECT_TRUE(check(pattern, method, data, 1000, &why))
            << s.rows << " x " << s.cols << " batch " << s.batch << " size " << size << ": " << why;
      }
    }
  }
}

}  // namespace
}  // namespace xpose::cli
