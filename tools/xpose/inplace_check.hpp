// SPDX-License-Identifier: Apache-2.0
// The data of `xpose bench --inplace` and its check: a deterministic pattern whose every element
// follows from its index, and a streaming check of the transposed data against it (every element,
// or per-row and per-column checksums for matrices too large to compare element by element
// cheaply). Plain host code: the runner feeds it the device's bytes chunk by chunk.
//
// Element (i, j) of matrix b (rows x cols, packed, batch matrices one after another) holds, in
// each 8-byte word w of the element (one word of 1, 2, 4 or 8 bytes; two 8-byte words for 16-byte
// elements),
//     v = P_w(i) * Q_w(j) * R_w(b)  mod p
// with p the largest prime that fits the word (251, 65521, 4294967291; 2^61 - 1 for 8 bytes) and
// P, Q, R hashes of the index into [1, p). Every value is non-zero and below p (never all-0xFF
// bytes), neighbours differ, and the sum of a line of the transpose has a closed form: output row
// r (input column j = r) sums to R(b) Q(r) sum_i P(i), output column c to R(b) P(c) sum_j Q(j),
// so the checksums of the expected transpose cost O(rows + cols), not a pass over the matrix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xpose::cli {

enum class InplaceCheck {
  elements,   // every element against the pattern
  checksums,  // per-row and per-column sums mod p of every matrix, and every value in [1, p)
};

const char* to_string(InplaceCheck check);  // "every element", "row and column checksums"

// Above this many bytes a case is checked by checksums (where their sums fit, see below).
constexpr int64_t kFullCheckMaxBytes = int64_t{1} << 31;

class InplacePattern {
 public:
  // `elem_size` 1, 2, 4, 8 or 16. With `checksums`, the hashes are salted so that sum_i P(i) and
  // sum_j Q(j) are not 0 mod p (a zero sum would make every line sum alike).
  InplacePattern(int64_t rows, int64_t cols, int64_t batch, int elem_size, bool checksums);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t batch() const { return batch_; }
  int elem_size() const { return elem_size_; }
  int64_t elements() const { return rows_ * cols_ * batch_; }

  // Writes elements [first, first + count) of the packed input (untransposed) to `out`, on
  // `threads` threads.
  void fill(int64_t first, int64_t count, unsigned char* out, int threads) const;

  // Word w of input element (i, j) of matrix b; of output element (r, c) it is word(b, c, r).
  uint64_t word(int w, int64_t b, int64_t i, int64_t j) const;
  // The closed forms above: sum mod p of word w over output row r / output column c of matrix b.
  uint64_t row_sum(int w, int64_t b, int64_t r) const;
  uint64_t column_sum(int w, int64_t b, int64_t c) const;
  uint64_t modulus() const;  // p

  // The hashes' salts of word w: P(i) = 1 + mix(i ^ p) mod (p - 1), Q and R likewise.
  struct Salts {
    uint64_t p = 0, q = 0, r = 0;
    uint64_t sum_p = 0, sum_q = 0;  // sum_i P(i), sum_j Q(j) mod p (with `checksums` only)
  };
  const Salts& salts_of(int w) const { return salts_[w]; }

 private:
  int64_t rows_, cols_, batch_;
  int elem_size_;
  Salts salts_[2];  // per word
};

// How a case of `bytes` is checked: every element up to kFullCheckMaxBytes; above it checksums,
// unless their per-thread sums (8 bytes per line, rows + cols lines per matrix and word) would
// take more than a quarter of the matrix's bytes (very thin shapes), where every element is
// compared still.
InplaceCheck choose_inplace_check(int64_t rows, int64_t cols, int64_t batch, int elem_size);

// Checks the transposed data (matrix b: cols x rows, packed) against the pattern. Feed it every
// element once, in chunks of consecutive elements, any order; then finish().
class TransposeCheck {
 public:
  TransposeCheck(const InplacePattern& pattern, InplaceCheck method, int threads);

  // Elements [first, first + count) of the transposed data, their bytes at `bytes`.
  void add(const unsigned char* bytes, int64_t first, int64_t count);
  // True when the data matched; otherwise `why` names the first wrong element (or line sum) by
  // its coordinates and says how many differ.
  bool finish(std::string* why);
  // After finish(): wrong elements; for checksums, differing line sums plus values outside [1, p).
  uint64_t wrong_count() const { return wrong_; }
  InplaceCheck method() const { return method_; }

  // One thread's findings.
  struct Tally {
    uint64_t wrong = 0;            // elements (checksums: values outside [1, p))
    int64_t first_wrong = -1;      // its element index
    uint64_t got[2] = {0, 0};      // its words
    std::vector<uint64_t> sums;    // checksums: per word, matrix and line: rows of the output, then columns
  };

 private:
  const InplacePattern& pattern_;
  InplaceCheck method_;
  int threads_;
  std::vector<Tally> tallies_;
  uint64_t wrong_ = 0;
};

}  // namespace xpose::cli
