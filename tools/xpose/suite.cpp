// SPDX-License-Identifier: Apache-2.0
#include "suite.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/permute_problem.hpp"
#include "core/problem.hpp"

namespace xpose::cli {
namespace {

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// A padding count on a suite line: 0 (packed) or a positive integer.
bool parse_padding(const std::string& text, int64_t* value) { return text == "0" || parse_positive(text, value); }

// "rows cols dtype [batch] [pad_in N] [pad_out N]", or the form of BenchCase::label():
// "rowsxcols dtype [batch N] [pad_in N] [pad_out N]".
bool parse_matrix_line(std::vector<std::string> words, BenchCase* bench_case, std::string* why) {
  const size_t times = words[0].find('x');
  if (times != std::string::npos) {
    const std::string rows = words[0].substr(0, times), cols = words[0].substr(times + 1);
    words[0] = cols;
    words.insert(words.begin(), rows);
    if (words.size() > 4 && words[3] == "batch") words.erase(words.begin() + 3);
  }
  if (words.size() < 3) {
    *why = "expected 'rows cols dtype [batch] [pad_in N] [pad_out N]' or 'dims ... | perm ...', got '" +
           join(words) + "'";
    return false;
  }
  MatrixCase& m = bench_case->matrix;
  if (!parse_positive(words[0], &m.rows)) {
    *why = "rows '" + words[0] + "' is not a positive integer";
    return false;
  }
  if (!parse_positive(words[1], &m.cols)) {
    *why = "cols '" + words[1] + "' is not a positive integer";
    return false;
  }
  if (parse_dtype(words[2], &m.dtype) != Status::ok) {
    *why = last_error_message();
    return false;
  }
  size_t next = 3;
  if (next < words.size() && words[next] != "pad_in" && words[next] != "pad_out") {
    if (!parse_positive(words[next], &m.batch)) {
      *why = "batch '" + words[next] + "' is not a positive integer";
      return false;
    }
    ++next;
  }
  // Padding as named counts, each at most once: "pad_in 15 pad_out 17".
  for (; next < words.size(); next += 2) {
    const std::string& key = words[next];
    if (key != "pad_in" && key != "pad_out") {
      *why = "expected 'pad_in N' or 'pad_out N' after 'rows cols dtype [batch]', got '" + key + "'";
      return false;
    }
    bool& seen = key == "pad_in" ? m.pad_in_given : m.pad_out_given;
    if (seen) {
      *why = key + " is given twice";
      return false;
    }
    seen = true;
    if (next + 1 == words.size()) {
      *why = key + " needs a count of elements";
      return false;
    }
    if (!parse_padding(words[next + 1], key == "pad_in" ? &m.pad_in : &m.pad_out)) {
      *why = key + " '" + words[next + 1] + "' is not a non-negative integer";
      return false;
    }
  }
  bench_case->kind = BenchCase::Kind::matrix;
  return validate_matrix_case(m, why);
}

// The strides after "| in_strides" or "| out_strides": one per dim, 0 allowed (a size-1 dim).
bool parse_strides(std::vector<std::string>::const_iterator begin, std::vector<std::string>::const_iterator end,
                   const std::string& key, std::vector<int64_t>* strides, std::string* why) {
  if (!strides->empty()) {
    *why = key + " is given twice";
    return false;
  }
  for (auto word = begin; word != end; ++word) {
    int64_t stride = 0;
    if (*word != "0" && !parse_positive(*word, &stride)) {
      *why = key + " entry '" + *word + "' is not a non-negative integer";
      return false;
    }
    strides->push_back(stride);
  }
  if (strides->empty()) {
    *why = key + " lists no strides";
    return false;
  }
  return true;
}

// "dims d0 d1 ... | perm p0 p1 ... [dtype] [| in_strides s0 s1 ...] [| out_strides s0 s1 ...]":
// the form of BenchCase::label(), so a case from any report can be run again.
bool parse_permute_line(const std::vector<std::string>& words, BenchCase* bench_case,
                        std::string* why) {
  const auto bar = std::find(words.begin(), words.end(), "|");
  if (bar == words.end() || bar + 1 == words.end() || *(bar + 1) != "perm") {
    *why = "expected 'dims d0 d1 ... | perm p0 p1 ...', got '" + join(words) + "'";
    return false;
  }
  PermuteCase& p = bench_case->permute;
  for (auto word = words.begin() + 1; word != bar; ++word) {
    int64_t dim = 0;
    if (!parse_positive(*word, &dim)) {
      *why = "dimension '" + *word + "' is not a positive integer";
      return false;
    }
    p.dims.push_back(dim);
  }
  const auto perm_end = std::find(bar + 1, words.end(), "|");
  auto perm_last = perm_end;
  if (perm_last - bar > 2 && std::isalpha(static_cast<unsigned char>((perm_last - 1)->front())) != 0) {
    if (parse_dtype(*(perm_last - 1), &p.dtype) != Status::ok) {
      *why = last_error_message();
      return false;
    }
    p.dtype_given = true;
    --perm_last;
  }
  for (auto word = bar + 2; word != perm_last; ++word) {
    int64_t axis = -1;
    if (*word == "0") {
      axis = 0;
    } else if (!parse_positive(*word, &axis)) {
      *why = "perm entry '" + *word + "' is not a non-negative integer";
      return false;
    }
    if (axis >= static_cast<int64_t>(p.dims.size())) {
      *why = "perm entry " + *word + " is out of range for " + std::to_string(p.dims.size()) +
             " dimensions";
      return false;
    }
    p.perm.push_back(static_cast<int>(axis));
  }
  if (p.dims.empty() || p.perm.size() != p.dims.size()) {
    *why = "perm has " + std::to_string(p.perm.size()) + " entries for " +
           std::to_string(p.dims.size()) + " dimensions";
    return false;
  }
  std::vector<int> sorted = p.perm;
  std::sort(sorted.begin(), sorted.end());
  for (int axis = 0; axis < static_cast<int>(sorted.size()); ++axis) {
    if (sorted[axis] != axis) {
      *why = "perm is not a permutation of 0.." + std::to_string(sorted.size() - 1);
      return false;
    }
  }
  for (auto section = perm_end; section != words.end();) {
    const auto next = std::find(section + 1, words.end(), "|");
    const std::string key = section + 1 == words.end() ? std::string() : *(section + 1);
    if (key != "in_strides" && key != "out_strides") {
      *why = "expected '| in_strides ...' or '| out_strides ...' after the perm, got '| " + key + "'";
      return false;
    }
    if (!parse_strides(section + 2, next, key, key == "in_strides" ? &p.in_strides : &p.out_strides, why))
      return false;
    section = next;
  }
  bench_case->kind = BenchCase::Kind::permute;
  return validate_permute_case(p, why);
}

}  // namespace

Matrix MatrixCase::matrix() const {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  m.batch = batch;
  m.ld_in = pad_in > 0 ? cols + pad_in : 0;
  m.ld_out = pad_out > 0 ? rows + pad_out : 0;
  return m;
}

std::string BenchCase::label() const {
  std::ostringstream text;
  if (kind == Kind::permute) {
    text << "dims";
    for (int64_t dim : permute.dims) text << ' ' << dim;
    text << " | perm";
    for (int axis : permute.perm) text << ' ' << axis;
    text << ' ' << to_string(permute.dtype);
    if (!permute.in_strides.empty()) {
      text << " | in_strides";
      for (int64_t stride : permute.in_strides) text << ' ' << stride;
    }
    if (!permute.out_strides.empty()) {
      text << " | out_strides";
      for (int64_t stride : permute.out_strides) text << ' ' << stride;
    }
    return text.str();
  }
  text << matrix.rows << 'x' << matrix.cols << ' ' << to_string(matrix.dtype);
  if (matrix.batch != 1) text << " batch " << matrix.batch;
  if (matrix.pad_in > 0) text << " pad_in " << matrix.pad_in;
  if (matrix.pad_out > 0) text << " pad_out " << matrix.pad_out;
  return text.str();
}

bool parse_positive(const std::string& text, int64_t* value) {
  if (text.empty() || text.size() > 18) return false;  // 18 digits cannot overflow int64
  int64_t result = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    result = result * 10 + (c - '0');
  }
  if (result <= 0) return false;
  *value = result;
  return true;
}

