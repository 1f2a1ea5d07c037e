// SPDX-License-Identifier: Apache-2.0
// The distributed bench: one process drives GPUs 0..N-1 (ncclCommInitAll, one stream each) and,
// per case, with the same buffers, times
//   nccl_exchange             the bare NCCL exchange of the bytes the transpose moves (roofline),
//   dist                      xpose::dist::execute_group over every rank's plan,
//   gather_transpose_scatter  A gathered onto GPU 0, xpose::transpose there, A^T scattered back.
// Inputs are filled and outputs verified on the devices (dist_bench_kernels.cu); every element of
// every verified run is checked. docs/cli.md ("Several GPUs") describes the protocol and report.
#include "dist_bench.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>

#include "build_info.hpp"
#include "diagnostics.hpp"
#include "dist_bench_kernels.hpp"
#include "dist_encoding.hpp"
#include "dist_report.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "xpose/dist.hpp"

namespace xpose::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kTimer =
    "host steady_clock around the launch on every GPU and cudaStreamSynchronize of every GPU's stream "
    "(each run starts with all GPUs idle)";

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

bool cuda_ok(cudaError_t status, const std::string& what, std::string* error) {
  if (status == cudaSuccess) return true;
  cudaGetLastError();
  *error = what + ": " + cudaGetErrorString(status);
  return false;
}

bool nccl_ok(ncclResult_t result, const std::string& what, std::string* error) {
  if (result == ncclSuccess) return true;
  *error = what + ": " + ncclGetErrorString(result);
  const char* detail = ncclGetLastError(nullptr);
  if (detail != nullptr && *detail != '\0') *error += " (" + one_line(detail) + ")";
  return false;
}

int64_t free_device_memory(int device) {
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return static_cast<int64_t>(free_bytes);
}

