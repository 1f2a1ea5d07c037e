// SPDX-License-Identifier: Apache-2.0
#include "contenders.hpp"

#include <cblas.h>

#include <Eigen/Core>
#include <algorithm>
#include <complex>
#include <cstring>
#include <stdexcept>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

// Runs part(t, n) for t in [0, n) on n threads (the calling one included).
void run_parts(int n, const std::function<void(int, int)>& part) {
  std::vector<std::thread> workers;
  for (int t = 1; t < n; ++t) workers.emplace_back(part, t, n);
  part(0, n);
  for (auto& worker : workers) worker.join();
}

// Input rows [begin, end) of part t of n.
int64_t part_begin(int64_t rows, int t, int n) { return rows * t / n; }

Contender xpose_kernel(const BenchCase& c, const std::string& kernel, int threads,
                       const std::string& method) {
  xpose::PlanOptions options;
  options.kernel = kernel;
  options.threads = threads;
  xpose::Plan plan;
  if (xpose::Plan::create(plan, xpose::Matrix{c.rows, c.cols}, c.type, xpose::Device::cpu,
                          options) != xpose::Status::ok)
    throw std::runtime_error("xpose kernel " + kernel + ": " + xpose::last_error_message());
  const bool copy = kernel == "memcpy" || kernel == "stream_copy";
  const std::string name = kernel == "memcpy" ? "memcpy" : kernel == "stream_copy" ? "stream copy" : "xpose " + kernel;
  return {name, method, threads, !copy,
          [plan](const void* in, void* out) { plan.execute(in, out); }};
}

// cblas_?omatcopy(RowMajor, Trans) of input rows [begin, end) into output columns [begin, end).
template <typename T>
void omatcopy_rows(const BenchCase& c, const T* in, T* out, int64_t begin, int64_t end) {
  const auto rows = static_cast<blasint>(end - begin), cols = static_cast<blasint>(c.cols);
  const auto ld_in = static_cast<blasint>(c.cols), ld_out = static_cast<blasint>(c.rows);
  in += begin * c.cols;
  out += begin;
  if constexpr (std::is_same_v<T, float>)
    cblas_somatcopy(CblasRowMajor, CblasTrans, rows, cols, 1.0f, in, ld_in, out, ld_out);
  else if constexpr (std::is_same_v<T, double>)
    cblas_domatcopy(CblasRowMajor, CblasTrans, rows, cols, 1.0, in, ld_in, out, ld_out);
  else if constexpr (std::is_same_v<T, std::complex<float>>) {
    const float one[2] = {1.0f, 0.0f};
    cblas_comatcopy(CblasRowMajor, CblasTrans, rows, cols, one, reinterpret_cast<const float*>(in),
                    ld_in, reinterpret_cast<float*>(out), ld_out);
  } else {
    const double one[2] = {1.0, 0.0};
    cblas_zomatcopy(CblasRowMajor, CblasTrans, rows, cols, one, reinterpret_cast<const double*>(in),
                    ld_in, reinterpret_cast<double*>(out), ld_out);
  }
}

template <typename T>
void add_openblas(const BenchCase& c, int threads, const std::string& function,
                  std::vector<Contender>* list) {
  const std::string method = function + "(RowMajor, Trans, alpha 1)";
  list->push_back({"openblas omatcopy", method + ", one call", threads, true,
                   [c, threads](const void* in, void* out) {
                     openblas_set_num_threads(threads);
                     omatcopy_rows(c, static_cast<const T*>(in), static_cast<T*>(out), 0, c.rows);
                   }});
  list->push_back({"openblas omatcopy split", method + " per row block, one block per thread",
                   threads, true, [c, threads](const void* in, void* out) {
                     run_parts(threads, [&](int t, int n) {
                       omatcopy_rows(c, static_cast<const T*>(in), static_cast<T*>(out),
                                     part_begin(c.rows, t, n), part_begin(c.rows, t + 1, n));
                     });
                   }});
}

