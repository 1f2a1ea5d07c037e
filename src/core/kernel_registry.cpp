#include "core/kernel_registry.hpp"

#include "core/error.hpp"

namespace xpose::detail {

const Kernel* find_kernel(Device device, const std::string& name) {
  const auto& kernels = device == Device::cpu ? cpu_kernels() : cuda_kernels();
  for (const Kernel& kernel : kernels)
    if (name == kernel.name) return &kernel;
  return nullptr;
}

bool supports_packed_only(const Transpose2D& problem, std::string* why) {
  if (problem.packed()) return true;
  if (why) *why = "it copies packed buffers only (no leading dimensions or batch strides)";
  return false;
}

bool supports_all(const Transpose2D&, std::string*) { return true; }

}  // namespace xpose::detail

namespace xpose {

std::vector<std::string> kernel_names(Device device) {
  std::vector<std::string> names{"auto"};
  const auto& kernels = device == Device::cpu ? detail::cpu_kernels() : detail::cuda_kernels();
  for (const auto& kernel : kernels) names.emplace_back(kernel.name);
  return names;
}

bool kernel_transposes(Device device, const std::string& name) {
  if (name == "auto") return true;
  const detail::Kernel* kernel = detail::find_kernel(device, name);
  return kernel != nullptr && kernel->transposes;
}

}  // namespace xpose