std::string version_string(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The exchange the dist plans are asked for (--exchange).
xpose::dist::Exchange exchange_of(const DistBenchOptions& options) {
  if (options.exchange == "copy-engine") return xpose::dist::Exchange::copy_engine;
  if (options.exchange == "send-receive") return xpose::dist::Exchange::send_receive;
  return xpose::dist::Options{}.exchange;
}

// Whether every buffer NCCL sees is ncclMemAlloc'd and registered (--nccl-buffers).
bool registers_buffers(const DistBenchOptions& options) {
  return options.nccl_buffers.empty() ? xpose::dist::Options{}.register_workspace
                                      : options.nccl_buffers == "registered";
}

// One allocation on one GPU, freed on that GPU: cudaMalloc, or ncclMemAlloc registered with a
// communicator (ncclCommRegister) for buffers NCCL sends from or receives into.
class GpuBuffer {
 public:
  GpuBuffer() = default;
  GpuBuffer(const GpuBuffer&) = delete;
  GpuBuffer& operator=(const GpuBuffer&) = delete;
  GpuBuffer(GpuBuffer&& other) noexcept { *this = std::move(other); }
  GpuBuffer& operator=(GpuBuffer&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(data_, other.data_);
    std::swap(comm_, other.comm_);
    std::swap(registration_, other.registration_);
    return *this;
  }
  ~GpuBuffer() { release(); }

  // On failure `error` names the size and the free memory.
  bool allocate(int device, int64_t bytes, const std::string& what, std::string* error,
                ncclComm_t register_with = nullptr) {
    release();
    if (!cuda_ok(cudaSetDevice(device), "cudaSetDevice", error)) return false;
    const auto size = static_cast<size_t>(std::max<int64_t>(bytes, 1));
    std::string why;
    if (register_with != nullptr) {
      const ncclResult_t status = ncclMemAlloc(&data_, size);
      if (status != ncclSuccess) why = ncclGetErrorString(status);
    } else {
      const cudaError_t status = cudaMalloc(&data_, size);
      if (status != cudaSuccess) why = cudaGetErrorString(status);
    }
    if (why.empty()) {
      device_ = device;
      comm_ = register_with;
      if (register_with == nullptr) return true;
      const ncclResult_t status = ncclCommRegister(register_with, data_, size, &registration_);
      if (status == ncclSuccess) return true;
      *error = "GPU " + std::to_string(device) + ": ncclCommRegister of " + format_gigabytes(bytes) + " for " +
               what + " failed (" + ncclGetErrorString(status) + ")";
      release();
      return false;
    }
    cudaGetLastError();
    data_ = nullptr;
    const int64_t free_bytes = free_device_memory(device);
    *error = "GPU " + std::to_string(device) + ": " + (register_with != nullptr ? "ncclMemAlloc" : "cudaMalloc") +
             " of " + format_gigabytes(bytes) + " for " + what + " failed (" + why + "); free: " +
             (free_bytes < 0 ? std::string("unknown") : format_gigabytes(free_bytes));
    return false;
  }

  void release() {
    if (data_ == nullptr) return;
    cudaSetDevice(device_);
    if (registration_ != nullptr) ncclCommDeregister(comm_, registration_);
    if (comm_ != nullptr)
      ncclMemFree(data_);
    else
      cudaFree(data_);
    data_ = nullptr;
    comm_ = nullptr;
    registration_ = nullptr;
  }

  unsigned char* data() const { return static_cast<unsigned char*>(data_); }

 private:
  int device_ = -1;
  void* data_ = nullptr;
  ncclComm_t comm_ = nullptr;     // registered with (and allocated by ncclMemAlloc), or none
  void* registration_ = nullptr;  // ncclCommRegister's handle
};

// GPUs 0..N-1 of this process: one NCCL communicator and one stream each.
class Gpus {
 public:
  Gpus() = default;
  Gpus(const Gpus&) = delete;
  Gpus& operator=(const Gpus&) = delete;

  ~Gpus() {
    if (!comms_.empty()) {
      // One thread finalises several communicators: NCCL wants them grouped.
      ncclGroupStart();
      for (ncclComm_t comm : comms_) ncclCommFinalize(comm);
      ncclGroupEnd();
      for (ncclComm_t comm : comms_) ncclCommDestroy(comm);
    }
    for (size_t p = 0; p < streams_.size(); ++p) {
      cudaSetDevice(static_cast<int>(p));
      cudaStreamDestroy(streams_[p]);
    }
  }

  bool open(int count, std::string* error) {
    for (int p = 0; p < count; ++p) {
      cudaStream_t stream = nullptr;
      if (!cuda_ok(cudaSetDevice(p), "cudaSetDevice(" + std::to_string(p) + ")", error) ||
          !cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                   "cudaStreamCreate on GPU " + std::to_string(p), error))
        return false;
      streams_.push_back(stream);
    }
    std::vector<int> devices(static_cast<size_t>(count));
    std::iota(devices.begin(), devices.end(), 0);
    std::vector<ncclComm_t> comms(static_cast<size_t>(count), nullptr);
    if (!nccl_ok(ncclCommInitAll(comms.data(), count, devices.data()),
                 "ncclCommInitAll over GPUs 0.." + std::to_string(count - 1), error))
      return false;
    comms_ = comms;
    return true;
  }

  int count() const { return static_cast<int>(streams_.size()); }
  ncclComm_t comm(int p) const { return comms_[static_cast<size_t>(p)]; }
  cudaStream_t stream(int p) const { return streams_[static_cast<size_t>(p)]; }

  bool synchronize(std::string* error) const {
    for (int p = 0; p < count(); ++p)
      if (!cuda_ok(cudaSetDevice(p), "cudaSetDevice", error) ||
          !cuda_ok(cudaStreamSynchronize(stream(p)), "cudaStreamSynchronize on GPU " + std::to_string(p), error))
        return false;
    return true;
  }

  // After an NCCL error the communicators are aborted at once: a kernel waiting for a peer's
  // half-issued transfer would otherwise hang every later synchronisation (freeing a buffer
  // included). Nothing more runs on them.
  void mark_unhealthy() {
    healthy_ = false;
    for (ncclComm_t comm : comms_) ncclCommAbort(comm);
    comms_.clear();
  }
  bool healthy() const { return healthy_; }

 private:
  std::vector<cudaStream_t> streams_;
  std::vector<ncclComm_t> comms_;
  bool healthy_ = true;
};

xpose::dist::Layout make_layout(const DistCase& c, int gpus) {
  xpose::dist::Layout layout;
  layout.rows = c.rows;
  layout.cols = c.cols;
  if (c.split == Split::even) {
    layout.in_rows = xpose::dist::even_split(c.rows, gpus);
    layout.out_rows = xpose::dist::even_split(c.cols, gpus);
  } else {
    layout.in_rows = uneven_split(c.rows, gpus, false);
    layout.out_rows = uneven_split(c.cols, gpus, true);
  }
  return layout;
}

std::vector<int64_t> offsets(const std::vector<int64_t>& counts) {
  std::vector<int64_t> first(counts.size(), 0);
  for (size_t r = 1; r < counts.size(); ++r) first[r] = first[r - 1] + counts[r - 1];
  return first;
}

// "0x3f80a2c1": the element's bytes as a little-endian number.
std::string hex_element(const unsigned char* bytes, int element_bytes) {
  char text[48];
  if (element_bytes == 16) {
    uint64_t low = 0, high = 0;
    std::memcpy(&low, bytes, 8);
    std::memcpy(&high, bytes + 8, 8);
    std::snprintf(text, sizeof text, "0x%016llx%016llx", static_cast<unsigned long long>(high),
                  static_cast<unsigned long long>(low));
  } else {
    uint64_t value = 0;
    std::memcpy(&value, bytes, static_cast<size_t>(element_bytes));
    std::snprintf(text, sizeof text, "0x%0*llx", 2 * element_bytes, static_cast<unsigned long long>(value));
  }
  return text;
}