// An in-place contender: transpose(data, rows, cols) turns a packed rows x cols matrix into its
// packed cols x rows transpose. Each run transposes the contender's buffer once, so the runs
// alternate between the two shapes (the same work either way for these methods).
Contender in_place(const BenchCase& c, std::string name, std::string method, int threads,
                   std::function<void(void* data, int64_t rows, int64_t cols)> transpose) {
  struct State {
    std::vector<unsigned char> data;
    bool transposed = false;
  };
  auto state = std::make_shared<State>();
  const auto bytes = static_cast<std::size_t>(c.bytes());
  Contender contender{std::move(name), std::move(method), threads, true, nullptr, nullptr};
  contender.run = [c, state, transpose, bytes](const void* in, void*) {
    if (state->data.empty()) state->data.assign(static_cast<const unsigned char*>(in),
                                                static_cast<const unsigned char*>(in) + bytes);
    transpose(state->data.data(), state->transposed ? c.cols : c.rows, state->transposed ? c.rows : c.cols);
    state->transposed = !state->transposed;
  };
  contender.check_in_place = [c, state, transpose, bytes](const void* in, void* out) {
    state->data.assign(static_cast<const unsigned char*>(in), static_cast<const unsigned char*>(in) + bytes);
    transpose(state->data.data(), c.rows, c.cols);
    state->transposed = true;
    std::memcpy(out, state->data.data(), bytes);
  };
  return contender;
}

Contender xpose_in_place(const BenchCase& c, int threads) {
  return in_place(c, "xpose inplace", "xpose::Plan::create_inplace + execute_inplace", threads,
                  [type = c.type, threads](void* data, int64_t rows, int64_t cols) {
                    xpose::PlanOptions options;
                    options.threads = threads;
                    xpose::Plan plan;
                    if (xpose::Plan::create_inplace(plan, xpose::Matrix{rows, cols}, type, xpose::Device::cpu,
                                                    options) != xpose::Status::ok ||
                        plan.execute_inplace(data) != xpose::Status::ok)
                      throw std::runtime_error(std::string("xpose inplace: ") + xpose::last_error_message());
                  });
}

// cblas_?imatcopy(RowMajor, Trans) of a packed rows x cols matrix into its cols x rows transpose.
template <typename T>
void imatcopy(T* a, int64_t rows, int64_t cols) {
  const auto r = static_cast<blasint>(rows), n = static_cast<blasint>(cols);
  if constexpr (std::is_same_v<T, float>) {
    cblas_simatcopy(CblasRowMajor, CblasTrans, r, n, 1.0f, a, n, r);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dimatcopy(CblasRowMajor, CblasTrans, r, n, 1.0, a, n, r);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    const float one[2] = {1.0f, 0.0f};
    cblas_cimatcopy(CblasRowMajor, CblasTrans, r, n, one, reinterpret_cast<float*>(a), n, r);
  } else {
    const double one[2] = {1.0, 0.0};
    cblas_zimatcopy(CblasRowMajor, CblasTrans, r, n, one, reinterpret_cast<double*>(a), n, r);
  }
}

template <typename T>
void add_openblas_in_place(const BenchCase& c, int threads, const std::string& function,
                           std::vector<Contender>* list) {
  list->push_back(in_place(c, "openblas imatcopy", function + "(RowMajor, Trans, alpha 1), one call", threads,
                           [threads](void* data, int64_t rows, int64_t cols) {
                             openblas_set_num_threads(threads);
                             imatcopy(static_cast<T*>(data), rows, cols);
                           }));
}

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <typename T>
void eigen_rows(const BenchCase& c, const T* in, T* out, int64_t begin, int64_t end) {
  const Eigen::Map<const RowMajorMatrix<T>> src(in, c.rows, c.cols);
  Eigen::Map<RowMajorMatrix<T>> dst(out, c.cols, c.rows);
  if (begin == 0 && end == c.rows)
    dst = src.transpose();
  else
    dst.middleCols(begin, end - begin) = src.middleRows(begin, end - begin).transpose();
}

