// SPDX-License-Identifier: Apache-2.0
// xpose_cpu_compare: xpose's CPU transpose side by side with memcpy of the same bytes, a
// streaming copy, OpenBLAS omatcopy and Eigen, on the same buffers in one process.
//
//   xpose_cpu_compare                       # the default cases, a table on stdout
//   xpose_cpu_compare --json run.json --cases f32:8192x8192 f64:8191x8193 --reps 15
//   xpose_cpu_compare --in-place --cases f32:8192x8192 f32:4001x4999   # with the in-place transposes
//
// Each case: fresh random non-zero input (finite values for floating types, which OpenBLAS
// multiplies by alpha); the expected output from xpose's reference; every contender warmed up;
// then rounds in which every contender runs once, in an order rotated by one each round, so that
// all of them see the same state of a shared machine; median, min and max per contender. Afterwards
// each contender runs once more on an output poisoned with 0xFF bytes and every byte is compared
// with the expected one.
#include <sys/mman.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "contenders.hpp"
#include "report.hpp"

namespace {

// Page-aligned memory, touched once so that page faults stay out of the timings.
class Buffer {
 public:
  Buffer(int64_t bytes, bool huge_pages) {
    const auto size = static_cast<std::size_t>((bytes + 4095) / 4096 * 4096);
    data_.reset(static_cast<unsigned char*>(std::aligned_alloc(4096, size)));
    if (!data_) throw std::bad_alloc();
    if (huge_pages) madvise(data_.get(), size, MADV_HUGEPAGE);
    std::memset(data_.get(), 0, size);
  }
  unsigned char* get() const { return data_.get(); }