std::string hex_encoded(uint64_t index, uint64_t seed, int element_bytes) {
  unsigned char bytes[16];
  const uint64_t low = dist_encoding::encoded_word(index, seed, 0, std::min(element_bytes, 8));
  std::memcpy(bytes, &low, 8);
  if (element_bytes == 16) {
    const uint64_t high = dist_encoding::encoded_word(index, seed, 1, 8);
    std::memcpy(bytes + 8, &high, 8);
  }
  return hex_element(bytes, element_bytes);
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// One case: its layout, plans, buffers and the runs of each variant.
class CaseRun {
 public:
  CaseRun(Gpus& gpus, const DistBenchOptions& options, const xpose::dist::Layout& layout, DistCaseResult* result)
      : gpus_(gpus),
        options_(options),
        layout_(layout),
        result_(*result),
        n_(gpus.count()),
        element_(static_cast<int>(size_of(result->dist_case.dtype))),
        in_first_(offsets(layout.in_rows)),
        out_first_(offsets(layout.out_rows)) {
    const DistCase& c = result_.dist_case;
    result_.gpus = n_;
    result_.in_rows = layout.in_rows;
    result_.out_rows = layout.out_rows;
    result_.matrix_bytes = c.rows * c.cols * element_;
    result_.pair_bytes.assign(n_, std::vector<int64_t>(n_, 0));
    for (int p = 0; p < n_; ++p)
      for (int q = 0; q < n_; ++q) {
        result_.pair_bytes[p][q] = layout.in_rows[p] * layout.out_rows[q] * element_;
        if (p != q) result_.exchange_bytes += result_.pair_bytes[p][q];
      }
    result_.gather_bytes = 2 * result_.matrix_bytes;
  }

  // Plans (they allocate their workspace), the memory report, the blocks and their input.
  // `announce` is called once the memory figures are known, before the blocks are allocated.
  bool prepare(const std::function<void()>& announce, std::string* error) {
    const bool wants_dist = std::find(options_.variants.begin(), options_.variants.end(), kDistVariant) !=
                            options_.variants.end();
    if (wants_dist) {
      xpose::dist::Options plan_options;
      if (options_.step_bytes >= 0) plan_options.step_bytes = options_.step_bytes;
      plan_options.register_workspace = registers_buffers(options_);
      plan_options.exchange = exchange_of(options_);
      std::vector<ncclComm_t> comms;
      for (int p = 0; p < n_; ++p) comms.push_back(gpus_.comm(p));
      if (xpose::dist::create_group(plans_, comms, layout_, result_.dist_case.dtype, plan_options) != Status::ok) {
        *error = std::string("xpose::dist::create_group: ") + last_error_message();
        return false;
      }
      result_.steps = plans_[0].steps();
      result_.exchange =
          plans_[0].exchange() == xpose::dist::Exchange::copy_engine ? "copy engine" : "send/receive";
    }
    result_.memory.resize(static_cast<size_t>(n_));
    for (int p = 0; p < n_; ++p) {
      GpuMemory& memory = result_.memory[p];
      memory.input_bytes = in_count(p) * element_;
      memory.output_bytes = out_count(p) * element_;
      memory.workspace_bytes = wants_dist ? plans_[p].workspace_bytes() : 0;
      memory.free_bytes = free_device_memory(p);
    }
    announce();
    for (int p = 0; p < n_; ++p) {
      const GpuMemory& memory = result_.memory[p];
      const int64_t needed = memory.input_bytes + memory.output_bytes;
      if (memory.free_bytes >= 0 && needed > memory.free_bytes) {
        *error = "GPU " + std::to_string(p) + " needs " + format_gigabytes(needed) + " for its input and output blocks, " +
                 format_gigabytes(memory.free_bytes) + " free";
        return false;
      }
    }
    in_.resize(static_cast<size_t>(n_));
    out_.resize(static_cast<size_t>(n_));
    tallies_.resize(static_cast<size_t>(n_));
    for (int p = 0; p < n_; ++p) {
      if (!in_[p].allocate(p, result_.memory[p].input_bytes, "the input block", error, nccl_registration(p)) ||
          !out_[p].allocate(p, result_.memory[p].output_bytes, "the output block", error, nccl_registration(p)) ||
          !tallies_[p].allocate(p, static_cast<int64_t>(n_ * sizeof(Mismatches)), "the check's tallies", error))
        return false;
    }
    for (int p = 0; p < n_; ++p) {
      if (!cuda_ok(cudaSetDevice(p), "cudaSetDevice", error) ||
          !cuda_ok(fill_encoded(in_[p].data(), in_count(p), element_, in_first_[p] * layout_.cols, options_.seed,
                                gpus_.stream(p)),
                   "filling the input on GPU " + std::to_string(p), error))
        return false;
    }
    return gpus_.synchronize(error);
  }

  void run(const std::string& name, DistVariantResult* variant) {
    variant->name = name;
    std::string error;
    bool ran = false;
    if (name == kExchangeVariant) {
      variant->link_bytes = result_.exchange_bytes;
      ran = run_exchange(variant, &error);
    } else if (name == kDistVariant) {
      variant->link_bytes = result_.exchange_bytes;
      ran = run_dist(variant, &error);
    } else {
      variant->link_bytes = (result_.matrix_bytes - in_count(0) * element_) +
                            (result_.matrix_bytes - out_count(0) * element_);
      ran = run_gather(variant, &error);
    }
    if (!ran && variant->outcome != Outcome::skipped) {
      variant->outcome = Outcome::error;
      variant->note = one_line(error);
      variant->seconds.clear();  // an interrupted series is no measurement
    }
    if (!variant->timed()) return;
    const std::vector<double>& s = variant->seconds;
    variant->median_seconds = median_of(s);
    variant->min_seconds = *std::min_element(s.begin(), s.end());
    variant->max_seconds = *std::max_element(s.begin(), s.end());
    variant->link_gigabytes_per_second = static_cast<double>(variant->link_bytes) / variant->median_seconds / 1e9;
    variant->effective_gigabytes_per_second =
        2.0 * static_cast<double>(result_.matrix_bytes) / variant->median_seconds / 1e9;
  }

 private:
  // The communicator a buffer of GPU p that NCCL will see is registered with, or none.
  ncclComm_t nccl_registration(int p) const { return registers_buffers(options_) ? gpus_.comm(p) : nullptr; }
  int64_t in_count(int p) const { return layout_.in_rows[p] * layout_.cols; }    // elements
  int64_t out_count(int p) const { return layout_.out_rows[p] * layout_.rows; }  // elements

  using Launch = std::function<bool(std::string*)>;

  // `warmup` untimed runs, then `reps` timed ones, each from idle GPUs to idle GPUs.
  bool time_runs(const Launch& launch, std::vector<double>* seconds, std::string* error) {
    for (int i = 0; i < options_.warmup; ++i)
      if (!launch(error) || !gpus_.synchronize(error)) return false;
    for (int i = 0; i < options_.reps; ++i) {
      const Clock::time_point start = Clock::now();
      if (!launch(error) || !gpus_.synchronize(error)) return false;
      seconds->push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    return true;
  }

  bool poison(unsigned char* data, int64_t bytes, int device, std::string* error) {
    return cuda_ok(cudaSetDevice(device), "cudaSetDevice", error) &&
           cuda_ok(cudaMemsetAsync(data, 0xFF, static_cast<size_t>(bytes), gpus_.stream(device)),
                   "cudaMemsetAsync on GPU " + std::to_string(device), error);
  }

  bool poison_outputs(std::string* error) {
    for (int p = 0; p < n_; ++p)
      if (!poison(out_[p].data(), out_count(p) * element_, p, error)) return false;
    return true;
  }

  // One check per (GPU, slot): `launch(p, tallies of GPU p)` queues GPU p's checks. Then the
  // tallies come back; the first wrong element found is described by `describe(p, slot, index)`.
  using LaunchChecks = std::function<bool(int p, Mismatches* tallies, std::string* error)>;
  using Describe = std::function<std::string(int p, int slot, uint64_t index)>;

  bool verify(const LaunchChecks& launch, const Describe& describe, DistVariantResult* variant, std::string* error) {
    for (int p = 0; p < n_; ++p) {
      auto* tallies = reinterpret_cast<Mismatches*>(tallies_[p].data());
      if (!cuda_ok(cudaSetDevice(p), "cudaSetDevice", error)) return false;
      for (int slot = 0; slot < n_; ++slot)
        if (!cuda_ok(reset_mismatches(tallies + slot, gpus_.stream(p)), "resetting the check on GPU " + std::to_string(p), error))
          return false;
      if (!launch(p, tallies, error)) return false;
    }
    if (!gpus_.synchronize(error)) return false;
    std::string first;
    for (int p = 0; p < n_; ++p) {
      std::vector<Mismatches> tallies(static_cast<size_t>(n_));
      if (!cuda_ok(cudaSetDevice(p), "cudaSetDevice", error) ||
          !cuda_ok(cudaMemcpy(tallies.data(), tallies_[p].data(), n_ * sizeof(Mismatches), cudaMemcpyDeviceToHost),
                   "reading the check of GPU " + std::to_string(p), error))
        return false;
      for (int slot = 0; slot < n_; ++slot) {
        variant->wrong_elements += tallies[slot].count;
        if (tallies[slot].count > 0 && first.empty()) first = describe(p, slot, tallies[slot].first);
      }
    }
    variant->outcome = variant->wrong_elements == 0 ? Outcome::passed : Outcome::failed;
    if (variant->wrong_elements > 0)
      variant->note = std::to_string(variant->wrong_elements) + " wrong elements; first: " + first;
    return true;
  }

  std::string read_element(const unsigned char* data, int device) {
    unsigned char bytes[16] = {};
    cudaSetDevice(device);
    if (cudaMemcpy(bytes, data, static_cast<size_t>(element_), cudaMemcpyDeviceToHost) != cudaSuccess) {
      cudaGetLastError();
      return "(unreadable)";
    }
    return hex_element(bytes, element_);
  }

  // Checks a block of A^T on GPU p at `out` (rows out_first_[p] .. + out_rows[p]).
  bool check_transposed(int p, const unsigned char* out, Mismatches* tallies, std::string* error) {
    return cuda_ok(check_transposed_block(out, layout_.out_rows[p], layout_.rows, layout_.cols, out_first_[p],
                                          element_, options_.seed, tallies, gpus_.stream(p)),
                   "checking the output on GPU " + std::to_string(p), error);
  }

  std::string describe_transposed(int p, const unsigned char* out, uint64_t index) {
    const int64_t jj = static_cast<int64_t>(index) / layout_.rows, i = static_cast<int64_t>(index) % layout_.rows;
    const int64_t j = out_first_[p] + jj;
    return "GPU " + std::to_string(p) + ": A^T[" + std::to_string(j) + "][" + std::to_string(i) + "] is " +
           read_element(out + index * element_, p) + ", expected A[" + std::to_string(i) + "][" + std::to_string(j) +
           "] = " + hex_encoded(static_cast<uint64_t>(i * layout_.cols + j), options_.seed, element_);
  }

  // The bare exchange moves contiguous runs: rank p sends elements [in_rows[p] * out_first[q],
  // + in_rows[p] * out_rows[q]) of its input block to rank q, which receives them at element
  // out_rows[q] * in_first[p] of its output block. The bytes are those the transpose moves
  // between the same pair; the diagonal (what stays on a GPU) is not moved.
  int64_t send_offset(int p, int q) const { return layout_.in_rows[p] * out_first_[q]; }
  int64_t receive_offset(int p, int q) const { return layout_.out_rows[p] * in_first_[q]; }  // on p, from q
  int64_t pair_count(int p, int q) const { return layout_.in_rows[p] * layout_.out_rows[q]; }

  bool launch_exchange(std::string* error) {
    if (!nccl_ok(ncclGroupStart(), "ncclGroupStart", error)) return false;
    ncclResult_t queued = ncclSuccess;
    for (int p = 0; p < n_; ++p)
      for (int q = 0; q < n_; ++q) {
        if (p == q) continue;
        if (queued == ncclSuccess && pair_count(p, q) > 0)
          queued = ncclSend(in_[p].data() + send_offset(p, q) * element_, static_cast<size_t>(pair_count(p, q) * element_),
                            ncclUint8, q, gpus_.comm(p), gpus_.stream(p));
        if (queued == ncclSuccess && pair_count(q, p) > 0)
          queued = ncclRecv(out_[p].data() + receive_offset(p, q) * element_,
                            static_cast<size_t>(pair_count(q, p) * element_), ncclUint8, q, gpus_.comm(p), gpus_.stream(p));
      }
    const ncclResult_t ended = ncclGroupEnd();  // closed even after a failed call
    if (nccl_ok(queued, "ncclSend/ncclRecv", error) && nccl_ok(ended, "ncclGroupEnd", error)) return true;
    gpus_.mark_unhealthy();
    return false;
  }

  bool run_exchange(DistVariantResult* variant, std::string* error) {
    const Launch launch = [this](std::string* e) { return launch_exchange(e); };
    const LaunchChecks checks = [this](int p, Mismatches* tallies, std::string* e) {
      for (int q = 0; q < n_; ++q) {
        if (q == p) continue;
        if (!cuda_ok(check_encoded_run(out_[p].data() + receive_offset(p, q) * element_, pair_count(q, p), element_,
                                       in_first_[q] * layout_.cols + send_offset(q, p), options_.seed, tallies + q,
                                       gpus_.stream(p)),
                     "checking the exchange on GPU " + std::to_string(p), e))
          return false;
      }
      return true;
    };
    const Describe describe = [this](int p, int q, uint64_t index) {
      const int64_t source = in_first_[q] * layout_.cols + send_offset(q, p) + static_cast<int64_t>(index);
      return "GPU " + std::to_string(p) + ": element " + std::to_string(index) + " received from GPU " +
             std::to_string(q) + " is " +
             read_element(out_[p].data() + (receive_offset(p, q) + static_cast<int64_t>(index)) * element_, p) +
             ", expected A[" + std::to_string(source / layout_.cols) + "][" + std::to_string(source % layout_.cols) +
             "] = " + hex_encoded(static_cast<uint64_t>(source), options_.seed, element_);
    };
    return poison_outputs(error) && launch(error) && verify(checks, describe, variant, error) &&
           time_runs(launch, &variant->seconds, error);
  }

  bool run_dist(DistVariantResult* variant, std::string* error) {
    std::vector<xpose::dist::Execution> executions(static_cast<size_t>(n_));
    for (int p = 0; p < n_; ++p) executions[p] = {&plans_[p], in_[p].data(), out_[p].data(), gpus_.stream(p)};
    const Launch launch = [this, &executions](std::string* e) {
      if (xpose::dist::execute_group(executions) == Status::ok) return true;
      *e = std::string("xpose::dist::execute_group: ") + last_error_message();
      gpus_.mark_unhealthy();  // its NCCL calls may be half issued
      return false;
    };
    const LaunchChecks checks = [this](int p, Mismatches* tallies, std::string* e) {
      return check_transposed(p, out_[p].data(), tallies, e);
    };
    const Describe describe = [this](int p, int, uint64_t index) {
      return describe_transposed(p, out_[p].data(), index);
    };
    return poison_outputs(error) && launch(error) && verify(checks, describe, variant, error) &&
           time_runs(launch, &variant->seconds, error);
  }

  // A gathered onto GPU 0 (full_in, rows x cols), transposed there into full_out (cols x rows),
  // the other ranks' rows of A^T scattered back. GPU 0's own blocks stay in place: its rows of A
  // are the first rows of full_in, its rows of A^T the first rows of full_out.
  bool run_gather(DistVariantResult* variant, std::string* error) {
    const int64_t free_bytes = free_device_memory(0);
    const std::string needed = "needs " + format_gigabytes(result_.gather_bytes) +
                               " on GPU 0 for the whole input and output";
    if (free_bytes >= 0 && result_.gather_bytes > free_bytes) {
      variant->outcome = Outcome::skipped;
      variant->note = needed + ", " + format_gigabytes(free_bytes) + " free";
      return false;
    }
    GpuBuffer full_in, full_out;
    std::string why;
    if (!full_in.allocate(0, result_.matrix_bytes, "the gathered input", &why, nccl_registration(0)) ||
        !full_out.allocate(0, result_.matrix_bytes, "the transposed matrix", &why, nccl_registration(0))) {
      variant->outcome = Outcome::skipped;
      variant->note = needed + "; " + why;
      return false;
    }
    xpose::Plan transpose;
    xpose::Matrix matrix;
    matrix.rows = layout_.rows;
    matrix.cols = layout_.cols;
    if (!cuda_ok(cudaSetDevice(0), "cudaSetDevice", error)) return false;
    if (xpose::Plan::create(transpose, matrix, result_.dist_case.dtype, Device::cuda) != Status::ok) {
      *error = std::string("xpose::Plan::create on GPU 0: ") + last_error_message();
      return false;
    }
    unsigned char* const gathered = full_in.data();
    unsigned char* const transposed = full_out.data();
    const Launch launch = [&, this](std::string* e) {
      if (!nccl_ok(ncclGroupStart(), "ncclGroupStart", e)) return false;
      ncclResult_t queued = ncclSuccess;
      for (int q = 1; q < n_ && queued == ncclSuccess; ++q) {
        const size_t bytes = static_cast<size_t>(in_count(q) * element_);
        if (bytes == 0) continue;
        queued = ncclSend(in_[q].data(), bytes, ncclUint8, 0, gpus_.comm(q), gpus_.stream(q));
        if (queued == ncclSuccess)
          queued = ncclRecv(gathered + in_first_[q] * layout_.cols * element_, bytes, ncclUint8, q, gpus_.comm(0),
                            gpus_.stream(0));
      }
      ncclResult_t ended = ncclGroupEnd();
      if (!nccl_ok(queued, "gather: ncclSend/ncclRecv", e) || !nccl_ok(ended, "gather: ncclGroupEnd", e)) {
        gpus_.mark_unhealthy();
        return false;
      }
      if (!cuda_ok(cudaSetDevice(0), "cudaSetDevice", e)) return false;
      if (transpose.execute(gathered, transposed, gpus_.stream(0)) != Status::ok) {
        *e = std::string("xpose::Plan::execute on GPU 0: ") + last_error_message();
        return false;
      }
      if (!nccl_ok(ncclGroupStart(), "ncclGroupStart", e)) return false;
      for (int q = 1; q < n_ && queued == ncclSuccess; ++q) {
        const size_t bytes = static_cast<size_t>(out_count(q) * element_);
        if (bytes == 0) continue;
        queued = ncclSend(transposed + out_first_[q] * layout_.rows * element_, bytes, ncclUint8, q, gpus_.comm(0),
                          gpus_.stream(0));
        if (queued == ncclSuccess)
          queued = ncclRecv(out_[q].data(), bytes, ncclUint8, 0, gpus_.comm(q), gpus_.stream(q));
      }
      ended = ncclGroupEnd();
      if (!nccl_ok(queued, "scatter: ncclSend/ncclRecv", e) || !nccl_ok(ended, "scatter: ncclGroupEnd", e)) {
        gpus_.mark_unhealthy();
        return false;
      }
      return true;
    };
    const LaunchChecks checks = [&, this](int p, Mismatches* tallies, std::string* e) {
      return check_transposed(p, p == 0 ? transposed : out_[p].data(), tallies, e);
    };
    const Describe describe = [&, this](int p, int, uint64_t index) {
      return describe_transposed(p, p == 0 ? transposed : out_[p].data(), index);
    };
    // Only GPU 0's rows of A are in place before a run; the rest must arrive.
    const bool ready = poison(gathered, result_.matrix_bytes, 0, error) &&
                       cuda_ok(fill_encoded(gathered, in_count(0), element_, 0, options_.seed, gpus_.stream(0)),
                               "filling GPU 0's rows of the gathered input", error) &&
                       poison(transposed, result_.matrix_bytes, 0, error) && poison_outputs(error);
    return ready && launch(error) && verify(checks, describe, variant, error) &&
           time_runs(launch, &variant->seconds, error);
  }

  Gpus& gpus_;
  const DistBenchOptions& options_;
  const xpose::dist::Layout& layout_;
  DistCaseResult& result_;
  const int n_;
  const int element_;
  const std::vector<int64_t> in_first_, out_first_;  // first row of each rank's block of A, of A^T
  std::vector<GpuBuffer> in_, out_, tallies_;
  std::vector<xpose::dist::Plan> plans_;  // destroyed first: they wait for their streams
};

// Ratios within a case, once every variant has run.
void add_ratios(DistCaseResult* result) {
  const DistVariantResult* exchange = nullptr;
  const DistVariantResult* gather = nullptr;
  for (const DistVariantResult& v : result->variants) {
    if (v.name == kExchangeVariant && v.timed()) exchange = &v;
    if (v.name == kGatherVariant && v.timed()) gather = &v;
  }
  for (DistVariantResult& v : result->variants) {
    if (!v.timed()) continue;
    if (exchange != nullptr) v.percent_of_exchange = exchange->median_seconds / v.median_seconds * 100.0;
    if (gather != nullptr) v.speedup_vs_gather = gather->median_seconds / v.median_seconds;
  }
}

void add_to_summary(const DistCaseResult& result, DistSummary* summary) {
  if (result.outcome == Outcome::error && result.variants.empty()) ++summary->errors;
  for (const DistVariantResult& v : result.variants) {
    switch (v.outcome) {
      case Outcome::passed: ++summary->passed; break;
      case Outcome::failed: ++summary->failed; break;
      case Outcome::skipped: ++summary->skipped; break;
      case Outcome::error: ++summary->errors; break;
      case Outcome::not_applicable: ++summary->skipped; break;
      case Outcome::not_run: ++summary->skipped; break;
    }
  }
}

bool describe_gpus(int gpus, DistRunInfo* info, std::string* error) {
  int driver = 0, runtime = 0;
  if (!cuda_ok(cudaDriverGetVersion(&driver), "cudaDriverGetVersion", error) ||
      !cuda_ok(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion", error))
    return false;
  for (int p = 0; p < gpus; ++p) {
    cudaDeviceProp properties{};
    if (!cuda_ok(cudaGetDeviceProperties(&properties, p), "cudaGetDeviceProperties", error)) return false;
    DeviceInfo device;
    device.device = Device::cuda;
    device.name = properties.name;
    device.driver_version = version_string(driver);
    device.runtime_version = version_string(runtime);
    device.compute_capability = std::to_string(properties.major) + "." + std::to_string(properties.minor);
    device.multiprocessors = properties.multiProcessorCount;
    device.memory_bytes = static_cast<int64_t>(properties.totalGlobalMem);
    device.cache_bytes = properties.l2CacheSize;
    device.cache_name = "L2";
    info->devices.push_back(device);
    std::vector<bool> row;
    for (int q = 0; q < gpus; ++q) {
      int can = 0;
      if (p != q && cudaDeviceCanAccessPeer(&can, p, q) != cudaSuccess) cudaGetLastError();
      row.push_back(p == q || can != 0);
    }
    info->peer_access.push_back(row);
  }
  int version = 0;
  if (!nccl_ok(ncclGetVersion(&version), "ncclGetVersion", error)) return false;
  info->nccl_version = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
                       std::to_string(version % 100);
  return true;
}

}  // namespace

bool dist_bench_built() { return true; }

int run_dist_bench(const DistBenchOptions& options) {
  // NVLink multicast (NVLS) stays off on these machines; a value set by the user wins. Set
  // before any NCCL call, which may read the environment.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  // Every layout is checked by the library before a GPU is touched: a bad case is bad usage.
  std::vector<xpose::dist::Layout> layouts;
  for (const DistCase& c : options.cases) {
    layouts.push_back(make_layout(c, options.gpus));
    if (xpose::dist::validate_layout(layouts.back(), options.gpus, c.dtype) != Status::ok) {
      print_error(c.origin + ": " + c.label() + " over " + std::to_string(options.gpus) + " GPUs: " +
                  last_error_message());
      return kExitUsage;
    }
  }
  // The report file appears when the run is complete (output_file.hpp).
  OutputFile output_file;
  std::string error;
  if (!options.output_path.empty() && !output_file.open(options.output_path, &error)) {
    print_error(error);
    return kExitUsage;
  }

  DistRunInfo info;
  Gpus gpus;
  if (!describe_gpus(options.gpus, &info, &error) || !gpus.open(options.gpus, &error)) {
    print_error(one_line(error));
    return kExitFailed;
  }
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  info.gpus = options.gpus;
  info.nvls_setting = nvls != nullptr ? nvls : "";
  info.xpose_version = xpose_version();
  info.git_commit = git_commit();
  info.date_utc = utc_now();
  info.suite_path = options.suite_path;
  info.timer = kTimer;
  info.warmup = options.warmup;
  info.reps = options.reps;
  info.step_bytes_default = options.step_bytes < 0;
  info.step_bytes = options.step_bytes;
  info.exchange_setting = options.exchange.empty() ? "auto" : options.exchange;
  info.registered_buffers = registers_buffers(options);
  info.registered_buffers_default = options.nccl_buffers.empty();
  info.seed = options.seed;

  std::vector<std::unique_ptr<DistReportWriter>> writers;
  if (options.output_path.empty()) {
    writers.push_back(make_dist_report_writer(options.format, std::cout));
  } else {
    writers.push_back(make_dist_report_writer(options.format, output_file.stream()));
    writers.push_back(make_dist_report_writer(ReportFormat::table, std::cout));
  }
  for (auto& writer : writers) writer->begin(info);

  const int total = static_cast<int>(options.cases.size());
  Progress progress(total * static_cast<int>(options.variants.size()), options.progress);
  DistSummary summary;
  for (int k = 0; k < total; ++k) {
    DistCaseResult result;
    result.dist_case = options.cases[k];
    result.number = k + 1;
    result.total = total;
    constexpr const char* kStopped = "not run: an NCCL call failed earlier in this run";
    if (!gpus.healthy()) {
      result.outcome = Outcome::error;
      result.note = kStopped;
    } else {
      CaseRun run(gpus, options, layouts[k], &result);
      const auto announce = [&] {
        progress.clear();
        for (auto& writer : writers) writer->begin_case(result);
      };
      std::string why;
      if (!run.prepare(announce, &why)) {
        result.outcome = Outcome::error;
        result.note = one_line(why);
      } else {
        for (const std::string& name : options.variants) {
          progress.step(result.dist_case.label() + " " + name);
          DistVariantResult variant;
          variant.added_as_baseline = name == kExchangeVariant && options.exchange_added;
          if (gpus.healthy()) {
            run.run(name, &variant);
          } else {
            variant.name = name;
            variant.note = kStopped;
          }
          if (variant.outcome == Outcome::error ||
              (variant.outcome == Outcome::failed && result.outcome == Outcome::passed))
            result.outcome = variant.outcome;
          result.variants.push_back(variant);
        }
        add_ratios(&result);
      }
    }  // the case's buffers and plans are released before the next case allocates
    progress.clear();
    add_to_summary(result, &summary);
    for (auto& writer : writers) writer->add_case(result);
  }
  for (auto& writer : writers) writer->end(summary);
  if (options.output_path.empty() && options.format != ReportFormat::table)
    std::fprintf(stderr, "%s\n%s\n", dist_summary_line(summary).c_str(),
                 summary.ok() ? "Verification: PASSED" : "Verification: FAILED");
  int status = summary.ok() ? kExitOk : kExitFailed;
  if (!options.output_path.empty() && !output_file.commit(&error)) {
    print_error(error);
    status = kExitFailed;
  }
  return status;
}

}  // namespace xpose::cli
