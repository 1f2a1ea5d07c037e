// SPDX-License-Identifier: Apache-2.0
// xpose: matrix transposes and tensor permutations on NVIDIA GPUs and CPUs, at the speed of memory.
//
// Plain C++17; no CUDA header is needed to use it. Device pointers and streams are passed as void*.
//
//   xpose::Matrix m{rows, cols};                         // row-major rows x cols -> cols x rows
//   xpose::Status s = xpose::transpose(in, out, m, xpose::DType::f32, xpose::Device::cuda, stream);
//   if (s != xpose::Status::ok) std::puts(xpose::last_error_message());
//
// Or plan once, execute many times (validation and kernel choice happen in create()):
//
//   xpose::Plan plan;
//   xpose::Plan::create(plan, m, xpose::DType::f32, xpose::Device::cuda);
//   plan.execute(in, out, stream);
//
// Tensors of up to 16 dims are permuted the same way (NumPy's transpose(perm)):
//
//   xpose::permute(in, out, {n, c, h, w}, {0, 2, 3, 1}, xpose::DType::f16, xpose::Device::cuda);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xpose/export.hpp"
#include "xpose/version.hpp"

namespace xpose {

// ---------------------------------------------------------------------------------------------
// Errors are values. Every public function returns a Status; when it is not `ok`, the calling
// thread's last_error_message() says exactly what was wrong.
enum class Status { ok, invalid_argument, unsupported, out_of_memory, device_error, internal_error };

XPOSE_API const char* to_string(Status status);

// The message of the last failed call on this thread ("" after a successful one).
XPOSE_API const char* last_error_message();

// ---------------------------------------------------------------------------------------------
// Element types. Data movement only cares about the element size (1, 2, 4, 8 or 16 bytes).
enum class DType { u8, i8, u16, i16, f16, bf16, u32, i32, f32, u64, i64, f64, c64, c128 };

XPOSE_API std::size_t size_of(DType type);
// Short name as used in the suites: "u8", "f32", "c128", ...
XPOSE_API const char* to_string(DType type);
// Parses a short name; returns Status::invalid_argument for an unknown one.
XPOSE_API Status parse_dtype(const std::string& name, DType* type);
// Every DType, in declaration order.
XPOSE_API const std::vector<DType>& all_dtypes();

enum class Device { cpu, cuda };

XPOSE_API const char* to_string(Device device);
XPOSE_API Status parse_device(const std::string& name, Device* device);

// ---------------------------------------------------------------------------------------------
// A batch of row-major matrices. Input: `rows x cols`, element (i, j) at i * ld_in + j.
// Output: `cols x rows`, element (j, i) at j * ld_out + i. Matrix b starts at b * stride_in
// (input) and b * stride_out (output). All in elements; 0 means packed:
//   ld_in = cols, ld_out = rows, stride_in = rows * ld_in, stride_out = cols * ld_out.
// Elements between rows (the padding of a leading dimension) are never read or written.
struct Matrix {
  int64_t rows = 0, cols = 0;
  int64_t ld_in = 0, ld_out = 0;
  int64_t batch = 1;
  int64_t stride_in = 0, stride_out = 0;
};

// Options of a plan. Every field has a default that gives the production behaviour.
struct PlanOptions {
  // Kernel to use, by name; "auto" lets xpose choose. See kernel_names() for the list per device.
  // Some names are benchmark baselines that do not transpose (memcpy on the CPU): they copy the
  // packed input bytes to the output. kernel_transposes() tells them apart. The GPU baselines of
  // `xpose bench` (the seeds' kernels, copy kernels, cuBLAS geam) are not part of the library.
  std::string kernel = "auto";
  // CPU threads for the threaded kernels; 0 means all hardware threads.
  int threads = 0;
};

// Names of the kernels available for `device` in this build, "auto" first.
XPOSE_API std::vector<std::string> kernel_names(Device device);
// Whether a named kernel computes the transpose (false for the copy baselines).
XPOSE_API bool kernel_transposes(Device device, const std::string& name);

// Whether this build has the CUDA backend, and how many CUDA devices are visible right now.
XPOSE_API bool cuda_compiled();
XPOSE_API int cuda_device_count();

// ---------------------------------------------------------------------------------------------
// N-D permutations (NumPy: out = in.transpose(perm).copy()). Row-major: the last input dim is
// contiguous. Output dim i is input dim perm[i], so the output dims are dims[perm[0]], ...,
// dims[perm[rank - 1]], and out[j0, ..., j(rank-1)] = in[i0, ..., i(rank-1)] with i[perm[k]] = jk.
// A matrix transpose is dims {rows, cols}, perm {1, 0}; NCHW -> NHWC is perm {0, 2, 3, 1}.
//
// Strides are in elements, one per dim; empty means packed (row-major). in_strides[k] steps input
// dim k; out_strides[i] steps OUTPUT dim i. Strides must be non-negative and describe a view whose
// elements do not overlap: sorted by stride, each dim's stride must be at least the span of the
// dims with smaller strides. Elements outside the views are never read or written.
constexpr int kMaxPermuteRank = 16;

struct Permutation {
  std::vector<int64_t> dims;         // input dims, outermost first; 0 to kMaxPermuteRank of them
  std::vector<int> perm;             // output dim i is input dim perm[i]
  std::vector<int64_t> in_strides;   // per input dim; empty: packed
  std::vector<int64_t> out_strides;  // per output dim; empty: packed
};

// Names of the permute kernels for `device` in this build, "auto" first.
XPOSE_API std::vector<std::string> permute_kernel_names(Device device);
// Whether a named permute kernel computes the permutation (false for the memcpy baseline).
XPOSE_API bool permute_kernel_permutes(Device device, const std::string& name);

class XPOSE_API Plan {
 public:
  Plan();
  ~Plan();
  Plan(const Plan&);
  Plan& operator=(const Plan&);
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  // Validates the shape, type, device and options, and chooses the kernel. On failure `plan` is
  // left unchanged.
  static Status create(Plan& plan, const Matrix& matrix, DType type, Device device = Device::cpu,
                       const PlanOptions& options = {});