 private:
  struct Free {
    void operator()(unsigned char* p) const { std::free(p); }
  };
  std::unique_ptr<unsigned char, Free> data_;
};

// Random non-zero elements: finite floating values (real and imaginary parts) in [0.5, 1000).
void fill_input(const BenchCase& c, unsigned char* data, uint64_t seed) {
  std::mt19937_64 random(seed);
  const int64_t elements = c.rows * c.cols;
  auto fill_floating = [&](auto zero) {
    using T = decltype(zero);
    std::uniform_real_distribution<T> value(T(0.5), T(1000));
    T* out = reinterpret_cast<T*>(data);
    const int64_t parts = c.bytes() / static_cast<int64_t>(sizeof(T));
    for (int64_t k = 0; k < parts; ++k) out[k] = value(random);
  };
  switch (c.type) {
    case xpose::DType::f32:
    case xpose::DType::c64:
      return fill_floating(0.0f);
    case xpose::DType::f64:
    case xpose::DType::c128:
      return fill_floating(0.0);
    default: {
      const int64_t bytes = elements * static_cast<int64_t>(xpose::size_of(c.type));
      for (int64_t k = 0; k < bytes; k += 8) {
        uint64_t word = random() | 0x0101010101010101ull;  // no zero byte
        std::memcpy(data + k, &word, static_cast<std::size_t>(std::min<int64_t>(8, bytes - k)));
      }
    }
  }
}

double seconds_of(const Contender& contender, const void* in, void* out) {
  const auto start = std::chrono::steady_clock::now();
  contender.run(in, out);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string compare(const unsigned char* got, const unsigned char* expected, int64_t bytes) {
  if (std::memcmp(got, expected, static_cast<std::size_t>(bytes)) == 0) return "PASSED";
  int64_t k = 0;
  while (got[k] == expected[k]) ++k;
  return "FAILED at byte " + std::to_string(k);
}

void measure_case(const BenchCase& c, int threads, int reps, int warmup, bool with_reference,
                  bool with_in_place, bool huge_pages, std::vector<Measurement>* all) {
  const int64_t bytes = c.bytes();
  std::vector<Contender> contenders = make_contenders(c, threads, with_reference, with_in_place);
  Buffer in(bytes, huge_pages), out(bytes, huge_pages), expected(bytes, huge_pages);
  fill_input(c, in.get(), static_cast<uint64_t>(bytes) * 1000003u + static_cast<uint64_t>(c.type));
  xpose::PlanOptions reference;
  reference.kernel = "reference";
  xpose::Plan plan;
  if (xpose::Plan::create(plan, xpose::Matrix{c.rows, c.cols}, c.type, xpose::Device::cpu,
                          reference) != xpose::Status::ok ||
      plan.execute(in.get(), expected.get()) != xpose::Status::ok)
    throw std::runtime_error(std::string("reference transpose: ") + xpose::last_error_message());

  std::fprintf(stderr, "%s: %zu contenders, %d warm-up, %d rounds\n", c.name().c_str(),
               contenders.size(), warmup, reps);
  for (const Contender& contender : contenders)
    for (int k = 0; k < warmup; ++k) contender.run(in.get(), out.get());

  // Each round starts one contender later: a kernel runs somewhat faster or slower depending on
  // what ran just before it (measured: about 10% after a streaming copy), and rotating spreads that
  // evenly over all of them.
  std::vector<Measurement> rows(contenders.size());
  for (int round = 0; round < reps; ++round)
    for (std::size_t step = 0; step < contenders.size(); ++step) {
      const std::size_t k = (step + static_cast<std::size_t>(round)) % contenders.size();
      rows[k].seconds.push_back(seconds_of(contenders[k], in.get(), out.get()));
    }

  for (std::size_t k = 0; k < contenders.size(); ++k) {
    Measurement& m = rows[k];
    m.bench_case = c;
    m.contender = contenders[k].name;
    m.method = contenders[k].method;
    m.threads = contenders[k].threads;
    set_statistics(&m);
    std::memset(out.get(), 0xFF, static_cast<std::size_t>(bytes));
    if (contenders[k].check_in_place)
      contenders[k].check_in_place(in.get(), out.get());
    else
      contenders[k].run(in.get(), out.get());
    m.check = compare(out.get(), contenders[k].transposes ? expected.get() : in.get(), bytes);
    m.passed = m.check == "PASSED";
    all->push_back(m);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"xpose's CPU transpose against memcpy, OpenBLAS omatcopy and Eigen"};
  std::vector<std::string> case_names{"f32:8192x8192", "f64:8192x8192", "f32:8191x8193",
                                      "f64:8191x8193", "u8:8192x8192",  "u16:8192x8192",
                                      "c128:4096x4096"};
  int threads = 0, reps = 15, warmup = 3;
  bool with_reference = true, with_in_place = false, huge_pages = false;
  std::string json_path;
  app.add_option("--cases", case_names, "cases as dtype:ROWSxCOLS")->capture_default_str();
  app.add_option("--threads", threads,
                 "threads of the parallel contenders (0: all hardware threads)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--reps", reps, "timed rounds per case (the median is reported)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--warmup", warmup, "untimed runs of each contender first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("!--no-reference", with_reference, "leave out the (slow) reference loops");
  app.add_flag("--in-place", with_in_place,
               "also time in-place transposes: xpose's and OpenBLAS ?imatcopy (f32, f64, c64, c128)");
  app.add_flag("--huge-pages", huge_pages, "advise the kernel to back the buffers with huge pages");
  app.add_option("--json", json_path, "also write the results to this JSON file");
  CLI11_PARSE(app, argc, argv);

  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<BenchCase> cases;
  for (const std::string& name : case_names) {
    BenchCase c{};
    if (!parse_bench_case(name, &c)) {
      std::fprintf(stderr, "xpose_cpu_compare: bad case '%s' (expected dtype:ROWSxCOLS)\n",
                   name.c_str());
      return 2;
    }
    cases.push_back(c);
  }

  const RunInfo info = describe_run(threads, reps, warmup, huge_pages);
  std::vector<Measurement> all;
  try {
    for (const BenchCase& c : cases)
      measure_case(c, threads, reps, warmup, with_reference, with_in_place, huge_pages, &all);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "xpose_cpu_compare: %s\n", error.what());
    return 1;
  }
  std::cout << format_table(info, all) << std::flush;
  if (!json_path.empty()) {
    std::ofstream file(json_path);
    file << to_json(info, all).dump(2) << "\n";
    if (!file) {
      std::fprintf(stderr, "xpose_cpu_compare: cannot write %s\n", json_path.c_str());
      return 1;
    }
  }
  for (const Measurement& m : all)
    if (!m.passed) return 1;
  return 0;
}
