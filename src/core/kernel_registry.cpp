// SPDX-License-Identifier: Apache-2.0
#include "core/kernel_registry.hpp"

#include <cstring>
#include <deque>
#include <mutex>
#include <shared_mutex>

#include "core/error.hpp"

namespace xpose::detail {
namespace {

const std::vector<Kernel>& own_kernels(Device device) {
  return device == Device::cpu ? cpu_kernels() : cuda_kernels();
}

// Kernels registered from outside the library, per device. A deque keeps the addresses that
// plans hold stable as more are added.
struct Registered {
  std::shared_mutex mutex;
  std::deque<Kernel> cpu, cuda;
  std::deque<Kernel>& of(Device device) { return device == Device::cpu ? cpu : cuda; }
};

Registered& registered() {
  static Registered instance;
  return instance;
}

bool same_kernel(const Kernel& a, const Kernel& b) {
  return std::strcmp(a.name, b.name) == 0 && a.device == b.device && a.transposes == b.transposes &&
         a.supports == b.supports && a.run == b.run;
}

const Kernel* find_in(const std::deque<Kernel>& added, Device device, const char* name) {
  for (const Kernel& kernel : added)
    if (std::strcmp(name, kernel.name) == 0) return &kernel;
  for (const Kernel& kernel : own_kernels(device))
    if (std::strcmp(name, kernel.name) == 0) return &kernel;
  return nullptr;
}

}  // namespace

Status register_kernels(Device device, const std::vector<Kernel>& kernels) {
  Registered& r = registered();
  std::unique_lock<std::shared_mutex> lock(r.mutex);
  std::deque<Kernel>& added = r.of(device);
  std::vector<const Kernel*> fresh;
  for (const Kernel& kernel : kernels) {
    if (kernel.name == nullptr || *kernel.name == '\0' || kernel.supports == nullptr || kernel.run == nullptr)
      return fail(Status::invalid_argument, "register_kernels: a kernel needs a name, supports and run");
    if (kernel.device != device)
      return fail(Status::invalid_argument, message("register_kernels: kernel '", kernel.name, "' is for ",
                                                    to_string(kernel.device), ", not ", to_string(device)));
    if (std::strcmp(kernel.name, "auto") == 0)
      return fail(Status::invalid_argument, "register_kernels: 'auto' names the production choice");
    bool repeated = false;
    for (const Kernel* other : fresh) repeated = repeated || std::strcmp(other->name, kernel.name) == 0;
    if (repeated)
      return fail(Status::invalid_argument,
                  message("register_kernels: kernel '", kernel.name, "' is listed twice"));
    const Kernel* existing = find_in(added, device, kernel.name);
    if (existing != nullptr && !same_kernel(*existing, kernel))
      return fail(Status::invalid_argument, message("register_kernels: ", to_string(device), " already has a kernel '",
                                                    kernel.name, "'"));
    if (existing == nullptr) fresh.push_back(&kernel);
  }
  for (const Kernel* kernel : fresh) added.push_back(*kernel);
  return Status::ok;
}

std::vector<Kernel> kernels(Device device) {
  Registered& r = registered();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  const std::deque<Kernel>& added = r.of(device);
  std::vector<Kernel> all(added.begin(), added.end());
  const std::vector<Kernel>& own = own_kernels(device);
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

const Kernel* find_kernel(Device device, const std::string& name) {
  Registered& r = registered();
  std::shared_lock<std::shared_mutex> lock(r.mutex);
  return find_in(r.of(device), device, name.c_str());
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
  for (const auto& kernel : detail::kernels(device)) names.emplace_back(kernel.name);
  return names;
}

bool kernel_transposes(Device device, const std::string& name) {
  if (name == "auto") return true;
  const detail::Kernel* kernel = detail::find_kernel(device, name);
  return kernel != nullptr && kernel->transposes;
}

}  // namespace xpose