  // The same for an N-D permutation (see Permutation): validates, normalises the shape and
  // chooses the kernel; options.kernel names one of permute_kernel_names(device) or "auto". On
  // failure `plan` is left unchanged.
  static Status create_permute(Plan& plan, const Permutation& permutation, DType type,
                               Device device = Device::cpu, const PlanOptions& options = {});

  // An in-place transpose: `matrix.batch` packed row-major rows x cols matrices, matrix b at
  // b * rows * cols elements, become their packed cols x rows transposes in the same memory. Only
  // packed views: ld_in, ld_out, stride_in and stride_out must be 0 (or their packed values).
  // options.kernel must be "auto". Square matrices swap tiles across the diagonal; any other
  // shape runs a sequence of row and column permutations (docs/inplace.md) that needs
  // scratch_bytes() of temporary memory per execute. On failure `plan` is left unchanged.
  static Status create_inplace(Plan& plan, const Matrix& matrix, DType type, Device device = Device::cpu,
                               const PlanOptions& options = {});

  // Runs an in-place plan on `data`. The scratch is taken for the call: on the GPU from CUDA's
  // stream-ordered pool (cudaMallocAsync on `stream`, no host synchronisation), on the CPU from
  // the heap; out_of_memory, with `data` untouched, if it cannot be had. Several calls of one
  // plan may run at once on different data. Not for the other plans (and execute() is not for
  // this one).
  Status execute_inplace(void* data, void* stream = nullptr) const;

  // out = in^T for every matrix of the batch; for a permute plan, out = in permuted. Never
  // allocates; safe to call from several threads at once (on different outputs). `stream` is a
  // cudaStream_t for Device::cuda (nullptr: the default stream) and is ignored on the CPU. On the
  // GPU the call is asynchronous; pointers and stream must belong to the current device, and a
  // stream that is capturing a CUDA graph records the launches.
  Status execute(const void* in, void* out, void* stream = nullptr) const;

  bool valid() const;
  // Name of the chosen kernel ("" for an empty plan).
  const char* kernel_name() const;
  // The kernel's name and, where the kernel states it, what it launches, by the rules execute
  // applies: on the GPU the 2D tile kernel's tile shape, threads, blocks per SM and walk (from the
  // current GPU's properties, for pointers on 256 bytes and, where it differs, for pointers off 16
  // bytes), the N-D kernels' tile or box as the plan prepared it and the forms their accesses
  // take, and for a permute plan the kernel it falls back to for pointers its kernel cannot take.
  // For example "tile: aligned 64x64, 256 threads, 3 blocks/SM, rows fastest; pointers off 16
  // bytes: unaligned 128x64, ...". For logs and bug reports; the format may change.
  std::string describe() const;
  const Matrix& matrix() const;  // with the packed defaults filled in (empty for a permute plan)
  // Whether the plan permutes a tensor (create_permute) rather than transposing matrices.
  bool is_permute() const;
  // The permutation with its packed strides filled in (empty for a transpose plan).
  const Permutation& permutation() const;
  // Whether the plan transposes in place (create_inplace), and the bytes of scratch that each of
  // its executes takes (0 for square matrices and for the other plans).
  bool is_inplace() const;
  std::size_t scratch_bytes() const;
  DType dtype() const;
  Device device() const;

  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

// The one-shot calls below: a plan plus execute. Their plans are kept in a bounded, thread-safe
// cache (least recently used out first) keyed by everything a plan depends on: the shape, leading
// dimensions, strides and batch, the type, the device and, on Device::cuda, the current GPU. A
// repeated call costs a lookup instead of Plan::create. A failed call caches nothing.
// Default capacity 128 plans; 0 disables the cache and empties it.
XPOSE_API void set_plan_cache_capacity(std::size_t plans);
XPOSE_API void clear_plan_cache();
XPOSE_API std::size_t plan_cache_size();

// A plan plus execute: out = in^T for every matrix of the batch.
XPOSE_API Status transpose(const void* in, void* out, const Matrix& matrix, DType type,
                           Device device = Device::cpu, void* stream = nullptr);

// A plan plus execute_inplace: `data`, `batch` packed rows x cols matrices, becomes their packed
// cols x rows transposes (Plan::create_inplace). These plans are not cached.
XPOSE_API Status transpose_inplace(void* data, int64_t rows, int64_t cols, DType type,
                                   Device device = Device::cpu, void* stream = nullptr);
XPOSE_API Status transpose_inplace(void* data, const Matrix& matrix, DType type,
                                   Device device = Device::cpu, void* stream = nullptr);

// A plan plus execute: out = in permuted, for packed tensors and for strided views.
XPOSE_API Status permute(const void* in, void* out, const std::vector<int64_t>& dims,
                         const std::vector<int>& perm, DType type, Device device = Device::cpu,
                         void* stream = nullptr);
XPOSE_API Status permute(const void* in, void* out, const Permutation& permutation, DType type,
                         Device device = Device::cpu, void* stream = nullptr);

}  // namespace xpose
