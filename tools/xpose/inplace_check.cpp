// SPDX-License-Identifier: Apache-2.0
#include "inplace_check.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>
#include <type_traits>

#include "dist_encoding.hpp"  // mix(): splitmix64's finaliser

namespace xpose::cli {
namespace {

// Arithmetic mod the prime of a W-byte word. Products of two values below 2^32 fit 64 bits; the
// 8-byte prime is the Mersenne prime 2^61 - 1, whose reduction needs no division.
template <int W>
struct Field {
  static constexpr uint64_t p = W == 1 ? 251 : W == 2 ? 65521 : 4294967291ull;
  static uint64_t mul(uint64_t a, uint64_t b) { return a * b % p; }
};
template <>
struct Field<8> {
  static constexpr uint64_t p = (uint64_t{1} << 61) - 1;
  static uint64_t mul(uint64_t a, uint64_t b) {
    const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
    uint64_t sum = (static_cast<uint64_t>(product) & p) + static_cast<uint64_t>(product >> 61);
    sum = (sum & p) + (sum >> 61);
    return sum >= p ? sum - p : sum;
  }
};

template <int W>
uint64_t add_mod(uint64_t a, uint64_t b) {
  const uint64_t sum = a + b;
  return sum >= Field<W>::p ? sum - Field<W>::p : sum;
}

// An index hashed into [1, p).
template <int W>
uint64_t hashed(uint64_t index, uint64_t salt) {
  return 1 + dist_encoding::mix(index ^ salt) % (Field<W>::p - 1);
}

int word_bytes(int elem_size) { return std::min(elem_size, 8); }
int word_count(int elem_size) { return elem_size == 16 ? 2 : 1; }

// Calls f(W) with W the word size as a compile-time constant.
template <typename F>
void dispatch_word(int elem_size, const F& f) {
  switch (word_bytes(elem_size)) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    default: f(std::integral_constant<int, 8>{}); break;
  }
}

uint64_t load_word(const unsigned char* bytes, int size) {
  uint64_t value = 0;
  std::memcpy(&value, bytes, static_cast<size_t>(size));  // little-endian: the low bytes
  return value;
}

// Runs work(t, first, count) on `threads` threads over [0, total), in contiguous shares.
template <typename Work>
void split(int threads, int64_t total, const Work& work) {
  constexpr int64_t kMinPerThread = 1 << 16;  // below this a thread costs more than it saves
  const int n = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, total / kMinPerThread)));
  if (n == 1) {
    work(0, int64_t{0}, total);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t)
    pool.emplace_back([&, t] { work(t, total * t / n, total * (t + 1) / n - total * t / n); });
  work(0, int64_t{0}, total / n);
  for (std::thread& thread : pool) thread.join();
}

std::string hex_words(const uint64_t* words, int elem_size) {
  char text[40];
  if (elem_size == 16)
    std::snprintf(text, sizeof text, "0x%016llx%016llx", static_cast<unsigned long long>(words[1]),
                  static_cast<unsigned long long>(words[0]));
  else
    std::snprintf(text, sizeof text, "0x%0*llx", 2 * elem_size, static_cast<unsigned long long>(words[0]));
  return text;
}

constexpr uint64_t kSaltP = 0x243F6A8885A308D3ull, kSaltQ = 0x13198A2E03707344ull, kSaltR = 0xA4093822299F31D0ull;
constexpr uint64_t kSaltWord = 0x082EFA98EC4E6C89ull, kSaltAttempt = 0x452821E638D01377ull;

}  // namespace

const char* to_string(InplaceCheck check) {
  return check == InplaceCheck::elements ? "every element" : "row and column checksums";
}

