// SPDX-License-Identifier: Apache-2.0
// Plan: validate once, choose a kernel once, execute many times.
#include <cstdint>
#include <utility>

#include "core/error.hpp"
#include "core/inplace.hpp"
#include "core/kernel_registry.hpp"
#include "core/permute_plan.hpp"
#include "core/plan_cache.hpp"

namespace xpose {

struct Plan::Impl {
  Matrix matrix;  // with defaults filled in
  DType type = DType::u8;
  Device device = Device::cpu;
  detail::Transpose2D problem;
  const detail::Kernel* kernel = nullptr;
  detail::LaunchContext context;
  // A plan made by create_permute: the fields above stay empty and this holds the problem.
  bool is_permute = false;
  detail::PermutePlan permute;
  // A plan made by create_inplace: `matrix`, `type` and `device` above, and this.
  bool is_inplace = false;
  detail::InplaceProblem inplace;
  int64_t scratch_bytes = 0;
};

Plan::Plan() = default;
Plan::~Plan() = default;
Plan::Plan(const Plan&) = default;
Plan& Plan::operator=(const Plan&) = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

namespace {

Status check_device_and_options(Device device, const PlanOptions& options) {
  using detail::fail;
  using detail::message;
  if (device != Device::cpu && device != Device::cuda)
    return fail(Status::invalid_argument,
                message("device (", static_cast<int>(device), ") is not a valid xpose::Device"));
  if (options.threads < 0)
    return fail(Status::invalid_argument,
                message("options.threads (", options.threads, ") is negative"));
  return Status::ok;
}

}  // namespace

Status Plan::create(Plan& plan, const Matrix& matrix, DType type, Device device,
                    const PlanOptions& options) {
  using detail::fail;
  using detail::message;
  if (Status s = check_device_and_options(device, options); s != Status::ok) return s;

  auto impl = std::make_shared<Impl>();
  if (Status s = detail::make_problem(matrix, type, &impl->problem); s != Status::ok) return s;
  if (device == Device::cuda) {
    if (Status s = detail::cuda_check_available(); s != Status::ok) return s;
  }

  const detail::Transpose2D& p = impl->problem;
  if (options.kernel == "auto") {
    impl->kernel = device == Device::cpu ? detail::choose_cpu_kernel(p) : detail::choose_cuda_kernel(p);
    if (impl->kernel == nullptr)
      return fail(Status::internal_error, "no kernel chosen for a valid problem");
  } else {
    impl->kernel = detail::find_kernel(device, options.kernel);
    if (impl->kernel == nullptr) {
      std::string known;
      for (const auto& name : kernel_names(device)) known += " " + name;
      return fail(Status::invalid_argument, message("unknown kernel '", options.kernel, "' for ",
                                                    to_string(device), " (known:", known, ")"));
    }
    std::string why;
    if (!impl->kernel->supports(p, &why))
      return fail(Status::unsupported, message("kernel '", options.kernel, "' cannot run ",
                                               p.rows, " x ", p.cols, " ", to_string(type),
                                               " (batch ", p.batch, "): ", why));
  }

  impl->matrix = Matrix{p.rows, p.cols, p.ld_in, p.ld_out, p.batch, p.stride_in, p.stride_out};
  impl->type = type;
  impl->device = device;
  impl->context.threads = options.threads;
  plan.impl_ = std::move(impl);
  detail::clear_error();
  return Status::ok;
}

Status Plan::create_permute(Plan& plan, const Permutation& permutation, DType type, Device device,
                            const PlanOptions& options) {
  if (Status s = check_device_and_options(device, options); s != Status::ok) return s;
  auto impl = std::make_shared<Impl>();
  impl->is_permute = true;
  impl->type = type;
  impl->device = device;
  // Validate the arguments first, so that a bad shape is reported as such on any machine.
  detail::PermuteProblem problem;
  if (Status s = detail::make_permute_problem(permutation, type, &problem); s != Status::ok) return s;
  if (device == Device::cuda) {
    if (Status s = detail::cuda_check_available(); s != Status::ok) return s;
  }
  if (Status s = detail::make_permute_plan(std::move(problem), device, options, &impl->permute);
      s != Status::ok)
    return s;
  plan.impl_ = std::move(impl);
  detail::clear_error();
  return Status::ok;
}

Status Plan::create_inplace(Plan& plan, const Matrix& matrix, DType type, Device device,
                            const PlanOptions& options) {
  using detail::fail;
  using detail::message;
  if (Status s = check_device_and_options(device, options); s != Status::ok) return s;
  if (options.kernel != "auto")
    return fail(Status::invalid_argument, message("options.kernel ('", options.kernel, "') must be 'auto' for an "
                                                  "in-place transpose, which chooses its method by shape"));
  auto impl = std::make_shared<Impl>();
  if (Status s = detail::make_inplace_problem(matrix, type, device, &impl->inplace); s != Status::ok) return s;
  if (device == Device::cuda) {
    if (Status s = detail::cuda_check_available(); s != Status::ok) return s;
  }
  const detail::InplaceProblem& p = impl->inplace;
  impl->is_inplace = true;
  impl->matrix = Matrix{p.rows, p.cols, p.cols, p.rows, p.batch, p.rows * p.cols, p.rows * p.cols};
  impl->type = type;
  impl->device = device;
  impl->context.threads = options.threads;
  impl->scratch_bytes = device == Device::cpu ? detail::cpu_inplace_scratch_bytes(p, options.threads)
                                              : detail::cuda_inplace_scratch_bytes(p);
  plan.impl_ = std::move(impl);
  detail::clear_error();
  return Status::ok;
}

Status Plan::execute_inplace(void* data, void* stream) const {
  using detail::fail;
  if (!impl_) return fail(Status::invalid_argument, "execute_inplace() on an empty plan (create_inplace() it first)");
  if (!impl_->is_inplace)
    return fail(Status::invalid_argument,
                "execute_inplace() on a plan that is not in place: call execute(in, out, stream) for it");
  const detail::InplaceProblem& p = impl_->inplace;
  if (p.bytes() == 0) {
    detail::clear_error();
    return Status::ok;
  }
  if (data == nullptr) return fail(Status::invalid_argument, "data is null");
  if (impl_->device == Device::cuda) {
    if (Status s = detail::cuda_check_data_pointer(data, stream); s != Status::ok) return s;
    if (reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(p.elem_size) != 0)
      return fail(Status::invalid_argument,
                  detail::message("data (", data, ") is not aligned to the element size (", p.elem_size,
                                  " bytes), which the GPU kernels require"));
  }
  Status s = Status::ok;
  if (p.method != detail::InplaceMethod::nothing)
    s = impl_->device == Device::cpu ? detail::cpu_transpose_inplace(data, p, impl_->context.threads)
                                     : detail::cuda_transpose_inplace(data, p, stream);
  if (s == Status::ok) detail::clear_error();
  return s;
}

Status Plan::execute(const void* in, void* out, void* stream) const {
  using detail::fail;
  if (!impl_) return fail(Status::invalid_argument, "execute() on an empty plan (create() it first)");
  if (impl_->is_inplace)
    return fail(Status::invalid_argument,
                "execute() on an in-place plan: call execute_inplace(data, stream) for it");
  if (impl_->is_permute) {
    Status s = detail::execute_permute_plan(impl_->permute, in, out, stream);
    if (s == Status::ok) detail::clear_error();
    return s;
  }
  const detail::Transpose2D& p = impl_->problem;
  if (p.empty()) {
    detail::clear_error();
    return Status::ok;
  }
  if (Status s = detail::check_pointers(in, out, p); s != Status::ok) return s;
  detail::LaunchContext context = impl_->context;
  if (impl_->device == Device::cuda) {
    if (Status s = detail::cuda_check_pointers(in, out, stream); s != Status::ok) return s;
    // GPU kernels access whole elements; a misaligned element would fault.
    const auto misaligned = [&](const void* ptr) {
      return reinterpret_cast<std::uintptr_t>(ptr) % static_cast<std::uintptr_t>(p.elem_size) != 0;
    };
    if (misaligned(in) || misaligned(out))
      return fail(Status::invalid_argument,
                  detail::message(misaligned(in) ? "in (" : "out (", misaligned(in) ? in : out,
                                  ") is not aligned to the element size (", p.elem_size,
                                  " bytes), which the GPU kernels require"));
    context.stream = stream;
  }
  Status s = impl_->kernel->run(in, out, p, context);
  if (s == Status::ok) detail::clear_error();
  return s;
}

bool Plan::valid() const { return impl_ != nullptr; }
const char* Plan::kernel_name() const {
  if (!impl_) return "";
  if (impl_->is_inplace) {
    switch (impl_->inplace.method) {
      case detail::InplaceMethod::square: return "inplace_square";
      case detail::InplaceMethod::decomposed: return "inplace_decomposed";
      case detail::InplaceMethod::square_part: return "inplace_square_part";
      default: return "inplace_none";
    }
  }
  return impl_->is_permute ? impl_->permute.primary.name.c_str() : impl_->kernel->name;
}
std::string Plan::describe() const {
  if (!impl_) return "";
  std::string text = kernel_name();
  if (impl_->is_inplace) return text;
  if (!impl_->is_permute) {
    if (impl_->kernel->describe != nullptr) text += ": " + impl_->kernel->describe(impl_->problem);
    return text;
  }
  const auto details = [](const detail::PreparedPermute& prepared) {
    return prepared.kernel->describe != nullptr ? ": " + prepared.kernel->describe(prepared) : std::string();
  };
  const detail::PermutePlan& plan = impl_->permute;
  text += details(plan.primary);
  if (plan.fallback.kernel != nullptr)
    text += "; pointers off " + std::to_string(plan.primary.alignment) + " bytes: " + plan.fallback.name +
            details(plan.fallback);
  return text;
}

bool Plan::is_inplace() const { return impl_ && impl_->is_inplace; }
std::size_t Plan::scratch_bytes() const { return impl_ ? static_cast<std::size_t>(impl_->scratch_bytes) : 0; }
bool Plan::is_permute() const { return impl_ && impl_->is_permute; }
const Permutation& Plan::permutation() const {
  static const Permutation kEmpty{};
  return impl_ && impl_->is_permute ? impl_->permute.problem.permutation : kEmpty;
}
const Matrix& Plan::matrix() const {
  static const Matrix kEmpty{};
  return impl_ ? impl_->matrix : kEmpty;
}
DType Plan::dtype() const { return impl_ ? impl_->type : DType::u8; }
Device Plan::device() const { return impl_ ? impl_->device : Device::cpu; }

Status transpose(const void* in, void* out, const Matrix& matrix, DType type, Device device,
                 void* stream) {
  Plan plan;
  if (Status s = detail::cached_plan(matrix, type, device, &plan); s != Status::ok) return s;
  return plan.execute(in, out, stream);
}

Status transpose_inplace(void* data, const Matrix& matrix, DType type, Device device, void* stream) {
  Plan plan;
  if (Status s = Plan::create_inplace(plan, matrix, type, device); s != Status::ok) return s;
  return plan.execute_inplace(data, stream);
}

Status transpose_inplace(void* data, int64_t rows, int64_t cols, DType type, Device device, void* stream) {
  Matrix matrix;
  matrix.rows = rows;
  matrix.cols = cols;
  return transpose_inplace(data, matrix, type, device, stream);
}

Status permute(const void* in, void* out, const Permutation& permutation, DType type, Device device,
               void* stream) {
  Plan plan;
  if (Status s = detail::cached_permute_plan(permutation, type, device, &plan); s != Status::ok) return s;
  return plan.execute(in, out, stream);
}

Status permute(const void* in, void* out, const std::vector<int64_t>& dims, const std::vector<int>& perm,
               DType type, Device device, void* stream) {
  return permute(in, out, Permutation{dims, perm, {}, {}}, type, device, stream);
}

}  // namespace xpose
