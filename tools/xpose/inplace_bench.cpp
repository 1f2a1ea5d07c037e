// SPDX-License-Identifier: Apache-2.0
// The in-place bench: per case, one buffer holding the matrix (host memory on the CPU, cudaMalloc
// on the GPU), filled with the index pattern of inplace_check.hpp, and three variants timed in the
// same process on the device's clock (bench_device.hpp):
//   memcpy        the memcpy kernel (cudaMemcpyAsync device-to-device; threaded memcpy on the CPU)
//                 from the matrix to a second buffer of its size, or to the largest chunk that
//                 fits, its time scaled linearly to the case's bytes;
//   out_of_place  Plan::create + execute (auto) from the matrix to a second buffer, where one fits;
//   in_place      Plan::execute_inplace on the matrix, the rows x cols plan and the cols x rows
//                 plan taking turns, so that the data goes back and forth.
// Then the data is brought to "transposed once" (an odd number of executes in all) and checked
// against the pattern, as the out-of-place output was before the timing.
#include "inplace_bench.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "bench_device.hpp"
#include "build_info.hpp"
#include "diagnostics.hpp"
#include "inplace_check.hpp"
#include "inplace_report.hpp"
#include "inplace_results.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "report.hpp"

namespace xpose::cli {
namespace {

// Leave some device memory to the library, as bench_runner.cpp does.
constexpr double kUsableFreeMemory = 0.9;
// The host fills and checks the data through a staging chunk of this size (the GPU's copies).
constexpr int64_t kHostChunkBytes = int64_t{256} << 20;
// A memcpy chunk smaller than this (or than the case) is too short to stand for the case.
constexpr int64_t kMinMemcpyChunkBytes = int64_t{64} << 20;
constexpr int64_t kChunkAlignment = int64_t{1} << 20;
constexpr int kStepsPerCase = 3;  // fill, timing, check: the progress line's steps

int host_threads(const InplaceBenchOptions& options) {
  return options.threads > 0 ? options.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string describe_free(int64_t free_bytes) {
  return free_bytes < 0 ? std::string("free memory unknown") : format_megabytes(free_bytes) + " free";
}

// One case, start to end. Every failure is recorded in the result; nothing throws or exits.
class CaseRun {
 public:
  CaseRun(BenchDevice& device, const InplaceBenchOptions& options, Progress& progress, InplaceCaseResult* result)
      : device_(device), options_(options), progress_(progress), result_(*result), m_(result->bench_case.matrix) {}

  void run() {
    const std::string label = result_.bench_case.label();
    if (!create_inplace_plans()) return;
    progress_.step(label + ": fill");
    if (!allocate_and_fill()) return;
    allocate_second_buffer();
    add_variants();
    if (second_buffer_.data() != nullptr) verify_out_of_place();
    progress_.step(label + ": timing");
    time_variants();
    progress_.step(label + ": check");
    finish_in_place();
    derive_figures();
    for (const InplaceVariantResult& v : result_.variants) {
      if (v.outcome == Outcome::failed) result_.outcome = Outcome::failed;
      if (v.outcome == Outcome::error && result_.outcome == Outcome::passed) result_.outcome = Outcome::error;
    }
  }

 private:
  Matrix matrix(bool forward) const {
    Matrix m;
    m.rows = forward ? m_.rows : m_.cols;
    m.cols = forward ? m_.cols : m_.rows;
    m.batch = m_.batch;
    return m;
  }

  PlanOptions plan_options(const char* kernel = "auto") const {
    PlanOptions options;
    options.kernel = kernel;
    options.threads = options_.threads;
    return options;
  }

  void fail_case(Outcome outcome, const std::string& note) {
    result_.outcome = outcome;
    result_.note = note;
  }

  bool create_inplace_plans() {
    for (const bool forward : {true, false}) {
      const Matrix m = matrix(forward);
      if (Plan::create_inplace(forward ? forward_ : back_, m, m_.dtype, options_.device, plan_options()) != Status::ok) {
        fail_case(Outcome::error, "Plan::create_inplace(" + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                                      "): " + last_error_message());
        return false;
      }
    }
    result_.method = forward_.kernel_name();
    result_.scratch_bytes = static_cast<int64_t>(forward_.scratch_bytes());
    result_.scratch_bytes_back = static_cast<int64_t>(back_.scratch_bytes());
    scratch_ = std::max(result_.scratch_bytes, result_.scratch_bytes_back);
    return true;
  }

  // The matrix, filled with the pattern. A case without room is `not run`, as in the one-device bench.
  bool allocate_and_fill() {
    const int64_t bytes = result_.bytes;
    const int64_t free_bytes = device_.free_memory_bytes();
    const std::string needs = "this case needs " + format_megabytes(bytes) + " for the matrix" +
                              (scratch_ > 0 ? " and " + format_megabytes(scratch_) + " of scratch per execute" : "");
    if (free_bytes >= 0 && static_cast<double>(bytes + scratch_) > kUsableFreeMemory * static_cast<double>(free_bytes)) {
      fail_case(Outcome::not_run, needs + "; " + describe_free(free_bytes));
      return false;
    }
    std::string error;
    data_ = DeviceBuffer(&device_, device_.allocate(bytes, &error));
    if (data_.data() == nullptr) {
      fail_case(Outcome::not_run, error + "; " + needs);
      return false;
    }
    const int64_t elements = pattern_.elements();
    const int elem_size = pattern_.elem_size();
    auto* data = static_cast<unsigned char*>(data_.data());
    if (options_.device == Device::cpu) {  // host memory: written where it is
      pattern_.fill(0, elements, data, host_threads(options_));
      return true;
    }
    std::vector<unsigned char> staging(static_cast<size_t>(std::min(bytes, kHostChunkBytes)));
    const int64_t chunk_elements = static_cast<int64_t>(staging.size()) / elem_size;
    for (int64_t first = 0; first < elements; first += chunk_elements) {
      const int64_t count = std::min(chunk_elements, elements - first);
      pattern_.fill(first, count, staging.data(), host_threads(options_));
      if (!device_.copy_from_host(data + first * elem_size, staging.data(), count * elem_size, &error)) {
        fail_case(Outcome::error, "filling the matrix: " + error);
        return false;
      }
    }
    return true;
  }

  // A second buffer of the case's size where it fits next to the matrix and the scratch (memcpy
  // and out_of_place write it), else the largest chunk that fits, for memcpy alone.
  void allocate_second_buffer() {
    const int64_t bytes = result_.bytes;
    const int64_t free_bytes = device_.free_memory_bytes();
    result_.free_bytes = free_bytes;
    const int64_t usable = free_bytes < 0 ? bytes
                                          : static_cast<int64_t>(kUsableFreeMemory * static_cast<double>(free_bytes)) - scratch_;
    std::string error;
    if (usable >= bytes) {
      second_buffer_ = DeviceBuffer(&device_, device_.allocate(bytes, &error));
      if (second_buffer_.data() != nullptr) {
        result_.second_buffer = true;
        result_.memcpy_bytes = bytes;
        memcpy_buffer_ = second_buffer_.data();
        return;
      }
    }
    no_room_ = "no room for a second buffer of " + format_megabytes(bytes) + " (";
    if (!error.empty())  // it should have fit
      no_room_ += error + ")";
    else
      no_room_ += describe_free(free_bytes) + " with the matrix allocated" +
                  (scratch_ > 0 ? ", less " + format_megabytes(scratch_) + " of scratch)" : ")");
    const int64_t least = std::min(bytes, kMinMemcpyChunkBytes);
    for (int64_t chunk = std::min(bytes, usable) / kChunkAlignment * kChunkAlignment; chunk >= least; chunk /= 2) {
      chunk = chunk / kChunkAlignment * kChunkAlignment;
      if (chunk < least) break;
      memcpy_chunk_ = DeviceBuffer(&device_, device_.allocate(chunk, &error));
      if (memcpy_chunk_.data() != nullptr) {
        result_.memcpy_bytes = chunk;
        memcpy_buffer_ = memcpy_chunk_.data();
        return;
      }
    }
  }

  void add_variants() {
    InplaceVariantResult copy;
    copy.name = kInplaceMemcpyVariant;
    copy.kernel = "memcpy";
    copy.timed_bytes = result_.memcpy_bytes;
    if (memcpy_buffer_ == nullptr) {
      copy.outcome = Outcome::skipped;
      copy.note = no_room_ + " nor for a chunk of " + format_megabytes(std::min(result_.bytes, kMinMemcpyChunkBytes));
    } else if (Plan::create(copy_plan_, Matrix{1, result_.memcpy_bytes}, DType::u8, options_.device,
                            plan_options("memcpy")) != Status::ok) {
      copy.note = std::string("Plan::create(memcpy): ") + last_error_message();
    } else {
      copy.outcome = Outcome::passed;
      if (!result_.second_buffer)
        copy.note = "a chunk of " + format_megabytes(result_.memcpy_bytes) + " copied (" + no_room_ +
                    "), its time scaled to the case's bytes";
    }
    result_.variants.push_back(copy);

    InplaceVariantResult out_of_place;
    out_of_place.name = kOutOfPlaceVariant;
    out_of_place.timed_bytes = result_.bytes;
    if (second_buffer_.data() == nullptr) {
      out_of_place.outcome = Outcome::skipped;
      out_of_place.note = no_room_;
    } else if (Plan::create(out_of_place_plan_, matrix(true), m_.dtype, options_.device, plan_options()) != Status::ok) {
      out_of_place.note = std::string("Plan::create: ") + last_error_message();
    } else {
      out_of_place.kernel = out_of_place_plan_.kernel_name();
      out_of_place.outcome = Outcome::passed;  // until its check says otherwise
    }
    result_.variants.push_back(out_of_place);

    InplaceVariantResult in_place;
    in_place.name = kInPlaceVariant;
    in_place.kernel = result_.method;
    in_place.timed_bytes = result_.bytes;
    in_place.outcome = Outcome::passed;  // until its check says otherwise
    // One row or one column is its own transpose: the plan moves nothing, and a time of nothing
    // is no figure.
    if (result_.method == std::string("inplace_none"))
      in_place.note = "nothing to move: a single row or column is its own transpose (not timed)";
    result_.variants.push_back(in_place);
  }

  InplaceVariantResult& variant(const char* name) {
    return *std::find_if(result_.variants.begin(), result_.variants.end(),
                         [&](const InplaceVariantResult& v) { return v.name == name; });
  }

  // Reads `buffer` back chunk by chunk and checks it holds the transpose of the pattern.
  void check_transposed(const void* buffer, InplaceVariantResult* v) {
    TransposeCheck check(pattern_, result_.check, host_threads(options_));
    const int elem_size = pattern_.elem_size();
    const int64_t chunk_elements = kHostChunkBytes / elem_size, elements = pattern_.elements();
    const auto* bytes = static_cast<const unsigned char*>(buffer);
    for (int64_t first = 0; first < elements; first += chunk_elements) {
      const int64_t count = std::min(chunk_elements, elements - first);
      std::string error;
      const unsigned char* host = device_.read_back(bytes + first * elem_size, count * elem_size, &error);
      if (host == nullptr) {
        v->outcome = Outcome::error;
        v->note = "reading the result back: " + error;
        return;
      }
      check.add(host, first, count);
    }
    v->checked = true;
    v->outcome = check.finish(&v->note) ? Outcome::passed : Outcome::failed;
  }

  // The out-of-place output, once, before the timing: the same check as the in-place result.
  void verify_out_of_place() {
    InplaceVariantResult& v = variant(kOutOfPlaceVariant);
    if (v.outcome != Outcome::passed) return;
    std::string error;
    if (!device_.fill_bytes(second_buffer_.data(), 0xFF, result_.bytes, &error)) {
      v.outcome = Outcome::error;
      v.note = error;
      return;
    }
    if (out_of_place_plan_.execute(data_.data(), second_buffer_.data(), device_.stream()) != Status::ok) {
      v.outcome = Outcome::error;
      v.note = std::string("execute: ") + last_error_message();
      return;
    }
    check_transposed(second_buffer_.data(), &v);
  }

  // One in-place execute: the plan that matches the data's present layout.
  Status execute_inplace() {
    const bool forward = executes_ % 2 == 0;
    const Status status = (forward ? forward_ : back_).execute_inplace(data_.data(), device_.stream());
    if (status == Status::ok) {
      ++executes_;
      directions_.push_back(forward);
    }
    return status;
  }

  // The timed runs, in rounds that alternate between the variants (each round starting one
  // variant later), as the one-device bench times them (bench_runner.cpp). The launch gate is
  // for plans of one launch: the decomposition launches a few kernels per strip of columns, and a
  // hundred of its executes queued behind a closed gate would fill CUDA's launch queue and stall.
  void time_variants() {
    struct Timed {
      InplaceVariantResult* result;
      BenchDevice::Launch launch;
      bool gate_allowed;
      bool every_round_gated = true;
      bool failed = false;
    };
    std::vector<Timed> timed;
    void* const stream = device_.stream();
    InplaceVariantResult& copy = variant(kInplaceMemcpyVariant);
    if (copy.outcome == Outcome::passed)
      timed.push_back({&copy, [&, stream](int) { return copy_plan_.execute(data_.data(), memcpy_buffer_, stream); }, true});
    InplaceVariantResult& out_of_place = variant(kOutOfPlaceVariant);
    if (out_of_place.outcome == Outcome::passed || out_of_place.outcome == Outcome::failed)
      timed.push_back({&out_of_place,
                       [&, stream](int) { return out_of_place_plan_.execute(data_.data(), second_buffer_.data(), stream); },
                       true});
    InplaceVariantResult& in_place = variant(kInPlaceVariant);
    if (result_.method != std::string("inplace_none"))
      timed.push_back({&in_place, [&](int) { return execute_inplace(); }, result_.method == std::string("inplace_square")});

    const int rounds = std::max(1, std::min(options_.rounds, options_.reps));
    const int count = static_cast<int>(timed.size());
    for (int round = 0; round < rounds; ++round) {
      TimingRequest request;
      request.warmup = round == 0 ? options_.warmup : std::min(options_.warmup, 1);
      request.reps = options_.reps / rounds + (round < options_.reps % rounds ? 1 : 0);
      request.budget_seconds = options_.budget_seconds / rounds;
      request.min_reps = std::max(1, (options_.min_reps + rounds - 1) / rounds);
      for (int i = 0; i < count; ++i) {
        Timed& t = timed[static_cast<size_t>((i + round) % count)];
        if (t.failed) continue;
        request.allow_launch_gate = t.gate_allowed;
        directions_.clear();
        std::vector<double> seconds;
        std::string error;
        if (!device_.time_runs(t.launch, request, &seconds, &error)) {
          t.failed = true;
          t.result->outcome = Outcome::error;
          t.result->note += (t.result->note.empty() ? "" : "; ") + ("timed runs: " + error);
          t.result->seconds.clear();
          t.result->forward.clear();
          continue;
        }
        const bool gated = device_.last_runs_gated();
        if (request.allow_launch_gate && !gated) t.gate_allowed = false;  // it stalled: no gate from now on
        t.every_round_gated = t.every_round_gated && gated;
        t.result->seconds.insert(t.result->seconds.end(), seconds.begin(), seconds.end());
        // The timed runs are the last launches of the call (after its warm-up).
        if (t.result == &in_place)
          t.result->forward.insert(t.result->forward.end(), directions_.end() - static_cast<std::ptrdiff_t>(seconds.size()),
                                   directions_.end());
      }
    }
    for (const Timed& t : timed) t.result->launch_gate = !t.failed && t.every_round_gated && t.result->timed();
  }

  // Brings the data to "transposed once" and checks it. After a failed execute the data's state
  // is unknown: nothing to check.
  void finish_in_place() {
    InplaceVariantResult& v = variant(kInPlaceVariant);
    if (v.outcome == Outcome::error) return;
    if (executes_ % 2 == 0 && execute_inplace() != Status::ok) {
      v.outcome = Outcome::error;
      v.note = std::string("execute_inplace: ") + last_error_message();
      return;
    }
    result_.executes = executes_;
    std::string error;
    if (!device_.synchronize(&error)) {
      v.outcome = Outcome::error;
      v.note = error;
      return;
    }
    const std::string note = v.note;
    check_transposed(data_.data(), &v);
    if (v.outcome == Outcome::passed) v.note = note;
  }

  // Medians and ratios once every variant has run. memcpy's times are scaled to the case's bytes
  // when it copied a chunk.
  void derive_figures() {
    const auto bytes = static_cast<double>(result_.bytes);
    double memcpy_seconds = -1;
    for (InplaceVariantResult& v : result_.variants) {
      if (!v.timed()) continue;
      const double scale = v.name == kInplaceMemcpyVariant ? bytes / static_cast<double>(v.timed_bytes) : 1.0;
      v.median_seconds = median(v.seconds) * scale;
      v.min_seconds = *std::min_element(v.seconds.begin(), v.seconds.end()) * scale;
      v.max_seconds = *std::max_element(v.seconds.begin(), v.seconds.end()) * scale;
      v.gigabytes_per_second = 2.0 * bytes / v.median_seconds / 1e9;
      if (v.name == kInplaceMemcpyVariant) memcpy_seconds = v.median_seconds;
      if (v.forward.size() == v.seconds.size()) {
        std::vector<double> there, back;
        for (size_t k = 0; k < v.seconds.size(); ++k) (v.forward[k] ? there : back).push_back(v.seconds[k]);
        if (!there.empty()) v.median_forward_seconds = median(there);
        if (!back.empty()) v.median_back_seconds = median(back);
      }
    }
    if (memcpy_seconds <= 0) return;
    for (InplaceVariantResult& v : result_.variants)
      if (v.timed()) v.percent_of_memcpy = memcpy_seconds / v.median_seconds * 100.0;
  }

  BenchDevice& device_;
  const InplaceBenchOptions& options_;
  Progress& progress_;
  InplaceCaseResult& result_;
  const MatrixCase& m_;
  const InplacePattern pattern_{m_.rows, m_.cols, m_.batch, static_cast<int>(size_of(m_.dtype)),
                                result_.check == InplaceCheck::checksums};
  Plan forward_, back_, copy_plan_, out_of_place_plan_;
  int64_t scratch_ = 0;
  DeviceBuffer data_, second_buffer_, memcpy_chunk_;
  void* memcpy_buffer_ = nullptr;  // the second buffer or the chunk
  std::string no_room_;            // why there is no second buffer
  int64_t executes_ = 0;           // successful in-place executes on data_
  std::vector<bool> directions_;   // of the executes of the present time_runs call
};

void add_to_summary(const InplaceCaseResult& result, InplaceSummary* summary) {
  ++summary->cases;
  if (result.outcome == Outcome::not_run) ++summary->cases_not_run;
  if (result.outcome == Outcome::error && result.variants.empty()) ++summary->errors;
  for (const InplaceVariantResult& v : result.variants) {
    if (v.name == kInplaceMemcpyVariant) {  // not a check: only its errors count
      summary->errors += v.outcome == Outcome::error;
      continue;
    }
    switch (v.outcome) {
      case Outcome::passed: ++summary->passed; break;
      case Outcome::failed: ++summary->failed; break;
      case Outcome::error: ++summary->errors; break;
      default: ++summary->skipped; break;
    }
  }
}

InplaceRunInfo make_run_info(const InplaceBenchOptions& options, const DeviceInfo& device) {
  InplaceRunInfo info;
  info.device = device;
  info.xpose_version = xpose_version();
  info.git_commit = git_commit();
  info.date_utc = utc_now();
  info.suite_path = options.suite_path;
  info.launch_gate = options.device == Device::cuda && options.launch_gate;
  if (options.device == Device::cpu)
    info.timer = "std::chrono::steady_clock around each run";
  else if (info.launch_gate)
    info.timer = "CUDA events around each launch on one stream; launches of single-launch plans (memcpy, "
                 "out-of-place, square in-place) queued on a held stream then released, the decomposition's "
                 "without the gate";
  else
    info.timer = "CUDA events around each launch on one stream (no launch gate)";
  info.warmup = options.warmup;
  info.reps = options.reps;
  info.rounds = options.rounds;
  info.budget_seconds = options.budget_seconds;
  info.min_reps = options.min_reps;
  info.threads = options.threads;
  return info;
}

}  // namespace

int run_inplace_bench(const InplaceBenchOptions& options) {
  std::string error;
  std::unique_ptr<BenchDevice> device =
      options.device == Device::cuda ? make_cuda_device(options.launch_gate, &error) : make_cpu_device();
  if (!device) {
    print_error(error);
    return kExitFailed;
  }
  // The report file appears when the run is complete (output_file.hpp).
  OutputFile output_file;
  if (!options.output_path.empty() && !output_file.open(options.output_path, &error)) {
    print_error(error);
    return kExitUsage;
  }
  std::vector<std::unique_ptr<InplaceReportWriter>> writers;
  if (options.output_path.empty()) {
    writers.push_back(make_inplace_report_writer(options.format, std::cout));
  } else {
    writers.push_back(make_inplace_report_writer(options.format, output_file.stream()));
    writers.push_back(make_inplace_report_writer(ReportFormat::table, std::cout));
  }
  const InplaceRunInfo info = make_run_info(options, device->info());
  for (auto& writer : writers) writer->begin(info);

  const int total = static_cast<int>(options.cases.size());
  Progress progress(total * kStepsPerCase, options.progress);
  InplaceSummary summary;
  for (int k = 0; k < total; ++k) {
    InplaceCaseResult result;
    result.bench_case = options.cases[static_cast<size_t>(k)];
    result.number = k + 1;
    result.total = total;
    const MatrixCase& m = result.bench_case.matrix;
    result.bytes = m.rows * m.cols * m.batch * static_cast<int64_t>(size_of(m.dtype));
    result.check = choose_inplace_check(m.rows, m.cols, m.batch, static_cast<int>(size_of(m.dtype)));
    result.cache_resident = info.device.cache_bytes > 0 && result.bytes < info.device.cache_bytes;
    {
      CaseRun run(*device, options, progress, &result);
      run.run();
    }  // the case's buffers are released before the next case allocates
    progress.clear();
    add_to_summary(result, &summary);
    for (auto& writer : writers) writer->add_case(result);
  }
  for (auto& writer : writers) writer->end(summary);
  if (options.output_path.empty() && options.format != ReportFormat::table)
    std::fprintf(stderr, "%s\n%s\n", inplace_summary_line(summary).c_str(), inplace_verification_line(summary).c_str());
  int status = summary.ok() ? kExitOk : kExitFailed;
  if (!options.output_path.empty() && !output_file.commit(&error)) {
    print_error(error);
    status = kExitFailed;
  }
  return status;
}

}  // namespace xpose::cli