InplacePattern::InplacePattern(int64_t rows, int64_t cols, int64_t batch, int elem_size, bool checksums)
    : rows_(rows), cols_(cols), batch_(batch), elem_size_(elem_size) {
  for (int w = 0; w < word_count(elem_size); ++w) {
    Salts& s = salts_[w];
    for (uint64_t attempt = 0;; ++attempt) {
      const uint64_t base = static_cast<uint64_t>(w) * kSaltWord + attempt * kSaltAttempt;
      s.p = kSaltP ^ base;
      s.q = kSaltQ ^ base;
      s.r = kSaltR ^ base;
      if (!checksums) break;
      dispatch_word(elem_size, [&](auto word) {
        constexpr int W = decltype(word)::value;
        s.sum_p = s.sum_q = 0;
        for (int64_t i = 0; i < rows; ++i) s.sum_p = add_mod<W>(s.sum_p, hashed<W>(static_cast<uint64_t>(i), s.p));
        for (int64_t j = 0; j < cols; ++j) s.sum_q = add_mod<W>(s.sum_q, hashed<W>(static_cast<uint64_t>(j), s.q));
      });
      if (s.sum_p != 0 && s.sum_q != 0) break;
    }
  }
}

uint64_t InplacePattern::word(int w, int64_t b, int64_t i, int64_t j) const {
  uint64_t value = 0;
  const Salts& s = salts_[w];
  dispatch_word(elem_size_, [&](auto word) {
    constexpr int W = decltype(word)::value;
    using F = Field<W>;
    value = F::mul(F::mul(hashed<W>(static_cast<uint64_t>(i), s.p), hashed<W>(static_cast<uint64_t>(j), s.q)),
                   hashed<W>(static_cast<uint64_t>(b), s.r));
  });
  return value;
}

uint64_t InplacePattern::row_sum(int w, int64_t b, int64_t r) const {
  uint64_t value = 0;
  const Salts& s = salts_[w];
  dispatch_word(elem_size_, [&](auto word) {
    constexpr int W = decltype(word)::value;
    using F = Field<W>;
    value = F::mul(F::mul(hashed<W>(static_cast<uint64_t>(b), s.r), hashed<W>(static_cast<uint64_t>(r), s.q)), s.sum_p);
  });
  return value;
}

uint64_t InplacePattern::column_sum(int w, int64_t b, int64_t c) const {
  uint64_t value = 0;
  const Salts& s = salts_[w];
  dispatch_word(elem_size_, [&](auto word) {
    constexpr int W = decltype(word)::value;
    using F = Field<W>;
    value = F::mul(F::mul(hashed<W>(static_cast<uint64_t>(b), s.r), hashed<W>(static_cast<uint64_t>(c), s.p)), s.sum_q);
  });
  return value;
}

uint64_t InplacePattern::modulus() const {
  uint64_t p = 0;
  dispatch_word(elem_size_, [&](auto word) { p = Field<decltype(word)::value>::p; });
  return p;
}

void InplacePattern::fill(int64_t first, int64_t count, unsigned char* out, int threads) const {
  const int words = word_count(elem_size_), size = word_bytes(elem_size_);
  const int64_t matrix = rows_ * cols_;
  dispatch_word(elem_size_, [&](auto word) {
    constexpr int W = decltype(word)::value;
    using F = Field<W>;
    split(threads, count, [&](int, int64_t start, int64_t n) {
      // Input element e is (b, i, j); stepped along j without divisions.
      const int64_t e0 = first + start;
      int64_t b = e0 / matrix, i = e0 % matrix / cols_, j = e0 % cols_;
      uint64_t row_factor[2];
      const auto start_row = [&] {
        for (int w = 0; w < words; ++w)
          row_factor[w] = F::mul(hashed<W>(static_cast<uint64_t>(i), salts_[w].p),
                                 hashed<W>(static_cast<uint64_t>(b), salts_[w].r));
      };
      start_row();
      unsigned char* element = out + start * elem_size_;
      for (int64_t k = 0; k < n; ++k, element += elem_size_) {
        for (int w = 0; w < words; ++w) {
          const uint64_t value = F::mul(row_factor[w], hashed<W>(static_cast<uint64_t>(j), salts_[w].q));
          std::memcpy(element + 8 * w, &value, static_cast<size_t>(size));
        }
        if (++j == cols_) {
          j = 0;
          if (++i == rows_) {
            i = 0;
            ++b;
          }
          start_row();
        }
      }
    });
  });
}