bool parse_sizes(const std::vector<std::string>& texts, const char* option, std::vector<int64_t>* sizes,
                 std::string* error) {
  for (const std::string& text : texts) {
    int64_t size = 0;
    if (!parse_positive(text, &size)) {
      *error = std::string(option) + ": '" + text + "' is not a positive integer";
      return false;
    }
    sizes->push_back(size);
  }
  return true;
}

bool validate_matrix_case(const MatrixCase& matrix_case, std::string* why) {
  detail::Transpose2D problem;
  if (detail::make_problem(matrix_case.matrix(), matrix_case.dtype, &problem) != Status::ok) {
    *why = last_error_message();
    return false;
  }
  return true;
}

bool validate_permute_case(const PermuteCase& permute_case, std::string* why) {
  detail::PermuteProblem problem;
  if (detail::make_permute_problem(permute_case.permutation(), permute_case.dtype, &problem) != Status::ok) {
    *why = last_error_message();
    return false;
  }
  return true;
}

bool parse_integer_list(const std::string& text, const char* what, std::vector<int64_t>* values,
                        std::string* why) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  for (const std::string& word : split_words(spaced)) {
    int64_t value = 0;
    if (word != "0" && !parse_positive(word, &value)) {
      *why = std::string(what) + ": '" + word + "' is not a non-negative integer";
      return false;
    }
    values->push_back(value);
  }
  if (values->empty()) {
    *why = std::string(what) + ": no values in '" + text + "'";
    return false;
  }
  return true;
}

bool parse_suite(std::istream& text, const std::string& name, std::vector<BenchCase>* cases,
                 std::string* error) {
  int line_number = 0;
  bool any_text = false;
  for (std::string line; std::getline(text, line);) {
    ++line_number;
    any_text = any_text || line.find_first_not_of(" \t\r") != std::string::npos;
    const std::vector<std::string> words = split_words(line.substr(0, line.find('#')));
    if (words.empty()) continue;
    BenchCase bench_case;
    bench_case.origin = name + ":" + std::to_string(line_number);
    std::string why;
    const bool parsed = words[0] == "dims" ? parse_permute_line(words, &bench_case, &why)
                                           : parse_matrix_line(words, &bench_case, &why);
    if (!parsed) {
      *error = bench_case.origin + ": " + why;
      return false;
    }
    cases->push_back(std::move(bench_case));
  }
  if (text.bad()) {
    *error = name + ": reading failed after line " + std::to_string(line_number);
    return false;
  }
  if (cases->empty()) {
    *error = name + (any_text ? ": the suite lists no cases (only comments and blank lines)"
                              : ": the file is empty (no cases)");
    return false;
  }
  return true;
}

bool load_suite(const std::string& path, std::vector<BenchCase>* cases, std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = "cannot open suite file '" + path + "' (" + std::strerror(errno) + ")";
    return false;
  }
  return parse_suite(file, path, cases, error);
}

}  // namespace xpose::cli