template <typename T>
void add_eigen(const BenchCase& c, int threads, std::vector<Contender>* list) {
  list->push_back({"eigen", "dst = src.transpose() on RowMajor Maps, one thread", 1, true,
                   [c](const void* in, void* out) {
                     eigen_rows(c, static_cast<const T*>(in), static_cast<T*>(out), 0, c.rows);
                   }});
  list->push_back({"eigen split", "the same per row block, one block per thread", threads, true,
                   [c, threads](const void* in, void* out) {
                     run_parts(threads, [&](int t, int n) {
                       eigen_rows(c, static_cast<const T*>(in), static_cast<T*>(out),
                                  part_begin(c.rows, t, n), part_begin(c.rows, t + 1, n));
                     });
                   }});
}

}  // namespace

std::string BenchCase::name() const {
  return std::string(xpose::to_string(type)) + " " + std::to_string(rows) + "x" +
         std::to_string(cols);
}

bool parse_bench_case(const std::string& text, BenchCase* c) {
  const auto colon = text.find(':'), times = text.find('x', colon);
  if (colon == std::string::npos || times == std::string::npos) return false;
  if (xpose::parse_dtype(text.substr(0, colon), &c->type) != xpose::Status::ok) return false;
  try {
    c->rows = std::stoll(text.substr(colon + 1, times - colon - 1));
    c->cols = std::stoll(text.substr(times + 1));
  } catch (const std::exception&) {
    return false;
  }
  return c->rows > 0 && c->cols > 0;
}

std::vector<Contender> make_contenders(const BenchCase& c, int threads, bool with_reference, bool with_in_place) {
  std::vector<Contender> list;
  list.push_back(xpose_kernel(c, "memcpy", threads, "std::memcpy, one chunk per thread"));
  list.push_back(xpose_kernel(c, "stream_copy", threads,
                              "SSE2 non-temporal copy, one chunk per thread (the ceiling)"));
  if (with_reference)
    list.push_back(xpose_kernel(c, "reference", 1, "plain loops (the definition), one thread"));
  list.push_back(xpose_kernel(c, "blocked", 1, "vector tiles (XPOSE_CPU_ISA or the best set), one thread"));
  list.push_back(xpose_kernel(c, "threaded", threads, "vector tiles, strips over threads"));
  switch (c.type) {
    case xpose::DType::f32:
      add_openblas<float>(c, threads, "cblas_somatcopy", &list);
      break;
    case xpose::DType::f64:
      add_openblas<double>(c, threads, "cblas_domatcopy", &list);
      break;
    case xpose::DType::c64:
      add_openblas<std::complex<float>>(c, threads, "cblas_comatcopy", &list);
      break;
    case xpose::DType::c128:
      add_openblas<std::complex<double>>(c, threads, "cblas_zomatcopy", &list);
      break;
    default:
      break;  // OpenBLAS has no omatcopy for integers or half precision
  }
  if (with_in_place) {
    list.push_back(xpose_in_place(c, threads));
    switch (c.type) {
      case xpose::DType::f32:
        add_openblas_in_place<float>(c, threads, "cblas_simatcopy", &list);
        break;
      case xpose::DType::f64:
        add_openblas_in_place<double>(c, threads, "cblas_dimatcopy", &list);
        break;
      case xpose::DType::c64:
        add_openblas_in_place<std::complex<float>>(c, threads, "cblas_cimatcopy", &list);
        break;
      case xpose::DType::c128:
        add_openblas_in_place<std::complex<double>>(c, threads, "cblas_zimatcopy", &list);
        break;
      default:
        break;
    }
  }
  switch (xpose::size_of(c.type)) {
    case 1:
      add_eigen<uint8_t>(c, threads, &list);
      break;
    case 2:
      add_eigen<uint16_t>(c, threads, &list);
      break;
    case 4:
      add_eigen<float>(c, threads, &list);
      break;
    case 8:
      add_eigen<double>(c, threads, &list);
      break;
    default:
      add_eigen<std::complex<double>>(c, threads, &list);
      break;
  }
  return list;
}

std::string openblas_description() {
  return std::string(openblas_get_config()) + ", " + std::to_string(openblas_get_num_threads()) +
         " threads allowed";
}