InplaceCheck choose_inplace_check(int64_t rows, int64_t cols, int64_t batch, int elem_size) {
  const int64_t bytes = rows * cols * batch * elem_size;
  if (bytes <= kFullCheckMaxBytes) return InplaceCheck::elements;
  const int64_t sum_bytes = int64_t{8} * word_count(elem_size) * batch * (rows + cols);
  return sum_bytes <= bytes / 4 ? InplaceCheck::checksums : InplaceCheck::elements;
}

TransposeCheck::TransposeCheck(const InplacePattern& pattern, InplaceCheck method, int threads)
    : pattern_(pattern), method_(method), threads_(std::max(1, threads)) {
  if (method_ == InplaceCheck::checksums) {
    // Every thread keeps its own sums, within a quarter of the matrix's bytes in all.
    const int64_t lines = word_count(pattern.elem_size()) * pattern.batch() * (pattern.rows() + pattern.cols());
    const int64_t budget = std::max<int64_t>(pattern.elements() * pattern.elem_size() / 4, 8 * lines);
    threads_ = static_cast<int>(std::clamp<int64_t>(budget / (8 * lines), 1, threads_));
    tallies_.resize(static_cast<size_t>(threads_));
    for (Tally& tally : tallies_) tally.sums.assign(static_cast<size_t>(lines), 0);
  } else {
    tallies_.resize(static_cast<size_t>(threads_));
  }
}

void TransposeCheck::add(const unsigned char* bytes, int64_t first, int64_t count) {
  const InplacePattern& pattern = pattern_;
  const int64_t rows = pattern.rows(), cols = pattern.cols(), batch = pattern.batch();
  const int elem_size = pattern.elem_size(), words = word_count(elem_size), size = word_bytes(elem_size);
  const int64_t matrix = rows * cols, lines = rows + cols;
  const bool checksums = method_ == InplaceCheck::checksums;
  dispatch_word(elem_size, [&](auto word) {
    constexpr int W = decltype(word)::value;
    using F = Field<W>;
    split(threads_, count, [&](int t, int64_t start, int64_t n) {
      Tally& tally = tallies_[static_cast<size_t>(t)];
      // Output element e is (b, r, c) of a cols x rows matrix, input element (b, c, r); stepped
      // along c without divisions.
      const int64_t e0 = first + start;
      int64_t b = e0 / matrix, r = e0 % matrix / rows, c = e0 % rows;
      uint64_t row_factor[2] = {0, 0};
      const auto start_row = [&] {
        if (checksums) return;
        for (int w = 0; w < words; ++w) {
          const InplacePattern::Salts& salts = pattern.salts_of(w);
          row_factor[w] = F::mul(hashed<W>(static_cast<uint64_t>(r), salts.q), hashed<W>(static_cast<uint64_t>(b), salts.r));
        }
      };
      start_row();
      const unsigned char* element = bytes + start * elem_size;
      for (int64_t k = 0; k < n; ++k, element += elem_size) {
        uint64_t got[2] = {0, 0};
        bool wrong = false;
        for (int w = 0; w < words; ++w) {
          got[w] = load_word(element + 8 * w, size);
          if (checksums) {
            wrong = wrong || got[w] == 0 || got[w] >= F::p;
            const uint64_t value = got[w] % F::p;
            uint64_t* sums = tally.sums.data() + (w * batch + b) * lines;
            sums[r] = add_mod<W>(sums[r], value);
            sums[cols + c] = add_mod<W>(sums[cols + c], value);
          } else {
            const uint64_t expected =
                F::mul(row_factor[w], hashed<W>(static_cast<uint64_t>(c), pattern.salts_of(w).p));
            wrong = wrong || got[w] != expected;
          }
        }
        if (wrong) {
          const int64_t e = e0 + k;
          ++tally.wrong;
          if (tally.first_wrong < 0 || e < tally.first_wrong) {
            tally.first_wrong = e;
            tally.got[0] = got[0];
            tally.got[1] = got[1];
          }
        }
        if (++c == rows) {
          c = 0;
          if (++r == cols) {
            r = 0;
            ++b;
          }
          start_row();
        }
      }
    });
  });
}

