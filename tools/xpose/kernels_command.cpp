// SPDX-License-Identifier: Apache-2.0
#include "kernels_command.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/kernel_registry.hpp"
#include "core/permute_registry.hpp"

namespace xpose::cli {
namespace {

void list_kernels(const std::vector<detail::Kernel>& kernels) {
  size_t width = std::strlen("auto");
  for (const detail::Kernel& kernel : kernels) width = std::max(width, std::strlen(kernel.name));
  const int name_width = static_cast<int>(width) + 2;
  std::printf("  %-*s%-11s%s\n", name_width, "auto", "transpose", "the production choice for each problem");
  for (const detail::Kernel& kernel : kernels)
    std::printf("  %-*s%-11s%s\n", name_width, kernel.name, kernel.transposes ? "transpose" : "copy",
                kernel.summary);
}

void list_permute_kernels(const std::vector<detail::PermuteKernel>& kernels) {
  size_t width = std::strlen("auto");
  for (const detail::PermuteKernel& kernel : kernels) width = std::max(width, std::strlen(kernel.name));
  const int name_width = static_cast<int>(width) + 2;
  std::printf("  %-*s%-11s%s\n", name_width, "auto", "permute", "the production choice for each tensor");
  for (const detail::PermuteKernel& kernel : kernels)
    std::printf("  %-*s%-11s%s\n", name_width, kernel.name, kernel.permutes ? "permute" : "copy", kernel.summary);
}

}  // namespace

CLI::App* add_kernels_command(CLI::App& app) {
  return app.add_subcommand("kernels", "List the kernels of each device (names for bench --kernels)");
}

int run_kernels_command() {
  std::printf("cpu:\n");
  list_kernels(detail::kernels(Device::cpu));
  std::printf("cpu, permute (--dims/--perm and permute suite lines):\n");
  list_permute_kernels(detail::cpu_permute_kernels());
  if (!cuda_compiled()) {
    std::printf("cuda: not built (this xpose build has no CUDA backend)\n");
    return 0;
  }
  const int devices = cuda_device_count();
  std::printf("cuda (%d device%s visible):\n", devices, devices == 1 ? "" : "s");
  list_kernels(detail::kernels(Device::cuda));
  std::printf("cuda, permute:\n");
  list_permute_kernels(detail::cuda_permute_kernels());
  return 0;
}

}  // namespace xpose::cli
