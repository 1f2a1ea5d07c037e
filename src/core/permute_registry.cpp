// SPDX-License-Identifier: Apache-2.0
#include "core/permute_registry.hpp"

#include "core/error.hpp"
#include "core/problem.hpp"

namespace xpose::detail {
namespace {

// What transpose2d prepared: the 2D problem and the 2D kernel chosen for it.
struct Transpose2DLaunch {
  Transpose2D problem;
  const Kernel* kernel = nullptr;
};

}  // namespace

const PermuteKernel* find_permute_kernel(Device device, const std::string& name) {
  const auto& kernels = device == Device::cpu ? cpu_permute_kernels() : cuda_permute_kernels();
  for (const PermuteKernel& kernel : kernels)
    if (name == kernel.name) return &kernel;
  return nullptr;
}

bool prepare_permute(const PermuteKernel& kernel, const PermuteProblem& problem,
                     const PermuteLayout& layout, PreparedPermute* prepared, std::string* why) {
  PreparedPermute p;
  p.kernel = &kernel;
  p.layout = layout;
  p.name = kernel.name;
  if (!kernel.prepare(problem, layout, &p, why)) return false;
  *prepared = std::move(p);
  return true;
}

bool dense_only(const PermuteProblem& problem, std::string* why) {
  if (problem.dense()) return true;
  if (why) *why = "it copies dense buffers only (no strided views)";
  return false;
}

bool prepare_transpose2d(const PermuteProblem& problem, const PermuteLayout& layout,
                         PreparedPermute* prepared, std::string* why) {
  Matrix matrix;
  if (!as_matrix(layout, &matrix)) {
    if (why) *why = "the normalised layout " + layout.describe() + " is not a (batched) 2D transpose";
    return false;
  }
  const DType type = layout.elem_size == problem.elem_size ? problem.type : dtype_of_size(layout.elem_size);
  auto launch = std::make_shared<Transpose2DLaunch>();
  if (make_problem(matrix, type, &launch->problem) != Status::ok) {
    // Strided views the 2D API does not describe (batches interleaved with rows, ...).
    if (why) *why = std::string("as a 2D transpose: ") + last_error_message();
    clear_error();
    return false;
  }
  const Device device = prepared->kernel->device;
  launch->kernel = device == Device::cpu ? choose_cpu_kernel(launch->problem)
                                         : choose_cuda_kernel(launch->problem);
  if (launch->kernel == nullptr) {
    if (why) *why = "no 2D kernel was chosen";
    return false;
  }
  prepared->name = std::string("transpose2d:") + launch->kernel->name;
  // The GPU 2D kernels access whole elements; the CPU ones work on any alignment.
  prepared->alignment = device == Device::cuda ? layout.elem_size : 1;
  prepared->data = std::move(launch);
  return true;
}

Status run_transpose2d(const void* in, void* out, const PreparedPermute& prepared, const LaunchContext& ctx) {
  const auto& launch = *static_cast<const Transpose2DLaunch*>(prepared.data.get());
  return launch.kernel->run(in, out, launch.problem, ctx);
}

std::string describe_transpose2d(const PreparedPermute& prepared) {
  const auto& launch = *static_cast<const Transpose2DLaunch*>(prepared.data.get());
  const Transpose2D& p = launch.problem;
  std::string text = "as " + std::to_string(p.rows) + "x" + std::to_string(p.cols);
  if (p.batch > 1) text += " batch " + std::to_string(p.batch);
  if (launch.kernel->describe != nullptr) text += "; " + launch.kernel->describe(p);
  return text;
}

}  // namespace xpose::detail

namespace xpose {

std::vector<std::string> permute_kernel_names(Device device) {
  std::vector<std::string> names{"auto"};
  const auto& kernels = device == Device::cpu ? detail::cpu_permute_kernels() : detail::cuda_permute_kernels();
  for (const auto& kernel : kernels) names.emplace_back(kernel.name);
  return names;
}

bool permute_kernel_permutes(Device device, const std::string& name) {
  if (name == "auto") return true;
  const detail::PermuteKernel* kernel = detail::find_permute_kernel(device, name);
  return kernel != nullptr && kernel->permutes;
}

}  // namespace xpose