bool TransposeCheck::finish(std::string* why) {
  const InplacePattern& pattern = pattern_;
  const int64_t rows = pattern.rows(), cols = pattern.cols(), batch = pattern.batch();
  const int elem_size = pattern.elem_size(), words = word_count(elem_size);
  const int64_t matrix = rows * cols;
  wrong_ = 0;
  int64_t first = -1;
  const Tally* first_tally = nullptr;
  for (const Tally& tally : tallies_) {
    wrong_ += tally.wrong;
    if (tally.first_wrong >= 0 && (first < 0 || tally.first_wrong < first)) {
      first = tally.first_wrong;
      first_tally = &tally;
    }
  }
  std::ostringstream text;
  const auto name = [&](const char* what, int64_t b, int64_t line) {
    text << what << line;
    if (batch > 1) text << " of matrix " << b;
  };
  if (method_ == InplaceCheck::elements) {
    if (wrong_ == 0) return true;
    const int64_t b = first / matrix, r = first % matrix / rows, c = first % rows;
    uint64_t expected[2] = {0, 0};
    for (int w = 0; w < words; ++w) expected[w] = pattern.word(w, b, c, r);
    text << "out[" << r << "][" << c << "]";
    if (batch > 1) text << " of matrix " << b;
    text << " is " << hex_words(first_tally->got, elem_size) << ", expected in[" << c << "][" << r
         << "] = " << hex_words(expected, elem_size) << "; " << wrong_ << " of " << pattern.elements()
         << " elements differ";
    *why = text.str();
    return false;
  }

  // Checksums: every thread's sums added up, then each line against its closed form.
  const int64_t lines = rows + cols;
  uint64_t wrong_rows = 0, wrong_columns = 0;
  int64_t first_line = -1, first_matrix = 0;
  uint64_t first_got = 0, first_expected = 0;
  dispatch_word(elem_size, [&](auto word) {
    constexpr int W = decltype(word)::value;
    for (int w = 0; w < words; ++w) {
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t line = 0; line < lines; ++line) {
          uint64_t sum = 0;
          for (const Tally& tally : tallies_) sum = add_mod<W>(sum, tally.sums[static_cast<size_t>((w * batch + b) * lines + line)]);
          const uint64_t expected = line < cols ? pattern.row_sum(w, b, line) : pattern.column_sum(w, b, line - cols);
          if (sum == expected) continue;
          ++(line < cols ? wrong_rows : wrong_columns);
          if (first_line < 0) {
            first_line = line;
            first_matrix = b;
            first_got = sum;
            first_expected = expected;
          }
        }
      }
    }
  });
  if (wrong_rows == 0 && wrong_columns == 0 && wrong_ == 0) return true;
  if (first_line >= 0) {
    if (first_line < cols)
      name("the sum of output row ", first_matrix, first_line);
    else
      name("the sum of output column ", first_matrix, first_line - cols);
    text << " is " << first_got << ", expected " << first_expected << " (mod " << pattern.modulus() << "); "
         << wrong_rows << " of " << cols * batch * words << " row sums and " << wrong_columns << " of "
         << rows * batch * words << " column sums differ";
  }
  if (wrong_ > 0) {
    const int64_t b = first / matrix, r = first % matrix / rows, c = first % rows;
    if (first_line >= 0) text << "; ";
    text << wrong_ << " elements hold values no input element has, the first out[" << r << "][" << c << "]";
    if (batch > 1) text << " of matrix " << b;
    text << " = " << hex_words(first_tally->got, elem_size);
  }
  wrong_ += wrong_rows + wrong_columns;
  *why = text.str();
  return false;
}

}  // namespace xpose::cli
