// SPDX-License-Identifier: Apache-2.0
// Kernels registered from outside the library (how the benchmark baselines join the registry):
// they are listed, planned and run by name, and a bad registration changes nothing. The kernel
// registered here is a correct transpose (it runs the reference), so that tests which run every
// CPU kernel still pass when they share this process.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/transpose_check.hpp"
#include "core/kernel_registry.hpp"

namespace {

using xpose::Device;
using xpose::DType;
using xpose::Status;
using xpose::detail::Kernel;
using xpose::detail::LaunchContext;
using xpose::detail::Transpose2D;

Status run_registered(const void* in, void* out, const Transpose2D& p, const LaunchContext& ctx) {
  return xpose::detail::find_kernel(Device::cpu, "reference")->run(in, out, p, ctx);
}

const Kernel kRegistered{"registered_reference", Device::cpu, true, "the reference, registered from a test",
                         xpose::detail::supports_all, run_registered};

size_t count_of(const std::string& name, Device device) {
  const auto names = xpose::kernel_names(device);
  return static_cast<size_t>(std::count(names.begin(), names.end(), name));
}

TEST(KernelRegistration, RegisteredKernelIsListedPlannedAndRun) {
  ASSERT_EQ(xpose::detail::register_kernels(Device::cpu, {kRegistered}), Status::ok)
      << xpose::last_error_message();
  EXPECT_EQ(count_of("registered_reference", Device::cpu), 1u);
  EXPECT_TRUE(xpose::kernel_transposes(Device::cpu, "registered_reference"));
  const auto names = xpose::kernel_names(Device::cpu);
  EXPECT_EQ(names.front(), "auto");
  EXPECT_EQ(names[1], "registered_reference") << "registered kernels come before the library's own";

  xpose::Plan plan;
  ASSERT_EQ(xpose::Plan::create(plan, {29, 41}, DType::f32, Device::cpu, {"registered_reference", 0}),
            Status::ok)
      << xpose::last_error_message();
  EXPECT_STREQ(plan.kernel_name(), "registered_reference");
  const auto problem = xpose_test::problem_for(plan.matrix(), plan.dtype());
  const auto input = xpose_test::make_input(problem);
  auto output = xpose_test::make_output(problem);
  ASSERT_EQ(plan.execute(input.view(), output.view()), Status::ok) << xpose::last_error_message();
  EXPECT_TRUE(xpose_test::transposed_correctly(input, output, problem));
}

TEST(KernelRegistration, RegisteringTheSameKernelsAgainChangesNothing) {
  ASSERT_EQ(xpose::detail::register_kernels(Device::cpu, {kRegistered}), Status::ok);
  const auto before = xpose::kernel_names(Device::cpu);
  ASSERT_EQ(xpose::detail::register_kernels(Device::cpu, {kRegistered}), Status::ok);
  EXPECT_EQ(xpose::kernel_names(Device::cpu), before);
}

TEST(KernelRegistration, BadRegistrationIsRefusedWholeAndChangesNothing) {
  const auto before = xpose::kernel_names(Device::cpu);
  const Kernel fresh{"registered_fresh", Device::cpu, true, "", xpose::detail::supports_all, run_registered};
  const Kernel clash{"reference", Device::cpu, true, "", xpose::detail::supports_all, run_registered};  // a library name
  EXPECT_EQ(xpose::detail::register_kernels(Device::cpu, {fresh, clash}), Status::invalid_argument);
  EXPECT_NE(std::string(xpose::last_error_message()).find("already has a kernel 'reference'"), std::string::npos)
      << xpose::last_error_message();

  const Kernel other_device{"registered_gpu", Device::cuda, true, "", xpose::detail::supports_all, run_registered};
  EXPECT_EQ(xpose::detail::register_kernels(Device::cpu, {fresh, other_device}), Status::invalid_argument);
  const Kernel automatic{"auto", Device::cpu, true, "", xpose::detail::supports_all, run_registered};
  EXPECT_EQ(xpose::detail::register_kernels(Device::cpu, {automatic}), Status::invalid_argument);
  const Kernel no_run{"registered_no_run", Device::cpu, true, "", xpose::detail::supports_all, nullptr};
  EXPECT_EQ(xpose::detail::register_kernels(Device::cpu, {no_run}), Status::invalid_argument);
  EXPECT_EQ(xpose::detail::register_kernels(Device::cpu, {fresh, fresh}), Status::invalid_argument);

  EXPECT_EQ(xpose::kernel_names(Device::cpu), before);
  EXPECT_EQ(count_of("registered_fresh", Device::cpu), 0u);
}

}  // namespace
